//! Compiling generated C into shared objects, cached on disk and verified on load.
//!
//! An entry `<cache>/<module>-<key>/` holds `lib<module>.so` and its SHA-256 in
//! `lib<module>.so.sha256`, written (and synced) before the object is renamed into
//! place. The key hashes the C source, the compiler command and its flags, so finding
//! an entry runs no program: a cached kernel loads without a C compiler. Before an
//! object is loaded its hash is checked; a truncated or altered object is deleted and
//! rebuilt (or, if it cannot be deleted, reported with its path).
//!
//! The compiler runs in a process group of its own, behind a small `sh` wrapper that
//! renames its output to `lib<module>.so.done` only once it succeeded: a process that
//! ends while its compiler runs (a first result on interpreted kernels) leaves a
//! complete object there or nothing, and the next build publishes it instead of
//! compiling again. Temporary files older than the compile timeout are removed.

use crate::error::{io_err, CodegenError, Result};
use crate::source::GeneratedSource;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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
    /// The level of `-O<n>`; numbers above 3 mean `-O3`.
    pub fn from_number(n: u8) -> Self {
        match n {
            0 => OptLevel::O0,
            1 => OptLevel::O1,
            2 => OptLevel::O2,
            _ => OptLevel::O3,
        }
    }

    fn flag(self) -> &'static str {
        match self {
            OptLevel::O0 => "-O0",
            OptLevel::O1 => "-O1",
            OptLevel::O2 => "-O2",
            OptLevel::O3 => "-O3",
        }
    }
}

/// The compile timeout when none is given: `$FESD_CC_TIMEOUT` seconds, else this.
pub const DEFAULT_COMPILE_TIMEOUT: Duration = Duration::from_secs(600);

/// How generated C is compiled at run time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// Where compiled objects are cached; default `$FESD_KERNEL_CACHE` (if set and not
    /// empty), else `<fesd cache>/kernels` (see `casadi_sdk::cache_root`).
    pub cache_dir: Option<PathBuf>,
    /// Optimization level (default `-O2`).
    pub opt_level: OptLevel,
    /// Extra compiler flags, appended after ours (part of the cache key).
    pub extra_flags: Vec<String>,
    /// Longest one compiler run may take before it is killed (default
    /// `$FESD_CC_TIMEOUT` seconds, else [`DEFAULT_COMPILE_TIMEOUT`]).
    pub timeout: Option<Duration>,
    /// Constant arrays (sparsity patterns, index lists) with at least this many
    /// entries are stored beside the object as data and bound when it is loaded,
    /// instead of being compiled (see [`crate::split_tables`]); `None` compiles every
    /// table. Default [`DEFAULT_TABLES_OUT_OF_LINE`]. Part of the cache key.
    pub tables_out_of_line: Option<usize>,
    /// The C compiler command, split on whitespace (e.g. `ccache gcc`); default `$CC`,
    /// else `cc`. Part of the cache key.
    pub compiler: Option<String>,
}

/// Default of [`CompileOptions::tables_out_of_line`]: arrays of 256 entries or more.
pub const DEFAULT_TABLES_OUT_OF_LINE: usize = 256;

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            cache_dir: None,
            opt_level: OptLevel::default(),
            extra_flags: Vec::new(),
            timeout: None,
            tables_out_of_line: Some(DEFAULT_TABLES_OUT_OF_LINE),
            compiler: None,
        }
    }
}

impl CompileOptions {
    /// Stores `text` under `key` in the kernel cache (keyed, like every cache entry, by
    /// the compiler command and CasADi's version too): what a layer derived from the
    /// sources of a cached library, so that a later run need not derive it again.
    /// Written atomically; a concurrent writer of the same key wins or loses whole.
    pub fn record_note(&self, key: &str, text: &str) -> Result<()> {
        record_note(key, text, self)
    }

    /// The text [`CompileOptions::record_note`] stored under `key`, if any.
    pub fn find_note(&self, key: &str) -> Option<String> {
        find_note(key, self)
    }

    /// The cache directory these options resolve to.
    pub fn resolved_cache_dir(&self) -> PathBuf {
        if let Some(d) = &self.cache_dir {
            return d.clone();
        }
        match std::env::var_os("FESD_KERNEL_CACHE") {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => casadi_sdk::cache_root().join("kernels"),
        }
    }

    fn resolved_timeout(&self) -> Duration {
        self.timeout.unwrap_or_else(|| {
            std::env::var("FESD_CC_TIMEOUT")
                .ok()
                .and_then(|s| s.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s > 0.0)
                .map(Duration::from_secs_f64)
                .unwrap_or(DEFAULT_COMPILE_TIMEOUT)
        })
    }
}

