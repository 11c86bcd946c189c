//! New parameter values and initial guesses reuse the compiled kernels: no compiler
//! run after construction. (One test in this file: the compiler-run counter is exact.)

use fesd_codegen::compiler_runs;
use fesd_mpcc::{nosbench, HomotopyOptions, MpccSolver};
use std::path::PathBuf;

#[test]
fn resolving_with_new_parameters_compiles_nothing() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/two_branches.json");
    let mpcc = nosbench::read_file(&path).unwrap();
    let mut solver = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap();
    let runs = compiler_runs();
    let first = solver.solve();
    assert!(first.status.is_converged());
    assert!((first.objective - 4.0).abs() < 1e-8);
    for p in [[2.5, 3.0], [1.5, 2.0], [2.0, 3.0]] {
        solver.set_parameters(&p).unwrap();
        solver.set_initial_guess(&mpcc.w0).unwrap();
        let r = solver.solve();
        assert!(r.status.is_converged(), "p = {p:?}: {:?}", r.status);
    }
    // Back at the file's p0, the same solution.
    let again = solver.solve();
    assert!((again.objective - first.objective).abs() < 1e-8);
    // Changing σ_0 and κ is a runtime option too.
    solver.set_options(HomotopyOptions { sigma_0: 0.1, kappa: 0.01, ..Default::default() }).unwrap();
    assert!(solver.solve().status.is_converged());
    assert_eq!(compiler_runs(), runs, "a solve compiled something");
}
