//! Size of the generated C and build time of an OCP against the number of control
//! intervals N (N_FE = 2): the car with turbo, one element kernel mapped over all
//! N · N_FE elements. Each N builds into a fresh kernel cache, so every build
//! compiles. Prints per N the bytes of compiled C and of the constant tables stored
//! beside the object, the time deriving and generating C, the compile time, and
//! (unless `solve=0`) the solve: T, Ipopt iterations, time per iteration.
//!
//! Run: `cargo run --release --example ocp_scaling [-- N1 N2 … solve=0 tables=inline]`
//! (default N = 10 50 200 1000; `tables=inline` compiles every constant table into
//! the C, as before tables moved out; with `KEEP=1` the per-N kernel caches stay in
//! the temp directory for inspection)

use fesd::model::Representation;
use fesd::mpcc::CompileOptions;
use fesd::ocp::{problems, OcpSolver};

/// Bytes of the files under `dir` whose extension is `ext`.
fn bytes_of(dir: &std::path::Path, ext: &str) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            total += bytes_of(&p, ext);
        } else if p.extension().is_some_and(|e| e == ext) {
            total += entry.metadata().map(|m| m.len()).unwrap_or(0);
        }
    }
    total
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut ns = Vec::new();
    let (mut solve, mut inline) = (true, false);
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "solve=0" => solve = false,
            "tables=inline" => inline = true,
            n => ns.push(n.parse::<usize>().map_err(|e| format!("{n}: {e} (expected N, solve=0 or tables=inline)"))?),
        }
    }
    let ns = if ns.is_empty() { vec![10, 50, 200, 1000] } else { ns };
    println!(
        "{:>6} {:>10} {:>12} {:>12} {:>10} {:>10} {:>10} {:>8} {:>8} {:>10}",
        "N", "unknowns", "C bytes", "table bytes", "gen_s", "compile_s", "solve_s", "T", "ipopt_it", "ms/it"
    );
    for n in ns {
        let cache = std::env::temp_dir().join(format!("fesd-ocp-scaling-{}-{n}", std::process::id()));
        let compile = CompileOptions {
            cache_dir: Some(cache.clone()),
            tables_out_of_line: if inline { None } else { CompileOptions::default().tables_out_of_line },
            ..Default::default()
        };
        let mut solver = OcpSolver::with_compile_options(&problems::car_turbo(n, 2, Representation::Stewart)?, &compile)?;
        let (c, tables) = (bytes_of(&cache, "c"), bytes_of(&cache, "tables"));
        let report = solver.build_report();
        let (gen, cc) = (report.codegen.as_secs_f64(), report.compile_and_load.as_secs_f64());
        let (mut solve_s, mut t, mut it) = (f64::NAN, f64::NAN, 0);
        if solve {
            let r = solver.solve()?;
            (solve_s, t, it) = (r.mpcc.timing.total, r.t_final, r.mpcc.total_iterations);
        }
        println!(
            "{n:>6} {:>10} {c:>12} {tables:>12} {gen:>10.2} {cc:>10.2} {solve_s:>10.3} {t:>8.4} {it:>8} {:>10.3}",
            solver.table().len(),
            solve_s / it.max(1) as f64 * 1e3
        );
        println!("c_bytes_n{n} = {c}");
        println!("table_bytes_n{n} = {tables}");
        println!("codegen_time_s_n{n} = {gen:.3}");
        println!("compile_time_s_n{n} = {cc:.3}");
        if std::env::var_os("KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&cache);
        }
    }
    Ok(())
}
