//! Time to the first result of a new model: each case solved in a process of its own
//! with an empty kernel cache (cold: nothing compiled yet) and again once its kernels
//! are cached (warm), both timed as whole processes (start, model, transcription,
//! kernels, solve, exit). With the default `Kernels::Auto` the cold solve starts on
//! CasADi's evaluation while the C compiles beside it; the process does not wait for
//! the compiler, which finishes the object for the next run.
//!
//! Cases: `car_turbo` (the FESD paper's time-optimal car, N = 10, N_FE = 3),
//! `sliding_mode` (the reference's sliding-mode OCP) and `pushed_box` (a box pushed
//! 1 m in 2 s against friction 0.2, min ∫u², N = 10, FESD-J). Prints per case
//! `<case>_cold_total_s`, `<case>_warm_total_s` (best of three), `<case>_cost`, and
//! `<case>_cold_interpreted_nlps` (homotopy NLPs the cold run evaluated with CasADi).
//!
//! Run: `cargo run --release --example first_result [-- [--kernels auto|compiled|interpreted] <case> …]`
//! (`--kernels`: the cold run's mode; a case alone in a process: `--run <case>`).

use fesd::casadi::SX;
use fesd::cls::models;
use fesd::model::Representation;
use fesd::mpcc::{Kernels, MpccResult};
use fesd::ocp::{problems, Ocp, OcpSolver};
use std::process::Command;
use std::time::{Duration, Instant};

const CASES: [&str; 3] = ["car_turbo", "sliding_mode", "pushed_box"];

/// Solves `case` with `kernels` in this process and prints its cost and how many of
/// its homotopy NLPs CasADi evaluated.
fn run(case: &str, kernels: Kernels) -> Result<(), Box<dyn std::error::Error>> {
    let (cost, mpcc): (f64, MpccResult) = match case {
        "car_turbo" | "sliding_mode" => {
            let mut ocp =
                if case == "car_turbo" { problems::car_turbo(10, 3, Representation::Stewart)? } else { problems::sliding_mode()? };
            ocp.options.kernels = kernels;
            let r = OcpSolver::new(&ocp)?.solve()?;
            (if case == "car_turbo" { r.t_final } else { r.objective }, r.mpcc)
        }
        "pushed_box" => {
            let model = models::pushed_box(0.2)?;
            let (q, v, u) = (model.q.clone(), model.v.clone(), model.u.clone());
            let terminal = SX::vertcat(&[&q.at(0)?, &v])?;
            let mut ocp = Ocp::new(model, 2.0, 10, &[0.0, 0.5, 0.0, 0.0])
                .with_control_bounds(&[-30.0], &[30.0])
                .with_lagrange(&u * &u)
                .with_terminal(terminal, &[1.0, 0.0, 0.0], &[1.0, 0.0, 0.0]);
            ocp.options.kernels = kernels;
            let r = OcpSolver::new(&ocp)?.solve()?;
            (r.cost, r.mpcc)
        }
        other => return Err(format!("unknown case {other:?}: {}", CASES.join(", ")).into()),
    };
    if !mpcc.status.is_converged() {
        return Err(format!("{case}: not converged ({:?})", mpcc.status).into());
    }
    let interpreted = mpcc.steps.iter().filter(|s| s.interpreted).count();
    println!("cost = {cost:.9}");
    println!("interpreted_nlps = {interpreted}/{}", mpcc.steps.len());
    Ok(())
}

/// Runs this program on `case` alone with the kernel cache `cache`; returns its wall
/// time and its standard output.
fn child(case: &str, kernels: Kernels, cache: &std::path::Path) -> Result<(Duration, String), Box<dyn std::error::Error>> {
    let t = Instant::now();
    let out = Command::new(std::env::current_exe()?)
        .args(["--run", case, "--kernels", kernels.name()])
        .env("FESD_KERNEL_CACHE", cache)
        .output()?;
    let wall = t.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(format!("{case}: {}{}", stdout, String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok((wall, stdout))
}

fn value<'a>(stdout: &'a str, name: &str) -> &'a str {
    stdout.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(" = ")).unwrap_or("?")
}

/// Waits (at most a minute) until the compiler a cold run left behind has finished
/// its object, so that it neither competes with the next timing nor runs twice.
fn wait_for_objects(cache: &std::path::Path) {
    let t = Instant::now();
    let has_object = |dir: &std::path::Path| {
        std::fs::read_dir(dir).into_iter().flatten().flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".so") || name.ends_with(".so.done")
        })
    };
    while t.elapsed() < Duration::from_secs(60) {
        let entries: Vec<_> = std::fs::read_dir(cache).into_iter().flatten().flatten().filter(|e| e.path().is_dir()).collect();
        let modules: Vec<_> = entries.iter().filter(|e| e.file_name().to_string_lossy().contains('-')).collect();
        if !modules.is_empty() && modules.iter().all(|e| has_object(&e.path())) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut kernels = Kernels::Auto;
    let mut cases = Vec::new();
    let mut alone = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--kernels" => kernels = it.next().ok_or("--kernels needs a value")?.parse()?,
            "--run" => alone = Some(it.next().ok_or("--run needs a case")?.clone()),
            c => cases.push(c.to_string()),
        }
    }
    if let Some(case) = alone {
        return run(&case, kernels);
    }
    if cases.is_empty() {
        cases = CASES.iter().map(|c| c.to_string()).collect();
    }
    for case in &cases {
        let cache = tempfile::tempdir()?;
        let (cold, out) = child(case, kernels, cache.path())?;
        let interpreted = value(&out, "interpreted_nlps").to_string();
        wait_for_objects(cache.path());
        child(case, Kernels::Compiled, cache.path())?; // publishes the object
        let mut warm = Duration::MAX;
        let mut warm_out = String::new();
        for _ in 0..3 {
            let (t, out) = child(case, Kernels::Auto, cache.path())?;
            if t < warm {
                (warm, warm_out) = (t, out);
            }
        }
        println!("{case}_cold_total_s = {:.3}", cold.as_secs_f64());
        println!("{case}_warm_total_s = {:.3}", warm.as_secs_f64());
        println!("{case}_cost = {}", value(&out, "cost"));
        println!("{case}_warm_cost = {}", value(&warm_out, "cost"));
        println!("{case}_cold_interpreted_nlps = {interpreted}");
    }
    Ok(())
}
