//! The `fesd` command.
//!
//! `fesd mpcc <file.json> [options]` reads an MPCC in the NOSBENCH JSON layout,
//! solves it by the relaxation homotopy and prints a one-line summary (or, with
//! `--json`, a JSON report). Exit status: 0 converged, 1 solved but not converged,
//! 2 bad input.
//!
//! `fesd export <car_turbo|sliding_mode|motor_N|pushed_box> --out DIR [--n N --n-fe K
//! --representation step --name NAME --no-finish --bench]` writes one of the built-in
//! optimal control problems as a C solver directory (`make -C DIR test` builds and
//! runs it). Exit status: 0 written, 2 bad input or a failed export.

use clap::{Parser, Subcommand};
use fesd::codegen::OptLevel;
use fesd::ipopt::OptionValue;
use fesd::mpcc::{CompileOptions, Formulation, HomotopyOptions, Kernels, LowerBounds, MpccResult, MpccSolver, Relaxation, Steering};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "fesd", version, about = "Finite Elements with Switch Detection: tools")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve an MPCC stored in the NOSBENCH JSON layout.
    Mpcc(MpccArgs),
    /// Export a built-in optimal control problem as a C solver directory.
    Export(ExportArgs),
}

#[derive(clap::Args)]
struct ExportArgs {
    /// car_turbo (the time-optimal car), sliding_mode, motor_N (the voice-coil motor
    /// with N control intervals) or pushed_box (a rigid body against friction).
    problem: String,
    /// The directory to write.
    #[arg(long)]
    out: PathBuf,
    /// Control intervals of car_turbo and pushed_box.
    #[arg(long, default_value_t = 10)]
    n: usize,
    /// Finite elements per interval of car_turbo.
    #[arg(long = "n-fe", default_value_t = 3)]
    n_fe: usize,
    /// stewart | step (car_turbo).
    #[arg(long, default_value = "stewart")]
    representation: String,
    /// The solver's name, prefix of its C symbols (default: the problem's).
    #[arg(long)]
    name: Option<String>,
    /// Leave out the active-set finish (the OCP's `formulation.active_set_finish`).
    #[arg(long = "no-finish")]
    no_finish: bool,
    /// Also build the directory and time it: make, create and a cold solve from C
    /// against the same solve in Rust (medians of 5), added to its README.md.
    #[arg(long)]
    bench: bool,
}

fn run_export(args: &ExportArgs) -> Result<(), Box<dyn std::error::Error>> {
    use fesd::model::Representation;
    use fesd::ocp::problems;
    let representation = match args.representation.as_str() {
        "stewart" => Representation::Stewart,
        "step" => Representation::Step,
        other => return Err(format!("representation {other:?}: stewart or step").into()),
    };
    let problem = args.problem.as_str();
    let opts = fesd::export::ExportOptions { name: args.name.clone().unwrap_or(problem.to_string()), out_dir: args.out.clone() };
    match problem {
        "car_turbo" => export(problems::car_turbo(args.n, args.n_fe, representation)?, &opts, args),
        "sliding_mode" => export(problems::sliding_mode()?, &opts, args),
        "pushed_box" => export(problems::pushed_box(args.n)?, &opts, args),
        motor if motor.starts_with("motor_") => {
            let n: usize = motor["motor_".len()..].parse().map_err(|_| format!("{motor}: motor_N with a number N"))?;
            export(problems::voice_coil_motor(n)?, &opts, args)
        }
        other => Err(format!("unknown problem {other:?}: car_turbo, sliding_mode, motor_N or pushed_box").into()),
    }
}

