//! An optimal control problem exported as a C solver directory, built by plain `make`
//! where neither Rust nor CasADi is installed.
//!
//! [`export_ocp`] compiles the OCP's module under the export's name, and writes:
//!
//! ```text
//! DIR/include/fesd.h, <name>_solver.h    the runtime's ABI, sizes and <name>_problem()
//! DIR/src/<name>_kernels.c, .h           the generated kernels and their table
//! DIR/src/<name>_solver.c                the record and constant tables as C arrays
//! DIR/lib/libfesd_capi.a                 fesd's runtime (the Rust homotopy and finish)
//! DIR/lib/libipopt.so.3, libhighs.so.1…  Ipopt and HiGHS with their closure, from the SDK
//! DIR/LICENSES/                         the shipped libraries' licences
//! DIR/examples/solve.c, mpc.c, bench.c    examples (make test, make bench)
//! DIR/Makefile, CMakeLists.txt, README.md
//! DIR/manifest.json                      versions, sizes, options, SHA-256 of every file
//! ```
//!
//! The runtime is built with cargo into the cache (`<cache>/capi/<version>`, see
//! [`runtime`]): the machine that exports needs Rust, the one that builds the directory
//! does not. Linux only, for the machine that exports.

use fesd_ocp::{ModelKind, Ocp, OcpSolver};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What can go wrong while exporting.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The OCP could not be transcribed or compiled.
    #[error(transparent)]
    Ocp(#[from] fesd_ocp::OcpError),
    /// A file could not be read or written.
    #[error("{what} {path}: {err}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        err: std::io::Error,
    },
    /// A template did not render (a bug).
    #[error("template: {0}")]
    Template(#[from] minijinja::Error),
    /// The runtime could not be built or the SDK's libraries found.
    #[error("runtime: {0}")]
    Runtime(String),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, ExportError>;

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ExportError {
    let path = path.to_path_buf();
    move |err| ExportError::Io { what, path, err }
}

/// Where and under which name to export.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// The solver's name: a C identifier, prefix of every generated symbol and file.
    pub name: String,
    /// The directory to write (created; files in it are overwritten).
    pub out_dir: PathBuf,
}

/// An exported OCP: its directory, and the Rust solver of the same module (to compare
/// with, or to keep using).
pub struct Exported<M: ModelKind> {
    /// The directory written.
    pub dir: PathBuf,
    /// The solver's name (prefix of its C symbols).
    pub name: String,
    /// The solver the export was made from.
    pub solver: OcpSolver<M>,
}

const FESD_H: &str = include_str!("../../capi/include/fesd.h");
const TEMPLATES: [(&str, &str); 8] = [
    ("solver.h", include_str!("../templates/solver.h.j2")),
    ("solver.c", include_str!("../templates/solver.c.j2")),
    ("solve.c", include_str!("../templates/solve.c.j2")),
    ("Makefile", include_str!("../templates/Makefile.j2")),
    ("mpc.c", include_str!("../templates/mpc.c.j2")),
    ("bench.c", include_str!("../templates/bench.c.j2")),
    ("README.md", include_str!("../templates/README.md.j2")),
    ("CMakeLists.txt", include_str!("../templates/CMakeLists.txt.j2")),
];

/// The SDK's licence folders (under `include/licenses`) of the libraries an export
/// ships, by the library's file-name prefix.
const LICENSES: [(&str, &str); 6] = [
    ("libipopt", "ipopt-external"),
    ("libcoinmumps", "mumps-external"),
    ("libcoinmetis", "metis-external"),
    ("libcasadi-tp-openblas", "openblas-external"),
    ("libhighs", "highs-external"),
    ("libz", "libz-external"),
];

/// A solver of `ocp` whose kernels are the compiled module `name` (compiled now if the
/// cache lacks it).
fn compiled_solver<M: ModelKind>(ocp: &Ocp<M>, name: &str) -> Result<OcpSolver<M>> {
    let mut solver = OcpSolver::with_module(ocp, &fesd_mpcc::CompileOptions::default(), name)?;
    if !solver.wait_for_compiled_kernels() {
        return Err(ExportError::Runtime("the OCP's kernels could not be compiled".into()));
    }
    Ok(solver)
}

