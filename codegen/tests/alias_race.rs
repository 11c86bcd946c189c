//! Cache aliases recorded concurrently. (Its own file: `cache_faults.rs` changes
//! process-wide environment variables.)

use casadi::{Function, SX};
use fesd_codegen::{CodegenContext, CompileOptions, KernelLibrary};

#[test]
fn an_alias_recorded_by_many_threads_at_once() {
    // Regression: two threads recording the same alias shared one temporary file and
    // the second rename failed (seen as a failed test build on a fresh cache).
    let x = SX::sym("x", 3);
    let f = Function::new("kf", &[("x", &x)], &[("y", &(x.sin() * 1.5))]).unwrap();
    let mut ctx = CodegenContext::new("alias_race").unwrap();
    ctx.add(&f).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let opts = CompileOptions { cache_dir: Some(cache.path().to_path_buf()), ..Default::default() };
    let lib = ctx.compile(&opts).unwrap();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..20 {
                    lib.record_alias("the same problem", &opts).unwrap();
                }
            });
        }
    });
    let found = KernelLibrary::load_alias("the same problem", "alias_race", &["kf".to_string()], &opts).unwrap().unwrap();
    let out = found.kernel("kf").unwrap().call(&[&[0.1, 0.2, 0.3]]).unwrap();
    assert!((out[0][1] - 1.5 * 0.2f64.sin()).abs() < 1e-15);
}
