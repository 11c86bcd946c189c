//! Time-optimal car with a turbo (the FESD paper's example): q̇ = v, v̇ = u for v < 10
//! and 3u for v > 10, |u| ≤ 5, |v| ≤ 20, from (0, 0) to (200, 0) in minimal time T.
//! N = 10 control intervals, N_FE = 3, Radau IIA n_s = 2, Stewart (default) or Step
//! (`-- step`). The optimum is T* = 40/3: full throttle to v = 20, cruise, full brake.
//!
//! Writes `car_turbo.png`, `.json` and `.csv` into the output directory.
//!
//! The model and its OCP are written with `pss_model!`; `fesd::ocp::problems::car_turbo`
//! is the same OCP through the builder.
//!
//! Run: `cargo run --release --example car_turbo [-- [step] [output-dir]]`

use fesd::dsl::pss_model;
use fesd::model::Representation;
use fesd::ocp::OcpSolver;

pss_model! {
    /// Time-optimal car with a turbo: the control acts three times as strongly above v = 10.
    CarTurbo(n: usize, n_fe: usize, representation: Representation) {
        states    { q, v in -20.0..=20.0 }
        controls  { u in -5.0..=5.0 }
        switching { c = v - 10.0 }
        regions   { turbo: c > 0 => [v, u * 3.0], normal: c < 0 => [v, u * 1.0] }
        ocp time_optimal {
            intervals n, elements n_fe, horizon free(1.0..=30.0, guess 15.0),
            x0 [0.0, 0.0], minimize T, terminal { q == 200.0, v == 0.0 },
            options.fesd.representation = representation,
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let step = std::env::args().any(|a| a == "step");
    let representation = if step { Representation::Step } else { Representation::Stewart };
    let car = CarTurbo::new(10, 3, representation)?;
    let mut ocp = car.time_optimal()?;
    ocp.options.homotopy.verbosity = 1;
    let mut solver = OcpSolver::new(&ocp)?;
    println!("transcribed and compiled in {:.2} s ({} unknowns)", solver.build_time().as_secs_f64(), solver.table().len());
    let r = solver.solve()?;
    println!("status: {:?}, {} Ipopt iterations, {:.3} s", r.status, r.mpcc.total_iterations, r.mpcc.timing.total);
    println!("T_final = {:.7}", r.t_final);
    println!("T_error = {:.3e}", (r.t_final - 40.0 / 3.0).abs());
    println!("comp_residual = {:.3e}", r.comp_residual);
    println!("resimulation_error = {:.3e}", solver.resimulate(&r, 20)?);
    let sol = CarTurbo::solution(&r)?;
    println!("top_speed = {:.7}", sol.x.v.iter().fold(0.0_f64, |a, v| a.max(*v)));
    println!("u = {:?}", sol.u.u.iter().map(|u| format!("{u:.3}")).collect::<Vec<_>>());
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
