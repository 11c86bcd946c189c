//! The FESD paper's sliding-mode OCP, in the reference implementation's variant:
//! q̇_i = −sign(φ_i(q)) + v_i, v̇ = u, φ1 = q1 + 0.15 q2², φ2 = q2 − 0.05 q1³ (two
//! independent subsystems), x(0) = (2π/3, π/3, 0, 0), T = 4, cost ∫ v1² + v2² dt,
//! q(T) = (−π/6, −π/4), |u| ≤ 10, N = 6, N_FE = 6, Radau IIA n_s = 2, differential
//! representation, heuristic-mean step equilibration ρ_h = 10, comp_tol 1e-9. Prints
//! the objective (the reference reports 5.596209) and the terminal error of a
//! high-accuracy re-simulation of the optimal controls, for FESD and for the standard
//! discretization.
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
    // (The error does not change with 5 or 50 re-simulation steps per interval: it is
    // the OCP discretization's.)
    let fesd_error = solver.resimulate(&r, 20)?;
    println!("resimulation_error = {fesd_error:.3e}");
    // The standard discretization (fixed steps) of the same OCP, for comparison.
    let mut standard = problems::sliding_mode()?;
    standard.options.fesd.use_fesd = false;
    let mut s2 = OcpSolver::new(&standard)?;
    let r2 = s2.solve()?;
    let std_error = s2.resimulate(&r2, 20)?;
    println!("standard: {:?}, objective {:.6}, {} Ipopt iterations, {:.3} s", r2.status, r2.objective, r2.mpcc.total_iterations, r2.mpcc.timing.total);
    println!("standard_resimulation_error = {std_error:.3e}");
    println!("error_ratio = {:.1}", std_error / fesd_error.max(1e-300));
    Ok(())
}
