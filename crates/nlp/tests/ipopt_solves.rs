//! Ipopt driven by compiled kernels: HS71, warm start, a 10 000-variable sparse NLP,
//! and errors for bad problems and options.

use fesd_codegen::CompileOptions;
use fesd_nlp::problems::{chained_rosenbrock, hs071};
use fesd_nlp::CompiledNlp;
use ipopt::{ApplicationReturnStatus, IpoptError, IpoptSolver, StartPoint};

fn quiet(solver: &mut IpoptSolver) {
    solver.set_option("print_level", 0).set_option("sb", "yes");
}

#[test]
fn hs071_with_compiled_kernels_and_warm_start() {
    let (nlp, d) = hs071();
    let mut compiled = CompiledNlp::build(&nlp, "hs071_test", &CompileOptions::default()).unwrap();
    let structure = compiled.structure(d.x_l.clone(), d.x_u.clone(), d.g_l.clone(), d.g_u.clone()).unwrap();
    assert_eq!(structure.jac_rows.len(), 8);
    assert_eq!(structure.hess_rows.len(), 10);
    let mut solver = IpoptSolver::new(structure).unwrap();
    quiet(&mut solver);
    solver.set_option("tol", 1e-10);
    let mut iters_seen = Vec::new();
    let mut record = |info: &ipopt::IterationInfo| {
        iters_seen.push(info.iter);
        true
    };
    let sol = solver.solve(&mut compiled, &StartPoint::primal(d.x0.clone()), Some(&mut record)).unwrap();
    assert_eq!(sol.status, ApplicationReturnStatus::SolveSucceeded);
    // f* = 17.0140173 to the 8 digits usually quoted; Ipopt converges to 17.014017140224.
    assert!((sol.objective - 17.014017140224).abs() < 1e-7, "f = {}", sol.objective);
    let x_star = [1.0, 4.74299963, 3.82114998, 1.37940829];
    for (a, b) in sol.x.iter().zip(x_star) {
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
    assert_eq!(*iters_seen.last().unwrap(), sol.iterations);
    assert!(sol.iterations > 3);

    // Warm start from the solution with primal and dual values.
    let mut warm = IpoptSolver::new(solver.structure().clone()).unwrap();
    quiet(&mut warm);
    warm.set_option("tol", 1e-10)
        .set_option("warm_start_bound_push", 1e-9)
        .set_option("warm_start_mult_bound_push", 1e-9)
        .set_option("mu_init", 1e-9);
    let again = warm.solve(&mut compiled, &sol.warm_start(), None).unwrap();
    assert!(again.status.is_success());
    assert!(again.iterations <= 3, "warm start took {} iterations", again.iterations);
    assert!((again.objective - 17.014017140224).abs() < 1e-7);
    println!("cold iterations = {}, warm iterations = {}", sol.iterations, again.iterations);
}

/// With the Hessian perturbation reused, Ipopt factorizes every matrix with δ_w > 0
/// once it has classified the Hessian as degenerate (after the first iterations); the
/// solution and every result's size are those of the plain solve.
#[test]
fn hs071_with_reused_hessian_perturbation() {
    let (nlp, d) = hs071();
    let mut compiled = CompiledNlp::build(&nlp, "hs071_test", &CompileOptions::default()).unwrap();
    let structure = compiled.structure(d.x_l.clone(), d.x_u.clone(), d.g_l.clone(), d.g_u.clone()).unwrap();
    let mut regularizations = [Vec::new(), Vec::new()];
    let mut solutions = Vec::new();
    for (reuse, regs) in [false, true].into_iter().zip(regularizations.iter_mut()) {
        let mut solver = IpoptSolver::new(structure.clone()).unwrap();
        quiet(&mut solver);
        solver.set_option("tol", 1e-10).set_reuse_hessian_perturbation(reuse);
        let mut record = |info: &ipopt::IterationInfo| {
            regs.push(info.regularization);
            true
        };
        let sol = solver.solve(&mut compiled, &StartPoint::primal(d.x0.clone()), Some(&mut record)).unwrap();
        assert_eq!(sol.status, ApplicationReturnStatus::SolveSucceeded);
        assert!((sol.objective - 17.014017140224).abs() < 1e-7, "f = {}", sol.objective);
        assert_eq!((sol.x.len(), sol.mult_x_l.len(), sol.mult_x_u.len()), (4, 4, 4));
        // A warm start with duals goes through the padded arrays too.
        let again = solver.solve(&mut compiled, &sol.warm_start(), None).unwrap();
        assert!(again.status.is_success() && (again.objective - sol.objective).abs() < 1e-7);
        solutions.push(sol);
    }
    for (a, b) in solutions[0].x.iter().zip(&solutions[1].x) {
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
    // Iteration 0 reports no factorization; the plain solve factorizes unperturbed
    // matrices, the other perturbs every one from its fourth iteration on.
    assert!(regularizations[0][1..].contains(&0.0), "{:?}", regularizations[0]);
    assert!(regularizations[1][4..].iter().all(|&r| r > 0.0), "{:?}", regularizations[1]);
}

#[test]
fn sparse_nlp_with_ten_thousand_variables() {
    let n = 10_000;
    let (nlp, d) = chained_rosenbrock(n).unwrap();
    let t = std::time::Instant::now();
    let mut compiled = CompiledNlp::build(&nlp, "rosenbrock_10k", &CompileOptions::default()).unwrap();
    let build = t.elapsed();
    let s = compiled.structure(d.x_l, d.x_u, d.g_l, d.g_u).unwrap();
    assert_eq!(s.hess_rows.len(), 2 * n - 1);
    let mut solver = IpoptSolver::new(s).unwrap();
    quiet(&mut solver);
    let t = std::time::Instant::now();
    let sol = solver.solve(&mut compiled, &StartPoint::primal(d.x0), None).unwrap();
    let solve = t.elapsed();
    assert_eq!(sol.status, ApplicationReturnStatus::SolveSucceeded);
    assert!(sol.objective.abs() < 1e-12, "f = {}", sol.objective);
    assert!(sol.x.iter().all(|v| (v - 1.0).abs() < 1e-6));
    println!("n = {n}: build {build:?} (cache hit: {}), solve {solve:?}, {} iterations", compiled.build_report().cache_hit, sol.iterations);
}

#[test]
fn bad_problems_and_options_are_errors() {
    let (nlp, d) = hs071();
    let compiled = CompiledNlp::build(&nlp, "hs071_test", &CompileOptions::default()).unwrap();
    assert!(compiled.structure(vec![1.0; 3], d.x_u.clone(), d.g_l.clone(), d.g_u.clone()).is_err());
    let mut bad = d.x_l.clone();
    bad[2] = 6.0;
    let err = compiled.structure(bad, d.x_u.clone(), d.g_l.clone(), d.g_u.clone()).unwrap_err();
    assert!(err.to_string().contains("exceeds upper bound"), "{err}");

    let mut compiled = compiled;
    let s = compiled.structure(d.x_l, d.x_u, d.g_l, d.g_u).unwrap();
    let mut solver = IpoptSolver::new(s).unwrap();
    quiet(&mut solver);
    solver.set_option("no_such_option", 3);
    let err = solver.solve(&mut compiled, &StartPoint::primal(d.x0.clone()), None).unwrap_err();
    assert!(matches!(err, IpoptError::InvalidOption { .. }), "{err}");
    let mut solver = IpoptSolver::new(solver.structure().clone()).unwrap();
    quiet(&mut solver);
    assert!(matches!(solver.solve(&mut compiled, &StartPoint::primal(vec![1.0; 2]), None), Err(IpoptError::InvalidStart(_))));
    // A failed solve still returns its last iterate and a status.
    solver.set_option("max_iter", 2);
    let sol = solver.solve(&mut compiled, &StartPoint::primal(d.x0), None).unwrap();
    assert_eq!(sol.status, ApplicationReturnStatus::MaximumIterationsExceeded);
    assert_eq!(sol.x.len(), 4);
    assert!(sol.x.iter().all(|v| v.is_finite()));
    // The intermediate callback can stop the solve.
    solver.set_option("max_iter", 100);
    let mut stop = |info: &ipopt::IterationInfo| info.iter < 1;
    let sol = solver.solve(&mut compiled, &StartPoint::primal(vec![1.0, 5.0, 5.0, 1.0]), Some(&mut stop)).unwrap();
    assert_eq!(sol.status, ApplicationReturnStatus::UserRequestedStop);
}

#[test]
fn hs071_evaluated_by_casadi_before_its_module_is_compiled() {
    let (nlp, d) = hs071();
    let dir = tempfile::tempdir().unwrap();
    let opts = CompileOptions { cache_dir: Some(dir.path().to_path_buf()), ..CompileOptions::default() };
    let solve = |compiled: &mut CompiledNlp| {
        let structure = compiled.structure(d.x_l.clone(), d.x_u.clone(), d.g_l.clone(), d.g_u.clone()).unwrap();
        let mut solver = IpoptSolver::new(structure).unwrap();
        quiet(&mut solver);
        solver.set_option("tol", 1e-10);
        solver.solve(compiled, &StartPoint::primal(d.x0.clone()), None).unwrap()
    };
    let group = [(&nlp, "hs071_vm")];
    let (mut first, pending) = CompiledNlp::build_group_or_interpret(&group, "hs071_vm", &[], &opts).unwrap();
    assert!(first[0].build_report().interpreted && first[0].library_path().is_none());
    let by_casadi = solve(&mut first[0]);
    assert_eq!(by_casadi.status, ApplicationReturnStatus::SolveSucceeded);
    assert!((by_casadi.objective - 17.0140171).abs() < 1e-6, "{}", by_casadi.objective);
    // The pending module compiles without CasADi (here on another thread) and is then
    // found by the next build, which evaluates the same numbers in C.
    let pending = pending.expect("nothing was cached");
    let compiled_lib = std::thread::spawn({
        let opts = opts.clone();
        move || pending.compile_and_load(&opts).map(|lib| lib.path().to_path_buf())
    });
    let lib_path = compiled_lib.join().unwrap().unwrap();
    let (mut second, none) = CompiledNlp::build_group_or_interpret(&group, "hs071_vm", &[], &opts).unwrap();
    assert!(none.is_none() && !second[0].build_report().interpreted && second[0].build_report().cache_hit);
    assert_eq!(second[0].library_path(), Some(lib_path.as_path()));
    let by_c = solve(&mut second[0]);
    assert_eq!(by_c.iterations, by_casadi.iterations);
    assert!((by_c.objective - by_casadi.objective).abs() < 1e-12);
    for (a, b) in by_c.x.iter().zip(&by_casadi.x) {
        assert!((a - b).abs() < 1e-10, "{a} vs {b}");
    }
    // The first solver set OpenBLAS to one thread (its spinning workers only take
    // cores from other work), unless the environment chose a count.
    if std::env::var_os("OPENBLAS_NUM_THREADS").is_none() && std::env::var_os("OMP_NUM_THREADS").is_none() {
        assert_eq!(ipopt::blas_threads(), Some(1));
    }
}

/// HS71's solver with this linear solver, and the NLP.
fn hs071_solver(linear_solver: &str) -> (IpoptSolver, CompiledNlp, Vec<f64>) {
    let (nlp, d) = hs071();
    let compiled = CompiledNlp::build(&nlp, "hs071_ldl", &CompileOptions::default()).unwrap();
    let structure = compiled.structure(d.x_l.clone(), d.x_u.clone(), d.g_l.clone(), d.g_u.clone()).unwrap();
    let mut solver = IpoptSolver::new(structure).unwrap();
    quiet(&mut solver);
    solver.set_option("tol", 1e-10).set_option("linear_solver", linear_solver);
    (solver, compiled, d.x0)
}

/// HS71 from its standard start with this linear solver.
fn hs071_with(linear_solver: &str) -> ipopt::Solution {
    let (solver, mut compiled, x0) = hs071_solver(linear_solver);
    solver.solve(&mut compiled, &StartPoint::primal(x0), None).unwrap()
}

/// `ldl_pivtol` reaches the LDLᵀ (each recorded KKT system carries the threshold it was
/// factored with); Ipopt checks its range and fesd the pair's order.
#[test]
fn the_ldl_pivot_threshold_is_an_ipopt_option() {
    for (pivtol, expected) in [(None, 1e-8), (Some(0.01), 0.01)] {
        let (mut solver, mut compiled, x0) = hs071_solver("ldl");
        if let Some(u) = pivtol {
            solver.set_option("ldl_pivtol", u);
        }
        ipopt::capture_kkt(1, usize::MAX);
        let r = solver.solve(&mut compiled, &StartPoint::primal(x0), None).unwrap();
        let systems = ipopt::take_captured_kkt();
        assert_eq!(r.status, ApplicationReturnStatus::SolveSucceeded);
        assert!(!systems.is_empty());
        assert!(
            systems.iter().all(|k| k.pivot_threshold == expected),
            "{:?}",
            systems.iter().map(|k| k.pivot_threshold).collect::<Vec<_>>()
        );
    }
    let (mut solver, _, _) = hs071_solver("ldl");
    solver.set_option("ldl_pivtol", 1.5);
    assert!(matches!(solver.validate_options(), Err(IpoptError::InvalidOption { name, .. }) if name == "ldl_pivtol"));
    let (mut solver, _, _) = hs071_solver("ldl");
    solver.set_option("ldl_pivtol", 0.2).set_option("ldl_pivtolmax", 0.1);
    assert!(matches!(solver.validate_options(), Err(IpoptError::InvalidOption { name, .. }) if name == "ldl_pivtolmax"));
}

/// fesd's sparse LDLᵀ as Ipopt's linear solver (`linear_solver = ldl`) gives HS71's
/// solution with the iterations of MUMPS; from threads at once the results are identical.
#[test]
fn hs071_with_fesd_ldl_as_the_linear_solver() {
    let (mumps, ldl) = (hs071_with("mumps"), hs071_with("ldl"));
    assert_eq!(ldl.status, ApplicationReturnStatus::SolveSucceeded);
    assert!((ldl.objective - 17.014017140224).abs() < 1e-7, "f = {}", ldl.objective);
    assert!(ldl.x.iter().zip(&mumps.x).all(|(a, b)| (a - b).abs() < 1e-8));
    assert_eq!(ldl.iterations, mumps.iterations);
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|_| s.spawn(|| hs071_with("ldl"))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &results {
        assert_eq!((r.x.clone(), r.iterations), (ldl.x.clone(), ldl.iterations), "bitwise identical from every thread");
    }
}
