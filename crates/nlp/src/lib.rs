//! Symbolic NLPs, lowered to compiled C kernels and solved with Ipopt.
//!
//! A [`SymbolicNlp`] states `min f(x, p) s.t. g(x, p)` with CasADi expressions.
//! [`CompiledNlp::build`] derives the exact derivatives (∇f, the sparse Jacobian of
//! g and the lower triangle of the sparse Lagrangian Hessian
//! `σ_f ∇²f + Σ λ_i ∇²g_i`), generates one C module for all five kernels, compiles
//! it (or reuses the cached object) and loads it. The compiled NLP implements
//! [`ipopt::NlpCallbacks`], so Ipopt evaluates nothing but compiled code; the
//! parameters `p` can change between solves without recompiling.
//! [`CompiledNlp::build_group_or_interpret`] starts without a compiler run: CasADi
//! evaluates the same functions until their module, compiled elsewhere, is loaded.

mod evaluator;
#[cfg(feature = "symbolic")]
pub mod problems;
#[cfg(feature = "symbolic")]
mod symbolic;

pub use evaluator::Evaluator;
#[cfg(feature = "symbolic")]
pub use evaluator::Interpreted;
#[cfg(feature = "symbolic")]
pub use symbolic::SymbolicNlp;

use fesd_codegen::{CompileOptions, GeneratedSource, KernelLibrary};

