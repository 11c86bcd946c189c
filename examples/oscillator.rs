//! The FESD paper's oscillator (FORMULATION §7): switch at t = 1 in (1, 0), analytic
//! end state. Radau IIA, n_s = 3, N_FE = 2, 29 steps over T = π/2. Prints the switch
//! time, the switch state, the end state and their errors; writes `oscillator.png`
//! and `oscillator.csv`.
//!
//! The model is written with `pss_model!`; `fesd::sim::models::oscillator` is the same
//! model through the builder (same graph, same kernels).
//!
//! Run: `cargo run --release --example oscillator [output-dir]`

use fesd::dsl::pss_model;
use fesd::sim::{models, Simulator, SimulatorOptions};
use std::path::PathBuf;

pss_model! {
    /// ẋ = A₁x outside the unit circle, A₂x inside: the trajectory spirals out, crosses
    /// c(x) = |x|² − 1 = 0 at t = 1 and spirals on.
    Oscillator {
        const W = 2.0 * std::f64::consts::PI;
        states    { x: 2 }
        switching { c = dot(x, x) - 1.0 }
        regions   {
            outside: [+] => [mtimes(matrix(&[[1.0, W], [-W, 1.0]])?, x)],
            inside:  [-] => [mtimes(matrix(&[[1.0, -W], [W, 1.0]])?, x)],
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "-h" || a == "--help") {
        println!("usage: oscillator [output directory, default .]");
        return Ok(());
    }
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    let t_end = std::f64::consts::FRAC_PI_2;
    let n_steps = 29;
    let mut opts: SimulatorOptions = SimulatorOptions { step: t_end / n_steps as f64, n_steps, ..Default::default() };
    opts.fesd.n_s = 3;
    opts.fesd.n_fe = 2;
    let oscillator = Oscillator::new()?;
    let mut sim = Simulator::new(&oscillator.model, opts)?;
    let r = sim.simulate(&models::oscillator_x0(), &[], &[])?;
    if !r.completed {
        return Err(format!("simulation stopped: {:#?}", r.failed_steps()).into());
    }
    let t_switch = *r.switch_times.first().ok_or("no switch detected")?;
    let k = r.t.iter().position(|t| *t == t_switch).ok_or("switch not on the grid")?;
    let exact = models::oscillator_exact(t_end);
    let err_end = ((r.x_final()[0] - exact[0]).powi(2) + (r.x_final()[1] - exact[1]).powi(2)).sqrt();
    println!(
        "{} steps, {} elements, {} Ipopt iterations, {:.1} ms (compile/load {:.1} ms)",
        r.steps.len(),
        r.h.len(),
        r.total_iterations(),
        r.timing.total * 1e3,
        r.timing.build * 1e3
    );
    println!("switch_time = {t_switch:.10}");
    println!("switch_time_error = {:.3e}", (t_switch - 1.0).abs());
    let traj = Oscillator::trajectory(&r)?;
    println!("switch_state = ({:.10}, {:.10})", traj.x.x[0][k], traj.x.x[1][k]);
    println!("x_T = ({:.10}, {:.10})", r.x_final()[0], r.x_final()[1]);
    println!("x_T_exact = ({:.10}, {:.10})", exact[0], exact[1]);
    println!("x_T_error = {err_end:.3e}");
    r.plot(&dir.join("oscillator.png"), "FESD oscillator (Radau IIA, n_s = 3, N_FE = 2)")?;
    r.write_csv(&dir.join("oscillator.csv"))?;
    println!("wrote {} and {}", dir.join("oscillator.png").display(), dir.join("oscillator.csv").display());
    Ok(())
}
