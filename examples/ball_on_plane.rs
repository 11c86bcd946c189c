//! FESD-J with friction: a unit point mass thrown horizontally onto flat ground with
//! restitution ε = 0.5 and Coulomb friction μ = 0.3 (planar contact). Each impact
//! reverses the normal velocity (× ε) and takes μΛ_n of tangential momentum while
//! the ball slips; the bounces accumulate (ε < 1), the ball then slides on the
//! ground, decelerated at μg, and sticks.
//!
//! Prints `impact_time = …` per impact, `t_stop = …` (first boundary at rest),
//! `x_final = …`; writes `ball_on_plane.png` (over time) and
//! `ball_on_plane_path.png` (the path in the plane) into the output directory.
//!
//! Run: `cargo run --release --example ball_on_plane [-- output-dir]`

use fesd::cls::models::point_on_plane;
use fesd::cls::ClsModel;
use fesd::sim::{Simulator, SimulatorOptions};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "-h" || a == "--help") {
        println!("usage: ball_on_plane [output directory, default .]");
        return Ok(());
    }
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    let (eps, mu) = (0.5, 0.3);
    let opts = SimulatorOptions::<ClsModel> { step: 0.05, n_steps: 50, ..Default::default() };
    let mut sim = Simulator::<ClsModel>::new(&point_on_plane(eps, mu, 0.0)?, opts)?;
    let start = Instant::now();
    let r = sim.simulate_from(&[0.0, 1.0], &[3.0, 0.0], &[], &[])?;
    println!(
        "simulated in {:.3} s, {} Ipopt iterations, {} failed steps",
        start.elapsed().as_secs_f64(),
        r.total_iterations(),
        r.failed_steps().len()
    );
    for imp in &r.impacts {
        println!("impact_time = {:.7}", imp.time);
        println!(
            "  v before ({:+.5}, {:+.5}) after ({:+.5}, {:+.5}), impulse {:.5}",
            imp.v_before[0], imp.v_before[1], imp.v_after[0], imp.v_after[1], imp.impulse
        );
    }
    if let Some(i) = r.v.iter().position(|v| v[0].abs() < 1e-7 && v[1].abs() < 1e-7) {
        println!("t_stop = {:.7}", r.t[i]);
    }
    println!("x_final = {:.7}", r.q_final()[0]);
    r.plot(&dir.join("ball_on_plane.png"), "Ball on a plane with friction (FESD-J)")?;
    r.plot_plane(&dir.join("ball_on_plane_path.png"), "Path of the ball (impacts in red)", 0, 1)?;
    r.write_csv(&dir.join("ball_on_plane.csv"))?;
    r.write_json(&dir.join("ball_on_plane.json"))?;
    println!("wrote {}", dir.join("ball_on_plane_path.png").display());
    Ok(())
}