/// Exports `ocp` as `args` say; with `--bench`, builds and times the directory too.
fn export<M: fesd::ocp::ModelKind>(
    mut ocp: fesd::ocp::Ocp<M>,
    opts: &fesd::export::ExportOptions,
    args: &ExportArgs,
) -> Result<(), Box<dyn std::error::Error>> {
    if args.no_finish {
        ocp.options.formulation.active_set_finish = false;
    }
    let exported = fesd::export::export_ocp(&ocp, opts)?;
    println!("exported = {}", exported.dir.display());
    if args.bench {
        let t = fesd::export::measure(&exported, &ocp)?;
        println!("make_s = {:.2}", t.make_s);
        println!("create_ms = {:.3}", t.create_ms);
        println!("ipopt_iterations = {}", t.ipopt_iterations);
        println!("c_solve_s = {:.4}", t.c_solve_s);
        println!("rust_solve_s = {:.4}", t.rust_solve_s);
        println!("c_solve_tuned_s = {:.4}", t.c_solve_tuned_s);
        println!("c_over_rust = {:.3}", t.c_solve_s / t.rust_solve_s);
        println!("c_tuned_over_rust = {:.3}", t.c_solve_tuned_s / t.rust_solve_s);
    }
    Ok(())
}

#[derive(clap::Args)]
struct MpccArgs {
    /// The problem file.
    file: PathBuf,
    /// Initial homotopy parameter σ_0 (the relaxation bound with direct steering,
    /// the reciprocal of the elastic penalty otherwise; 1 is customary for direct).
    #[arg(long = "sigma0", default_value_t = HomotopyOptions::default().sigma_0)]
    sigma_0: f64,
    /// Reduction factor κ of σ per homotopy step.
    #[arg(long, default_value_t = 0.1)]
    kappa: f64,
    /// Exponent θ of the superlinear update σ ← max(σ_N, min(κσ, σ^θ)); 1: linear.
    #[arg(long = "sigma-exponent", default_value_t = 1.0)]
    sigma_exponent: f64,
    /// Complementarity tolerance on max |G_i H_i|.
    #[arg(long = "comp-tol", default_value_t = 1e-9)]
    comp_tol: f64,
    /// Final σ_N (default min(1e-10, 0.1 comp_tol)).
    #[arg(long = "sigma-n")]
    sigma_n: Option<f64>,
    /// Number of homotopy steps (default: derived from σ_0, κ, σ_N).
    #[arg(long = "n-homotopy")]
    n_homotopy: Option<usize>,
    /// scholtes_ineq | scholtes_eq | fischer_burmeister_ineq | fischer_burmeister_eq
    #[arg(long, default_value = "scholtes_ineq")]
    relaxation: Relaxation,
    /// elastic_inf | direct | elastic_l1
    #[arg(long, default_value = "elastic_inf")]
    steering: Steering,
    /// Impose G, H ≥ 0 always as constraints (default: as bounds where G_i or H_i is a variable).
    #[arg(long = "lower-bounds-as-constraints")]
    lower_bounds_as_constraints: bool,
    /// Warm-start dual variables between homotopy steps.
    #[arg(long = "warm-start-duals")]
    warm_start_duals: bool,
    /// Skip the active-set finish (exact complementarity and a B-stationarity
    /// certificate after the homotopy).
    #[arg(long = "no-active-set-finish")]
    no_active_set_finish: bool,
    /// Largest trust-region radius of the finish's phase I, which looks for a feasible
    /// branch when the homotopy stops above comp_tol (0: off).
    #[arg(long = "phase-one-radius", default_value_t = 1.0)]
    phase_one_radius: f64,
    /// No direct-steering homotopy after an elastic one whose point phase I finds
    /// locally infeasible (by default one follows, from the initial guess, within the
    /// first run's Ipopt iterations).
    #[arg(long = "no-direct-fallback")]
    no_direct_fallback: bool,
    /// Recovery attempts after a failed NLP.
    #[arg(long = "max-recoveries", default_value_t = 3)]
    max_recoveries: usize,
    /// An early homotopy NLP stops as acceptable once its objective has been flat for
    /// this many iterations at an acceptable point (0: off).
    #[arg(long = "stagnation-window", default_value_t = 40)]
    stagnation_window: usize,
    /// Parameter values, comma-separated (default: the file's p0).
    #[arg(long, value_delimiter = ',')]
    p0: Option<Vec<f64>>,
    /// Optimization level of the C compiler for the problem's kernels (0-3). Default 0:
    /// the kernels take a small share of a solve, and a fresh file compiles several
    /// times faster than at -O2 (measured in docs/evidence/mpcc.md).
    #[arg(long = "opt-level", default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: u8,
    /// How the problem's functions are evaluated: auto (compiled kernels if cached,
    /// otherwise CasADi evaluates this run while the C compiles beside it for the
    /// next run), compiled (compile before solving), interpreted (never compile).
    #[arg(long, default_value = "auto")]
    kernels: Kernels,
    /// Ipopt option as key=value (repeatable), e.g. --ipopt max_iter=500. fesd's
    /// defaults: print_level=0 sb=yes bound_relax_factor=0 mu_strategy=adaptive
    /// mumps_pivtol=1e-8 warm_start_init_point=yes perturb_always_cd=yes; Ipopt's tol
    /// follows σ (min(1e-8, 0.1 σ)) unless given here.
    #[arg(long = "ipopt", value_parser = parse_key_value)]
    ipopt: Vec<(String, String)>,
    /// Print a JSON report instead of the summary line; stdout then holds only the
    /// JSON (the homotopy table and Ipopt's own output go to stderr).
    #[arg(long)]
    json: bool,
    /// -v: homotopy table; -vv: also Ipopt's output.
    #[arg(short, long, action = clap::ArgAction::Count)]
    verbose: u8,
}

