//! FESD-J on the 1-D bouncing ball: q̇ = v, v̇ = −g, gap q ≥ 0, Newton restitution ε.
//! Dropped from q0 = 0.8 at rest with ε = 1 (default), simulated to T = 3 in 20 steps
//! of 2 finite elements (Radau IIA, n_s = 2). Every impact lands on an element
//! boundary; the exact impact times are 0.403855 + k · 0.807710 and the final state
//! (q, v) = (0.538626, 2.264542).
//!
//! Prints one `impact_time = …` line per detected impact, `q_final = …`, `v_final = …`
//! and their errors against the analytic solution; writes `bouncing_ball.png`, `.csv`
//! and `.json` into the output directory.
//!
//! The model is written with `cls_model!`; `fesd::cls::models::bouncing_ball` is the
//! same model through the builder.
//!
//! Run: `cargo run --release --example bouncing_ball [-- [--eps E] [--q0 Q] [output-dir]]`

use fesd::cls::models::G;
use fesd::cls::ClsModel;
use fesd::dsl::cls_model;
use fesd::sim::{Simulator, SimulatorOptions};
use std::time::Instant;

cls_model! {
    /// A ball of unit mass above the ground: height y, gap y, restitution `eps`.
    Ball(eps: f64) {
        q { y }
        v { vy }
        forces [-G]
        contacts { ground: gap y, restitution eps }
    }
}

/// Exact impact times and state at `t_end` of a ball dropped from rest at `q0`.
fn analytic(q0: f64, eps: f64, t_end: f64) -> (Vec<f64>, f64, f64) {
    let (mut t, mut speed, mut impacts) = ((2.0 * q0 / G).sqrt(), (2.0 * G * q0).sqrt(), vec![]);
    let (mut t_last, mut v_last, mut q_last) = (0.0, 0.0, q0);
    while t <= t_end && speed > 1e-9 {
        impacts.push(t);
        (t_last, v_last, q_last) = (t, eps * speed, 0.0);
        speed *= eps;
        t += 2.0 * speed / G;
    }
    let dt = t_end - t_last;
    (impacts, q_last + v_last * dt - 0.5 * G * dt * dt, v_last - G * dt)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str, default: f64| -> Result<f64, Box<dyn std::error::Error>> {
        match args.iter().position(|a| a == flag) {
            Some(i) => Ok(args.get(i + 1).ok_or(format!("{flag} needs a value"))?.parse()?),
            None => Ok(default),
        }
    };
    let (eps, q0) = (value("--eps", 1.0)?, value("--q0", 0.8)?);
    let dir = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !args[i - 1].starts_with("--")))
        .map(|(_, a)| a.clone())
        .next()
        .unwrap_or_else(|| ".".into());
    let opts = SimulatorOptions::<ClsModel> { step: 0.15, n_steps: 20, ..Default::default() };
    let start = Instant::now();
    let mut sim = Simulator::<ClsModel>::new(&Ball::new(eps)?.model, opts)?;
    println!("built in {:.2} s", start.elapsed().as_secs_f64());
    let start = Instant::now();
    let r = sim.simulate_from(&[q0], &[0.0], &[], &[])?;
    println!(
        "simulated in {:.3} s, {} Ipopt iterations, {} failed steps",
        start.elapsed().as_secs_f64(),
        r.total_iterations(),
        r.failed_steps().len()
    );
    let (exact, q_exact, v_exact) = analytic(q0, eps, 3.0);
    println!("{:>4} {:>12} {:>12} {:>10} {:>10} {:>10}", "k", "t_impact", "exact", "error", "v_before", "v_after");
    for (k, imp) in r.impacts.iter().enumerate() {
        let ex = exact.get(k).copied().unwrap_or(f64::NAN);
        println!(
            "{k:>4} {:>12.7} {ex:>12.7} {:>10.2e} {:>10.5} {:>10.5}",
            imp.time,
            (imp.time - ex).abs(),
            imp.v_before[0],
            imp.v_after[0]
        );
    }
    for imp in &r.impacts {
        println!("impact_time = {:.7}", imp.time);
    }
    let traj = Ball::trajectory(&r)?;
    println!("q_final = {:.7}", traj.q.y.last().ok_or("no states")?);
    println!("v_final = {:.7}", traj.v.vy.last().ok_or("no states")?);
    println!("q_final_error = {:.3e}", (r.q_final()[0] - q_exact).abs());
    println!("v_final_error = {:.3e}", (r.v_final()[0] - v_exact).abs());
    let dir = std::path::PathBuf::from(dir);
    r.plot(&dir.join("bouncing_ball.png"), &format!("Bouncing ball, FESD-J (restitution {eps})"))?;
    r.write_csv(&dir.join("bouncing_ball.csv"))?;
    r.write_json(&dir.join("bouncing_ball.json"))?;
    println!("wrote {}", dir.join("bouncing_ball.png").display());
    if !r.failed_steps().is_empty() {
        return Err(format!("{} steps failed", r.failed_steps().len()).into());
    }
    Ok(())
}
