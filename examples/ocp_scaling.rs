//! Size of the generated C and build time of an OCP against the number of control
//! intervals N (N_FE = 2 unless `n_fe=K`): the car with turbo (`model=car`, default),
//! the voice-coil motor (`model=motor`, N_FE = 2, L2-relaxed-scaled step
//! equilibration) or three boxes pushed on a line (`model=boxes`, FESD-J, T = 6), one
//! element kernel mapped over all N · N_FE elements. Each N builds into a fresh kernel cache, so every build
//! compiles. Prints per N the bytes of compiled C and of the constant tables stored
//! beside the object, the time deriving and generating C, the compile time, and
//! (unless `solve=0`) the solve: T, Ipopt iterations, time per iteration.
//!
//! Run: `cargo run --release --example ocp_scaling [-- N1 N2 … n_fe=K model=car|motor|boxes opt=0|1|2|3 solve=0 tables=inline]`
//! (default N = 10 50 200 1000; `tables=inline` compiles every constant table into
//! the C, as before tables moved out; with `KEEP=1` the per-N kernel caches stay in
//! the temp directory for inspection)

use fesd::cls::{models::three_boxes, ClsModel};
use fesd::model::Representation;
use fesd::mpcc::{BuildReport, CompileOptions};
use fesd::ocp::{problems, Ocp, OcpSolver};

/// A built OCP of either kind.
enum Built {
    /// A switched-system OCP.
    Switched(Box<OcpSolver>),
    /// A rigid-body OCP.
    RigidBodies(Box<OcpSolver<ClsModel>>),
}

/// Builds the chosen OCP with `n` intervals of `n_fe` elements.
fn build(model: &str, n: usize, n_fe: usize, compile: &CompileOptions) -> Result<Built, Box<dyn std::error::Error>> {
    Ok(match model {
        "car" => {
            Built::Switched(Box::new(OcpSolver::with_compile_options(&problems::car_turbo(n, n_fe, Representation::Stewart)?, compile)?))
        }
        "motor" => Built::Switched(Box::new(OcpSolver::with_compile_options(&problems::voice_coil_motor(n)?, compile)?)),
        "boxes" => {
            let m = three_boxes()?;
            let u = m.u.clone();
            let mut ocp = Ocp::new(m, 6.0, n, &[[-2.0, 0.5, 0.0, 0.5, 2.0, 0.5], [0.0; 6]].concat())
                .with_control_bounds(&[-30.0], &[30.0])
                .with_lagrange(&u * &u);
            ocp.options.fesd.n_fe = n_fe;
            Built::RigidBodies(Box::new(OcpSolver::with_compile_options(&ocp, compile)?))
        }
        other => return Err(format!("model={other}: expected car, motor or boxes").into()),
    })
}

impl Built {
    fn report(&self) -> BuildReport {
        match self {
            Built::Switched(s) => s.build_report(),
            Built::RigidBodies(s) => s.build_report(),
        }
    }

    fn unknowns(&self) -> usize {
        match self {
            Built::Switched(s) => s.table().len(),
            Built::RigidBodies(s) => s.table().len(),
        }
    }

    /// Solve time, final time (NaN for the boxes: T is fixed) and Ipopt iterations.
    fn solve(&mut self) -> Result<(f64, f64, usize), Box<dyn std::error::Error>> {
        Ok(match self {
            Built::Switched(s) => {
                let r = s.solve()?;
                (r.mpcc.timing.total, r.t_final, r.mpcc.total_iterations)
            }
            Built::RigidBodies(s) => {
                let r = s.solve()?;
                (r.mpcc.timing.total, f64::NAN, r.mpcc.total_iterations)
            }
        })
    }
}

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
    let (mut solve, mut inline, mut n_fe, mut model) = (true, false, 2, "car".to_string());
    let mut opt_level = fesd::codegen::OptLevel::default();
    for arg in std::env::args().skip(1) {
        match arg.split_once('=') {
            Some(("solve", v)) => solve = v != "0",
            Some(("tables", v)) => inline = v == "inline",
            Some(("n_fe", v)) => n_fe = v.parse()?,
            Some(("model", v)) => model = v.to_string(),
            Some(("opt", v)) => {
                use fesd::codegen::OptLevel::*;
                opt_level = match v {
                    "0" => O0,
                    "1" => O1,
                    "2" => O2,
                    "3" => O3,
                    _ => return Err(format!("opt={v}: expected 0, 1, 2 or 3").into()),
                }
            }
            _ => ns.push(
                arg.parse::<usize>()
                    .map_err(|e| format!("{arg}: {e} (expected N, n_fe=K, model=car|motor|boxes, opt=L, solve=0 or tables=inline)"))?,
            ),
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
            opt_level,
            ..Default::default()
        };
        let mut built = build(&model, n, n_fe, &compile)?;
        let (c, tables) = (bytes_of(&cache, "c"), bytes_of(&cache, "tables"));
        let report = built.report();
        let (gen, cc) = (report.codegen.as_secs_f64(), report.compile_and_load.as_secs_f64());
        let (solve_s, t, it) = if solve { built.solve()? } else { (f64::NAN, f64::NAN, 0) };
        println!(
            "{n:>6} {:>10} {c:>12} {tables:>12} {gen:>10.2} {cc:>10.2} {solve_s:>10.3} {t:>8.4} {it:>8} {:>10.3}",
            built.unknowns(),
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
