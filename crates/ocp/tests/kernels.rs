//! Kernels evaluated by CasADi and compiled kernels give the same solutions; the
//! default `Kernels::Auto` starts on CasADi's evaluation on a cold cache, adopts the
//! compiled kernels once they are there, and goes on without a C compiler.

use fesd_model::Representation;
use fesd_mpcc::{CompileOptions, Kernels};
use fesd_ocp::{problems, Ocp, OcpResult, OcpSolver};

fn solve(ocp: &Ocp, kernels: Kernels, compile: &CompileOptions) -> (OcpSolver, OcpResult) {
    let mut ocp = ocp.clone();
    ocp.options.kernels = kernels;
    let mut solver = OcpSolver::with_compile_options(&ocp, compile).unwrap();
    let r = solver.solve().unwrap();
    assert!(r.status.is_converged(), "{:?}", r.status);
    (solver, r)
}

fn cache(dir: &tempfile::TempDir) -> CompileOptions {
    CompileOptions { cache_dir: Some(dir.path().to_path_buf()), ..CompileOptions::default() }
}

fn max_state_difference(a: &OcpResult, b: &OcpResult) -> f64 {
    a.x.iter().flatten().zip(b.x.iter().flatten()).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max)
}

#[test]
fn interpreted_and_compiled_kernels_give_the_same_solution() {
    for ocp in [problems::car_turbo(10, 3, Representation::Stewart).unwrap(), problems::sliding_mode().unwrap()] {
        let (compiled_dir, empty_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (compiled_solver, compiled) = solve(&ocp, Kernels::Compiled, &cache(&compiled_dir));
        let (interpreted_solver, interpreted) = solve(&ocp, Kernels::Interpreted, &cache(&empty_dir));
        assert!(!compiled_solver.build_report().interpreted && compiled_solver.build_report().c_bytes > 0);
        assert!(interpreted_solver.build_report().interpreted && interpreted.mpcc.steps.iter().all(|s| s.interpreted));
        assert!(compiled.mpcc.steps.iter().all(|s| !s.interpreted));
        let relative = (compiled.objective - interpreted.objective).abs() / compiled.objective.abs().max(1.0);
        assert!(relative <= 1e-9, "objective {} vs {}", compiled.objective, interpreted.objective);
        assert!(max_state_difference(&compiled, &interpreted) <= 1e-9, "{}", max_state_difference(&compiled, &interpreted));
        // Interpreting writes nothing to the cache.
        assert_eq!(std::fs::read_dir(empty_dir.path()).unwrap().count(), 0);
    }
}

#[test]
fn auto_kernels_are_adopted_once_compiled() {
    let ocp = problems::car_turbo(10, 3, Representation::Stewart).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut solver, first) = solve(&ocp, Kernels::Auto, &cache(&dir));
    assert!(first.mpcc.steps[0].interpreted, "a cold cache starts on CasADi's evaluation");
    assert!(solver.wait_for_compiled_kernels());
    let report = solver.build_report();
    assert!(report.compiled_in_background && !report.interpreted && report.c_bytes > 0, "{report:?}");
    let again = solver.solve().unwrap();
    assert!(again.mpcc.steps.iter().all(|s| !s.interpreted));
    assert!((again.t_final - first.t_final).abs() <= 1e-9 && max_state_difference(&first, &again) <= 1e-9);
    // The next solver of the same problem loads the cached kernels at once.
    let (next, _) = solve(&ocp, Kernels::Auto, &cache(&dir));
    assert!(next.build_report().cache_hit && !next.build_report().interpreted);
}

#[test]
fn without_a_compiler_auto_kernels_go_on_evaluated_by_casadi() {
    let ocp = problems::sliding_mode().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let compile = CompileOptions { compiler: Some("no-such-cc-for-fesd".into()), ..cache(&dir) };
    let (mut solver, first) = solve(&ocp, Kernels::Auto, &compile);
    assert!(!solver.wait_for_compiled_kernels());
    let reason = solver.mpcc_solver().compile_error().expect("the compiler's error is reported").to_string();
    assert!(reason.contains("no-such-cc-for-fesd"), "{reason}");
    let again = solver.solve().unwrap();
    assert!(again.status.is_converged() && again.mpcc.steps.iter().all(|s| s.interpreted));
    assert!((again.objective - first.objective).abs() <= 1e-9 * first.objective.abs());
    // Nothing half-written is left: no object, no finished or temporary file.
    let leftovers: Vec<String> = walk(dir.path()).into_iter().filter(|n| n.contains(".so") || n.ends_with(".tmp")).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // Compiled kernels are refused where CasADi must evaluate (an expanded NLP).
    let mut expanded = ocp.clone();
    (expanded.options.expand, expanded.options.kernels) = (true, Kernels::Compiled);
    let err = OcpSolver::new(&expanded).err().expect("expand with compiled kernels is refused");
    assert!(err.to_string().contains("kernels"), "{err}");
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.path().is_dir() {
            names.extend(walk(&entry.path()));
        } else {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names
}
