//! Three blocks with Coulomb friction (three independent switched subsystems on the
//! velocities), the reference implementation's friction example: Stewart, Radau IIA
//! n_s = 2, differential form, N_FE = 3, 120 steps of 5/120. Prints iterations, the
//! share spent in failed attempts, wall time and the end state; writes a plot.
//!
//! Run: `cargo run --release --example friction_blocks [output-dir]`

use fesd::sim::{models, IrkRepresentation, Simulator, SimulatorOptions};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "-h" || a == "--help") {
        println!("usage: friction_blocks [output directory, default .]");
        return Ok(());
    }
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    let mut opts: SimulatorOptions = SimulatorOptions { step: 5.0 / 120.0, n_steps: 120, ..Default::default() };
    opts.fesd.n_s = 2;
    opts.fesd.n_fe = 3;
    opts.fesd.irk_representation = IrkRepresentation::Differential;
    let mut sim = Simulator::new(&models::friction_blocks()?, opts)?;
    let x0 = models::friction_blocks_x0();
    let mut best = f64::INFINITY;
    let mut result = None;
    for _ in 0..3 {
        let t = Instant::now();
        let r = sim.simulate(&x0, &[], &[])?;
        best = best.min(t.elapsed().as_secs_f64());
        result = Some(r);
    }
    let r = result.ok_or("no run")?;
    let it = r.total_iterations();
    println!("{} solves, {} elements, {} switches", r.steps.len(), r.h.len(), r.switch_times.len());
    println!("completed = {}", r.completed);
    println!("friction_ipopt_iterations = {it}");
    println!("friction_wasted_iterations = {}", r.wasted_iterations());
    println!("friction_wasted_share = {:.3}", r.wasted_iterations() as f64 / it.max(1) as f64);
    println!("friction_wall_time_s = {best:.4}");
    let xf = r.x_final();
    println!("x_T = ({})", xf.iter().map(|v| format!("{v:.6}")).collect::<Vec<_>>().join(", "));
    r.plot(&dir.join("friction_blocks.png"), "Three blocks with Coulomb friction")?;
    println!("wrote {}", dir.join("friction_blocks.png").display());
    if !r.completed {
        return Err("simulation did not complete".into());
    }
    Ok(())
}
