//! Time-optimal car with a turbo (the FESD paper's example): q̇ = v, v̇ = u for v < 10
//! and 3u for v > 10, |u| ≤ 5, |v| ≤ 20, from (0, 0) to (200, 0) in minimal time T.
//! N = 10 control intervals, N_FE = 3, Radau IIA n_s = 2, Stewart (default) or Step
//! (`-- step`). The optimum is T* = 40/3: full throttle to v = 20, cruise, full brake.
//!
//! Writes `car_turbo.png`, `.json` and `.csv` into the output directory.
//!
//! Run: `cargo run --release --example car_turbo [-- [step] [output-dir]]`

use fesd::model::Representation;
use fesd::ocp::{problems, OcpSolver};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let step = std::env::args().any(|a| a == "step");
    let representation = if step { Representation::Step } else { Representation::Stewart };
    let mut ocp = problems::car_turbo(10, 3, representation)?;
    ocp.options.homotopy.verbosity = 1;
    let mut solver = OcpSolver::new(&ocp)?;
    println!("transcribed and compiled in {:.2} s ({} unknowns)", solver.build_time().as_secs_f64(), solver.table().len());
    let r = solver.solve()?;
    println!("status: {:?}, {} Ipopt iterations, {:.3} s", r.status, r.mpcc.total_iterations, r.mpcc.timing.total);
    println!("T_final = {:.7}", r.t_final);
    println!("T_error = {:.3e}", (r.t_final - 40.0 / 3.0).abs());
    println!("comp_residual = {:.3e}", r.comp_residual);
    println!("resimulation_error = {:.3e}", solver.resimulate(&r, 20)?);
    println!("u = {:?}", r.u.iter().map(|u| format!("{:.3}", u[0])).collect::<Vec<_>>());
    println!("switch_times = {:?}", r.switch_times.iter().map(|t| format!("{t:.6}")).collect::<Vec<_>>());
    let dir = std::path::PathBuf::from(std::env::args().skip(1).find(|a| a != "step").unwrap_or_else(|| ".".into()));
    r.plot(&dir.join("car_turbo.png"), "Time-optimal car with turbo (FESD, N = 10, N_FE = 3)")?;
    r.write_json(&dir.join("car_turbo.json"))?;
    r.write_csv(&dir.join("car_turbo.csv"))?;
    println!("wrote {}", dir.join("car_turbo.png").display());
    if !r.status.is_converged() {
        return Err(format!("not converged: {:?}", r.status).into());
    }
    Ok(())
}
