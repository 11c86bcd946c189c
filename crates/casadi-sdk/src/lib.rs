//! Locates the CasADi 3.8.2 C++ SDK for build scripts, installing it when absent.
//!
//! The SDK is the content of the PyPI wheel `casadi==3.8.2`: `libcasadi.so`,
//! `include/casadi/…`, and Ipopt 3.14.19 with MUMPS (`libipopt.so.3`,
//! `include/coin-or/IpStdCInterface.h`). The search order is
//!
//! 1. the environment variable `CASADI_DIR` (the `casadi` package directory, or a
//!    directory that contains it),
//! 2. the `casadi` package of `python3` (or of `$PYTHON`), if its version is 3.8.2,
//! 3. a cached install under `$FESD_CACHE_DIR` (default `$XDG_CACHE_HOME/fesd`,
//!    else `~/.cache/fesd`), created on first use with
//!    `python3 -m pip install --no-deps --target <cache>/casadi-3.8.2 casadi==3.8.2`.
//!
//! Concurrent builds serialize the install through a file lock, and the install is
//! staged in a temporary directory and renamed into place, so an interrupted install
//! never leaves a half-populated SDK behind.
//!
//! Build scripts call [`Sdk::locate`] and then [`Sdk::emit_cargo_link`] (to link and set
//! the rpath of the package's own binaries) or only [`Sdk::emit_rpath`] (for packages
//! that link CasADi through a dependency, e.g. a user's binary using `fesd`).

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The CasADi version this project is pinned to.
pub const CASADI_VERSION: &str = "3.8.2";

/// How the SDK was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SdkSource {
    /// From the `CASADI_DIR` environment variable.
    EnvVar,
    /// From the `casadi` Python package of the given interpreter.
    Python(String),
    /// From the project's own cache (installed now or by an earlier build).
    Cache,
}

/// A located CasADi SDK.
#[derive(Debug, Clone)]
pub struct Sdk {
    /// Directory holding `libcasadi.so` and `libipopt.so.3`.
    pub lib_dir: PathBuf,
    /// Directory holding `casadi/casadi.hpp` and `coin-or/IpStdCInterface.h`.
    pub include_dir: PathBuf,
    /// Where it came from.
    pub source: SdkSource,
}

/// Every attempt that failed, in order, with its reason.
#[derive(Debug, Clone)]
pub struct LocateError {
    /// `(what was tried, why it failed)`.
    pub attempts: Vec<(String, String)>,
}

impl fmt::Display for LocateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "could not find or install the CasADi {CASADI_VERSION} SDK; tried:")?;
        for (what, why) in &self.attempts {
            writeln!(f, "  - {what}: {why}")?;
        }
        write!(
            f,
            "Set CASADI_DIR to an unpacked `casadi=={CASADI_VERSION}` wheel (the directory holding \
             libcasadi.so and include/), or make `python3 -m pip` able to install it."
        )
    }
}

impl std::error::Error for LocateError {}

impl Sdk {
    /// Finds the SDK (see the crate docs for the order), installing it into the cache
    /// if nothing else works.
    pub fn locate() -> Result<Sdk, LocateError> {
        let mut attempts = Vec::new();
        if let Some(dir) = std::env::var_os("CASADI_DIR") {
            let dir = PathBuf::from(dir);
            match Self::from_dir(&dir, SdkSource::EnvVar) {
                Ok(sdk) => return Ok(sdk),
                Err(why) => attempts.push((format!("CASADI_DIR={}", dir.display()), why)),
            }
        }
        let python = python();
        match python_casadi_dir(&python) {
            Ok(dir) => match Self::from_dir(&dir, SdkSource::Python(python.clone())) {
                Ok(sdk) => return Ok(sdk),
                Err(why) => attempts.push((format!("`{python}` casadi package"), why)),
            },
            Err(why) => attempts.push((format!("`{python}` casadi package"), why)),
        }
        let cache = cache_root().join(format!("casadi-{CASADI_VERSION}"));
        match install_into(&python, &cache) {
            Ok(()) => match Self::from_dir(&cache, SdkSource::Cache) {
                Ok(sdk) => return Ok(sdk),
                Err(why) => attempts.push((format!("cache {}", cache.display()), why)),
            },
            Err(why) => attempts.push((format!("pip install into {}", cache.display()), why)),
        }
        Err(LocateError { attempts })
    }

    /// Accepts either the `casadi` package directory or a directory containing it.
    pub fn from_dir(dir: &Path, source: SdkSource) -> Result<Sdk, String> {
        for cand in [dir.to_path_buf(), dir.join("casadi")] {
            let lib = cand.join("libcasadi.so");
            let hdr = cand.join("include").join("casadi").join("casadi.hpp");
            let ipopt = cand.join("include").join("coin-or").join("IpStdCInterface.h");
            if lib.is_file() && hdr.is_file() && ipopt.is_file() {
                return Ok(Sdk { lib_dir: cand.clone(), include_dir: cand.join("include"), source });
            }
        }
        Err(format!(
            "no libcasadi.so + include/casadi/casadi.hpp + include/coin-or/IpStdCInterface.h in {} or {}/casadi",
            dir.display(),
            dir.display()
        ))
    }

