//! The FESD paper's sliding-mode OCP, in the reference implementation's variant:
//! q̇_i = −sign(φ_i(q)) + v_i, v̇ = u, φ1 = q1 + 0.15 q2², φ2 = q2 − 0.05 q1³ (two
//! independent subsystems), x(0) = (2π/3, π/3, 0, 0), T = 4, cost ∫ v1² + v2² dt,
//! q(T) = (−π/6, −π/4), |u| ≤ 10, N = 6, N_FE = 6, Radau IIA n_s = 2, differential
//! representation, heuristic-mean step equilibration ρ_h = 10, comp_tol 1e-9.
//!
//! Run: `cargo run --release --example sliding_mode_ocp`

use fesd::casadi::SX;
use fesd::model::{PssModel, Subsystem};
use fesd::ocp::{Ocp, OcpSolver, TerminalConstraint};
use fesd::sim::IrkRepresentation;
use std::f64::consts::PI;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = SX::sym("x", 4);
    let u = SX::sym("u", 2);
    let (q1, q2, v1, v2) = (x.at(0)?, x.at(1)?, x.at(2)?, x.at(3)?);
    let f0 = SX::vertcat(&[&v1, &v2, &u.at(0)?, &u.at(1)?])?;
    let e = |i: usize, s: f64| {
        let mut v = [0.0; 4];
        v[i] = s;
        SX::from_slice(&v)
    };
    let phi1 = &q1 + &(&q2 * &q2 * 0.15);
    let phi2 = &q2 - &(&q1 * &q1 * &q1 * 0.05);
    let model = PssModel::new(x.clone())
        .with_controls(u.clone())
        .with_drift(f0)
        .with_subsystem(Subsystem::new(phi1, vec![vec![1], vec![-1]], vec![e(0, -1.0), e(0, 1.0)]))
        .with_subsystem(Subsystem::new(phi2, vec![vec![1], vec![-1]], vec![e(1, -1.0), e(1, 1.0)]));
    let mut ocp = Ocp::new(model, 4.0, 6, &[2.0 * PI / 3.0, PI / 3.0, 0.0, 0.0]);
    ocp.u_lower = vec![-10.0; 2];
    ocp.u_upper = vec![10.0; 2];
    ocp.lagrange = Some(&v1 * &v1 + &v2 * &v2);
    ocp.terminal = Some(TerminalConstraint { expr: SX::vertcat(&[&q1, &q2])?, lower: vec![-PI / 6.0, -PI / 4.0], upper: vec![-PI / 6.0, -PI / 4.0] });
    ocp.options.fesd.n_fe = 6;
    ocp.options.fesd.irk_representation = IrkRepresentation::Differential;
    ocp.options.fesd.rho_h = 10.0;
    if std::env::args().any(|a| a == "reference") {
        ocp.options.fesd.gamma_h = 1.0;
    }
    ocp.options.homotopy.verbosity = 1;
    let mut solver = OcpSolver::new(&ocp)?;
    println!("built in {:.2} s", solver.build_time().as_secs_f64());
    let r = solver.solve()?;
    println!("status: {:?}, {} Ipopt iterations, {:.3} s", r.status, r.mpcc.total_iterations, r.mpcc.timing.total);
    println!("cost = {:.6}", r.cost);
    println!("objective = {:.6}", r.objective);
    println!("comp_residual = {:.3e}", r.comp_residual);
    Ok(())
}
