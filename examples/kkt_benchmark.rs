//! The KKT systems Ipopt factors, solved by fesd's sparse LDLᵀ (`linear_solver = ldl`,
//! crate `fesd-kkt`) and by MUMPS as Ipopt configures it. Each case is solved with
//! `linear_solver = ldl` while every `every`-th KKT system is recorded (at most `max`);
//! each recorded system is then analysed, factored and solved by both.
//!
//! The LDLᵀ factors each system with the pivot threshold Ipopt's solve used
//! (`ldl_pivtol`, 1e-8 unless set), MUMPS with fesd's `mumps_pivtol` 1e-8.
//!
//! Each recorded system is written to `<out>/<case>_<k>.kkt.json` (default out:
//! `target/kkt_systems`; the lower triangle by columns and the right-hand side), and
//! such a file given as a case is read back instead of solving anything, so a
//! factorization can be timed again on the same matrices.
//!
//! Per matrix it prints rows, nonzeros, factor nonzeros, times (analysis / factor /
//! solve, ms; factor and solve the best of `repeat` runs, default 20, for both solvers),
//! the pivots the LDLᵀ delayed to a parent front, the relative residual ‖Kx − b‖∞/‖b‖∞ and the negative eigenvalues of
//! both; at the end `kkt_median_time_ratio` (ldl/MUMPS, factor + solve),
//! `kkt_inertia_mismatches`, `kkt_max_residual` (ldl) and `kkt_matrices`.
//!
//! Run: `cargo run --release --example kkt_benchmark [-- [--every K] [--max M] [--repeat R]
//! [--out DIR] [case|file.json|file.kkt.json …]]` (cases: sliding_mode, motor_240,
//! car_turbo; a path is a NOSBENCH file or a written system; default: the three cases
//! and `tests/data/CARTIM_001_010_003_2_RIIA_STEWART_7_FIL_0.json`).

use fesd::ipopt::mumps::Mumps;
use fesd::ipopt::{capture_kkt, take_captured_kkt, KktSystem, OptionValue};
use fesd::kkt::Ldl;
use fesd::model::Representation;
use fesd::mpcc::{CompileOptions, HomotopyOptions, Kernels, MpccSolver};
use fesd::ocp::{problems, Ocp, OcpSolver};
use std::time::Instant;

fn ldl_option() -> (String, OptionValue) {
    ("linear_solver".into(), "ldl".into())
}

/// Solves the case with `linear_solver = ldl`, recording its KKT systems.
fn capture(case: &str, every: usize, max: usize) -> Result<Vec<KktSystem>, Box<dyn std::error::Error>> {
    capture_kkt(every, max);
    let ocp: Option<Ocp> = match case {
        "sliding_mode" => Some(problems::sliding_mode()?),
        "motor_240" => Some(problems::voice_coil_motor(240)?),
        "car_turbo" => Some(problems::car_turbo(10, 3, Representation::Stewart)?),
        _ => None,
    };
    match ocp {
        Some(mut ocp) => {
            ocp.options.homotopy.ipopt.push(ldl_option());
            ocp.options.kernels = Kernels::Compiled;
            let r = OcpSolver::new(&ocp)?.solve()?;
            println!("{case}: {:?}, cost {:.6}, {} Ipopt iterations", r.status, r.cost, r.mpcc.total_iterations);
        }
        None => {
            let mut opts = HomotopyOptions::default();
            opts.ipopt.push(ldl_option());
            let formulation = Default::default();
            let mut solver =
                MpccSolver::from_file(std::path::Path::new(case), formulation, opts, &CompileOptions::default(), Kernels::Compiled)?;
            let r = solver.solve();
            println!("{case}: {:?}, f = {:.6}, {} Ipopt iterations", r.status, r.objective, r.total_iterations);
        }
    }
    Ok(take_captured_kkt())
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

struct Row {
    ratio: f64,
    mismatch: bool,
    residual: f64,
}

/// The shortest of `repeat` runs of `run` in ms, and the last run's result.
fn best_of<T>(repeat: usize, mut run: impl FnMut() -> T) -> (f64, T) {
    let (mut best, mut out) = (f64::INFINITY, None);
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        out = Some(run());
        best = best.min(ms(t));
    }
    (best, out.expect("at least one run"))
}

