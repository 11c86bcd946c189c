//! Fault injection on the kernel cache and the compiler: damaged entries are rebuilt,
//! a cached kernel loads without any compiler, a hanging compiler is stopped, an object
//! finished after its process ended is picked up, and an
//! empty `FESD_KERNEL_CACHE` means "unset". One test in this file, because it changes
//! process-wide environment variables (`CC`, `FESD_KERNEL_CACHE`).

use casadi::{Function, SX};
use fesd_codegen::{CodegenContext, CodegenError, CompileOptions, KernelLibrary};
use std::path::Path;
use std::time::{Duration, Instant};

/// A module whose name and constant differ per call, so each is a fresh cache entry.
fn context(module: &str, k: f64) -> CodegenContext {
    let x = SX::sym("x", 3);
    let f = Function::new("kf", &[("x", &x)], &[("y", &(x.sin() * k))]).unwrap();
    let mut ctx = CodegenContext::new(module).unwrap();
    ctx.add(&f).unwrap();
    ctx
}

fn check_values(lib: &KernelLibrary, k: f64) {
    let out = lib.kernel("kf").unwrap().call(&[&[0.1, 0.2, 0.3]]).unwrap();
    for (i, x) in [0.1f64, 0.2, 0.3].iter().enumerate() {
        assert!((out[0][i] - k * x.sin()).abs() < 1e-15, "{:?}", out[0]);
    }
}

fn damage(path: &Path, how: &str) {
    let mut bytes = std::fs::read(path).unwrap();
    match how {
        "truncate" => bytes.truncate(bytes.len() / 2),
        _ => {
            // Same length, different code/data in the middle.
            let mid = bytes.len() / 2;
            for b in &mut bytes[mid..mid + 64] {
                *b ^= 0x5a;
            }
        }
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn kernel_cache_and_compiler_faults() {
    let cache = tempfile::tempdir().unwrap();
    let opts = CompileOptions { cache_dir: Some(cache.path().to_path_buf()), ..Default::default() };

    // 1. A truncated or patched object is detected before loading and rebuilt.
    for (i, how) in ["truncate", "patch"].into_iter().enumerate() {
        let module = format!("fault_{how}");
        let first = context(&module, 2.0 + i as f64).compile(&opts).unwrap();
        let path = first.path().to_path_buf();
        drop(first);
        damage(&path, how);
        let again = context(&module, 2.0 + i as f64).compile(&opts).unwrap();
        assert!(!again.cache_hit());
        let reason = again.rebuilt_because().unwrap_or_else(|| panic!("{how}: not detected"));
        assert!(reason.contains("hash"), "{reason}");
        check_values(&again, 2.0 + i as f64);
    }

    // 2. A damaged entry that cannot be deleted is an error naming its path.
    let first = context("fault_undeletable", 5.0).compile(&opts).unwrap();
    let path = first.path().to_path_buf();
    drop(first);
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    std::fs::write(path.join("blocker"), b"x").unwrap();
    match context("fault_undeletable", 5.0).compile(&opts) {
        Err(e @ CodegenError::CorruptCache { .. }) => assert!(e.to_string().contains(&*path.to_string_lossy()), "{e}"),
        other => panic!("expected CorruptCache, got {:?}", other.err()),
    }

    // 3. Without any C compiler a cached kernel still loads; an uncached one is a clear error.
    let warm = context("fault_warm", 7.0).compile(&opts).unwrap();
    drop(warm);
    // (The key holds the compiler's name, `cc`, not its version: nothing is run to look it up.)
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::set_var("PATH", cache.path().join("no-such-bin"));
    let cached = context("fault_warm", 7.0).compile(&opts);
    let cold = context("fault_cold", 8.0).compile(&opts);
    std::env::set_var("PATH", &path);
    let cached = cached.unwrap();
    assert!(cached.cache_hit());
    check_values(&cached, 7.0);
    match cold {
        Err(e @ CodegenError::NoCompiler(_)) => assert!(e.to_string().contains("`cc`"), "{e}"),
        other => panic!("expected NoCompiler, got {:?}", other.err()),
    }

    // 4. A compiler that hangs is stopped after the timeout.
    let fake = cache.path().join("hanging-cc.sh");
    std::fs::write(&fake, "#!/bin/sh\nexec sleep 60\n").unwrap();
    std::process::Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    std::env::set_var("CC", &fake);
    let quick = CompileOptions { timeout: Some(Duration::from_millis(500)), ..opts.clone() };
    let t = Instant::now();
    match context("fault_hang", 9.0).compile(&quick) {
        Err(e @ CodegenError::CompileTimeout { .. }) => assert!(e.to_string().contains("hanging-cc.sh"), "{e}"),
        other => panic!("expected CompileTimeout, got {:?}", other.err()),
    }
    assert!(t.elapsed() < Duration::from_secs(20), "took {:?}", t.elapsed());
    std::env::remove_var("CC");

    // 5. An object finished by the compiler of a process that ended first (left as
    //    `lib<module>.so.done` by the compiler's wrapper) is published without a
    //    compiler run; a stale temporary of such a process is removed.
    let first = context("fault_orphan", 11.0).compile(&opts).unwrap();
    let lib = first.path().to_path_buf();
    drop(first);
    let finished = lib.with_extension("so.done");
    std::fs::rename(&lib, &finished).unwrap();
    std::fs::remove_file(lib.with_extension("so.sha256")).unwrap();
    let stale = lib.with_file_name(".libfault_orphan.so.4242.tmp");
    std::fs::write(&stale, b"partial").unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options().write(true).open(&stale).unwrap().set_modified(old).unwrap();
    let runs = fesd_codegen::compiler_runs();
    let picked = context("fault_orphan", 11.0).compile(&opts).unwrap();
    assert_eq!(fesd_codegen::compiler_runs(), runs, "compiled again instead of publishing the finished object");
    assert!(picked.cache_hit() && !finished.exists() && !stale.exists());
    check_values(&picked, 11.0);

    // 6. An empty FESD_KERNEL_CACHE is treated as unset (not the current directory).
    std::env::set_var("FESD_KERNEL_CACHE", "");
    let dir = CompileOptions::default().resolved_cache_dir();
    assert!(dir.is_absolute() && dir.ends_with("kernels"), "{}", dir.display());
    std::env::set_var("FESD_KERNEL_CACHE", cache.path());
    assert_eq!(CompileOptions::default().resolved_cache_dir(), cache.path());
    std::env::remove_var("FESD_KERNEL_CACHE");
}