/// Exports `ocp` as described in the crate docs.
pub fn export_ocp<M: ModelKind>(ocp: &Ocp<M>, opts: &ExportOptions) -> Result<Exported<M>> {
    let name = opts.name.as_str();
    let solver = compiled_solver(ocp, name)?;
    let module =
        solver.mpcc_solver().library_path().map(Path::to_path_buf).ok_or_else(|| ExportError::Runtime("no compiled module".into()))?;
    let module_dir = module.parent().unwrap_or(Path::new("."));
    let read = |file: PathBuf| std::fs::read(&file).map_err(io("reading", &file));
    let kernels_c = read(module_dir.join(format!("{name}.c")))?;
    let kernels_h = read(module_dir.join(format!("{name}.h")))?;
    let bound = String::from_utf8_lossy(&kernels_c).contains(&format!("{name}_bind_tables"));
    let tables = if bound { read(module.with_extension("tables"))? } else { Vec::new() };
    let (nw, np) = solver.mpcc_solver().sizes();
    let record = solver.mpcc_solver().record().to_json().into_bytes();
    let (runtime_lib, native_libs) = runtime()?;
    let sdk = casadi_sdk::Sdk::locate().map_err(|e| ExportError::Runtime(e.to_string()))?;
    let (link, shipped) = link_arguments(&native_libs, &sdk.lib_dir);

    let dir = &opts.out_dir;
    for sub in ["include", "src", "lib", "examples"] {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d).map_err(io("creating", &d))?;
    }
    let mut env = minijinja::Environment::new();
    env.set_keep_trailing_newline(true);
    for (template, text) in TEMPLATES {
        env.add_template(template, text)?;
    }
    let state_guess = state_guess_map(ocp, &solver)?;
    let (guess_base, guess_rows, guess_cols, guess_values) = match &state_guess {
        Some(m) => (
            c_doubles(m.base.iter().copied()),
            c_list(m.entries.iter().map(|e| e.0.to_string()), 16),
            c_list(m.entries.iter().map(|e| e.1.to_string()), 16),
            c_doubles(m.entries.iter().map(|e| e.2)),
        ),
        None => Default::default(),
    };
    let offset = |block: &str, k: Option<usize>| solver.parameter_table().block(block, k, None).map_or(-1, |b| b.offset as i64);
    let fe = ocp.fe_counts()?;
    let sizes = Sizes {
        nx: ocp.model.state()?.nrow(),
        nu: ocp.model.controls().nrow(),
        n: ocp.n_intervals,
        n_elements: fe.iter().sum(),
        nw,
        np,
        np_model: ocp.p.len(),
        ny: ocp.tracking.as_ref().map_or(0, |t| t.expr.nrow()),
    };
    let context = minijinja::context! {
        name,
        upper => name.to_uppercase(),
        version => env!("CARGO_PKG_VERSION"),
        nx => sizes.nx,
        nu => sizes.nu,
        n => sizes.n,
        n_elements => sizes.n_elements,
        first_interval_end => fe.iter().next().copied().unwrap_or(0),
        nw,
        np,
        x0_offset => offset("x0", None),
        np_model => sizes.np_model,
        p_offset => offset("p", None).max(0),
        reference_offset => offset("reference", Some(0)),
        ny => sizes.ny,
        tables_len => tables.len(),
        tables => c_bytes(&tables),
        record_len => record.len(),
        record => c_bytes(&record),
        state_guess => state_guess.is_some(),
        guess_nnz => state_guess.as_ref().map_or(0, |m| m.entries.len()),
        guess_base,
        guess_rows,
        guess_cols,
        guess_values,
        link => link.join(" "),
        cmake_link => link.join(";"),
    };
    let render = |template: &str| env.get_template(template).and_then(|t| t.render(&context));
    let write = |path: PathBuf, bytes: &[u8]| std::fs::write(&path, bytes).map_err(io("writing", &path));
    write(dir.join("include/fesd.h"), FESD_H.as_bytes())?;
    write(dir.join(format!("include/{name}_solver.h")), render("solver.h")?.as_bytes())?;
    write(dir.join(format!("src/{name}_kernels.c")), &kernels_c)?;
    write(dir.join(format!("src/{name}_kernels.h")), &kernels_h)?;
    write(dir.join(format!("src/{name}_solver.c")), render("solver.c")?.as_bytes())?;
    write(dir.join("examples/solve.c"), render("solve.c")?.as_bytes())?;
    write(dir.join("examples/mpc.c"), render("mpc.c")?.as_bytes())?;
    write(dir.join("examples/bench.c"), render("bench.c")?.as_bytes())?;
    write(dir.join("Makefile"), render("Makefile")?.as_bytes())?;
    write(dir.join("README.md"), render("README.md")?.as_bytes())?;
    write(dir.join("CMakeLists.txt"), render("CMakeLists.txt")?.as_bytes())?;
    let lib = dir.join("lib/libfesd_capi.a");
    std::fs::copy(&runtime_lib, &lib).map_err(io("copying the runtime to", &lib))?;
    let copied = copy_sdk_libraries(&sdk.lib_dir, shipped, &dir.join("lib"))?;
    copy_licenses(&sdk, &copied, &dir.join("LICENSES"))?;
    write_manifest(dir, name, &sizes, solver.mpcc_solver())?;
    Ok(Exported { dir: dir.clone(), name: name.to_string(), solver })
}

