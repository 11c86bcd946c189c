//! Compiling generated C into shared objects, cached on disk.

use crate::context::GeneratedSource;
use crate::error::{io_err, CodegenError, Result};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Optimization level passed to the C compiler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OptLevel {
    /// `-O0`: fastest compile, for very large kernels.
    O0,
    /// `-O1`.
    O1,
    /// `-O2` (default).
    #[default]
    O2,
    /// `-O3`.
    O3,
}

impl OptLevel {
    fn as_u32(self) -> u32 {
        match self {
            OptLevel::O0 => 0,
            OptLevel::O1 => 1,
            OptLevel::O2 => 2,
            OptLevel::O3 => 3,
        }
    }
}

/// How generated C is compiled at run time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Where compiled objects are cached; default `$FESD_KERNEL_CACHE`, else
    /// `<fesd cache>/kernels` (see `casadi_sdk::cache_root`).
    pub cache_dir: Option<PathBuf>,
    /// Optimization level (default `-O2`).
    pub opt_level: OptLevel,
    /// Extra compiler flags, appended after ours (part of the cache key).
    pub extra_flags: Vec<String>,
}

impl CompileOptions {
    /// The cache directory these options resolve to.
    pub fn resolved_cache_dir(&self) -> PathBuf {
        if let Some(d) = &self.cache_dir {
            return d.clone();
        }
        if let Some(d) = std::env::var_os("FESD_KERNEL_CACHE") {
            return PathBuf::from(d);
        }
        casadi_sdk::cache_root().join("kernels")
    }
}

static COMPILER_RUNS: AtomicUsize = AtomicUsize::new(0);

/// How many times this process has invoked the C compiler to build a kernel library.
pub fn compiler_runs() -> usize {
    COMPILER_RUNS.load(Ordering::SeqCst)
}

struct Compiler {
    command: Command,
    identity: String,
}

fn compiler(opts: &CompileOptions) -> Result<Compiler> {
    let target = env!("FESD_CODEGEN_TARGET");
    let host = env!("FESD_CODEGEN_HOST");
    let mut build = cc::Build::new();
    build
        .target(target)
        .host(host)
        .opt_level(opts.opt_level.as_u32())
        .debug(false)
        .pic(true)
        .warnings(false)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .emit_rerun_if_env_changed(false);
    for f in &opts.extra_flags {
        build.flag(f);
    }
    let tool = build.try_get_compiler().map_err(|e| CodegenError::NoCompiler(e.to_string()))?;
    let version = compiler_version(tool.path())?;
    let args: Vec<String> = tool.args().iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let identity = format!("{}|{}|{}", tool.path().display(), version, args.join(" "));
    Ok(Compiler { command: tool.to_command(), identity })
}

/// `<compiler> --version`, queried once per compiler per process.
fn compiler_version(path: &Path) -> Result<String> {
    static VERSIONS: OnceLock<Mutex<HashMap<PathBuf, String>>> = OnceLock::new();
    let map = VERSIONS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(v) = map.get(path) {
        return Ok(v.clone());
    }
    let out = Command::new(path)
        .arg("--version")
        .output()
        .map_err(|e| CodegenError::NoCompiler(format!("{}: {e}", path.display())))?;
    let v = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("").to_string();
    map.insert(path.to_path_buf(), v.clone());
    Ok(v)
}

fn cache_key(src: &GeneratedSource, compiler_identity: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"fesd-codegen-v1\0");
    h.update(casadi::CASADI_VERSION.as_bytes());
    h.update(b"\0");
    h.update(compiler_identity.as_bytes());
    h.update(b"\0");
    h.update(src.c_source.as_bytes());
    let digest = h.finalize();
    digest.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// Compiles `src` into `<cache>/<module>-<hash>/lib<module>.so` unless it is there.
/// Returns the path and whether the cache was hit.
pub(crate) fn compile_shared(src: &GeneratedSource, opts: &CompileOptions) -> Result<(PathBuf, bool)> {
    let Compiler { mut command, identity } = compiler(opts)?;
    let key = cache_key(src, &identity);
    let dir = opts.resolved_cache_dir().join(format!("{}-{key}", src.module));
    let lib = dir.join(format!("lib{}.so", src.module));
    if lib.is_file() {
        return Ok((lib, true));
    }
    let c_file = src.write_to(&dir)?;
    // Compile to a private name, then rename: concurrent processes never see a partial object.
    static TMP_COUNTER: AtomicUsize = AtomicUsize::new(0);
    let unique = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".lib{}.so.{}-{unique}.tmp", src.module, std::process::id()));
    command.arg("-shared").arg("-o").arg(&tmp).arg(&c_file);
    COMPILER_RUNS.fetch_add(1, Ordering::SeqCst);
    let out = command
        .output()
        .map_err(|e| CodegenError::NoCompiler(format!("could not run the C compiler: {e}")))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(CodegenError::CompileFailed {
            source_file: c_file,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    // Another thread or process may have finished the same object first; both are identical.
    if let Err(e) = std::fs::rename(&tmp, &lib) {
        let _ = std::fs::remove_file(&tmp);
        if !lib.is_file() {
            return Err(io_err("renaming into", &lib)(e));
        }
    }
    Ok((lib, false))
}