fn parse_key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected key=value, got '{s}'")),
    }
}

fn main() -> ExitCode {
    let started = std::time::Instant::now();
    let cli = Cli::parse();
    match cli.command {
        Command::Mpcc(args) => match run_mpcc(&args, started) {
            Ok(converged) => ExitCode::from(if converged { 0 } else { 1 }),
            Err(e) => {
                eprintln!("fesd mpcc: {e}");
                ExitCode::from(2)
            }
        },
        Command::Export(args) => match run_export(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("fesd export: {e}");
                ExitCode::from(2)
            }
        },
    }
}

/// While alive, file descriptor 1 points at stderr, so that everything the solver
/// stack prints (Ipopt's messages and iteration log, our homotopy table) stays off
/// stdout; [`StdoutToStderr::restore`] flushes C's buffers and puts stdout back.
struct StdoutToStderr {
    #[cfg(unix)]
    saved: Option<i32>,
}

impl StdoutToStderr {
    fn new(active: bool) -> Self {
        #[cfg(unix)]
        {
            let _ = std::io::stdout().flush();
            // SAFETY: plain descriptor calls; on failure the redirection is skipped.
            let saved = active.then(|| unsafe { libc::dup(1) }).filter(|&fd| fd >= 0);
            // SAFETY: as above.
            if saved.is_some() && unsafe { libc::dup2(2, 1) } < 0 {
                return StdoutToStderr { saved: None };
            }
            StdoutToStderr { saved }
        }
        #[cfg(not(unix))]
        {
            let _ = active;
            StdoutToStderr {}
        }
    }

    fn restore(self) {}
}

impl Drop for StdoutToStderr {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(fd) = self.saved.take() {
            let _ = std::io::stdout().flush();
            // SAFETY: flush every C stream (Ipopt prints through stdio), then restore.
            unsafe {
                libc::fflush(std::ptr::null_mut());
                libc::dup2(fd, 1);
                libc::close(fd);
            }
        }
    }
}

