//! Benchmark of `fesd mpcc` on directories of NOSBENCH files, with the reference
//! solver's results beside ours when a `reference.jsonl` is given or lies in the
//! directory (one JSON object per line: `file`, `ok`, `f`, `comp`, `ipopt_iters`,
//! `build_s`, `total_s`).
//!
//! A problem counts as solved when max |G_i H_i| ≤ 1e-7 at the end (NOSBENCH's
//! criterion, the one the reference results use) and the point satisfies the other
//! constraints (g's bounds, w's bounds, G, H ≥ 0) to 1e-4, Ipopt's default
//! `constr_viol_tol`. A reference line may carry `primal_infeasibility`, that largest
//! violation at the reference's final point; where it does, the same rule applies to
//! it (a Scholtes NLP that ends infeasible still meets `G_i H_i ≤ σ`, so the
//! complementarity test alone can pass at an infeasible point). Per file it prints solved, objective,
//! Ipopt iterations and wall time (reading + building + solving, as `fesd mpcc` does:
//! `MpccSolver::from_file`, which on a second run finds the file prepared and its
//! kernels cached, so the first run of a directory also compiles and prepares);
//! in total: problems solved, Ipopt iterations, median time ratio to the reference.
//! With several directories the totals of each follow as `<dir>_<name> = …` lines
//! (the directory's name, `-` as `_`), then the totals of all together. `-v` prints
//! per file the homotopy's steps (σ, Ipopt status — `SolvedToAcceptableLevel` for an
//! NLP accepted early —, iterations, of them in Ipopt's restoration phase,
//! complementarity, time, recovery) and the active-set finish's work.
//!
//! Run: `cargo run --release --example mpcc_benchmark -- <dir> … [-v] [--reference <dir>/reference.jsonl]
//!       [--filter SUBSTRING] [--exclude SUBSTRING] [--kappa 0.1] [--sigma0 1] [--ipopt key=value …]
//!       [--homotopy key=value …]` (`--homotopy`: any field of `HomotopyOptions` by its JSON
//!       name, the value as JSON, e.g. `steering="ElasticInf"`)

use clap::Parser;
use fesd::codegen::OptLevel;
use fesd::ipopt::OptionValue;
use fesd::mpcc::{CompileOptions, Formulation, HomotopyOptions, Kernels, MpccSolver};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser)]
struct Args {
    /// Directories of NOSBENCH JSON files.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// The reference's results (JSON lines, looked up by file name, so one file may
    /// cover several directories; default: `reference.jsonl` in each directory).
    #[arg(long)]
    reference: Option<PathBuf>,
    /// Per file, the homotopy's steps and the finish's work.
    #[arg(short, long)]
    verbose: bool,
    /// Only files whose name contains this.
    #[arg(long)]
    filter: Option<String>,
    /// Skip files whose name contains this.
    #[arg(long)]
    exclude: Option<String>,
    /// σ_0 (default: fesd's).
    #[arg(long)]
    sigma0: Option<f64>,
    /// κ (default: fesd's).
    #[arg(long)]
    kappa: Option<f64>,
    /// Run the active-set finish (default: fesd's default).
    #[arg(long)]
    finish: Option<bool>,
    /// Residual at which the homotopy hands over to the finish.
    #[arg(long)]
    handover: Option<f64>,
    /// Warm-start the duals between homotopy steps.
    #[arg(long)]
    warm_start_duals: Option<bool>,
    /// Extra Ipopt options as key=value.
    #[arg(long = "ipopt")]
    ipopt: Vec<String>,
    /// Homotopy options as key=value (JSON value), applied last.
    #[arg(long = "homotopy")]
    homotopy: Vec<String>,
    /// auto | compiled | interpreted (`fesd mpcc --kernels`; default auto).
    #[arg(long, default_value = "auto")]
    kernels: Kernels,
    /// C compiler optimization level of the kernels (0-3; `fesd mpcc`'s default 0).
    #[arg(long = "opt-level", default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: u8,
}

/// NOSBENCH's success criterion.
const SOLVED_COMP: f64 = 1e-7;
/// Largest violation of the other constraints at a solved point (Ipopt's default
/// `constr_viol_tol`).
const SOLVED_VIOLATION: f64 = 1e-4;

struct Reference {
    /// Complementarity met, and the constraints where the line says how far.
    ok: bool,
    /// Complementarity met at a point the line reports infeasible.
    infeasible: bool,
    f: f64,
    iterations: usize,
    time: f64,
}

