//! Relay feedback system of Piiroinen & Kuznetsov (2008), eq. 32: ω = 25, ξ = 0.05,
//! σ = 1, x(0) = (0, −0.001, −0.02), T = 10 in 200 steps, Radau IIA n_s = 2, N_FE = 2.
//! Prints the switches found, the end state and timings; writes `relay_feedback.png`.
//!
//! Run: `cargo run --release --example relay_feedback [output-dir]`

use fesd::sim::{models, Simulator, SimulatorOptions};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "-h" || a == "--help") {
        println!("usage: relay_feedback [output directory, default .]");
        return Ok(());
    }
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    let mut opts: SimulatorOptions = SimulatorOptions { step: 10.0 / 200.0, n_steps: 200, ..Default::default() };
    opts.fesd.n_s = 2;
    opts.fesd.n_fe = 2;
    let mut sim = Simulator::new(&models::relay_feedback(25.0, 0.05, 1.0)?, opts)?;
    let r = sim.simulate(&[0.0, -0.001, -0.02], &[], &[])?;
    let halved = r.steps.iter().filter(|s| s.halvings > 0 && s.status.is_converged()).count();
    println!("{} solves ({} on halved steps), {} elements, {} Ipopt iterations", r.steps.len(), halved, r.h.len(), r.total_iterations());
    println!("switches at {:?}", r.switch_times.iter().map(|t| format!("{t:.5}")).collect::<Vec<_>>());
    println!("completed = {}", r.completed);
    println!("n_switches = {}", r.switch_times.len());
    println!("x_T = ({:.8}, {:.8}, {:.8})", r.x_final()[0], r.x_final()[1], r.x_final()[2]);
    println!("wall_time_s = {:.4}", r.timing.total);
    r.plot(&dir.join("relay_feedback.png"), "Relay feedback (Piiroinen & Kuznetsov 2008, eq. 32)")?;
    println!("wrote {}", dir.join("relay_feedback.png").display());
    if !r.completed {
        return Err("simulation did not complete".into());
    }
    Ok(())
}
