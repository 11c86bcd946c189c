//! Optimal-control speed and accuracy against the reference implementation's cases
//! (its `reference_ocps.py`): the sliding-mode OCP (N = 6, N_FE = 6) and the
//! voice-coil motor with Coulomb friction (N = 30, 60, 120, 240; N_FE = 2,
//! L2-relaxed-scaled step equilibration, comp_tol 1e-6). Per case it prints
//! `<case>_wall_time_s` (solve only, compilation excluded), `<case>_ipopt_iterations`
//! and `<case>_cost` (the NLP objective, as the reference reports it).
//!
//! Run: `cargo run --release --example ocp_benchmark [-- <case> …]`

use fesd::casadi::SX;
use fesd::model::{PssModel, Subsystem};
use fesd::ocp::{Ocp, OcpSolver, TerminalConstraint};
use fesd::sim::{IrkRepresentation, StepEquilibration};
use std::f64::consts::PI;

fn sliding_mode() -> Result<Ocp, Box<dyn std::error::Error>> {
    let x = SX::sym("x", 4);
    let u = SX::sym("u", 2);
    let (q1, q2, v1, v2) = (x.at(0)?, x.at(1)?, x.at(2)?, x.at(3)?);
    let f0 = SX::vertcat(&[&v1, &v2, &u.at(0)?, &u.at(1)?])?;
    let e = |i: usize, s: f64| {
        let mut v = [0.0; 4];
        v[i] = s;
        SX::from_slice(&v)
    };
    let model = PssModel::new(x.clone())
        .with_controls(u)
        .with_drift(f0)
        .with_subsystem(Subsystem::new(&q1 + &(&q2 * &q2 * 0.15), vec![vec![1], vec![-1]], vec![e(0, -1.0), e(0, 1.0)]))
        .with_subsystem(Subsystem::new(&q2 - &(&q1 * &q1 * &q1 * 0.05), vec![vec![1], vec![-1]], vec![e(1, -1.0), e(1, 1.0)]));
    let mut ocp = Ocp::new(model, 4.0, 6, &[2.0 * PI / 3.0, PI / 3.0, 0.0, 0.0]);
    ocp.u_lower = vec![-10.0; 2];
    ocp.u_upper = vec![10.0; 2];
    ocp.lagrange = Some(&v1 * &v1 + &v2 * &v2);
    let target = vec![-PI / 6.0, -PI / 4.0];
    ocp.terminal = Some(TerminalConstraint { expr: SX::vertcat(&[&q1, &q2])?, lower: target.clone(), upper: target });
    ocp.options.fesd.n_fe = 6;
    ocp.options.fesd.irk_representation = IrkRepresentation::Differential;
    ocp.options.fesd.rho_h = 10.0;
    ocp.options.fesd.gamma_h = 1.0;
    Ok(ocp)
}

/// Voice-coil motor: x = (x1, v1, x2, v2, I), friction F_R on the sign of v1.
fn motor(n: usize) -> Result<Ocp, Box<dyn std::error::Error>> {
    let (m1, m2, k, r, l, k_f, k_s, f_r) = (1.03, 0.56, 2.4e3, 2.0, 2e-3, 12.0, 12.0, 2.1);
    let x = SX::sym("x", 5);
    let u = SX::sym("u", 1);
    let (x1, v1, x2, v2, i) = (x.at(0)?, x.at(1)?, x.at(2)?, x.at(3)?, x.at(4)?);
    let f0 = SX::vertcat(&[
        &v1,
        &((&x2 - &x1) * (k / m1) + &i * (k_f / m1)),
        &v2,
        &((&x1 - &x2) * (k / m2)),
        &((&u - &(&i * r) - &(&v1 * k_s)) / l),
    ])?;
    let friction = |sign: f64| SX::from_slice(&[0.0, sign * f_r / m1, 0.0, 0.0, 0.0]);
    let model = PssModel::new(x.clone())
        .with_controls(u.clone())
        .with_drift(f0)
        .with_subsystem(Subsystem::new(v1, vec![vec![1], vec![-1]], vec![friction(-1.0), friction(1.0)]));
    let mut ocp = Ocp::new(model, 0.08, n, &[0.0; 5]);
    ocp.u_lower = vec![-5.0];
    ocp.u_upper = vec![5.0];
    ocp.lagrange = Some(&u * &u);
    let target = vec![0.01, 0.0, 0.01, 0.0, 0.0];
    ocp.terminal = Some(TerminalConstraint { expr: x, lower: target.clone(), upper: target });
    ocp.options.fesd.n_fe = 2;
    ocp.options.fesd.step_equilibration = StepEquilibration::L2RelaxedScaled;
    ocp.options.homotopy.comp_tol = 1e-6;
    // The reference's γ_h = 1: with fesd's default 0.9 the homotopy ends in another
    // local minimum (cost 0.963802).
    ocp.options.fesd.gamma_h = 1.0;
    Ok(ocp)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let all = ["sliding_mode", "motor_30", "motor_60", "motor_120", "motor_240"];
    let cases: Vec<String> = std::env::args().skip(1).collect();
    let cases: Vec<String> = if cases.is_empty() { all.iter().map(|s| s.to_string()).collect() } else { cases };
    for case in &cases {
        let ocp = match case.as_str() {
            "sliding_mode" => sliding_mode()?,
            c if c.starts_with("motor_") => motor(c["motor_".len()..].parse()?)?,
            other => return Err(format!("unknown case {other}; one of {all:?}").into()),
        };
        let mut solver = OcpSolver::new(&ocp)?;
        let r = solver.solve()?;
        println!("{case}: {:?}, built in {:.2} s, {} unknowns", r.status, solver.build_time().as_secs_f64(), solver.table().len());
        println!("{case}_wall_time_s = {:.4}", r.mpcc.timing.total);
        println!("{case}_ipopt_iterations = {}", r.mpcc.total_iterations);
        println!("{case}_cost = {:.6}", r.objective);
        println!("{case}_ms_per_iteration = {:.3}", r.mpcc.timing.total / r.mpcc.total_iterations.max(1) as f64 * 1e3);
    }
    Ok(())
}
