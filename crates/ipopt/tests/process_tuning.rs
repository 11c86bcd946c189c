//! A host program that turns process tuning off keeps its BLAS threads; with tuning on
//! (the default) the first solver sets OpenBLAS to one thread. One test: the settings
//! are process-wide.

use ipopt::{blas_threads, set_process_tuning, IpoptSolver, NlpStructure};

fn structure() -> NlpStructure {
    NlpStructure {
        x_l: vec![-1.0],
        x_u: vec![1.0],
        g_l: vec![],
        g_u: vec![],
        jac_rows: vec![],
        jac_cols: vec![],
        hess_rows: vec![0],
        hess_cols: vec![0],
    }
}

#[test]
fn process_tuning_is_the_hosts_choice() {
    let chosen_by_environment = std::env::var_os("OPENBLAS_NUM_THREADS").is_some() || std::env::var_os("OMP_NUM_THREADS").is_some();
    set_process_tuning(false);
    let before = blas_threads();
    println!("OpenBLAS threads before any solver: {before:?}");
    let _untuned = IpoptSolver::new(structure()).unwrap();
    assert_eq!(blas_threads(), before, "tuning off: OpenBLAS keeps its threads");
    set_process_tuning(true);
    let _tuned = IpoptSolver::new(structure()).unwrap();
    if before.is_some() && !chosen_by_environment {
        assert_eq!(blas_threads(), Some(1), "tuning on: one OpenBLAS thread (was {before:?})");
    }
}
