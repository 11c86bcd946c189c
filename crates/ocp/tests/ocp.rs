//! Optimal control with known answers, warm re-solves, and bad problems.

use casadi::SX;
use fesd_model::Representation;
use fesd_ocp::{problems, Horizon, InitialState, Ocp, OcpError, OcpSolver};

/// ẋ = u − sign(x), with its state and control symbols.
fn controlled_sign() -> (fesd_model::PssModel, SX, SX) {
    use fesd_model::{PssModel, Subsystem};
    let x = SX::sym("x", 1);
    let u = SX::sym("u", 1);
    let model = PssModel::new(x.clone()).with_controls(u.clone()).with_drift(u.clone()).with_subsystem(Subsystem::new(
        x.clone(),
        vec![vec![1], vec![-1]],
        vec![SX::scalar(-1.0), SX::scalar(1.0)],
    ));
    (model, x, u)
}

fn car(representation: Representation) -> Ocp {
    problems::car_turbo(10, 3, representation).unwrap()
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
        // The optimal controls, re-simulated at high accuracy, reach the same end state.
        let err = solver.resimulate(&r, 10).unwrap();
        assert!(err <= 1e-6, "{representation:?}: re-simulation error {err:e}");
        // Results by name agree with the vectors.
        let u3 = r.table.read(&r.w, "u", Some(3), None).unwrap();
        assert_eq!(u3, r.u[3].as_slice());
        // The same problem again: warm-started from the solution, few iterations.
        let runs = fesd_codegen::compiler_runs();
        let again = solver.solve().unwrap();
        assert!(again.status.is_converged() && (again.t_final - 40.0 / 3.0).abs() <= 1e-4);
        assert!(again.mpcc.total_iterations < r.mpcc.total_iterations, "{} vs {}", again.mpcc.total_iterations, r.mpcc.total_iterations);
        // A new start, 800/9 m ahead, warm-started from the last solution (the MPC use
        // case): same kernels. Accelerating and braking take 8/3 s each (three
        // intervals of T/10 when T = 80/9), cruising the rest: T = 16/3 + (160 −
        // 800/9)/20 = 80/9.
        solver.set_x0(&[800.0 / 9.0, 0.0]).unwrap();
        let r2 = solver.solve().unwrap();
        assert_eq!(fesd_codegen::compiler_runs(), runs);
        assert!(r2.status.is_converged());
        assert!((r2.t_final - 80.0 / 9.0).abs() <= 1e-4, "{representation:?}: T = {}", r2.t_final);
        // From the neutral guess instead the homotopy ends at a local minimum of the
        // discretized problem, which depends on the representation (Stewart: T =
        // 10.1695; Step: 80/9): never below the optimum, and converged.
        solver.reset_guess().unwrap();
        let r3 = solver.solve().unwrap();
        assert!(r3.status.is_converged() && r3.t_final >= 80.0 / 9.0 - 1e-4, "{representation:?}: T = {}", r3.t_final);
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
    // The reference implementation reports the objective 5.596209 for these settings.
    let ocp = problems::sliding_mode().unwrap();
    let r = OcpSolver::new(&ocp).unwrap().solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!((r.objective - 5.596209).abs() <= 1e-4, "objective {}", r.objective);
    assert!(r.comp_residual <= 1e-9);
    let xf = r.x.last().unwrap();
    let target = [-std::f64::consts::PI / 6.0, -std::f64::consts::PI / 4.0];
    assert!((xf[0] - target[0]).abs() < 1e-8 && (xf[1] - target[1]).abs() < 1e-8);
    // MUMPS as Ipopt's linear solver instead of the preset's LDLᵀ: the same optimum.
    let mut mumps = ocp.clone();
    mumps.options.homotopy.ipopt.push(("linear_solver".into(), "mumps".into()));
    let m = OcpSolver::new(&mumps).unwrap().solve().unwrap();
    assert!(m.status.is_converged() && m.comp_residual <= 1e-9, "{:?}", m.status);
    assert!((m.objective - r.objective).abs() <= 1e-6, "{} vs {}", m.objective, r.objective);
    // The same NLP expanded into one SX graph and evaluated by CasADi (no compiler
    // run) reaches the same optimum along the same homotopy.
    let mut expanded = ocp.clone();
    expanded.options.expand = true;
    let e = OcpSolver::new(&expanded).unwrap().solve().unwrap();
    assert!(e.status.is_converged(), "{:?}", e.status);
    assert!((e.objective - r.objective).abs() <= 1e-8, "{} vs {}", e.objective, r.objective);
    assert_eq!(e.mpcc.total_iterations, r.mpcc.total_iterations);
    let ef = e.x.last().unwrap();
    assert!(ef.iter().zip(xf).all(|(a, b)| (a - b).abs() < 1e-8));
}

