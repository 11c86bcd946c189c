//! The FESD paper's sliding-mode OCP, in the reference implementation's variant:
//! q̇_i = −sign(φ_i(q)) + v_i, v̇ = u, φ1 = q1 + 0.15 q2², φ2 = q2 − 0.05 q1³ (two
//! independent subsystems), x(0) = (2π/3, π/3, 0, 0), T = 4, cost ∫ v1² + v2² dt,
//! q(T) = (−π/6, −π/4), |u| ≤ 10, N = 6, N_FE = 6, Radau IIA n_s = 2, differential
//! representation, heuristic-mean step equilibration ρ_h = 10, comp_tol 1e-9.
//!
//! Run: `cargo run --release --example sliding_mode_ocp`

use fesd::ocp::{problems, OcpSolver};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut ocp = problems::sliding_mode()?;
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
