//! FESD-J simulation benchmark: Ipopt iterations, failed steps and wall time of the
//! rigid-body cases with known answers (bouncing ball with ε = 1, 0.8 and 0, a block
//! sliding to rest, a ball bouncing on a plane with friction). Prints per case
//! `<case>_ipopt_iterations` (of the pieces kept), `<case>_failed_steps`,
//! `<case>_halved_iterations` (of the pieces given up and halved),
//! `<case>_wall_time_s`.
//!
//! Run: `cargo run --release --example cls_benchmark [-- <case> …]`

use fesd::cls::models::{bouncing_ball, point_on_plane};
use fesd::cls::ClsModel;
use fesd::sim::{Simulator, SimulatorOptions};
use std::time::Instant;

struct Case {
    name: &'static str,
    model: ClsModel,
    q0: Vec<f64>,
    v0: Vec<f64>,
    step: f64,
    n_steps: usize,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cases = [
        Case { name: "ball_elastic", model: bouncing_ball(1.0), q0: vec![0.8], v0: vec![0.0], step: 0.15, n_steps: 20 },
        Case { name: "ball_eps08", model: bouncing_ball(0.8), q0: vec![1.0], v0: vec![0.0], step: 0.1, n_steps: 27 },
        Case { name: "ball_plastic", model: bouncing_ball(0.0), q0: vec![1.0], v0: vec![0.0], step: 0.1, n_steps: 15 },
        Case {
            name: "block_sliding",
            model: point_on_plane(0.0, 0.5, 0.0)?,
            q0: vec![0.0, 0.0],
            v0: vec![2.0, 0.0],
            step: 0.1,
            n_steps: 8,
        },
        Case {
            name: "ball_on_plane",
            model: point_on_plane(0.5, 0.3, 0.0)?,
            q0: vec![0.0, 1.0],
            v0: vec![3.0, 0.0],
            step: 0.05,
            n_steps: 50,
        },
    ];
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    for c in cases.iter().filter(|c| wanted.is_empty() || wanted.iter().any(|w| w == c.name)) {
        let opts = SimulatorOptions::<ClsModel> { step: c.step, n_steps: c.n_steps, ..Default::default() };
        let mut sim = Simulator::<ClsModel>::new(&c.model, opts)?;
        let start = Instant::now();
        let r = sim.simulate_from(&c.q0, &c.v0, &[], &[])?;
        let wall = start.elapsed().as_secs_f64();
        let retried = r.steps.iter().filter(|s| s.attempts.len() > 1).count();
        println!("{}: {} pieces, {} retried, {} impacts", c.name, r.steps.len(), retried, r.impacts.len());
        println!("{}_ipopt_iterations = {}", c.name, r.total_iterations() - r.halved_iterations());
        println!("{}_failed_steps = {}", c.name, r.failed_steps().len());
        println!("{}_halved_iterations = {}", c.name, r.halved_iterations());
        println!("{}_wall_time_s = {wall:.3}", c.name);
    }
    Ok(())
}
