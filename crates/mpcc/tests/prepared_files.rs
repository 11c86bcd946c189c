//! `MpccSolver::from_file` prepares a file once: the second run of the same bytes
//! builds its solver from the cached record and kernels, without the expressions, and
//! solves to the same point; changed bytes or options, a garbled record or a damaged
//! module only send it down the full path again.

use fesd_mpcc::{nosbench, CompileOptions, Formulation, HomotopyOptions, Kernels, MpccResult, MpccSolver, Relaxation};
use std::path::{Path, PathBuf};

/// `0 ≤ x ⊥ y ≥ 0` with two local minima (NOSBENCH layout).
fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/two_branches.json")
}

/// A private kernel cache and a private copy of the fixture (so edits stay local).
fn sandbox() -> (tempfile::TempDir, CompileOptions, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let compile = CompileOptions { cache_dir: Some(dir.path().join("cache")), ..CompileOptions::default() };
    let file = dir.path().join("problem.json");
    std::fs::copy(fixture(), &file).unwrap();
    (dir, compile, file)
}

fn solve(file: &Path, (form, opts): (Formulation, &HomotopyOptions), compile: &CompileOptions) -> (bool, MpccResult) {
    let mut solver = MpccSolver::from_file(file, form, opts.clone(), compile, Kernels::Compiled).unwrap();
    (solver.prepared_from_cache(), solver.solve())
}

fn assert_same(a: &MpccResult, b: &MpccResult) {
    assert_eq!(a.status, b.status);
    assert_eq!(a.total_iterations, b.total_iterations);
    assert_eq!(a.objective, b.objective);
    assert_eq!(a.w, b.w);
}

/// Every regular file below `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn the_second_run_of_a_file_is_built_from_its_record_and_solves_the_same() {
    let (_dir, compile, file) = sandbox();
    let opts = HomotopyOptions::default();
    let (first_prepared, first) = solve(&file, (Formulation::default(), &opts), &compile);
    let (second_prepared, second) = solve(&file, (Formulation::default(), &opts), &compile);
    assert!(!first_prepared && second_prepared);
    assert!(second.status.is_converged(), "{:?}", second.status);
    assert_same(&first, &second);
    // The same as reading the expressions and building the solver by hand.
    let by_hand = MpccSolver::with_compile_options(&nosbench::read_file(&file).unwrap(), opts, &compile).unwrap().solve();
    assert_same(&by_hand, &second);
    // The finish (its branch NLP is part of the record) certified the point.
    assert_eq!(second.finish.as_ref().map(|f| f.stationarity), by_hand.finish.as_ref().map(|f| f.stationarity));
}

#[test]
fn changed_bytes_or_kernel_options_are_prepared_afresh() {
    let (_dir, compile, file) = sandbox();
    let opts = HomotopyOptions::default();
    let (_, reference) = solve(&file, (Formulation::default(), &opts), &compile);
    // The same problem with other bytes (trailing whitespace) is another record.
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push('\n');
    std::fs::write(&file, text).unwrap();
    let (prepared, again) = solve(&file, (Formulation::default(), &opts), &compile);
    assert!(!prepared);
    assert_same(&reference, &again);
    // Another relaxation is compiled into other kernels: another record too.
    let fb = Formulation { relaxation: Relaxation::FischerBurmeisterInequality, ..Formulation::default() };
    assert!(!solve(&file, (fb, &opts), &compile).0);
    assert!(solve(&file, (fb, &opts), &compile).0);
    // The schedule (σ_0, κ) is not compiled in: it shares the record.
    let other_schedule = HomotopyOptions { sigma_0: 1.0, kappa: 0.2, ..opts };
    assert!(solve(&file, (Formulation::default(), &other_schedule), &compile).0);
}

#[test]
fn a_garbled_record_or_a_damaged_module_falls_back_to_the_full_build() {
    let (dir, compile, file) = sandbox();
    let opts = HomotopyOptions::default();
    let (_, reference) = solve(&file, (Formulation::default(), &opts), &compile);
    let cache = dir.path().join("cache");
    let notes: Vec<PathBuf> = files_under(&cache.join("notes"));
    assert_eq!(notes.len(), 1, "{notes:?}");
    std::fs::write(&notes[0], "{ not a record").unwrap();
    let (prepared, again) = solve(&file, (Formulation::default(), &opts), &compile);
    assert!(!prepared);
    assert_same(&reference, &again);
    assert!(solve(&file, (Formulation::default(), &opts), &compile).0, "the full build records the file again");
    // A module altered after it was recorded fails its hash check: rebuilt, not loaded.
    let modules: Vec<PathBuf> = files_under(&cache).into_iter().filter(|p| p.extension().is_some_and(|e| e == "so")).collect();
    assert_eq!(modules.len(), 1, "{modules:?}");
    let mut bytes = std::fs::read(&modules[0]).unwrap();
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&modules[0], bytes).unwrap();
    let (prepared, rebuilt) = solve(&file, (Formulation::default(), &opts), &compile);
    assert!(!prepared);
    assert_same(&reference, &rebuilt);
}

#[test]
fn auto_kernels_solve_by_casadi_first_and_compile_for_the_next_run() {
    let (_dir, compile, file) = sandbox();
    let opts = HomotopyOptions::default();
    let (_, compiled) = {
        let (other_dir, other_compile, other_file) = sandbox();
        let r = solve(&other_file, (Formulation::default(), &opts), &other_compile);
        drop(other_dir);
        r
    };
    // Interpreted: CasADi evaluates, nothing is compiled or recorded.
    for _ in 0..2 {
        let mut solver = MpccSolver::from_file(&file, Formulation::default(), opts.clone(), &compile, Kernels::Interpreted).unwrap();
        assert!(solver.kernels_interpreted() && !solver.prepared_from_cache());
        assert_same(&compiled, &solver.solve());
    }
    // Auto: the first run is evaluated by CasADi while the module compiles beside it;
    // once the compiler is done, the next run is prepared and compiled.
    let mut first = MpccSolver::from_file(&file, Formulation::default(), opts.clone(), &compile, Kernels::Auto).unwrap();
    assert!(first.kernels_interpreted());
    assert_same(&compiled, &first.solve());
    assert!(first.wait_for_compiled_kernels());
    drop(first);
    let mut second = MpccSolver::from_file(&file, Formulation::default(), opts, &compile, Kernels::Auto).unwrap();
    assert!(second.prepared_from_cache() && !second.kernels_interpreted() && second.kernels_cached());
    assert_same(&compiled, &second.solve());
}

#[test]
fn a_solver_built_by_casadi_adopts_its_compiled_kernels_for_later_solves() {
    let (_dir, compile, file) = sandbox();
    let opts = HomotopyOptions::default();
    let mut solver = MpccSolver::from_file(&file, Formulation::default(), opts, &compile, Kernels::Auto).unwrap();
    assert!(solver.kernels_interpreted());
    let by_casadi = solver.solve();
    assert!(solver.wait_for_compiled_kernels());
    assert!(!solver.kernels_interpreted());
    // The same solver, now in C (relaxed NLP and the finish's branch NLP alike).
    let by_c = solver.solve();
    assert_same(&by_casadi, &by_c);
    assert_eq!(by_c.finish.map(|f| f.stationarity), by_casadi.finish.map(|f| f.stationarity));
}