/// Writes to stdout; a closed stdout (`fesd … | head -c1`) is not an error.
fn emit(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

fn run_mpcc(args: &MpccArgs, started: std::time::Instant) -> Result<bool, Box<dyn std::error::Error>> {
    let redirect = StdoutToStderr::new(args.json);
    let opts = HomotopyOptions {
        sigma_0: args.sigma_0,
        kappa: args.kappa,
        sigma_exponent: args.sigma_exponent,
        comp_tol: args.comp_tol,
        sigma_n: args.sigma_n,
        n_homotopy: args.n_homotopy,
        warm_start_duals: args.warm_start_duals,
        max_recoveries: args.max_recoveries,
        stagnation_window: args.stagnation_window,
        verbosity: args.verbose,
        ipopt: args.ipopt.iter().map(|(k, v)| (k.clone(), OptionValue::parse_for(k, v))).collect(),
        phase_one_radius: args.phase_one_radius,
        direct_fallback: !args.no_direct_fallback,
        ..HomotopyOptions::default()
    };
    let compile = CompileOptions { opt_level: OptLevel::from_number(args.opt_level), ..CompileOptions::default() };
    let formulation = Formulation {
        relaxation: args.relaxation,
        steering: args.steering,
        lower_bounds: if args.lower_bounds_as_constraints { LowerBounds::Constraints } else { LowerBounds::Bounds },
        active_set_finish: !args.no_active_set_finish,
    };
    let mut solver = MpccSolver::from_file(&args.file, formulation, opts, &compile, args.kernels)?;
    if let Some(p0) = &args.p0 {
        solver.set_parameters(p0)?;
    }
    let built = started.elapsed();
    let result = solver.solve();
    if args.verbose >= 1 {
        println!(
            "start-up: solver ready {:.1} ms after process start (file prepared by an earlier run: {}; kernels: {}), first Ipopt iteration {:.1} ms after process start",
            built.as_secs_f64() * 1e3,
            solver.prepared_from_cache(),
            match (solver.kernels_interpreted(), solver.kernels_cached()) {
                (true, _) => "evaluated by CasADi",
                (false, true) => "compiled, from the cache",
                (false, false) => "compiled now",
            },
            (built.as_secs_f64() + result.timing.first_iteration) * 1e3
        );
    }
    if args.verbose >= 1 {
        let phases: Vec<String> = solver.start_up().iter().map(|(what, t)| format!("{what} {:.1} ms", t.as_secs_f64() * 1e3)).collect();
        println!("start-up phases: {}", phases.join(", "));
    }
    redirect.restore();
    let name = args.file.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if args.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report(&name, &result, &solver))?))?;
    } else {
        let mut text = format!(
            "{name}: {} f = {:.10e} comp_res = {:.3e} steps = {} ipopt_iterations = {} time = {:.4} s (ipopt {:.4} s, kernels {:.4} s, own {:.4} s; build {:.3} s)\n",
            result.status.name(),
            result.objective,
            result.comp_residual,
            result.steps.len(),
            result.total_iterations,
            result.timing.total,
            result.timing.ipopt,
            result.timing.kernels,
            result.timing.own,
            solver.build_time().as_secs_f64()
        );
        if let Some(f) = &result.finish {
            // Biactive pairs are counted at a point with exact complementarity only.
            if f.phase_one.is_empty() || f.stationarity.is_certified() {
                text.push_str(&format!("  stationarity: {} ({} biactive pairs)\n", f.stationarity.name(), f.biactive));
            } else {
                text.push_str(&format!("  stationarity: {}\n", f.stationarity.name()));
            }
        }
        for m in &result.messages {
            text.push_str(&format!("  note: {m}\n"));
        }
        emit(&text)?;
    }
    if args.verbose >= 1 && solver.compiling_in_background() {
        eprintln!("compiling the kernels for the next run of this file (the process ends when the compiler is done)");
    }
    Ok(result.status.is_converged())
}

fn report(file: &str, r: &MpccResult, solver: &MpccSolver) -> serde_json::Value {
    let start_up: Vec<serde_json::Value> =
        solver.start_up().iter().map(|(phase, t)| serde_json::json!({ "phase": phase, "seconds": t.as_secs_f64() })).collect();
    serde_json::json!({
        "file": file,
        "status": r.status.name(),
        "status_detail": r.status,
        "objective": r.objective,
        "comp_residual": r.comp_residual,
        "homotopy_steps": r.steps.len(),
        "total_iterations": r.total_iterations,
        "wall_time": r.timing.total,
        "ipopt_time": r.timing.ipopt,
        "kernel_time": r.timing.kernels,
        "own_time": r.timing.own,
        "build_time": solver.build_time().as_secs_f64(),
        "start_up": start_up,
        "prepared_from_cache": solver.prepared_from_cache(),
        "kernels": if solver.kernels_interpreted() { "interpreted" } else { "compiled" },
        "first_iteration_time": r.timing.first_iteration,
        "stationarity": r.finish.as_ref().map(|f| f.stationarity.name()),
        "finish": r.finish,
        "w": r.w,
        "steps": r.steps,
        "multipliers": r.multipliers,
        "messages": r.messages,
    })
}