/// An export's sizes (the header's constants, the manifest's `sizes`).
#[derive(serde::Serialize)]
struct Sizes {
    nx: usize,
    nu: usize,
    n: usize,
    n_elements: usize,
    nw: usize,
    np: usize,
    np_model: usize,
    ny: usize,
}

/// `.export(name, dir)` on an OCP (a builder's or a macro model's, e.g.
/// `Car::new()?.time_optimal()?.export("car", "out/car")`): [`export_ocp`] with
/// [`ExportOptions`] `{ name, out_dir }`.
pub trait ExportOcp<M: ModelKind> {
    /// Exports the OCP as a C solver directory named `name` in `out_dir`.
    fn export(&self, name: &str, out_dir: impl Into<PathBuf>) -> Result<Exported<M>>;
}

impl<M: ModelKind> ExportOcp<M> for Ocp<M> {
    fn export(&self, name: &str, out_dir: impl Into<PathBuf>) -> Result<Exported<M>> {
        export_ocp(self, &ExportOptions { name: name.into(), out_dir: out_dir.into() })
    }
}

/// What [`measure`] found on this machine.
#[derive(Clone, Debug)]
pub struct Timings {
    /// Wall time of `make` (the library) from a clean directory, in seconds.
    pub make_s: f64,
    /// Median over 5 runs of `<name>_create`, in milliseconds.
    pub create_ms: f64,
    /// Median over 5 runs of a cold solve from C (`fesd_solve_info.wall_time`), s.
    pub c_solve_s: f64,
    /// The same with `tune_process` (the process state of fesd's Rust programs), s.
    pub c_solve_tuned_s: f64,
    /// Median over 5 cold solves in Rust, each by a new solver of the same module as
    /// a Rust program makes one (`r.mpcc.timing.total`), s.
    pub rust_solve_s: f64,
    /// Ipopt iterations of a cold solve (the same in C and Rust).
    pub ipopt_iterations: usize,
}

/// Builds the exported directory of `ocp` with `make` (timed, from clean), runs
/// `make bench` and solves `ocp` 5 times in Rust (each time a new solver of the same
/// module, as C creates one per run), then appends the figures to the directory's
/// README.md. Timings are of this machine, not a test.
pub fn measure<M: ModelKind>(exported: &Exported<M>, ocp: &Ocp<M>) -> Result<Timings> {
    let dir = &exported.dir;
    let run = |args: &[&str]| -> Result<String> {
        let out =
            Command::new("make").arg("-C").arg(dir).args(args).output().map_err(|e| ExportError::Runtime(format!("running make: {e}")))?;
        if !out.status.success() {
            let why = String::from_utf8_lossy(&out.stderr).into_owned();
            return Err(ExportError::Runtime(format!("make {}: {why}", args.join(" "))));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    run(&["clean"])?;
    let start = std::time::Instant::now();
    run(&[])?;
    let make_s = start.elapsed().as_secs_f64();
    let bench = run(&["bench"])?;
    let figure = |name: &str| -> Result<f64> {
        let prefix = format!("{name} = ");
        bench
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| ExportError::Runtime(format!("make bench printed no {name}:\n{bench}")))
    };
    let (create_ms, iterations) = (figure("create_ms_median")?, figure("ipopt_iterations")?);
    let (c_solve_s, c_solve_tuned_s) = (figure("solve_s_median")?, figure("solve_s_median_tuned")?);
    let mut rust = Vec::new();
    for _ in 0..5 {
        rust.push(compiled_solver(ocp, &exported.name)?.solve()?.mpcc.timing.total);
    }
    rust.sort_by(f64::total_cmp);
    let t = Timings { make_s, create_ms, c_solve_s, c_solve_tuned_s, rust_solve_s: rust[2], ipopt_iterations: iterations as usize };
    let readme = dir.join("README.md");
    let mut text = std::fs::read_to_string(&readme).map_err(io("reading", &readme))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!(
        "\n## Measured at export\n\nOn the exporting machine ({} logical CPUs), `make` from clean: {:.1} s; \
         `{}_create`: {:.2} ms; a cold solve ({} Ipopt iterations): {:.3} s from C ({:.3} s with \
         `tune_process`), {:.3} s in Rust (medians of 5). `make bench` measures this machine.\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        t.make_s,
        exported.name,
        t.create_ms,
        t.ipopt_iterations,
        t.c_solve_s,
        t.c_solve_tuned_s,
        t.rust_solve_s
    ));
    std::fs::write(&readme, &text).map_err(io("writing", &readme))?;
    // The manifest's hash of README.md follows.
    let manifest_path = dir.join("manifest.json");
    let manifest = std::fs::read_to_string(&manifest_path).map_err(io("reading", &manifest_path))?;
    let mut manifest: serde_json::Value =
        serde_json::from_str(&manifest).map_err(|e| ExportError::Runtime(format!("manifest.json: {e}")))?;
    manifest["sha256"]["README.md"] = sha256(text.as_bytes()).into();
    let manifest = serde_json::to_string_pretty(&manifest).map_err(|e| ExportError::Runtime(format!("manifest: {e}")))?;
    std::fs::write(&manifest_path, manifest + "\n").map_err(io("writing", &manifest_path))?;
    Ok(t)
}

