//! Optimal control with known answers, warm re-solves, and bad problems.

use casadi::SX;
use fesd_model::{PssModel, Representation, Subsystem};
use fesd_ocp::{Horizon, InitialState, Ocp, OcpError, OcpSolver, TerminalConstraint};

/// The time-optimal car with turbo: T* = 40/3 from (0, 0) to (200, 0).
fn car(representation: Representation) -> Ocp {
    let x = SX::sym("x", 2);
    let u = SX::sym("u", 1);
    let v = x.at(1).unwrap();
    let f = |gain: f64| SX::vertcat(&[&v, &(&u * gain)]).unwrap();
    let model = PssModel::new(x.clone()).with_controls(u.clone()).with_subsystem(Subsystem::new(&v - 10.0, vec![vec![1], vec![-1]], vec![f(3.0), f(1.0)]));
    let mut ocp = Ocp::new(model, 15.0, 10, &[0.0, 0.0]);
    ocp.horizon = Horizon::Free { lower: 1.0, upper: 30.0, guess: 15.0 };
    ocp.time_cost = 1.0;
    ocp.u_lower = vec![-5.0];
    ocp.u_upper = vec![5.0];
    ocp.x_lower = vec![f64::NEG_INFINITY, -20.0];
    ocp.x_upper = vec![f64::INFINITY, 20.0];
    ocp.terminal = Some(TerminalConstraint { expr: x, lower: vec![200.0, 0.0], upper: vec![200.0, 0.0] });
    ocp.options.fesd.n_fe = 3;
    ocp.options.fesd.representation = representation;
    ocp
}

#[test]
fn time_optimal_car_with_turbo_stewart_and_step() {
    for representation in [Representation::Stewart, Representation::Step] {
        let mut solver = OcpSolver::new(&car(representation)).unwrap();
        let r = solver.solve().unwrap();
        assert!(r.status.is_converged(), "{representation:?}: {:?}", r.status);
        assert!((r.t_final - 40.0 / 3.0).abs() <= 1e-4, "{representation:?}: T = {}", r.t_final);
        assert!((r.x.last().unwrap()[0] - 200.0).abs() < 1e-6 && r.x.last().unwrap()[1].abs() < 1e-6);
        assert_eq!(r.u.len(), 10);
        assert!((r.u[0][0] - 5.0).abs() < 1e-6 && (r.u[9][0] + 5.0).abs() < 1e-6, "{:?}", r.u);
        assert!((r.t.last().unwrap() - r.t_final).abs() < 1e-9);
        // Results by name agree with the vectors.
        let u3 = r.table.read(&r.w, "u", Some(3), None).unwrap();
        assert_eq!(u3, r.u[3].as_slice());
        // A new start, 800/9 m ahead: same kernels, warm start. Accelerating and braking
        // take 8/3 s each (three intervals of T/10 when T = 80/9), cruising the rest:
        // T = 16/3 + (160 − 800/9)/20 = 80/9.
        let runs = fesd_codegen::compiler_runs();
        solver.set_x0(&[800.0 / 9.0, 0.0]).unwrap();
        let r2 = solver.solve().unwrap();
        assert_eq!(fesd_codegen::compiler_runs(), runs);
        assert!(r2.status.is_converged());
        assert!((r2.t_final - 80.0 / 9.0).abs() <= 1e-4, "T = {}", r2.t_final);
    }
}