fn read_reference(path: &PathBuf) -> Result<HashMap<String, Reference>, Box<dyn std::error::Error>> {
    let mut out = HashMap::new();
    for line in std::fs::read_to_string(path)?.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let num = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
        let comp_ok = v["ok"].as_bool().unwrap_or(false);
        let infeasible = comp_ok && v["primal_infeasibility"].as_f64().is_some_and(|x| x > SOLVED_VIOLATION);
        out.insert(
            v["file"].as_str().unwrap_or_default().to_string(),
            Reference {
                ok: comp_ok && !infeasible,
                infeasible,
                f: num("f"),
                iterations: num("ipopt_iters") as usize,
                time: num("build_s") + num("total_s"),
            },
        );
    }
    Ok(out)
}

fn options(args: &Args) -> Result<HomotopyOptions, String> {
    let mut o = HomotopyOptions::default();
    if let Some(s) = args.sigma0 {
        o.sigma_0 = s;
    }
    if let Some(k) = args.kappa {
        o.kappa = k;
    }
    if let Some(h) = args.handover {
        o.finish_handover = h;
    }
    if let Some(w) = args.warm_start_duals {
        o.warm_start_duals = w;
    }
    for kv in &args.ipopt {
        let (k, v) = kv.split_once('=').ok_or_else(|| format!("expected key=value, got {kv}"))?;
        o.ipopt.push((k.to_string(), OptionValue::parse_for(k, v)));
    }
    let mut fields = serde_json::Map::new();
    for kv in &args.homotopy {
        let (k, v) = kv.split_once('=').ok_or_else(|| format!("expected key=value, got {kv}"))?;
        fields.insert(k.to_string(), serde_json::from_str(v).map_err(|e| format!("--homotopy {kv}: {e}"))?);
    }
    o = o.with_fields(fields).map_err(|e| e.to_string())?;
    Ok(o)
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Totals over a set of files.
#[derive(Default)]
struct Totals {
    files: usize,
    solved: usize,
    iterations: usize,
    certificates: std::collections::BTreeMap<&'static str, usize>,
    has_reference: bool,
    ref_solved: usize,
    /// Reference results that meet complementarity at an infeasible point.
    ref_infeasible: Vec<String>,
    ref_iterations: usize,
    ratios: Vec<f64>,
    solved_where_reference_failed: usize,
    lost: Vec<String>,
}

impl Totals {
    fn add(&mut self, other: Totals) {
        self.files += other.files;
        self.solved += other.solved;
        self.iterations += other.iterations;
        for (cert, count) in other.certificates {
            *self.certificates.entry(cert).or_insert(0) += count;
        }
        self.has_reference |= other.has_reference;
        self.ref_solved += other.ref_solved;
        self.ref_infeasible.extend(other.ref_infeasible);
        self.ref_iterations += other.ref_iterations;
        self.ratios.extend(other.ratios);
        self.solved_where_reference_failed += other.solved_where_reference_failed;
        self.lost.extend(other.lost);
    }

    fn print(&self, prefix: &str) {
        println!("{prefix}files = {}", self.files);
        println!("{prefix}solved = {}", self.solved);
        println!("{prefix}total_ipopt_iterations = {}", self.iterations);
        for (cert, count) in &self.certificates {
            println!("{prefix}stationarity_{cert} = {count}");
        }
        if self.has_reference {
            println!("{prefix}reference_solved = {}", self.ref_solved);
            println!("{prefix}reference_infeasible = {}", self.ref_infeasible.len());
            for l in &self.ref_infeasible {
                println!("  reference point infeasible: {l}");
            }
            println!("{prefix}reference_total_ipopt_iterations = {}", self.ref_iterations);
            println!("{prefix}solved_where_reference_failed = {}", self.solved_where_reference_failed);
            println!("{prefix}lost_against_reference = {}", self.lost.len());
            for l in &self.lost {
                println!("  lost: {l}");
            }
            println!("{prefix}iteration_ratio = {:.3}", self.iterations as f64 / self.ref_iterations.max(1) as f64);
            println!("{prefix}median_time_ratio = {:.3}", median(self.ratios.clone()));
        }
    }
}

/// The homotopy's steps and the finish's work, indented under the file's line.
fn print_details(r: &fesd::mpcc::MpccResult) {
    for s in &r.steps {
        println!(
            "    k = {:>2}  sigma = {:>9.2e}  {:?}  it = {:>4}  restoration_it = {:>4}  comp = {:>9.2e}  t = {:>7.3}{}",
            s.k,
            s.sigma,
            s.ipopt_status,
            s.iterations,
            s.restoration_iterations,
            s.comp_residual,
            s.wall_time,
            if s.recovery { "  recovery" } else { "" }
        );
    }
    if let Some(f) = &r.finish {
        println!(
            "    finish: {}  nlps = {}  it = {}  biactive = {}  branch_changes = {}  lpec = {:?}  phase_one = {:?}",
            f.stationarity.name(),
            f.nlps,
            f.iterations,
            f.biactive,
            f.branch_changes,
            f.lpec_value,
            f.phase_one
        );
    }
}

/// Solves every file of `dir` and prints one line per file.
fn run_set(args: &Args, opts: &HomotopyOptions, dir: &PathBuf) -> Result<Totals, Box<dyn std::error::Error>> {
    let reference_path = args.reference.clone().or_else(|| Some(dir.join("reference.jsonl")).filter(|p| p.exists()));
    let reference = reference_path.as_ref().map(read_reference).transpose()?.unwrap_or_default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| args.filter.as_ref().is_none_or(|f| p.to_string_lossy().contains(f.as_str())))
        .filter(|p| args.exclude.as_ref().is_none_or(|f| !p.to_string_lossy().contains(f.as_str())))
        .collect();
    files.sort();
    println!(
        "{:<46} {:>6} {:>14} {:>9} {:>9} {:>8} {:>16} | {:>6} {:>14} {:>9} {:>8}",
        "file", "solved", "f", "violation", "ipopt_it", "time_s", "stationarity", "ref_ok", "ref_f", "ref_it", "ref_s"
    );
    let mut totals = Totals { files: files.len(), has_reference: !reference.is_empty(), ..Totals::default() };
    let compile = CompileOptions { opt_level: OptLevel::from_number(args.opt_level), ..CompileOptions::default() };
    for path in &files {
        let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let t = Instant::now();
        let formulation = Formulation { active_set_finish: args.finish.unwrap_or(true), ..Formulation::default() };
        let outcome = MpccSolver::from_file(path, formulation, opts.clone(), &compile, args.kernels)
            .and_then(|mut s| {
                let r = s.solve();
                s.constraint_violation(&r.w).map(|v| (r, v))
            })
            .map_err(|e| e.to_string());
        let time = t.elapsed().as_secs_f64();
        let (ok, f, violation, its, cert) = match &outcome {
            Ok((r, violation)) => (
                r.comp_residual <= SOLVED_COMP && r.objective.is_finite() && *violation <= SOLVED_VIOLATION,
                r.objective,
                *violation,
                r.total_iterations,
                r.finish.as_ref().map(|f| f.stationarity.name()).unwrap_or("-"),
            ),
            Err(e) => {
                eprintln!("{name}: {e}");
                (false, f64::NAN, f64::NAN, 0, "-")
            }
        };
        *totals.certificates.entry(cert).or_insert(0usize) += 1;
        totals.solved += usize::from(ok);
        totals.iterations += its;
        let r = reference.get(&name);
        let (rok, rf, rit, rs) = r.map(|r| (r.ok, r.f, r.iterations, r.time)).unwrap_or((false, f64::NAN, 0, f64::NAN));
        if let Some(r) = r {
            totals.ref_solved += usize::from(r.ok);
            if r.infeasible {
                totals.ref_infeasible.push(name.clone());
            }
            totals.ref_iterations += r.iterations;
            totals.ratios.push(time / r.time);
            if r.ok && !ok {
                totals.lost.push(name.clone());
            }
            if !r.ok && ok {
                totals.solved_where_reference_failed += 1;
            }
        }
        println!(
            "{name:<46} {:>6} {f:>14.6e} {violation:>9.1e} {its:>9} {time:>8.3} {cert:>16} | {:>6} {rf:>14.6e} {rit:>9} {rs:>8.3}",
            ok, rok
        );
        if let (true, Ok((r, _))) = (args.verbose, &outcome) {
            print_details(r);
        }
    }
    Ok(totals)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let opts = options(&args)?;
    let mut all = Totals::default();
    let several = args.dirs.len() > 1;
    for dir in &args.dirs {
        let totals = run_set(&args, &opts, dir)?;
        if several {
            let set = dir.file_name().map(|s| s.to_string_lossy().replace(['-', '.'], "_")).unwrap_or_default();
            totals.print(&format!("{set}_"));
        }
        all.add(totals);
    }
    all.print("");
    let work = ipopt::ldl_work();
    if work.factorizations + work.mumps_fallbacks > 0 {
        println!("ldl_factorizations = {}", work.factorizations);
        println!("ldl_pivoting_factorizations = {}", work.pivoting);
        println!("ldl_mumps_fallbacks = {}", work.mumps_fallbacks);
        println!("ldl_factor_seconds = {:.3}", work.factor_seconds);
        println!("ldl_solves = {}", work.solves);
        println!("ldl_solve_seconds = {:.3}", work.solve_seconds);
    }
    Ok(())
}