/// The five kernels of every compiled NLP, as `<prefix>_<suffix>`.
pub const KERNEL_SUFFIXES: [&str; 5] = ["f", "grad_f", "g", "jac_g", "hess_l"];
use ipopt::{NlpCallbacks, NlpStructure};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Errors of building or configuring an NLP.
#[derive(Debug, thiserror::Error)]
pub enum NlpError {
    /// A symbolic operation failed (CasADi's message).
    #[error(transparent)]
    #[cfg(feature = "symbolic")]
    Casadi(#[from] casadi::Error),
    /// Code generation, compilation or loading failed.
    #[error(transparent)]
    Codegen(#[from] fesd_codegen::CodegenError),
    /// Ipopt rejected the problem or an option.
    #[error(transparent)]
    Ipopt(#[from] ipopt::IpoptError),
    /// Sizes do not agree.
    #[error("NLP dimension error: {0}")]
    Dimension(String),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, NlpError>;

/// What [`CompiledNlp::load_group`] needs to know of one NLP of a module: its kernel
/// prefix and its numbers of variables, constraints and parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NlpDims {
    /// Kernel prefix (`<prefix>_f`, `<prefix>_grad_f`, …).
    pub prefix: String,
    /// Number of variables.
    pub n: usize,
    /// Number of constraints.
    pub m: usize,
    /// Number of parameters.
    pub np: usize,
}

/// Every kernel name of a module: the NLPs' (by prefix), then the extras.
pub(crate) fn kernel_names(dims: &[NlpDims], extras: &[String]) -> Vec<String> {
    let mut names: Vec<String> = dims.iter().flat_map(|d| KERNEL_SUFFIXES.iter().map(move |k| format!("{}_{k}", d.prefix))).collect();
    names.extend(extras.iter().cloned());
    names
}

/// How the kernels of [`CompiledNlp::build`] were obtained.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BuildReport {
    /// Deriving derivatives and rendering C (on a cache hit: finding the entry).
    pub codegen: Duration,
    /// Compiling (zero-ish on a cache hit) and loading; for kernels compiled beside a
    /// solve, the compiler's run on its thread.
    pub compile_and_load: Duration,
    /// True if the compiled object came from the cache.
    pub cache_hit: bool,
    /// True if CasADi evaluates the functions (no compiled object yet).
    pub interpreted: bool,
    /// Bytes of generated C (0 when the module came from the cache without it).
    pub c_bytes: usize,
    /// True if the kernels were compiled on another thread while CasADi evaluated
    /// them, and adopted during or after a solve.
    pub compiled_in_background: bool,
}

/// A module's generated C, not compiled yet (see
/// [`CompiledNlp::build_group_or_interpret`]).
pub struct PendingModule {
    pub(crate) source: GeneratedSource,
    /// What the module is recorded under, so that a later build finds it.
    pub(crate) alias: String,
}

impl PendingModule {
    /// Bytes of the module's generated C.
    pub fn c_bytes(&self) -> usize {
        self.source.c_source.len()
    }

    /// Compiles the module (or finds it in the cache), loads it and records it under its
    /// alias, so that the next build of the same NLPs loads it without generating C.
    /// Calls no CasADi, so it may run on another thread while a solve goes on.
    pub fn compile_and_load(self, opts: &CompileOptions) -> Result<KernelLibrary> {
        let lib = self.source.compile(opts)?;
        // Best effort: without the alias the next build only generates C again.
        let _ = lib.record_alias(&self.alias, opts);
        Ok(lib)
    }
}

/// An NLP whose every evaluation runs compiled C kernels (or, built by
/// [`CompiledNlp::build_group_or_interpret`] before its C is compiled, CasADi's own
/// evaluation of the same functions).
pub struct CompiledNlp {
    n: usize,
    m: usize,
    p: Vec<f64>,
    f: Evaluator,
    grad_f: Evaluator,
    g: Evaluator,
    jac_g: Evaluator,
    hess_l: Evaluator,
    extras: Vec<Evaluator>,
    /// The loaded object; `None` when CasADi evaluates the functions.
    library: Option<PathBuf>,
    report: BuildReport,
    eval_time: Duration,
    evaluations: usize,
    /// The part of `eval_time` spent in the Lagrangian Hessian.
    hessian_time: Duration,
}

impl CompiledNlp {
    /// The NLPs `dims` and the extras `extras` (by name) of the cached module at
    /// `library` (a [`CompiledNlp::library_path`] of an earlier build), verified and
    /// loaded without any symbolic work; `None` if the object is gone or damaged.
    pub fn load_group(library: &Path, module: &str, dims: &[NlpDims], extras: &[String]) -> Result<Option<Vec<CompiledNlp>>> {
        let t0 = Instant::now();
        let Some(lib) = KernelLibrary::load_verified(library, module, &kernel_names(dims, extras))? else {
            return Ok(None);
        };
        let report = BuildReport { compile_and_load: t0.elapsed(), cache_hit: true, ..BuildReport::default() };
        Self::from_library(&lib, dims, extras, report).map(Some)
    }

    /// The NLPs `dims` and the extras `extras` (by name, to the first NLP) of a loaded
    /// module (e.g. one linked into the program, [`KernelLibrary::from_table`]),
    /// checked against their sizes; `report` says how the module was obtained.
    pub fn from_library(lib: &KernelLibrary, dims: &[NlpDims], extras: &[String], report: BuildReport) -> Result<Vec<CompiledNlp>> {
        let built = Self::assemble(lib, dims, extras, report)?;
        for (nlp, d) in built.iter().zip(dims) {
            let jac = nlp.jac_g.sparsity_out(0);
            let sizes = [nlp.f.sparsity_in(0).nnz(), nlp.f.sparsity_in(1).nnz(), nlp.g.sparsity_out(0).nnz(), jac.nrow, jac.ncol];
            if sizes != [d.n, d.np, d.m, d.m, d.n] {
                return Err(NlpError::Dimension(format!(
                    "module {} does not hold NLP {} with {} variables, {} parameters and {} constraints",
                    lib.path().display(),
                    d.prefix,
                    d.n,
                    d.np,
                    d.m
                )));
            }
        }
        Ok(built)
    }

    /// Binds the kernels of each NLP (by prefix) and the extras (to the first NLP).
    pub(crate) fn assemble(lib: &KernelLibrary, dims: &[NlpDims], extras: &[String], report: BuildReport) -> Result<Vec<CompiledNlp>> {
        let mut built = Vec::with_capacity(dims.len());
        for (i, d) in dims.iter().enumerate() {
            let k = |what: &str| lib.kernel(&format!("{}_{what}", d.prefix));
            let kernels = [k("f")?, k("grad_f")?, k("g")?, k("jac_g")?, k("hess_l")?].map(Evaluator::Compiled);
            let extras = if i == 0 {
                extras.iter().map(|e| lib.kernel(e).map(Evaluator::Compiled)).collect::<std::result::Result<_, _>>()?
            } else {
                Vec::new()
            };
            built.push(CompiledNlp::from_parts(d.n, d.m, d.np, kernels, extras, Some(lib.path().to_path_buf()), report));
        }
        Ok(built)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_parts(
        n: usize,
        m: usize,
        np: usize,
        kernels: [Evaluator; 5],
        extras: Vec<Evaluator>,
        library: Option<PathBuf>,
        report: BuildReport,
    ) -> Self {
        let [f, grad_f, g, jac_g, hess_l] = kernels;
        CompiledNlp {
            n,
            m,
            p: vec![0.0; np],
            f,
            grad_f,
            g,
            jac_g,
            hess_l,
            extras,
            library,
            report,
            eval_time: Duration::ZERO,
            evaluations: 0,
            hessian_time: Duration::ZERO,
        }
    }

    /// Path of the loaded (cached) object, for [`CompiledNlp::load_group`]; `None` when
    /// CasADi evaluates the functions.
    pub fn library_path(&self) -> Option<&Path> {
        self.library.as_deref()
    }

    /// Number of variables.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of constraints.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Number of parameters.
    pub fn np(&self) -> usize {
        self.p.len()
    }

    /// The extra kernel named `name` (see [`CompiledNlp::build_with_extras`]).
    pub fn extra(&mut self, name: &str) -> Option<&mut Evaluator> {
        self.extras.iter_mut().find(|k| k.name() == name)
    }

    /// The current parameter values.
    pub fn parameters(&self) -> &[f64] {
        &self.p
    }

    /// How the kernels were obtained.
    pub fn build_report(&self) -> BuildReport {
        self.report
    }

    /// Sets the parameter values used by every following evaluation.
    pub fn set_parameters(&mut self, p: &[f64]) -> Result<()> {
        if p.len() != self.p.len() {
            return Err(NlpError::Dimension(format!("{} parameter values for {} parameters", p.len(), self.p.len())));
        }
        self.p.copy_from_slice(p);
        Ok(())
    }

    /// Total time spent inside kernel evaluations, and the number of evaluations.
    pub fn eval_stats(&self) -> (Duration, usize) {
        (self.eval_time, self.evaluations)
    }

    /// The part of [`CompiledNlp::eval_stats`]' time spent evaluating the Lagrangian
    /// Hessian (usually the costliest kernel).
    pub fn hessian_eval_time(&self) -> Duration {
        self.hessian_time
    }

    /// Replaces the report of how these kernels were obtained.
    pub fn set_build_report(&mut self, report: BuildReport) {
        self.report = report;
    }

    /// Takes over `previous`'s parameter values and evaluation counts: for kernels
    /// that replace `previous` (the same functions, compiled) in the middle of a run.
    pub fn continue_eval_stats(&mut self, previous: &CompiledNlp) {
        if self.p.len() == previous.p.len() {
            self.p.clone_from(&previous.p);
        }
        self.eval_time += previous.eval_time;
        self.evaluations += previous.evaluations;
        self.hessian_time += previous.hessian_time;
    }

    /// Resets [`CompiledNlp::eval_stats`] and [`CompiledNlp::hessian_eval_time`].
    pub fn reset_eval_stats(&mut self) {
        self.eval_time = Duration::ZERO;
        self.evaluations = 0;
        self.hessian_time = Duration::ZERO;
    }

    /// The Ipopt structure for the given bounds (sparsity from the compiled kernels).
    pub fn structure(&self, x_l: Vec<f64>, x_u: Vec<f64>, g_l: Vec<f64>, g_u: Vec<f64>) -> Result<NlpStructure> {
        for (what, v, len) in [("x_l", &x_l, self.n), ("x_u", &x_u, self.n), ("g_l", &g_l, self.m), ("g_u", &g_u, self.m)] {
            if v.len() != len {
                return Err(NlpError::Dimension(format!("{what} has {} entries, {len} expected", v.len())));
            }
        }
        let (jac_rows, jac_cols) = self.jac_g.sparsity_out(0).triplets();
        let (hess_rows, hess_cols) = self.hess_l.sparsity_out(0).triplets();
        let s = NlpStructure { x_l, x_u, g_l, g_u, jac_rows, jac_cols, hess_rows, hess_cols };
        s.validate()?;
        Ok(s)
    }

    fn timed<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let t = Instant::now();
        let v = f(self);
        self.eval_time += t.elapsed();
        self.evaluations += 1;
        v
    }
}

impl NlpCallbacks for CompiledNlp {
    fn objective(&mut self, x: &[f64], _new_x: bool) -> Option<f64> {
        self.timed(|s| {
            let mut out = [0.0];
            s.f.eval(&[x, &s.p], &mut [&mut out]).ok().map(|_| out[0])
        })
    }

    fn gradient(&mut self, x: &[f64], _new_x: bool, grad: &mut [f64]) -> bool {
        self.timed(|s| s.grad_f.eval(&[x, &s.p], &mut [grad]).is_ok())
    }

    fn constraints(&mut self, x: &[f64], _new_x: bool, g: &mut [f64]) -> bool {
        self.timed(|s| s.g.eval(&[x, &s.p], &mut [g]).is_ok())
    }

    fn jacobian(&mut self, x: &[f64], _new_x: bool, values: &mut [f64]) -> bool {
        self.timed(|s| s.jac_g.eval(&[x, &s.p], &mut [values]).is_ok())
    }

    fn hessian(&mut self, x: &[f64], _new_x: bool, obj_factor: f64, lambda: &[f64], _new_l: bool, values: &mut [f64]) -> bool {
        let before = self.eval_time;
        let ok = self.timed(|s| s.hess_l.eval(&[x, &s.p, &[obj_factor], lambda], &mut [values]).is_ok());
        self.hessian_time += self.eval_time - before;
        ok
    }
}