/// Without the sliding-exit condition the optimizer leaves a sliding mode up to about
/// c₁h/2 early (undetectable at the next element's stages): re-simulating the
/// optimal controls misses the target by 1.9e-4. With it the exit lands where the
/// Filippov multiplier reaches zero, and the re-simulation error drops below 1e-6 —
/// more than 1e3 below the standard discretization's on twice the elements (Stewart
/// and Step).
#[test]
fn the_sliding_exit_condition_makes_the_resimulated_controls_exact() {
    let solve_with = |representation: Representation, n_fe: usize, use_fesd: bool, exit: bool| {
        let mut ocp = problems::sliding_mode().unwrap();
        ocp.options.fesd.representation = representation;
        ocp.options.fesd.n_fe = n_fe;
        ocp.options.fesd.use_fesd = use_fesd;
        ocp.options.fesd.sliding_exit_continuity = exit;
        let mut solver = OcpSolver::new(&ocp).unwrap();
        let r = solver.solve().unwrap();
        assert!(r.status.is_converged(), "{:?}", r.status);
        (solver.resimulate(&r, 40).unwrap(), r)
    };
    let solve = |n_fe: usize, use_fesd: bool, exit: bool| solve_with(Representation::Stewart, n_fe, use_fesd, exit);
    let (exit_error, r) = solve(3, true, true);
    let xf = r.x.last().unwrap();
    let target = [-std::f64::consts::PI / 6.0, -std::f64::consts::PI / 4.0];
    assert!((xf[0] - target[0]).abs() < 1e-8 && (xf[1] - target[1]).abs() < 1e-8);
    assert!(r.comp_residual <= 1e-9);
    let (standard_error, _) = solve(6, false, false);
    println!("re-simulation error: exit condition {exit_error:.3e}, standard {standard_error:.3e}");
    assert!(exit_error <= 1e-6, "{exit_error}");
    assert!(standard_error >= 1e3 * exit_error, "{standard_error} vs {exit_error}");
    // The Step representation's pairs (α ⊥ λn, 1 − α ⊥ λp) are siblings too:
    // 2.1e-3 without the condition, 2.2e-7 with it.
    let (step_error, _) = solve_with(Representation::Step, 3, true, true);
    assert!(step_error <= 1e-6, "Step: {step_error}");
}

#[test]
fn voice_coil_motor_matches_the_reference_implementation() {
    // N = 30, L2-relaxed-scaled step equilibration: the reference reports 0.839689.
    let r = OcpSolver::new(&problems::voice_coil_motor(30).unwrap()).unwrap().solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!((r.objective - 0.839689).abs() <= 1e-4, "objective {}", r.objective);
    let xf = r.x.last().unwrap();
    assert!((xf[0] - 0.01).abs() < 1e-8 && (xf[2] - 0.01).abs() < 1e-8);
    assert!(r.u.iter().all(|u| u[0].abs() <= 5.0 + 1e-9));
    // The homotopy stops at comp_tol = 1e-6; the active-set finish fixes the zero side
    // of every pair and certifies the branch solution S-stationary with exact
    // complementarity (15 Ipopt iterations from its warm start).
    let finish = r.mpcc.finish.as_ref().expect("finish report");
    assert_eq!(finish.stationarity, fesd_mpcc::Stationarity::SStationary, "{finish:?}");
    assert!(r.mpcc.comp_residual <= 1e-10, "{}", r.mpcc.comp_residual);
    // Early NLPs crawl near their solutions; the stagnation stop ends them (stated in
    // the messages), in fewer Ipopt iterations than without it. With MUMPS both reach
    // the same optimum; with the default LDLᵀ the crawl ends at the neighbouring local
    // minimum 0.840014.
    assert!(r.mpcc.messages.iter().any(|m| m.contains("objective stagnant")), "{:?}", r.mpcc.messages);
    // (stop off: stagnation_window = 0; another linear solver than the default)
    let solve = |stop: bool, linear_solver: Option<&str>| {
        let mut ocp = problems::voice_coil_motor(30).unwrap();
        if !stop {
            ocp.options.homotopy.stagnation_window = 0;
        }
        if let Some(name) = linear_solver {
            ocp.options.homotopy = ocp.options.homotopy.with_ipopt("linear_solver", name);
        }
        OcpSolver::new(&ocp).unwrap().solve().unwrap()
    };
    let crawling = solve(false, None);
    assert!(crawling.objective >= r.objective - 1e-9, "{} vs {}", crawling.objective, r.objective);
    assert!(r.mpcc.total_iterations < crawling.mpcc.total_iterations, "{} vs {}", r.mpcc.total_iterations, crawling.mpcc.total_iterations);
    let (stopped, crawling) = (solve(true, Some("mumps")), solve(false, Some("mumps")));
    assert!(stopped.status.is_converged() && (stopped.objective - 0.839689).abs() <= 1e-4, "MUMPS: {}", stopped.objective);
    assert_eq!(stopped.mpcc.finish.as_ref().map(|f| f.stationarity), Some(fesd_mpcc::Stationarity::SStationary));
    assert!((crawling.objective - stopped.objective).abs() <= 1e-6, "MUMPS: {} vs {}", crawling.objective, stopped.objective);
    assert!(
        stopped.mpcc.total_iterations < crawling.mpcc.total_iterations,
        "MUMPS: {} vs {}",
        stopped.mpcc.total_iterations,
        crawling.mpcc.total_iterations
    );
}

