//! Compiled C kernels agree with CasADi's own evaluation, and the disk cache works.

use casadi::{Function, SX};
use fesd_codegen::{CodegenContext, CodegenError, CompileOptions};
use rand::{Rng, SeedableRng};

const N: usize = 60;

/// A chained nonlinear function of 60 inputs with a banded Jacobian and Hessian.
fn functions() -> (Function, Function, Function) {
    let x = SX::sym("x", N);
    let xs: Vec<SX> = (0..N).map(|i| x.at(i).unwrap()).collect();
    let mut phi = SX::scalar(0.0);
    let mut residuals = Vec::new();
    for i in 0..N - 1 {
        let r = xs[i + 1].sin() * &xs[i] - (&xs[i] * 0.1).exp() + xs[i + 1].powf(2.0) * 0.5;
        phi = phi + &r * &r + (&xs[i] - &xs[i + 1]).tanh();
        residuals.push(r);
    }
    let refs: Vec<&SX> = residuals.iter().collect();
    let r = SX::vertcat(&refs).unwrap();
    let jac = SX::jacobian(&r, &x).unwrap();
    let hess = SX::hessian(&phi, &x).unwrap().tril();
    let grad = SX::gradient(&phi, &x).unwrap();
    let f_res = Function::new("chain_res", &[("x", &x)], &[("r", &r), ("J", &jac)]).unwrap();
    let f_hess = Function::new("chain_hess", &[("x", &x)], &[("H", &hess)]).unwrap();
    let f_obj = Function::new("chain_obj", &[("x", &x)], &[("phi", &phi), ("grad", &grad)]).unwrap();
    (f_res, f_hess, f_obj)
}

fn context() -> CodegenContext {
    let (a, b, c) = functions();
    let mut ctx = CodegenContext::new("chain_kernels").unwrap();
    for f in [&a, &b, &c] {
        ctx.add(f).unwrap();
    }
    ctx
}

#[test]
fn compiled_matches_casadi_on_random_inputs() {
    let cache = tempfile::tempdir().unwrap();
    let opts = CompileOptions { cache_dir: Some(cache.path().to_path_buf()), ..Default::default() };
    matches_casadi(&opts);
}

/// Tables moved out of the C (a low threshold, so the Jacobian's and Hessian's
/// patterns move) give the same patterns and values; the compiled C shrinks by the
/// tables; the cached tables file is checked like the object.
#[test]
fn constant_tables_beside_the_object_give_the_same_kernels() {
    let cache = tempfile::tempdir().unwrap();
    let opts = CompileOptions { cache_dir: Some(cache.path().to_path_buf()), tables_out_of_line: Some(16), ..Default::default() };
    let lib = matches_casadi(&opts);
    let rendered = context().render().unwrap().c_source;
    let compiled = std::fs::read_to_string(lib.path().with_file_name("chain_kernels.c")).unwrap();
    assert!(compiled.contains("chain_kernels_bind_tables"));
    assert!(compiled.len() < rendered.len(), "{} vs {}", compiled.len(), rendered.len());
    let tables = lib.path().with_extension("tables");
    let data = fesd_codegen::ConstantTables::from_bytes(&std::fs::read(&tables).unwrap(), &tables).unwrap();
    // At least the Jacobian's pattern (colind + rows) moved.
    assert!(data.ints.len() >= N + 1 + 2 * (N - 1), "{}", data.ints.len());
    drop(lib);
    // A damaged tables file is found before loading and the entry rebuilt.
    let mut bytes = std::fs::read(&tables).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&tables, bytes).unwrap();
    let again = context().compile(&opts).unwrap();
    let reason = again.rebuilt_because().expect("damaged tables not detected");
    assert!(reason.contains("tables"), "{reason}");
    drop(again);
    // The same object opened twice shares its tables: dropping the first handle must
    // leave the second working.
    let first = matches_casadi(&opts);
    let second = matches_casadi(&opts);
    assert_eq!(first.path(), second.path());
    drop(first);
    drop(matches_casadi(&opts));
    drop(second);
    matches_casadi(&opts);
}

/// Compiles the chain kernels with `opts` and compares them with CasADi's evaluation.
fn matches_casadi(opts: &CompileOptions) -> fesd_codegen::KernelLibrary {
    let (fr, fh, fo) = functions();
    let lib = context().compile(opts).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut worst: f64 = 0.0;
    for (f, name) in [(&fr, "chain_res"), (&fh, "chain_hess"), (&fo, "chain_obj")] {
        let mut k = lib.kernel(name).unwrap();
        // Same sparsity as CasADi's function.
        for o in 0..f.n_out() {
            let sp = f.sparsity_out(o).unwrap();
            assert_eq!(k.sparsity_out(o).colind, sp.colind());
            assert_eq!(k.sparsity_out(o).row, sp.row());
        }
        for _ in 0..100 {
            let x: Vec<f64> = (0..N).map(|_| rng.gen_range(-2.0..2.0)).collect();
            let got = k.call(&[&x]).unwrap();
            let want = f.eval_nonzeros(&[&x]).unwrap();
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g.len(), w.len());
                for (a, b) in g.iter().zip(w) {
                    let err = (a - b).abs() / (1.0 + b.abs());
                    worst = worst.max(err);
                    assert!(err <= 1e-13, "{name}: {a} vs {b}");
                }
            }
        }
    }
    // The Hessian is sparse: banded lower triangle, not dense.
    let h = lib.kernel("chain_hess").unwrap();
    assert_eq!(h.sparsity_out(0).nnz(), 2 * N - 1);
    let j = lib.kernel("chain_res").unwrap();
    assert_eq!(j.sparsity_out(1).nnz(), 2 * (N - 1));
    println!("worst relative difference = {worst:e}");
    drop((h, j));
    lib
}

#[test]
fn bad_names_and_arguments_are_errors() {
    let x = SX::sym("x", 2);
    let f = Function::new("f", &[("x", &x)], &[("y", &x.sin())]).unwrap();
    let mut ctx = CodegenContext::new("small").unwrap();
    ctx.add(&f).unwrap();
    assert!(matches!(ctx.add(&f), Err(CodegenError::InvalidName { .. })));
    assert!(CodegenContext::new("9lives").is_err());
    assert!(CodegenContext::new("has space").is_err());
    let cache = tempfile::tempdir().unwrap();
    let lib = ctx.compile(&CompileOptions { cache_dir: Some(cache.path().to_path_buf()), ..Default::default() }).unwrap();
    assert!(lib.kernel("g").is_err());
    let mut k = lib.kernel("f").unwrap();
    assert!(matches!(k.call(&[&[1.0, 2.0, 3.0]]), Err(CodegenError::BadArguments { .. })));
    assert!(k.call(&[]).is_err());
    let y = k.call(&[&[0.5, 1.0]]).unwrap();
    assert_eq!(y[0], vec![0.5f64.sin(), 1.0f64.sin()]);
}
