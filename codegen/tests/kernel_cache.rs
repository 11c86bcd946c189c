//! The on-disk kernel cache: the second load of the same model runs no compiler.
//! (One test per file, so the process-wide compiler-run counter is exact.)

use casadi::{Function, SX};
use fesd_codegen::{compiler_runs, CodegenContext, CompileOptions, OptLevel};

fn context() -> CodegenContext {
    let x = SX::sym("x", 50);
    let y = SX::jacobian(&(x.sin() * x.at(0).unwrap()), &x).unwrap();
    let f = Function::new("cached_f", &[("x", &x)], &[("J", &y)]).unwrap();
    let mut ctx = CodegenContext::new("cache_probe").unwrap();
    ctx.add(&f).unwrap();
    ctx
}

#[test]
fn second_load_hits_the_cache_without_compiling() {
    let cache = tempfile::tempdir().unwrap();
    let opts = CompileOptions { cache_dir: Some(cache.path().to_path_buf()), ..Default::default() };
    let before = compiler_runs();
    let first = context().compile(&opts).unwrap();
    assert!(!first.cache_hit());
    let after_first = compiler_runs();
    assert!(after_first > before);
    // A fresh context for the same model renders identical C and finds the object.
    let second = context().compile(&opts).unwrap();
    assert!(second.cache_hit());
    assert_eq!(first.path(), second.path());
    // No compiler run on this thread.
    assert_eq!(compiler_runs(), after_first);
    let mut k = second.kernel("cached_f").unwrap();
    let out = k.call(&[&vec![0.5; 50]]).unwrap();
    assert!((out[0][0] - (0.5f64.cos() * 0.5 + 0.5f64.sin())).abs() < 1e-14);
    // Different flags give a different cache entry (compiler flags are in the key).
    let o1 = CompileOptions { opt_level: OptLevel::O1, ..opts.clone() };
    let third = context().compile(&o1).unwrap();
    assert!(!third.cache_hit());
    assert_ne!(third.path(), first.path());
}