/// Model predictive control: after each solve the motor starts from the plan's state
/// one control interval later. A re-solve armed by `warm_start_from_last_solve`
/// (previous primal-dual point, homotopy from σ = warm_sigma_0) reaches the same
/// optimum as a solve from the neutral guess, in fewer Ipopt iterations.
#[test]
fn warm_re_solves_from_the_previous_primal_dual_point() {
    let ocp = problems::voice_coil_motor(30).unwrap();
    let mut mpc = OcpSolver::new(&ocp).unwrap();
    assert!(!mpc.warm_start_from_last_solve(), "no solve yet to start from");
    let mut plan = mpc.solve().unwrap();
    let mut cold = OcpSolver::new(&ocp).unwrap();
    let (mut warm_iterations, mut cold_iterations) = (0, 0);
    for step in 0..2 {
        let x1 = plan.x[2].clone(); // two elements per interval
        mpc.set_x0(&x1).unwrap();
        assert!(mpc.warm_start_from_last_solve());
        plan = mpc.solve().unwrap();
        cold.set_x0(&x1).unwrap();
        cold.reset_guess().unwrap();
        let reference = cold.solve().unwrap();
        assert!(plan.status.is_converged() && reference.status.is_converged(), "step {step}");
        assert!((plan.objective - reference.objective).abs() <= 1e-6, "step {step}: {} vs {}", plan.objective, reference.objective);
        assert!((plan.x[0][0] - x1[0]).abs() < 1e-12 && plan.mpcc.comp_residual <= 1e-6);
        warm_iterations += plan.mpcc.total_iterations;
        cold_iterations += reference.mpcc.total_iterations;
    }
    assert!(warm_iterations < cold_iterations, "{warm_iterations} vs {cold_iterations}");
}

#[test]
fn a_speed_limit_as_a_path_constraint_binds_like_the_bound() {
    // |v| ≤ 20 as a stage-wise path constraint instead of a state bound: T* = 40/3 again,
    // and the speed stays within the limit at every stage.
    let mut ocp = car(Representation::Stewart);
    ocp.x_lower = vec![f64::NEG_INFINITY; 2];
    ocp.x_upper = vec![f64::INFINITY; 2];
    let v = ocp.model.x.at(1).unwrap();
    ocp.path.push(fesd_ocp::PathConstraint { expr: v, lower: vec![-20.0], upper: vec![20.0], at: fesd_ocp::PathPoints::Stages });
    let r = OcpSolver::new(&ocp).unwrap().solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!((r.t_final - 40.0 / 3.0).abs() <= 1e-4, "T = {}", r.t_final);
    assert!(r.x.iter().all(|x| x[1] <= 20.0 + 1e-6));
}