/// [`OcpSolver::state_guess`] as an affine map of the states at the element
/// boundaries X (NX values per point, x0 first, on the nominal grid; the trajectory
/// between them linear): `w = base + A X`, A sparse. `None` if the guess is not affine
/// in X (checked at a probe point), so that C cannot reproduce it.
struct StateGuessMap {
    base: Vec<f64>,
    /// `(row of w, column of X, value)`.
    entries: Vec<(usize, usize, f64)>,
}

fn state_guess_map<M: ModelKind>(ocp: &Ocp<M>, solver: &OcpSolver<M>) -> Result<Option<StateGuessMap>> {
    let nx = ocp.model.state()?.nrow();
    let interval = ocp.horizon.guess() / ocp.n_intervals as f64;
    let mut times = vec![0.0];
    for (k, n_fe) in ocp.fe_counts()?.iter().enumerate() {
        let h = interval / *n_fe as f64;
        times.extend((1..=*n_fe).map(|n| k as f64 * interval + n as f64 * h));
    }
    // The piecewise-linear trajectory through X at `times`.
    let guess = |x: &[f64]| -> Result<Vec<f64>> {
        let x_of_t = |t: f64| -> Vec<f64> {
            let e = times.partition_point(|&b| b <= t).clamp(1, times.len() - 1);
            let (t0, t1) = (times[e - 1], times[e]);
            let s = if t1 > t0 { ((t - t0) / (t1 - t0)).clamp(0.0, 1.0) } else { 0.0 };
            (0..nx).map(|i| (1.0 - s) * x[(e - 1) * nx + i] + s * x[e * nx + i]).collect()
        };
        Ok(solver.state_guess(&x_of_t)?)
    };
    let n = nx * times.len();
    let base = guess(&vec![0.0; n])?;
    let mut entries = Vec::new();
    let mut unit = vec![0.0; n];
    for j in 0..n {
        unit[j] = 1.0;
        let w = guess(&unit)?;
        unit[j] = 0.0;
        entries.extend(w.iter().zip(&base).enumerate().filter(|(_, (a, b))| a != b).map(|(i, (a, b))| (i, j, a - b)));
    }
    // Affine? Compare at a point with every entry different.
    let probe: Vec<f64> = (0..n).map(|j| 1.0 + (j as f64 * 0.7).sin()).collect();
    let mut predicted = base.clone();
    for &(i, j, v) in &entries {
        predicted[i] += v * probe[j];
    }
    let exact = guess(&probe)?;
    let affine = exact.iter().zip(&predicted).all(|(a, b)| (a - b).abs() <= 1e-9 * (1.0 + a.abs()));
    Ok(affine.then_some(StateGuessMap { base, entries }))
}

/// `values` as the body of a C array initializer, `per_line` values per line.
fn c_list(values: impl Iterator<Item = String>, per_line: usize) -> String {
    let all: Vec<String> = values.collect();
    all.chunks(per_line).map(|line| line.join(", ")).collect::<Vec<_>>().join(",\n")
}