    /// The preprocessor definitions `libcasadi` was compiled with (read from the
    /// `CASADI_COMPILER_FLAGS` of `casadi/config.h`). Code that includes CasADi's
    /// headers must use them too: some change class layouts (e.g.
    /// `CASADI_WITH_THREADSAFE_SYMBOLICS`), and a mismatch corrupts memory.
    pub fn compile_definitions(&self) -> Vec<(String, Option<String>)> {
        let path = self.include_dir.join("casadi").join("config.h");
        let text = fs::read_to_string(&path).unwrap_or_default();
        let Some(line) = text.lines().find(|l| l.contains("#define CASADI_COMPILER_FLAGS")) else {
            return Vec::new();
        };
        let flags = line.split('"').nth(1).unwrap_or("");
        flags
            .split_whitespace()
            .filter_map(|t| t.strip_prefix("-D"))
            .map(|d| match d.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (d.to_string(), None),
            })
            .collect()
    }

    /// Prints the cargo directives that link the SDK libraries `libs` (e.g. `"casadi"`,
    /// `"ipopt"`) and set the rpath of this package's binaries, tests and examples.
    pub fn emit_cargo_link(&self, libs: &[&str]) {
        println!("cargo:rustc-link-search=native={}", self.lib_dir.display());
        for lib in libs {
            println!("cargo:rustc-link-lib=dylib={lib}");
        }
        self.emit_rpath();
    }

    /// Prints the cargo directives that embed the SDK's library directory as rpath of
    /// this package's binaries, so they run without `LD_LIBRARY_PATH`.
    pub fn emit_rpath(&self) {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", self.lib_dir.display());
        // If the SDK is removed (e.g. the cache is cleared), find or install it again.
        println!("cargo:rerun-if-changed={}", self.lib_dir.join("libcasadi.so").display());
        emit_rerun_directives();
    }
}

/// Prints the `rerun-if-env-changed` directives for every variable the search reads.
pub fn emit_rerun_directives() {
    for var in ["CASADI_DIR", "PYTHON", "FESD_CACHE_DIR", "XDG_CACHE_HOME"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
}

/// The Python interpreter to use: `$PYTHON`, else `python3`.
fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// The project's cache root: `$FESD_CACHE_DIR`, `$XDG_CACHE_HOME/fesd`, `~/.cache/fesd`.
pub fn cache_root() -> PathBuf {
    if let Some(d) = std::env::var_os("FESD_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("fesd");
    }
    if let Some(h) = std::env::var_os("HOME") {
        return PathBuf::from(h).join(".cache").join("fesd");
    }
    std::env::temp_dir().join("fesd-cache")
}

fn python_casadi_dir(python: &str) -> Result<PathBuf, String> {
    let out = Command::new(python)
        .args(["-c", "import casadi, os; print(casadi.__version__); print(os.path.dirname(casadi.__file__))"])
        .output()
        .map_err(|e| format!("could not run {python}: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("import failed").to_string();
        return Err(last);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let version = lines.next().unwrap_or("").trim();
    let dir = lines.next().unwrap_or("").trim();
    if version != CASADI_VERSION {
        return Err(format!("version {version} found, {CASADI_VERSION} required"));
    }
    Ok(PathBuf::from(dir))
}

/// Installs the wheel's contents into `target` unless a complete install is there.
fn install_into(python: &str, target: &Path) -> Result<(), String> {
    let marker = target.join(".fesd-complete");
    if marker.is_file() {
        return Ok(());
    }
    let parent = target.parent().ok_or("cache path has no parent")?;
    fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let lock_path = parent.join(format!("casadi-{CASADI_VERSION}.lock"));
    let lock = fs::File::create(&lock_path).map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    lock.lock().map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    // Another build may have finished the install while we waited for the lock.
    if marker.is_file() {
        return Ok(());
    }
    let staging = parent.join(format!("casadi-{CASADI_VERSION}.staging-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    let out = Command::new(python)
        .args(["-m", "pip", "install", "--no-deps", "--disable-pip-version-check", "--no-warn-script-location", "--target"])
        .arg(&staging)
        .arg(format!("casadi=={CASADI_VERSION}"))
        .output()
        .map_err(|e| format!("could not run {python} -m pip: {e}"))?;
    if !out.status.success() {
        let _ = fs::remove_dir_all(&staging);
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(3).collect();
        return Err(format!("pip failed: {}", tail.into_iter().rev().collect::<Vec<_>>().join(" | ")));
    }
    let _ = fs::remove_dir_all(target);
    fs::rename(&staging, target).map_err(|e| format!("cannot move install into {}: {e}", target.display()))?;
    fs::write(&marker, CASADI_VERSION).map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    Ok(())
}