#[test]
fn options_from_json_reject_unknown_keys() {
    let o: fesd_ocp::OcpOptions = serde_json::from_str(r#"{"fesd": {"n_fe": 4}, "homotopy": {"comp_tol": 1e-7}}"#).unwrap();
    assert_eq!((o.fesd.n_fe, o.homotopy.comp_tol, o.fesd.n_s), (4, 1e-7, 2));
    // Fields the JSON leaves out take the OCP's homotopy defaults, not the MPCC's.
    let direct = fesd_mpcc::HomotopyOptions { comp_tol: 1e-7, ..fesd_mpcc::presets::optimal_control() };
    assert_eq!((direct.sigma_0, direct.sigma_exponent), (1.0, 2.0));
    assert_eq!(o.homotopy, direct);
    assert_eq!(serde_json::from_str::<fesd_ocp::OcpOptions>("{}").unwrap(), fesd_ocp::OcpOptions::default());
    let e = serde_json::from_str::<fesd_ocp::OcpOptions>(r#"{"homotopy": {"sigma0": 1}}"#).unwrap_err().to_string();
    assert!(e.contains("sigma0"), "{e}");
    let e = serde_json::from_str::<fesd_ocp::OcpOptions>(r#"{"fesd": {"n_finite_elements": 4}}"#).unwrap_err().to_string();
    assert!(e.contains("n_finite_elements"), "{e}");
    // Ipopt options given by name come after the preset's (its linear solver stays).
    let o: fesd_ocp::OcpOptions = serde_json::from_str(r#"{"homotopy": {"ipopt": {"max_iter": 3000, "tol": 1e-9}}}"#).unwrap();
    let preset = fesd_mpcc::presets::optimal_control().ipopt;
    assert!(preset.iter().any(|(k, v)| k == "linear_solver" && v.to_string() == "ldl"), "{preset:?}");
    assert_eq!(o.homotopy.ipopt[..preset.len()], preset[..]);
    let added: Vec<_> = o.homotopy.ipopt[preset.len()..].iter().map(|(k, v)| (k.as_str(), v.to_string())).collect();
    assert_eq!(added, [("max_iter", "3000".to_string()), ("tol", "1e-9".to_string())]);
    assert!(matches!(o.homotopy.ipopt[preset.len()].1, fesd_mpcc::OptionValue::Int(3000)), "an integer option");
    let listed: fesd_ocp::OcpOptions = serde_json::from_str(r#"{"homotopy": {"ipopt": [["max_iter", {"Int": 3000}]]}}"#).unwrap();
    assert_eq!(listed.homotopy.ipopt[..], o.homotopy.ipopt[..preset.len() + 1]);
    for bad in [r#"[["max_iter"]]"#, r#"{"max_iter": true}"#] {
        let e = serde_json::from_str::<fesd_ocp::OcpOptions>(&format!(r#"{{"homotopy": {{"ipopt": {bad}}}}}"#)).unwrap_err().to_string();
        assert!(e.contains("ipopt"), "{e}");
    }
}

#[test]
fn tracking_a_reference_that_changes_between_solves() {
    // ẋ = u − sign(x): from x0 = 1, the reference r = 1 is held exactly with u = 1
    // (cost 0); then r = 1.5 in every interval: x moves up (no recompilation).
    let (model, x, _) = controlled_sign();
    let mut ocp = Ocp::new(model, 2.0, 4, &[1.0]);
    ocp.u_lower = vec![-5.0];
    ocp.u_upper = vec![5.0];
    ocp.tracking = Some(fesd_ocp::Tracking { expr: x.clone(), weight: vec![1.0], reference: vec![vec![1.0]; 4] });
    let mut solver = OcpSolver::new(&ocp).unwrap();
    let r = solver.solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!(r.x.iter().all(|v| (v[0] - 1.0).abs() < 1e-6), "{:?}", r.x);
    assert!(r.u.iter().all(|v| (v[0] - 1.0).abs() < 1e-5), "{:?}", r.u);
    let runs = fesd_codegen::compiler_runs();
    solver.set_reference(&vec![vec![1.5]; 4]).unwrap();
    let r2 = solver.solve().unwrap();
    assert_eq!(fesd_codegen::compiler_runs(), runs);
    assert!(r2.status.is_converged());
    assert!((r2.x.last().unwrap()[0] - 1.5).abs() < 0.05, "{:?}", r2.x);
    assert!(r2.cost > r.cost);
    assert!(solver.set_reference(&[vec![1.0]]).is_err());
}

#[test]
fn soft_terminal_constraints() {
    // ẋ = u − sign(x), x0 = 1, T = 1, min ∫u² with x(1) = 0.5 (x stays positive, so
    // x(1) = ∫u): the hard optimum is u ≡ 0.5, cost 0.25. As an ℓ1 penalty with weight
    // 10 (above the multiplier 1) the same; as ℓ2 with weight w, u ≡ a = 0.5 w/(1 + w).
    use fesd_ocp::{SoftTerminalConstraint, TerminalConstraint, TerminalPenalty};
    let (model, x, u) = controlled_sign();
    for penalty in [TerminalPenalty::L1 { weight: 10.0 }, TerminalPenalty::L2 { weight: 100.0 }] {
        let mut ocp = Ocp::new(model.clone(), 1.0, 4, &[1.0]);
        ocp.lagrange = Some(&u * &u);
        let constraint = TerminalConstraint { expr: x.clone(), lower: vec![0.5], upper: vec![0.5] };
        ocp.soft_terminal = Some(SoftTerminalConstraint { constraint, penalty });
        let r = OcpSolver::new(&ocp).unwrap().solve().unwrap();
        assert!(r.status.is_converged(), "{penalty:?}: {:?}", r.status);
        let a = match penalty {
            TerminalPenalty::L1 { .. } => 0.5,
            TerminalPenalty::L2 { weight } => 0.5 * weight / (1.0 + weight),
        };
        assert!(r.u.iter().all(|v| (v[0] - a).abs() < 1e-6), "{penalty:?}: {:?}", r.u);
        assert!((r.x.last().unwrap()[0] - a).abs() < 1e-6, "{penalty:?}: {:?}", r.x.last());
        assert!((r.cost - (a * a + if a == 0.5 { 0.0 } else { 100.0 * (a - 0.5).powi(2) })).abs() < 1e-6, "{penalty:?}: cost {}", r.cost);
    }
}

#[test]
fn a_free_parameter_is_optimized() {
    // ẋ = p − sign(x), x0 = −1, T = 1, min (x(1) − 0.5)² over the global p ∈ [0, 5]:
    // x crosses 0 at 1/(p + 1), then x(1) = (p − 1) p/(p + 1) = 0.5 at
    // p = (1.5 + √4.25)/2.
    use fesd_model::{PssModel, Subsystem};
    use fesd_ocp::FreeParameter;
    let x = SX::sym("x", 1);
    let p = SX::sym("p", 1);
    let model = PssModel::new(x.clone()).with_parameters(p.clone()).with_drift(p.clone()).with_subsystem(Subsystem::new(
        x.clone(),
        vec![vec![1], vec![-1]],
        vec![SX::scalar(-1.0), SX::scalar(1.0)],
    ));
    let mut ocp = Ocp::new(model, 1.0, 1, &[-1.0]);
    ocp.options.fesd.n_fe = 4;
    // No step-equilibration cost: it would trade against the Mayer term here.
    ocp.options.fesd.rho_h = 0.0;
    ocp.mayer = Some((&x - 0.5).powf(2.0));
    ocp.free_parameters = vec![FreeParameter { index: 0, lower: 0.0, upper: 5.0, guess: 1.0 }];
    let mut solver = OcpSolver::new(&ocp).unwrap();
    let r = solver.solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    let p_star = (1.5 + 4.25f64.sqrt()) / 2.0;
    assert!((r.p[0] - p_star).abs() < 1e-6, "p = {} vs {p_star}", r.p[0]);
    assert!((r.x.last().unwrap()[0] - 0.5).abs() < 1e-6);
    assert_eq!(r.switch_times.len(), 1);
    assert!((r.switch_times[0] - 1.0 / (p_star + 1.0)).abs() < 1e-6, "{:?}", r.switch_times);
    assert!(solver.resimulate(&r, 10).unwrap() < 1e-6);
    let mut bad = ocp.clone();
    bad.free_parameters[0].index = 3;
    assert!(matches!(OcpSolver::new(&bad), Err(OcpError::Invalid { what: "free_parameters", .. })));
}

#[test]
fn sensitivity_example_reaches_the_optimum_from_simulated_guesses() {
    for guess in [-3.0, -2.0, -1.0] {
        let mut solver = OcpSolver::new(&problems::sensitivity(true, guess)).unwrap();
        assert_eq!(solver.guess_by_simulation().unwrap(), 0);
        let r = solver.solve().unwrap();
        assert!(r.status.is_converged(), "{:?}", r.status);
        assert!((r.x[0][0] + 1.427572).abs() < 1e-4, "start {guess}: x0 = {}", r.x[0][0]);
        assert!((r.objective - 1.523773).abs() < 1e-4, "start {guess}: V = {}", r.objective);
    }
}

#[test]
fn state_bounds_at_stages() {
    // The speed bound |v| ≤ 20 also at the stages: the optimum is unchanged (the bound
    // is reached on a whole arc), and the differential form is refused by name.
    let mut ocp = car(Representation::Stewart);
    ocp.options.state_bounds_at_stages = true;
    let mut solver = OcpSolver::new(&ocp).unwrap();
    let r = solver.solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!((r.t_final - 40.0 / 3.0).abs() <= 1e-4, "T = {}", r.t_final);
    let ks = r.table.indices("k");
    let lb = &r.table.lb;
    assert!(ks.iter().filter(|&&i| lb[i] == -20.0).count() == ks.len() / 2, "every stage speed bounded");
    ocp.options.fesd.irk_representation = fesd_discretization::IrkRepresentation::Differential;
    match OcpSolver::new(&ocp) {
        Err(e) => assert!(e.to_string().contains("state_bounds_at_stages"), "{e}"),
        Ok(_) => panic!("the differential form must be refused"),
    }
}

#[test]
fn finite_elements_per_interval_as_a_list() {
    // The car with 3 and 2 elements in alternating intervals: T* = 40/3 again, the grid
    // has 25 elements, and the simulated guess fills intervals of either size.
    let mut ocp = car(Representation::Stewart);
    ocp.n_fe_per_interval = (0..10).map(|k| if k % 2 == 0 { 3 } else { 2 }).collect();
    let mut solver = OcpSolver::new(&ocp).unwrap();
    solver.guess_by_simulation().unwrap();
    let r = solver.solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!((r.t_final - 40.0 / 3.0).abs() <= 1e-4, "T = {}", r.t_final);
    assert_eq!(r.h.len(), 25);
    assert_eq!(r.t.len(), 26);
    // Σh = T/N in every interval.
    for k in 0..10 {
        let len = r.t_controls[k + 1] - r.t_controls[k];
        assert!((len - r.t_final / 10.0).abs() < 1e-8, "interval {k}: {len}");
    }
    ocp.n_fe_per_interval = vec![2; 9];
    match OcpSolver::new(&ocp) {
        Err(e) => assert!(e.to_string().contains("n_fe_per_interval"), "{e}"),
        Ok(_) => panic!("a list of the wrong length must be refused"),
    }
}

#[test]
fn a_lowering_passed_explicitly_drives_the_ocp_and_its_resimulation() {
    // The options name Stewart; the lowering given is Step's: Step is what runs.
    let ocp = car(Representation::Stewart);
    let mut solver = OcpSolver::with_lowering(&ocp, std::sync::Arc::new(fesd_model::Step { lift_products: false })).unwrap();
    // Step's unknowns: α, λp, λn for the one switching function.
    assert_eq!(solver.table().block("z", Some(0), Some(0)).unwrap().len, 3 * 2);
    let r = solver.solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!((r.t_final - 40.0 / 3.0).abs() <= 1e-4, "T = {}", r.t_final);
    let err = solver.resimulate(&r, 10).unwrap();
    assert!(err <= 1e-6, "re-simulation error {err:e}");
}

/// A state guess from a trajectory, read back by name: on the sliding-mode OCP
/// (differential form) every end state on the trajectory and every stage derivative
/// the element's secant; on the car (integral form, Radau IIA: c = 1/3, 1, the end
/// state is the last stage; free horizon, its guess T) the stage states on the
/// trajectory; the controls keep the table's guess. Solved from the straight line to
/// the target, the sliding-mode OCP reaches the reference's optimum (objective
/// 5.596209). A trajectory of
/// the wrong size and a guess vector of the wrong length are typed errors.
#[test]
fn a_state_guess_from_a_trajectory_fills_the_states_by_name() {
    use std::f64::consts::PI;
    let (x0, target) = ([2.0 * PI / 3.0, PI / 3.0], [-PI / 6.0, -PI / 4.0]);
    let line = |t: f64| vec![x0[0] + t / 4.0 * (target[0] - x0[0]), x0[1] + t / 4.0 * (target[1] - x0[1]), 0.0, 0.0];
    let mut solver = OcpSolver::new(&problems::sliding_mode().unwrap()).unwrap();
    let w = solver.state_guess(&line).unwrap();
    let table = solver.table();
    let h = 4.0 / 36.0;
    let slope = [(target[0] - x0[0]) / 4.0, (target[1] - x0[1]) / 4.0, 0.0, 0.0];
    for k in 0..6 {
        assert_eq!(table.read(&w, "u", Some(k), None).unwrap(), table.read(&table.guess, "u", Some(k), None).unwrap());
        for n in 0..6 {
            let end = line((6 * k + n + 1) as f64 * h);
            let x = table.read(&w, "x", Some(k), Some(n)).unwrap();
            assert!(x.iter().zip(&end).all(|(a, b)| (a - b).abs() < 1e-12), "x({k}, {n}) = {x:?}, expected {end:?}");
            let stages = table.read(&w, "k", Some(k), Some(n)).unwrap();
            assert!(stages.iter().zip(slope.iter().cycle()).all(|(a, b)| (a - b).abs() < 1e-12), "k({k}, {n}) = {stages:?}");
        }
    }
    solver.set_state_guess(&line).unwrap();
    let r = solver.solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!((r.objective - 5.596209).abs() <= 1e-4, "objective {}", r.objective);
    assert!(matches!(solver.state_guess(&|_| vec![0.0; 3]), Err(OcpError::Invalid { .. })));
    assert!(matches!(solver.set_initial_guess(&[0.0; 3]), Err(OcpError::Invalid { .. })));

    let car = car(Representation::Stewart);
    let t_guess = car.horizon.guess();
    let solver = OcpSolver::new(&car).unwrap();
    let trajectory = |t: f64| vec![200.0 * t / t_guess, 10.0 * (t / t_guess)];
    let w = solver.state_guess(&trajectory).unwrap();
    let (h, c) = (t_guess / 30.0, [1.0 / 3.0, 1.0]);
    for k in 0..10 {
        for n in 0..3 {
            let stages = solver.table().read(&w, "k", Some(k), Some(n)).unwrap();
            let t0 = (3 * k + n) as f64 * h;
            let expected: Vec<f64> = c.iter().flat_map(|cm| trajectory(t0 + cm * h)).collect();
            assert!(stages.iter().zip(&expected).all(|(a, b)| (a - b).abs() < 1e-9), "k({k}, {n}) = {stages:?}, expected {expected:?}");
            assert!(solver.table().block("x", Some(k), Some(n)).is_none());
        }
    }
}

/// Parameters that make the dynamics non-finite (x' = (u ∓ 1)/p at p = 0) fail the
/// solve with Ipopt's invalid-number status, also from a previous solution whose
/// complementarity already holds: the finish never certifies a point whose
/// constraints do not evaluate.
#[test]
fn a_model_that_evaluates_to_nan_fails_even_from_a_complementary_start() {
    let (x, u, p) = (SX::sym("x", 1), SX::sym("u", 1), SX::sym("p", 1));
    let up = (&u - 1.0) / &p;
    let down = (&u + 1.0) / &p;
    let model = fesd_model::PssModel::new(x.clone())
        .with_controls(u.clone())
        .with_parameters(p)
        .with_subsystem(fesd_model::Subsystem::new(x.clone(), vec![vec![1], vec![-1]], vec![up, down]));
    let mut ocp = Ocp::new(model, 2.0, 4, &[1.0]).with_control_bounds(&[-2.0], &[2.0]).with_lagrange(&x * &x + &u * &u);
    ocp.p = vec![1.0];
    let mut solver = OcpSolver::new(&ocp).unwrap();
    let good = solver.solve().unwrap();
    assert!(good.status.is_converged() && good.comp_residual <= 1e-9);
    solver.set_parameters(&[0.0]).unwrap();
    let bad = solver.solve().unwrap();
    // Ipopt's Invalid_Number_Detected is -13.
    let invalid = matches!(bad.status, fesd_mpcc::MpccStatus::NlpFailed { ipopt_status, .. } if ipopt_status.code() == -13);
    assert!(invalid, "{:?}", bad.status);
    assert!(bad.w.iter().all(|v| v.is_finite()), "the last iterate stays readable");
}

#[test]
fn the_terminal_constraint_pins_the_states_its_rows_fix_alone() {
    use fesd_model::{PssModel, Subsystem};
    use fesd_ocp::TerminalConstraint;
    let car = problems::car_turbo(10, 3, Representation::Stewart).unwrap();
    assert_eq!(car.terminal_state_targets().unwrap(), vec![Some(200.0), Some(0.0)]);
    let sliding = problems::sliding_mode().unwrap();
    let pi = std::f64::consts::PI;
    assert_eq!(sliding.terminal_state_targets().unwrap(), vec![Some(-pi / 6.0), Some(-pi / 4.0), None, None]);
    // Four states and a parameter: 2 x0 − 4 = 0 pins x0 at 2; x1 + x2, x3² and x3 − p
    // pin nothing, nor does a row whose bounds differ.
    let x = SX::sym("x", 4);
    let p = SX::sym("p", 1);
    let (x0, x1, x2, x3) = (x.at(0).unwrap(), x.at(1).unwrap(), x.at(2).unwrap(), x.at(3).unwrap());
    let model = PssModel::new(x.clone()).with_parameters(p.clone()).with_subsystem(Subsystem::new(
        x0.clone(),
        vec![vec![1], vec![-1]],
        vec![SX::zeros(4, 1), SX::zeros(4, 1)],
    ));
    let mut ocp = Ocp::new(model, 1.0, 2, &[0.0; 4]);
    let rows = [&x0 * 2.0 - 4.0, &x1 + &x2, &x3 * &x3, &x3 - &p, x1.clone()];
    let expr = SX::vertcat(&rows.iter().collect::<Vec<_>>()).unwrap();
    ocp.terminal = Some(TerminalConstraint { expr, lower: vec![0.0, 1.0, 4.0, 0.0, -1.0], upper: vec![0.0, 1.0, 4.0, 0.0, 1.0] });
    assert_eq!(ocp.terminal_state_targets().unwrap(), vec![Some(2.0), None, None, None]);
}

#[test]
fn the_cart_pole_swings_up_from_the_straight_line_guess() {
    // The reference implementation's cart-pole with friction: from the straight line to
    // the upright 338 Ipopt iterations, from x0 everywhere (the default) 770
    // (docs/evidence/ocp.md, "Straight-line guess"); both end at the upright.
    let mut ocp = problems::cart_pole(50).unwrap();
    assert!(!ocp.options.straight_line_guess);
    ocp.options.straight_line_guess = true;
    let mut solver = OcpSolver::new(&ocp).unwrap();
    let r = solver.solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    let end = r.x.last().unwrap();
    let upright = [0.0, std::f64::consts::PI, 0.0, 0.0];
    assert!(end.iter().zip(upright).all(|(a, b)| (a - b).abs() < 1e-6), "x(T) = {end:?}");
    assert!((r.objective - 619.0).abs() < 0.1, "cost {}", r.objective);
    assert!(r.mpcc.total_iterations < 500, "{} Ipopt iterations", r.mpcc.total_iterations);
    // From another x0 the line starts there.
    solver.set_x0(&[-1.0, 0.0, 0.0, 0.0]).unwrap();
    assert!(solver.guess_straight_line().unwrap());
}

#[test]
fn velocities_are_the_states_positions_integrate_in_every_region() {
    use fesd_ocp::ModelKind;
    let car = problems::car_turbo(10, 3, Representation::Stewart).unwrap();
    assert_eq!(car.model.velocity_states().unwrap(), vec![Some(1), None]);
    // x1' = v1 and x2' = v2 through the drift, the friction subsystem adding 0 to both.
    let motor = problems::voice_coil_motor(30).unwrap();
    assert_eq!(motor.model.velocity_states().unwrap(), vec![Some(1), None, Some(3), None, None]);
    // q' = ∓1 + v differs between the regions.
    let sliding = problems::sliding_mode().unwrap();
    assert_eq!(sliding.model.velocity_states().unwrap(), vec![None; 4]);
    let cart_pole = problems::cart_pole(10).unwrap();
    assert_eq!(cart_pole.model.velocity_states().unwrap(), vec![Some(2), Some(3), None, None]);
    // ẋ = u − sign(x): a control in the rate.
    let (model, _, _) = controlled_sign();
    assert_eq!(model.velocity_states().unwrap(), vec![None]);
}

#[test]
fn the_car_from_the_straight_line_reaches_the_same_optimum_sooner() {
    // q from 0 to 200 over the guessed T = 15 at the speed 200/15 (v = q̇): 79 Ipopt
    // iterations against 155 from x0 (docs/evidence/ocp.md, "Straight-line guess").
    let mut ocp = car(Representation::Stewart);
    let from_x0 = OcpSolver::new(&ocp).unwrap().solve().unwrap();
    ocp.options.straight_line_guess = true;
    let from_line = OcpSolver::new(&ocp).unwrap().solve().unwrap();
    for r in [&from_x0, &from_line] {
        assert!(r.status.is_converged() && (r.t_final - 40.0 / 3.0).abs() <= 1e-4, "{:?}, T = {}", r.status, r.t_final);
    }
    assert!(
        from_line.mpcc.total_iterations < from_x0.mpcc.total_iterations,
        "{} against {} iterations",
        from_line.mpcc.total_iterations,
        from_x0.mpcc.total_iterations
    );
}