/// `bytes` as the body of a C array initializer.
fn c_bytes(bytes: &[u8]) -> String {
    c_list(bytes.iter().map(u8::to_string), 16)
}

/// Doubles as the body of a C array initializer, in Rust's shortest exact form (which C
/// reads back to the same double).
fn c_doubles(values: impl Iterator<Item = f64>) -> String {
    c_list(values.map(|v| format!("{v:?}")), 8)
}

/// fesd's C runtime: `libfesd_capi.a` and the libraries a program linking it needs,
/// built with cargo (release, the runtime's own features: no CasADi) into
/// `<cache>/capi/<version>` under a file lock; cargo rebuilds it when fesd's sources
/// changed and does nothing otherwise. Source paths are remapped (`/cargo`, `/fesd`),
/// so the library names no directory of this machine; `RUSTFLAGS` does not apply.
pub fn runtime() -> Result<(PathBuf, String)> {
    let target = casadi_sdk::cache_root().join("capi").join(env!("CARGO_PKG_VERSION"));
    std::fs::create_dir_all(&target).map_err(io("creating", &target))?;
    let lock_path = target.join(".lock");
    let lock = std::fs::File::create(&lock_path).map_err(io("creating", &lock_path))?;
    lock.lock().map_err(io("locking", &lock_path))?;
    let lib = target.join("release/libfesd_capi.a");
    let libs_file = target.join("native-static-libs");
    // Cargo decides whether the runtime is current (a no-op then, with nothing printed).
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Panic locations name source files: no absolute path of this machine may reach the
    // exported directory (the registry's sources, fesd's own).
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"));
    let workspace = manifest.parent().and_then(|p| p.canonicalize().ok()).unwrap_or_default();
    let rustflags = [(cargo_home.as_path(), "/cargo"), (workspace.as_path(), "/fesd")]
        .map(|(from, to)| format!("--remap-path-prefix={}={to}", from.display()))
        .join("\x1f");
    let out = Command::new(cargo)
        .args(["rustc", "--release", "--lib", "-p", "fesd-capi", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        .args(["--", "--print", "native-static-libs"])
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env("CARGO_ENCODED_RUSTFLAGS", rustflags)
        .output()
        .map_err(|e| ExportError::Runtime(format!("running cargo: {e}")))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(ExportError::Runtime(format!("cargo could not build fesd-capi:\n{stderr}")));
    }
    let printed = stderr.lines().find_map(|l| l.split("native-static-libs:").nth(1)).map(|l| l.trim().to_string());
    let libs = match printed.or_else(|| std::fs::read_to_string(&libs_file).ok()) {
        Some(libs) => libs.trim().to_string(),
        None => return Err(ExportError::Runtime(format!("cargo printed no native-static-libs:\n{stderr}"))),
    };
    std::fs::write(&libs_file, &libs).map_err(io("writing", &libs_file))?;
    Ok((lib, libs))
}

/// The linker arguments of a program that links the runtime, from its
/// `native-static-libs`: a library the SDK ships (Ipopt, HiGHS, MUMPS) by its versioned
/// file name (`-l:libipopt.so.3`, the SDK has no development links), the system's as
/// given. Returns the arguments and the SDK's files among them.
pub fn link_arguments(native_libs: &str, sdk_lib_dir: &Path) -> (Vec<String>, Vec<String>) {
    let mut args = Vec::new();
    let mut shipped = Vec::new();
    for arg in native_libs.split_whitespace() {
        let versioned = arg.strip_prefix("-l").and_then(|name| {
            let prefix = format!("lib{name}.so.");
            let files = std::fs::read_dir(sdk_lib_dir).ok()?;
            files.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|f| f.starts_with(&prefix)).min_by_key(String::len)
        });
        match versioned {
            Some(file) if !shipped.contains(&file) => {
                args.push(format!("-l:{file}"));
                shipped.push(file);
            }
            Some(_) => {}
            None => args.push(arg.to_string()),
        }
    }
    (args, shipped)
}

/// The ABI version of the shipped `fesd.h`.
fn abi_version() -> Option<u32> {
    FESD_H.lines().find_map(|l| l.strip_prefix("#define FESD_ABI_VERSION ")).and_then(|v| v.trim().parse().ok())
}