fn compare(k: &KktSystem, repeat: usize) -> Result<Row, Box<dyn std::error::Error>> {
    // Both solvers as Ipopt uses them: the analysis and a first factorization (which
    // also finds whether the matrix needs pivoting) once, then the factorization timed.
    let t = Instant::now();
    let mut ldl = Ldl::default();
    ldl.pivot_threshold = k.pivot_threshold;
    ldl.analyze(k.dim, &k.col_ptr, &k.row_idx)?;
    ldl.values_mut().copy_from_slice(&k.values);
    let _ = ldl.factor();
    let ldl_analysis = ms(t);
    let delayed_before = ldl.delayed_pivots;
    let (ldl_factor, ldl_neg) = best_of(repeat, || {
        ldl.values_mut().copy_from_slice(&k.values);
        ldl.factor()
    });
    let delayed = (ldl.delayed_pivots - delayed_before) / repeat.max(1);
    let (ldl_solve, (ldl_solved, x)) = best_of(repeat, || {
        let mut x = k.rhs.clone();
        (ldl_neg.is_ok() && ldl.solve_in_place(&mut x, 1).is_ok(), x)
    });
    let ldl_res = if ldl_solved { ldl.residual(&x, &k.rhs) } else { f64::NAN };

    let mut mumps = Mumps::new(k.dim, &k.col_ptr, &k.row_idx, &k.values, 1e-8)?;
    let t = Instant::now();
    mumps.factor().map_err(|e| format!("MUMPS analysis/factorization: {e}"))?;
    let mumps_analysis = ms(t);
    let (mumps_factor, mumps_neg) = best_of(repeat, || mumps.factor());
    let mumps_neg = mumps_neg.map_err(|e| format!("MUMPS factorization: {e}"))?;
    let (mumps_solve, (solved, y)) = best_of(repeat, || {
        let mut y = k.rhs.clone();
        (mumps.solve(&mut y), y)
    });
    solved.map_err(|e| format!("MUMPS solve: {e}"))?;
    let mumps_res = ldl.residual(&y, &k.rhs);

    let nnz = k.row_idx.len();
    let ldl_neg_text = ldl_neg.as_ref().map(|n| n.to_string()).unwrap_or_else(|e| format!("({e})"));
    println!(
        "{:>6} {:>8} {:>9} {:>9} | {:>6.2} {:>6.2} {:>6.2} {:>9.1e} {:>6} {:>7} | {:>6.2} {:>6.2} {:>6.2} {:>9.1e} {:>6}",
        k.dim,
        nnz,
        ldl.factor_nonzeros(),
        mumps.factor_entries(),
        ldl_analysis,
        ldl_factor,
        ldl_solve,
        ldl_res,
        ldl_neg_text,
        delayed,
        mumps_analysis,
        mumps_factor,
        mumps_solve,
        mumps_res,
        mumps_neg
    );
    Ok(Row { ratio: (ldl_factor + ldl_solve) / (mumps_factor + mumps_solve), mismatch: ldl_neg != Ok(mumps_neg), residual: ldl_res })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut every, mut max, mut repeat, mut cases) = (10, 10, 20, Vec::new());
    let mut out = std::path::PathBuf::from("target/kkt_systems");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--every" => every = args.next().ok_or("--every K")?.parse()?,
            "--max" => max = args.next().ok_or("--max M")?.parse()?,
            "--repeat" => repeat = args.next().ok_or("--repeat R")?.parse()?,
            "--out" => out = args.next().ok_or("--out DIR")?.into(),
            "-h" | "--help" => {
                println!(
                    "usage: kkt_benchmark [--every K] [--max M] [--repeat R] [--out DIR] [sliding_mode|motor_240|car_turbo|file.json|file.kkt.json …]"
                );
                return Ok(());
            }
            _ => cases.push(a),
        }
    }
    if cases.is_empty() {
        cases = ["sliding_mode", "motor_240", "car_turbo", "tests/data/CARTIM_001_010_003_2_RIIA_STEWART_7_FIL_0.json"]
            .map(String::from)
            .to_vec();
    }
    let mut rows = Vec::new();
    for case in &cases {
        let systems = if case.ends_with(".kkt.json") {
            vec![serde_json::from_str::<KktSystem>(&std::fs::read_to_string(case)?)?]
        } else {
            let systems = capture(case, every, max)?;
            std::fs::create_dir_all(&out)?;
            let stem = std::path::Path::new(case).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            for (i, k) in systems.iter().enumerate() {
                std::fs::write(out.join(format!("{stem}_{i}.kkt.json")), serde_json::to_string(k)?)?;
            }
            systems
        };
        println!(
            "{:>6} {:>8} {:>9} {:>9} | {:>6} {:>6} {:>6} {:>9} {:>6} {:>7} | {:>6} {:>6} {:>6} {:>9} {:>6}",
            "rows",
            "nnz",
            "L nnz",
            "MUMPS nnz",
            "ldl an",
            "fact",
            "solve",
            "residual",
            "neg",
            "delayed",
            "MUMPS an",
            "fact",
            "solve",
            "residual",
            "neg"
        );
        for k in &systems {
            rows.push(compare(k, repeat)?);
        }
    }
    let mut ratios: Vec<f64> = rows.iter().map(|r| r.ratio).collect();
    ratios.sort_by(f64::total_cmp);
    let median = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
    println!("kkt_matrices = {}", rows.len());
    println!("kkt_median_time_ratio = {median:.3}");
    println!("kkt_inertia_mismatches = {}", rows.iter().filter(|r| r.mismatch).count());
    println!("kkt_max_residual = {:.1e}", rows.iter().map(|r| r.residual).fold(0.0_f64, |m, v| if v.is_nan() { m } else { m.max(v) }));
    Ok(())
}