thread_local! {
    static COMPILER_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times the calling thread has invoked the C compiler to build a kernel
/// library (per thread, so that builds on other threads, e.g. tests running in
/// parallel, do not count).
pub fn compiler_runs() -> usize {
    COMPILER_RUNS.with(|c| c.get())
}

/// The compiler command: [`CompileOptions::compiler`], else `$CC` (split on
/// whitespace, e.g. `ccache gcc`), else `cc`, then our flags. Nothing is run to find it.
fn compiler_command(opts: &CompileOptions) -> Vec<String> {
    let given = |c: &String| !c.trim().is_empty();
    let mut cmd: Vec<String> = match opts.compiler.clone().filter(given).or_else(|| std::env::var("CC").ok().filter(given)) {
        Some(cc) => cc.split_whitespace().map(String::from).collect(),
        None => vec!["cc".to_string()],
    };
    // CasADi's code for a map over an empty input passes `0 + i*0` as a pointer; that is
    // a warning in GCC 12 and Clang 14 but an error from GCC 14 and Clang 16 on.
    cmd.extend([opts.opt_level.flag(), "-fPIC", "-shared", "-Wno-int-conversion"].map(String::from));
    cmd.extend(opts.extra_flags.iter().cloned());
    cmd
}

fn cache_key(src: &GeneratedSource, command: &[String], tables_out_of_line: Option<usize>) -> String {
    let mut h = Sha256::new();
    h.update(b"fesd-codegen-v3\0");
    h.update(format!("{tables_out_of_line:?}\0").as_bytes());
    h.update(casadi_sdk::CASADI_VERSION.as_bytes());
    h.update(b"\0");
    h.update(env!("FESD_CODEGEN_TARGET").as_bytes());
    h.update(b"\0");
    h.update(command.join("\x1f").as_bytes());
    h.update(b"\0");
    h.update(src.c_source.as_bytes());
    hex(&h.finalize()[..12])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn file_sha256(path: &Path) -> std::io::Result<String> {
    let mut h = Sha256::new();
    let mut f = File::open(path)?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}

/// What the cache had for a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CacheOutcome {
    /// A verified object was found; nothing was compiled.
    Hit,
    /// Not cached: compiled now.
    Compiled,
    /// A cached object failed verification (the reason), was deleted and rebuilt.
    Rebuilt(String),
}

/// The constant tables stored beside the object `lib` (see [`crate::split_tables`]).
pub(crate) fn tables_path(lib: &Path) -> PathBuf {
    lib.with_extension("tables")
}

/// The file holding the SHA-256 of `file`.
fn manifest_of(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}

/// Checks one file against its recorded hash.
fn verify_file(file: &Path) -> std::result::Result<(), String> {
    let what = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let recorded = std::fs::read_to_string(manifest_of(file)).map_err(|e| format!("{what}: no recorded hash ({e})"))?;
    let actual = file_sha256(file).map_err(|e| format!("{what}: unreadable ({e})"))?;
    if recorded.trim() != actual {
        return Err(format!("{what}: content hash {actual} differs from the recorded {}", recorded.trim()));
    }
    Ok(())
}

/// Checks a cached object and its constant tables against their recorded hashes:
/// `Ok(None)` if absent, `Ok(Some(()))` if intact, `Err(reason)` if damaged.
fn verify(lib: &Path) -> std::result::Result<Option<()>, String> {
    if !lib.exists() {
        return Ok(None);
    }
    verify_file(lib)?;
    verify_file(&tables_path(lib))?;
    Ok(Some(()))
}

/// Writes `bytes` to a temporary sibling of `file`, syncs it and its hash, and renames
/// both into place (hash first).
fn publish_file(file: &Path, tmp: &Path, write: impl FnOnce(&Path) -> std::io::Result<()>) -> std::io::Result<()> {
    let result = (|| {
        write(tmp)?;
        File::open(tmp)?.sync_all()?;
        let digest = file_sha256(tmp)?;
        let tmp_manifest = manifest_of(tmp);
        let mut m = File::create(&tmp_manifest)?;
        m.write_all(digest.as_bytes())?;
        m.sync_all()?;
        std::fs::rename(&tmp_manifest, manifest_of(file))?;
        std::fs::rename(tmp, file)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(tmp);
        let _ = std::fs::remove_file(manifest_of(tmp));
    }
    result
}

/// Compiles `src` into `<cache>/<module>-<key>/lib<module>.so` unless a verified copy
/// is there. Returns the path and what the cache had.
pub(crate) fn compile_shared(src: &GeneratedSource, opts: &CompileOptions) -> Result<(PathBuf, CacheOutcome)> {
    cached_or_compiled(src, opts, true).map(|found| found.expect("compiles when missing"))
}

/// The verified object of `src` if the cache has it (or an earlier process's compiler
/// finished it), without compiling.
pub(crate) fn cached_shared(src: &GeneratedSource, opts: &CompileOptions) -> Result<Option<PathBuf>> {
    cached_or_compiled(src, opts, false).map(|found| found.map(|(path, _)| path))
}

fn cached_or_compiled(src: &GeneratedSource, opts: &CompileOptions, compile: bool) -> Result<Option<(PathBuf, CacheOutcome)>> {
    let command = compiler_command(opts);
    let key = cache_key(src, &command, opts.tables_out_of_line);
    let dir = opts.resolved_cache_dir().join(format!("{}-{key}", src.module));
    if !compile && !dir.is_dir() {
        return Ok(None);
    }
    std::fs::create_dir_all(&dir).map_err(io_err("creating", &dir))?;
    let lib = dir.join(format!("lib{}.so", src.module));
    let tables = tables_path(&lib);
    // One process at a time checks or fills an entry.
    let lock_path = dir.join(".lock");
    let lock = File::create(&lock_path).map_err(io_err("creating", &lock_path))?;
    lock.lock().map_err(io_err("locking", &lock_path))?;
    let mut outcome = CacheOutcome::Compiled;
    let finished = finished_path(&lib);
    remove_stale_temporaries(&dir, opts.resolved_timeout());
    match verify(&lib) {
        Ok(Some(())) => {
            let _ = std::fs::remove_file(&finished);
            return Ok(Some((lib, CacheOutcome::Hit)));
        }
        Ok(None) if finished.exists() && tables.exists() => {
            // An earlier process ended while its compiler ran; the compiler finished.
            if publish_file(&lib, &finished, |_| Ok(())).and_then(|()| File::open(&dir)?.sync_all()).is_ok() {
                return Ok(Some((lib, CacheOutcome::Hit)));
            }
        }
        Ok(None) if !compile => return Ok(None),
        Ok(None) => {}
        Err(_) if !compile => return Ok(None),
        Err(reason) => {
            std::fs::remove_file(&lib).map_err(|e| CodegenError::CorruptCache {
                path: lib.clone(),
                reason: format!("{reason}; deleting it failed ({e}): delete the directory {} by hand", dir.display()),
            })?;
            for f in [manifest_of(&lib), tables.clone(), manifest_of(&tables)] {
                let _ = std::fs::remove_file(f);
            }
            outcome = CacheOutcome::Rebuilt(reason);
        }
    }
    let (c_source, data) = match opts.tables_out_of_line {
        Some(min_len) => crate::tables::split_tables(&src.c_source, &src.module, min_len),
        None => (src.c_source.clone(), crate::tables::ConstantTables::default()),
    };
    let c_file = GeneratedSource { c_source, ..src.clone() }.write_to(&dir)?;
    // The tables first (a finished object left by this run needs them); the object's
    // rename is what makes the entry visible.
    let tmp_tables = dir.join(format!(".lib{}.tables.{}.tmp", src.module, std::process::id()));
    publish_file(&tables, &tmp_tables, |p| std::fs::write(p, data.to_bytes())).map_err(io_err("publishing into", &tables))?;
    let tmp = dir.join(format!(".lib{}.so.{}.tmp", src.module, std::process::id()));
    run_compiler(&command, &c_file, &tmp, &finished, opts.resolved_timeout())?;
    publish_file(&lib, &finished, |_| Ok(())).and_then(|()| File::open(&dir)?.sync_all()).map_err(|e| {
        let _ = std::fs::remove_file(&finished);
        io_err("publishing into", &lib)(e)
    })?;
    Ok(Some((lib, outcome)))
}

/// Where the compiler's wrapper puts a successfully compiled object of `lib`.
fn finished_path(lib: &Path) -> PathBuf {
    let mut name = lib.as_os_str().to_owned();
    name.push(".done");
    PathBuf::from(name)
}

/// Removes temporary files in `dir` not touched for longer than `timeout`: left by a
/// process that ended while writing them, since a compiler would have been killed.
fn remove_stale_temporaries(dir: &Path, timeout: Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let stale = entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().is_ok_and(|age| age > timeout));
        if stale && entry.file_name().to_string_lossy().ends_with(".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Runs the compiler on `c_file` into `out`, renamed to `finished` when it succeeds,
/// killing it after `timeout`. The compiler runs in a process group of its own behind
/// an `sh` wrapper that does the rename, so it finishes (or leaves nothing under
/// `finished`) even if this process ends first.
fn run_compiler(command: &[String], c_file: &Path, out: &Path, finished: &Path, timeout: Duration) -> Result<()> {
    COMPILER_RUNS.with(|c| c.set(c.get() + 1));
    let wrapper = r#"out=$1; finished=$2; shift 2; "$@" -o "$out" && mv -f "$out" "$finished"; status=$?; rm -f "$out"; exit $status"#;
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(wrapper)
        .arg("sh")
        .arg(out)
        .arg(finished)
        .args(command)
        .arg(c_file)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| CodegenError::NoCompiler(format!("could not run `sh` to start `{}`: {e}", command[0])))?;
    // Drain stderr on a thread so a chatty compiler cannot block on a full pipe.
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_string(&mut text);
        }
        text
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() >= timeout => {
                // The whole group: the wrapper and the compiler it started.
                let _ = Command::new("kill").arg("-KILL").arg("--").arg(format!("-{}", child.id())).status();
                let _ = child.kill();
                let _ = child.wait();
                let _ = std::fs::remove_file(out);
                return Err(CodegenError::CompileTimeout { command: command.join(" "), seconds: timeout.as_secs_f64() });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(CodegenError::NoCompiler(format!("waiting for `{}`: {e}", command[0]))),
        }
    };
    let stderr = reader.join().unwrap_or_default();
    if !status.success() {
        let _ = std::fs::remove_file(out);
        // The shell's own message when the compiler is missing (exit 127 or 126).
        if matches!(status.code(), Some(126 | 127)) {
            return Err(CodegenError::NoCompiler(format!("could not run `{}` (set CC to a C compiler): {}", command[0], stderr.trim())));
        }
        return Err(CodegenError::CompileFailed { source_file: c_file.to_path_buf(), stderr });
    }
    Ok(())
}

