//! Size of the generated C and build time of an OCP against the number of control
//! intervals N (N_FE = 2): the car with turbo, one element kernel mapped over all
//! N · N_FE elements. Each N builds into a fresh kernel cache, so every build
//! compiles. Prints per N the bytes of generated C, the build time (transcription +
//! derivatives + C generation + compilation), the solve time, T, the Ipopt iterations
//! and the time per iteration.
//!
//! Run: `cargo run --release --example ocp_scaling [-- N1 N2 …]` (default 10 50 200 1000;
//! with `KEEP=1` the per-N kernel caches stay in the temp directory for inspection)

use fesd::model::Representation;
use fesd::ocp::{problems, OcpSolver};

fn c_bytes(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            total += c_bytes(&p);
        } else if p.extension().is_some_and(|e| e == "c") {
            total += entry.metadata().map(|m| m.len()).unwrap_or(0);
        }
    }
    total
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ns: Vec<usize> = std::env::args().skip(1).map(|a| a.parse()).collect::<Result<_, _>>()?;
    let ns = if ns.is_empty() { vec![10, 50, 200, 1000] } else { ns };
    println!("{:>6} {:>10} {:>12} {:>10} {:>10} {:>8} {:>8} {:>10}", "N", "unknowns", "C bytes", "build_s", "solve_s", "T", "ipopt_it", "ms/it");
    for n in ns {
        let cache = std::env::temp_dir().join(format!("fesd-ocp-scaling-{}-{n}", std::process::id()));
        std::env::set_var("FESD_KERNEL_CACHE", &cache);
        let mut solver = OcpSolver::new(&problems::car_turbo(n, 2, Representation::Stewart)?)?;
        let bytes = c_bytes(&cache);
        let build = solver.build_time().as_secs_f64();
        let r = solver.solve()?;
        let it = r.mpcc.total_iterations;
        println!(
            "{n:>6} {:>10} {bytes:>12} {build:>10.2} {:>10.3} {:>8.4} {it:>8} {:>10.3}",
            solver.table().len(),
            r.mpcc.timing.total,
            r.t_final,
            r.mpcc.timing.total / it.max(1) as f64 * 1e3
        );
        println!("c_bytes_n{n} = {bytes}");
        println!("build_time_s_n{n} = {build:.3}");
        if std::env::var_os("KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&cache);
        }
    }
    Ok(())
}