#[test]
fn bad_problems_are_typed_errors() {
    let err = |ocp: &Ocp| match OcpSolver::new(ocp) {
        Err(e) => e,
        Ok(_) => panic!("expected an error"),
    };
    let mut ocp = car(Representation::Stewart);
    ocp.n_intervals = 0;
    assert!(matches!(err(&ocp), OcpError::Invalid { what: "n_intervals", .. }));
    let mut ocp = car(Representation::Stewart);
    ocp.u_lower = vec![6.0];
    assert!(matches!(err(&ocp), OcpError::Invalid { what: "u", .. }));
    let mut ocp = car(Representation::Stewart);
    ocp.x0 = InitialState::Fixed(vec![0.0]);
    assert!(matches!(err(&ocp), OcpError::Invalid { what: "x0", .. }));
    let mut ocp = car(Representation::Stewart);
    ocp.lagrange = Some(SX::sym("l", 2));
    assert!(matches!(err(&ocp), OcpError::Invalid { what: "lagrange", .. }));
    let mut ocp = car(Representation::Stewart);
    ocp.mayer = Some(SX::sym("stray", 1));
    let e = err(&ocp);
    assert!(matches!(e, OcpError::Invalid { what: "mayer", .. }) && e.to_string().contains("stray"), "{e}");
    let mut ocp = car(Representation::Stewart);
    ocp.horizon = Horizon::Free { lower: 5.0, upper: 1.0, guess: 2.0 };
    assert!(matches!(err(&ocp), OcpError::Invalid { what: "horizon", .. }));
}

#[test]
fn an_unreachable_terminal_constraint_ends_with_an_honest_status() {
    // 200 m in at most 5 s is impossible (v ≤ 20): not converged, last iterate returned.
    let mut ocp = car(Representation::Stewart);
    ocp.horizon = Horizon::Free { lower: 1.0, upper: 5.0, guess: 4.0 };
    ocp.options.homotopy.max_recoveries = 1;
    let r = OcpSolver::new(&ocp).unwrap().solve().unwrap();
    assert!(!r.status.is_converged(), "{:?}", r.status);
    assert_eq!(r.x.len(), 31);
    assert!(r.w.iter().all(|v| v.is_finite()));
}

#[test]
fn sliding_mode_ocp_matches_the_reference_implementation() {
    // The FESD paper's sliding-mode OCP in the reference implementation's variant and
    // settings (Stewart, differential form, heuristic mean ρ_h = 10, γ_h = 1): the
    // reference reports an objective of 5.596209.
    use std::f64::consts::PI;
    let x = SX::sym("x", 4);
    let u = SX::sym("u", 2);
    let (q1, q2, v1, v2) = (x.at(0).unwrap(), x.at(1).unwrap(), x.at(2).unwrap(), x.at(3).unwrap());
    let f0 = SX::vertcat(&[&v1, &v2, &u.at(0).unwrap(), &u.at(1).unwrap()]).unwrap();
    let e = |i: usize, s: f64| {
        let mut v = [0.0; 4];
        v[i] = s;
        SX::from_slice(&v)
    };
    let phi1 = &q1 + &(&q2 * &q2 * 0.15);
    let phi2 = &q2 - &(&q1 * &q1 * &q1 * 0.05);
    let model = PssModel::new(x.clone())
        .with_controls(u)
        .with_drift(f0)
        .with_subsystem(Subsystem::new(phi1, vec![vec![1], vec![-1]], vec![e(0, -1.0), e(0, 1.0)]))
        .with_subsystem(Subsystem::new(phi2, vec![vec![1], vec![-1]], vec![e(1, -1.0), e(1, 1.0)]));
    let mut ocp = Ocp::new(model, 4.0, 6, &[2.0 * PI / 3.0, PI / 3.0, 0.0, 0.0]);
    ocp.u_lower = vec![-10.0; 2];
    ocp.u_upper = vec![10.0; 2];
    ocp.lagrange = Some(&v1 * &v1 + &v2 * &v2);
    let target = [-PI / 6.0, -PI / 4.0];
    ocp.terminal = Some(TerminalConstraint { expr: SX::vertcat(&[&q1, &q2]).unwrap(), lower: target.to_vec(), upper: target.to_vec() });
    ocp.options.fesd.n_fe = 6;
    ocp.options.fesd.irk_representation = fesd_sim::IrkRepresentation::Differential;
    ocp.options.fesd.rho_h = 10.0;
    ocp.options.fesd.gamma_h = 1.0;
    let r = OcpSolver::new(&ocp).unwrap().solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!((r.objective - 5.596209).abs() <= 1e-4, "objective {}", r.objective);
    assert!(r.comp_residual <= 1e-9);
    let xf = r.x.last().unwrap();
    assert!((xf[0] - target[0]).abs() < 1e-8 && (xf[1] - target[1]).abs() < 1e-8);
}