/// The file under `<cache>/<kind>/` that holds what is recorded for `key` under these
/// options (the compiler command and where the constant tables go are part of it).
fn keyed_path(kind: &str, key: &str, opts: &CompileOptions) -> PathBuf {
    let mut h = Sha256::new();
    h.update(b"fesd-alias-v2\0");
    h.update(casadi_sdk::CASADI_VERSION.as_bytes());
    h.update(b"\0");
    h.update(format!("{:?}\0", opts.tables_out_of_line).as_bytes());
    h.update(compiler_command(opts).join("\x1f").as_bytes());
    h.update(b"\0");
    h.update(key.as_bytes());
    opts.resolved_cache_dir().join(kind).join(hex(&h.finalize()[..16]))
}

/// Writes `text` to `path` atomically (a private temporary sibling renamed into place).
fn write_keyed(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io_err("creating", dir))?;
    // A private name per call: threads and processes may record the same key at once.
    static KEYED_COUNTER: AtomicUsize = AtomicUsize::new(0);
    let unique = KEYED_COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = path.with_extension(format!("{}-{unique}.tmp", std::process::id()));
    std::fs::write(&tmp, text.as_bytes()).map_err(io_err("writing", &tmp))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err("renaming into", path)(e)
    })
}

/// Records that `alias` compiles to the object at `lib` (a path inside the cache).
pub(crate) fn record_alias(alias: &str, lib: &Path, opts: &CompileOptions) -> Result<()> {
    write_keyed(&keyed_path("aliases", alias, opts), &lib.to_string_lossy())
}

/// Stores `text` under `key` in the cache for these compile options (see
/// [`CompileOptions::record_note`]).
pub(crate) fn record_note(key: &str, text: &str, opts: &CompileOptions) -> Result<()> {
    write_keyed(&keyed_path("notes", key, opts), text)
}

/// The text recorded under `key` for these compile options, if any.
pub(crate) fn find_note(key: &str, opts: &CompileOptions) -> Option<String> {
    std::fs::read_to_string(keyed_path("notes", key, opts)).ok()
}

/// The object at `lib` if it exists and matches its recorded hash.
pub(crate) fn verified(lib: &Path) -> Option<&Path> {
    matches!(verify(lib), Ok(Some(()))).then_some(lib)
}

/// The verified object recorded under `alias`, if any.
pub(crate) fn find_alias(alias: &str, opts: &CompileOptions) -> Option<PathBuf> {
    let lib = PathBuf::from(std::fs::read_to_string(keyed_path("aliases", alias, opts)).ok()?);
    verified(&lib)?;
    Some(lib)
}
