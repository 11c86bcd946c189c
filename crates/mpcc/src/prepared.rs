//! Prepared MPCC files: solving the same file again without its expressions.
//!
//! The first [`MpccSolver::from_file`] of a file deserializes its CasADi expressions,
//! builds the relaxed NLP and compiles (or finds) its kernels, then records in the
//! kernel cache what it decided — the compiled module's path and the relaxed NLP's
//! layout (sizes, which `G, H ≥ 0` conditions became bounds or rows, the pair
//! variables) — under a key that hashes the file's bytes and the options compiled into
//! the kernels. A later `from_file` of the same bytes reads only the numbers and loads
//! the verified module: CasADi is not called at all. A missing, damaged or inconsistent
//! record only means the full path is taken again.

use crate::error::{MpccError, Result};
use crate::nosbench;
use crate::options::{Formulation, HomotopyOptions, Kernels};
use crate::problem::Mpcc;
use crate::record::MpccRecord;
use crate::relax::RelaxedLayout;
use crate::solver::{compile_beside, module_dims, report_kernels, MpccSolver};
use fesd_codegen::CompileOptions;
use fesd_nlp::CompiledNlp;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Version of the record's layout and of the relaxation that produced it: bump it when
/// either changes, so older records are not read.
const FORMAT: &str = "fesd-mpcc-prepared-v1";

/// What a prepared file's record holds.
#[derive(Serialize, Deserialize)]
struct Prepared {
    /// The compiled module (relaxed NLP, report kernel, branch NLP if `branch`).
    library: PathBuf,
    layout: RelaxedLayout,
    /// True if the module holds the active-set finish's branch NLP.
    branch: bool,
    /// Number of parameters.
    n_p: usize,
}

impl Prepared {
    /// Best effort: without the record the next run only builds from the expressions again.
    fn store(&self, key: &str, compile: &CompileOptions) {
        if let Ok(json) = serde_json::to_string(self) {
            let _ = compile.record_note(key, &json);
        }
    }
}

/// Phases of a start-up and when the last one ended.
struct Phases(Vec<(&'static str, Duration)>, Instant);

impl Phases {
    /// Records the phase that ends now.
    fn end(&mut self, what: &'static str) {
        let now = Instant::now();
        self.0.push((what, now - self.1));
        self.1 = now;
    }
}

/// The record's key: the format, this crate's version, the formulation the kernels
/// are built for, and the file's bytes (hashed by the cache).
fn key(text: &str, form: &Formulation) -> String {
    format!(
        "{FORMAT} {}\nrelaxation {:?} steering {:?} lower_bounds {:?} active_set_finish {}\n{text}",
        env!("CARGO_PKG_VERSION"),
        form.relaxation,
        form.steering,
        form.lower_bounds,
        form.active_set_finish
    )
}

impl MpccSolver {
    /// Reads a NOSBENCH MPCC file and builds its solver for `formulation` (as
    /// [`nosbench::read_file`] then [`MpccSolver::with_compile_options`], its kernels
    /// obtained as `kernels` says), remembering in the kernel cache what was derived from the file's
    /// expressions once its module is compiled: the next `from_file` of the same bytes
    /// with the same relaxation, steering, lower-bound handling and finish skips
    /// deserializing and differentiating them (see [`MpccSolver::prepared_from_cache`]).
    pub fn from_file(
        path: &Path,
        formulation: Formulation,
        opts: HomotopyOptions,
        compile: &CompileOptions,
        kernels: Kernels,
    ) -> Result<Self> {
        let started = Instant::now();
        let mut phases = Phases(Vec::new(), started);
        opts.validate()?;
        let text = std::fs::read_to_string(path).map_err(|err| MpccError::Io { path: path.to_path_buf(), err })?;
        let key = key(&text, &formulation);
        phases.end("read the file");
        if let Some(mut solver) = Self::from_cached_record(&text, &key, (formulation, &opts), compile, started, &mut phases) {
            solver.set_start_up(phases.0);
            return Ok(solver);
        }
        let mpcc = Mpcc { formulation, ..nosbench::from_str(&text)? };
        phases.end("deserialize and check the expressions");
        let (mut solver, pending) = Self::build(&mpcc, opts, compile, kernels, &[])?;
        phases.end(if pending.is_some() { "derive, generate C, set up Ipopt" } else { "derive, compile or load kernels, set up Ipopt" });
        let (library, layout, branch) = solver.prepared_parts();
        let record =
            Prepared { library: library.map(Path::to_path_buf).unwrap_or_default(), layout: layout.clone(), branch, n_p: mpcc.p0.len() };
        if library.is_some() {
            record.store(&key, compile);
        } else if let Some(pending) = pending {
            // Compiling calls no CasADi: it runs beside the solve, and the record is
            // written once the module is there.
            let store = compile.clone();
            solver.background_compile = Some(compile_beside(pending, compile, move |library| {
                Prepared { library: library.to_path_buf(), ..record }.store(&key, &store);
            }));
        }
        solver.set_build_time(started.elapsed());
        solver.set_start_up(phases.0);
        Ok(solver)
    }

    /// The solver from the record under `key`, if there is a usable one.
    fn from_cached_record(
        text: &str,
        key: &str,
        (formulation, opts): (Formulation, &HomotopyOptions),
        compile: &CompileOptions,
        started: Instant,
        phases: &mut Phases,
    ) -> Option<Self> {
        let record: Prepared = serde_json::from_str(&compile.find_note(key)?).ok()?;
        phases.end("find the record");
        let data = nosbench::data_from_str(text).ok()?;
        phases.end("read the numbers");
        let layout = record.layout;
        let (n_w, n_g, n_c) = (data.lbw.len(), data.lbg.len(), layout.n_comp);
        let consistent = layout.pair_variables.len() == n_c
            && data.p0.len() == record.n_p
            && layout.nonnegative.iter().all(|&j| j < n_w)
            && record.branch == (formulation.active_set_finish && n_c > 0);
        if !consistent {
            return None;
        }
        let dims = module_dims(&data.module, &layout, n_w, n_g, record.n_p, record.branch);
        let mut built = CompiledNlp::load_group(&record.library, &data.module, &dims, &report_kernels(&data.module)).ok()??;
        phases.end("load the kernels");
        let compiled = built.remove(0);
        let record = MpccRecord::new(data.module.clone(), formulation, layout, data, record.branch);
        let mut solver = Self::assemble(compiled, built.pop(), record, (formulation, opts.clone()), started).ok()?;
        phases.end("set up Ipopt");
        solver.mark_prepared();
        Some(solver)
    }
}
