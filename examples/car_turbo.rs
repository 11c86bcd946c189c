//! Time-optimal car with a turbo (the FESD paper's example): q̇ = v, v̇ = u for v < 10
//! and 3u for v > 10, |u| ≤ 5, |v| ≤ 20, from (0, 0) to (200, 0) in minimal time T.
//! N = 10 control intervals, N_FE = 3, Radau IIA n_s = 2, Stewart (default) or Step
//! (`-- step`). The optimum is T* = 40/3: full throttle to v = 20, cruise, full brake.
//!
//! Run: `cargo run --release --example car_turbo [-- step]`

use fesd::model::{PssModel, Representation, Subsystem};
use fesd::ocp::{Horizon, Ocp, OcpSolver, TerminalConstraint};
use fesd::casadi::SX;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let step = std::env::args().any(|a| a == "step");
    let x = SX::sym("x", 2);
    let u = SX::sym("u", 1);
    let v = x.at(1)?;
    let f = |gain: f64| SX::vertcat(&[&v, &(&u * gain)]);
    let model = PssModel::new(x.clone())
        .with_controls(u.clone())
        .with_subsystem(Subsystem::new(&v - 10.0, vec![vec![1], vec![-1]], vec![f(3.0)?, f(1.0)?]));
    let mut ocp = Ocp::new(model, 15.0, 10, &[0.0, 0.0]);
    ocp.horizon = Horizon::Free { lower: 1.0, upper: 30.0, guess: 15.0 };
    ocp.time_cost = 1.0;
    ocp.u_lower = vec![-5.0];
    ocp.u_upper = vec![5.0];
    ocp.x_lower = vec![f64::NEG_INFINITY, -20.0];
    ocp.x_upper = vec![f64::INFINITY, 20.0];
    ocp.terminal = Some(TerminalConstraint { expr: x.clone(), lower: vec![200.0, 0.0], upper: vec![200.0, 0.0] });
    ocp.options.fesd.n_fe = 3;
    ocp.options.fesd.n_s = 2;
    if step {
        ocp.options.fesd.representation = Representation::Step;
    }
    ocp.options.homotopy.verbosity = 1;
    let mut solver = OcpSolver::new(&ocp)?;
    println!("transcribed and compiled in {:.2} s ({} unknowns)", solver.build_time().as_secs_f64(), solver.table().len());
    let r = solver.solve()?;
    println!("status: {:?}, {} Ipopt iterations, {:.3} s", r.status, r.mpcc.total_iterations, r.mpcc.timing.total);
    println!("T_final = {:.7}", r.t_final);
    println!("T_error = {:.3e}", (r.t_final - 40.0 / 3.0).abs());
    println!("comp_residual = {:.3e}", r.comp_residual);
    println!("u = {:?}", r.u.iter().map(|u| format!("{:.3}", u[0])).collect::<Vec<_>>());
    if !r.status.is_converged() {
        return Err(format!("not converged: {:?}", r.status).into());
    }
    Ok(())
}