/// SHA-256 of `bytes`, in hex.
fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `manifest.json`: what was exported (name, fesd and ABI versions, the CasADi
/// SDK's version, sizes, the solver's formulation and homotopy options) and the
/// SHA-256 of every file in the directory, so a copy can be checked.
fn write_manifest(dir: &Path, name: &str, sizes: &Sizes, solver: &fesd_mpcc::MpccSolver) -> Result<()> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).map_err(io("reading", &d))?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                let bytes = std::fs::read(&path).map_err(io("reading", &path))?;
                files.push((relative.to_string_lossy().into_owned(), serde_json::Value::from(sha256(&bytes))));
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let manifest = serde_json::json!({
        "format": "fesd-export-manifest-v1",
        "name": name,
        "fesd_version": env!("CARGO_PKG_VERSION"),
        "abi_version": abi_version(),
        "casadi_sdk_version": casadi_sdk::CASADI_VERSION,
        "sizes": sizes,
        "formulation": solver.formulation(),
        "options": solver.options(),
        "sha256": files.into_iter().collect::<serde_json::Map<_, _>>(),
    });
    let path = dir.join("manifest.json");
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| ExportError::Runtime(format!("manifest: {e}")))?;
    std::fs::write(&path, text + "\n").map_err(io("writing", &path))
}

/// Writes `LICENSES/`: fesd's licence terms, and the licence files the SDK ships for
/// each library in `copied` (the top-level files of its folder).
fn copy_licenses(sdk: &casadi_sdk::Sdk, copied: &[String], to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).map_err(io("creating", to))?;
    let mut listed = vec![format!(
        "fesd {} (lib/libfesd_capi.a and the generated sources): {}; the Rust crates linked into the runtime are under MIT, Apache-2.0, Zlib or ISC terms (`cargo tree -p fesd-capi -e normal -f '{{p}} {{l}}'` lists each).",
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_PKG_LICENSE")
    )];
    let root = sdk.include_dir.join("licenses");
    for (prefix, folder) in LICENSES {
        let Some(library) = copied.iter().find(|l| l.starts_with(&format!("{prefix}.")) || l.starts_with(&format!("{prefix}-"))) else {
            continue;
        };
        let name = folder.trim_end_matches("-external");
        let target = to.join(name);
        std::fs::create_dir_all(&target).map_err(io("creating", &target))?;
        let from = root.join(folder);
        for entry in std::fs::read_dir(&from).map_err(io("reading", &from))?.flatten() {
            if entry.path().is_file() {
                let file = target.join(entry.file_name());
                std::fs::copy(entry.path(), &file).map_err(io("copying", &entry.path()))?;
            }
        }
        listed.push(format!("lib/{library}: {name}/"));
    }
    let gcc: Vec<&String> = copied.iter().filter(|l| l.starts_with("libgfortran") || l.starts_with("libquadmath")).collect();
    if !gcc.is_empty() {
        let files = gcc.iter().map(|l| format!("lib/{l}")).collect::<Vec<_>>().join(", ");
        listed.push(format!("{files}: GCC's runtime libraries, GPL-3.0 with the GCC Runtime Library Exception."));
    }
    let index = to.join("README");
    std::fs::write(&index, listed.join("\n") + "\n").map_err(io("writing", &index))
}

/// Copies the SDK's libraries `shipped` into `lib`, with every library they need that
/// the SDK ships (METIS, OpenBLAS, the Fortran runtime …): the SDK's libraries find
/// each other through their `$ORIGIN` run paths. Returns the files copied.
fn copy_sdk_libraries(sdk_lib_dir: &Path, shipped: Vec<String>, lib: &Path) -> Result<Vec<String>> {
    let mut todo = shipped;
    let mut done: Vec<String> = Vec::new();
    let mut copied = Vec::new();
    while let Some(name) = todo.pop() {
        if done.contains(&name) {
            continue;
        }
        let from = sdk_lib_dir.join(&name);
        done.push(name.clone());
        if !from.exists() {
            continue; // a system library
        }
        copied.push(name.clone());
        let to = lib.join(&name);
        std::fs::copy(&from, &to).map_err(io("copying", &from))?;
        let out = Command::new("readelf")
            .arg("-d")
            .arg(&from)
            .output()
            .map_err(|e| ExportError::Runtime(format!("readelf {}: {e}", from.display())))?;
        for line in String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.contains("(NEEDED)")) {
            if let Some(needed) = line.split('[').nth(1).and_then(|s| s.split(']').next()) {
                todo.push(needed.to_string());
            }
        }
    }
    Ok(copied)
}
