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
pub mod problems;

pub use evaluator::{Evaluator, Interpreted};

use casadi::{Function, Kind, Matrix, Sx};
use fesd_codegen::{CodegenContext, CompileOptions, GeneratedSource, KernelLibrary};

/// The five kernels of every compiled NLP, as `<module>_<name>`.
const KERNELS: [&str; 5] = ["f", "grad_f", "g", "jac_g", "hess_l"];
use ipopt::{NlpCallbacks, NlpStructure};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Errors of building or configuring an NLP.
#[derive(Debug, thiserror::Error)]
pub enum NlpError {
    /// A symbolic operation failed (CasADi's message).
    #[error(transparent)]
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

/// `min f(x, p)  s.t.  g(x, p)` as `SX` (default) or `MX` expressions; bounds come
/// separately. With `MX`, repeated structure built from `Function::map` stays one
/// kernel in the generated code, whatever the number of repetitions.
#[derive(Clone, Debug)]
pub struct SymbolicNlp<K: Kind = Sx> {
    /// Decision variables: a column vector of distinct symbols.
    pub x: Matrix<K>,
    /// Parameters: a column vector of distinct symbols (may be empty).
    pub p: Matrix<K>,
    /// Scalar objective.
    pub f: Matrix<K>,
    /// Constraint column vector (may be empty).
    pub g: Matrix<K>,
}

impl<K: Kind> SymbolicNlp<K> {
    /// An NLP without parameters.
    pub fn new(x: Matrix<K>, f: Matrix<K>, g: Matrix<K>) -> Self {
        SymbolicNlp { x, p: Matrix::sym("p", 0), f, g }
    }

    /// The same NLP with parameters `p`.
    pub fn with_parameters(mut self, p: Matrix<K>) -> Self {
        self.p = p;
        self
    }

    /// Checks shapes: x, p symbolic column vectors, f scalar, g a column vector.
    pub fn validate(&self) -> Result<()> {
        let col = |what: &str, e: &Matrix<K>| {
            if e.ncol() != 1 && e.numel() != 0 {
                return Err(NlpError::Dimension(format!("{what} must be a column vector, is {}x{}", e.nrow(), e.ncol())));
            }
            Ok(())
        };
        col("x", &self.x)?;
        col("p", &self.p)?;
        col("g", &self.g)?;
        if self.f.shape() != (1, 1) {
            return Err(NlpError::Dimension(format!("f must be scalar, is {}x{}", self.f.nrow(), self.f.ncol())));
        }
        for (what, v) in [("x", &self.x), ("p", &self.p)] {
            if v.numel() > 0 && !v.is_symbolic() {
                return Err(NlpError::Dimension(format!("{what} must consist of distinct free symbols")));
            }
        }
        Ok(())
    }

    /// The five derivative functions `<module>_{f, grad_f, g, jac_g, hess_l}`.
    pub fn derivative_functions(&self, module: &str) -> Result<Vec<Function>> {
        self.validate()?;
        let (x, p) = (&self.x, &self.p);
        let n = x.nrow();
        let m = self.g.nrow();
        let g = if m == 0 { Matrix::zeros(0, 1) } else { self.g.densify() };
        let grad = Matrix::gradient(&self.f, x)?.densify();
        let jac = if m == 0 { Matrix::sparse_zeros(0, n)? } else { Matrix::jacobian(&self.g, x)? };
        let sigma = Matrix::sym("obj_factor", 1);
        let lam = Matrix::sym("lambda", m);
        let lagrangian = if m == 0 { &sigma * &self.f } else { &sigma * &self.f + lam.dot(&self.g)? };
        let hess = Matrix::hessian(&lagrangian, x)?.tril();
        let xp = [("x", x), ("p", p)];
        Ok(vec![
            Function::new(&format!("{module}_f"), &xp, &[("f", &self.f)])?,
            Function::new(&format!("{module}_grad_f"), &xp, &[("grad_f", &grad)])?,
            Function::new(&format!("{module}_g"), &xp, &[("g", &g)])?,
            Function::new(&format!("{module}_jac_g"), &xp, &[("jac_g", &jac)])?,
            Function::new(
                &format!("{module}_hess_l"),
                &[("x", x), ("p", p), ("obj_factor", &sigma), ("lambda", &lam)],
                &[("hess_l", &hess)],
            )?,
        ])
    }
}

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
fn kernel_names(dims: &[NlpDims], extras: &[String]) -> Vec<String> {
    let mut names: Vec<String> = dims.iter().flat_map(|d| KERNELS.iter().map(move |k| format!("{}_{k}", d.prefix))).collect();
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
    source: GeneratedSource,
    /// What the module is recorded under, so that a later build finds it.
    alias: String,
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
    /// Derives, generates, compiles (cached) and loads the kernels of `nlp`.
    pub fn build<K: Kind>(nlp: &SymbolicNlp<K>, module: &str, opts: &CompileOptions) -> Result<CompiledNlp> {
        Self::build_with_extras(nlp, module, &[], opts)
    }

    /// As [`CompiledNlp::build`], with further functions compiled into the same module
    /// (e.g. residuals a solver layer evaluates between solves); see [`CompiledNlp::extra`].
    pub fn build_with_extras<K: Kind>(
        nlp: &SymbolicNlp<K>,
        module: &str,
        extras: &[Function],
        opts: &CompileOptions,
    ) -> Result<CompiledNlp> {
        let mut built = Self::build_group(&[(nlp, module)], module, extras, opts)?;
        Ok(built.remove(0))
    }

    /// Several NLPs (each with its own kernel prefix) and `extras` in one C module:
    /// one compiler run, and functions the NLPs share (e.g. an element kernel and its
    /// derivatives, when they are built from the same expressions) are generated once.
    /// The extras belong to the first NLP. Returns the NLPs in the given order.
    pub fn build_group<K: Kind>(
        nlps: &[(&SymbolicNlp<K>, &str)],
        module: &str,
        extras: &[Function],
        opts: &CompileOptions,
    ) -> Result<Vec<CompiledNlp>> {
        let t0 = Instant::now();
        let (alias, dims, extra_names, cached) = Self::find_cached(nlps, module, extras, opts)?;
        let (lib, t1, c_bytes) = match cached {
            Some(lib) => (lib, Instant::now(), 0),
            None => {
                let pending = PendingModule { source: Self::render(module, &Self::functions(nlps, extras)?)?, alias };
                let (t1, c_bytes) = (Instant::now(), pending.c_bytes());
                (pending.compile_and_load(opts)?, t1, c_bytes)
            }
        };
        let report =
            BuildReport { codegen: t1 - t0, compile_and_load: t1.elapsed(), cache_hit: lib.cache_hit(), c_bytes, ..BuildReport::default() };
        Self::assemble(&lib, &dims, &extra_names, report)
    }

    /// As [`CompiledNlp::build_group`] when the module is in the cache. Otherwise the
    /// NLPs are returned evaluated by CasADi (no compiler run: the solve can start at
    /// once), with their C generated for compiling elsewhere, e.g. on another thread
    /// for the next run ([`PendingModule::compile_and_load`] calls no CasADi).
    pub fn build_group_or_interpret<K: Kind>(
        nlps: &[(&SymbolicNlp<K>, &str)],
        module: &str,
        extras: &[Function],
        opts: &CompileOptions,
    ) -> Result<(Vec<CompiledNlp>, Option<PendingModule>)> {
        let t0 = Instant::now();
        let (alias, dims, extra_names, cached) = Self::find_cached(nlps, module, extras, opts)?;
        if let Some(lib) = cached {
            let report = BuildReport { codegen: t0.elapsed(), cache_hit: true, ..BuildReport::default() };
            return Ok((Self::assemble(&lib, &dims, &extra_names, report)?, None));
        }
        let functions = Self::functions(nlps, extras)?;
        let mut built = Vec::with_capacity(nlps.len());
        // CasADi's virtual machine on the functions as they are, not expanded to SX:
        // measured (docs/evidence/ocp.md, "First result") it follows the compiled
        // kernels' Ipopt path, where the expansion's rounding changed it.
        let interpreted = |f: &Function| Interpreted::new(f.clone()).map(Evaluator::Interpreted);
        for (i, (nlp, _)) in nlps.iter().enumerate() {
            let own = &functions[KERNELS.len() * i..KERNELS.len() * (i + 1)];
            let [f, grad_f, g, jac_g, hess_l] = [0, 1, 2, 3, 4].map(|k| interpreted(&own[k]));
            let kernels = [f?, grad_f?, g?, jac_g?, hess_l?]; // in the order of KERNELS
            let extras = if i == 0 { extras.iter().map(interpreted).collect::<Result<_>>()? } else { Vec::new() };
            built.push(CompiledNlp::from_parts(nlp.x.nrow(), nlp.g.nrow(), nlp.p.nrow(), kernels, extras, None, BuildReport::default()));
        }
        let pending = PendingModule { source: Self::render(module, &functions)?, alias };
        // The object may be there without its alias: compiled by a process that ended
        // before it could record it.
        if let Some(lib) = pending.source.cached(opts)? {
            let _ = lib.record_alias(&pending.alias, opts);
            let report = BuildReport { codegen: t0.elapsed(), cache_hit: true, c_bytes: pending.c_bytes(), ..BuildReport::default() };
            return Ok((Self::assemble(&lib, &dims, &extra_names, report)?, None));
        }
        let report = BuildReport { codegen: t0.elapsed(), interpreted: true, c_bytes: pending.c_bytes(), ..BuildReport::default() };
        for nlp in &mut built {
            nlp.report = report;
        }
        Ok((built, Some(pending)))
    }

    /// The module's alias, the NLPs' prefixes and sizes, the extras' names, and the
    /// module if the cache has it. On a warm cache the object is found from the problems
    /// themselves (their serialized functions), without deriving and generating C again.
    #[allow(clippy::type_complexity)]
    fn find_cached<K: Kind>(
        nlps: &[(&SymbolicNlp<K>, &str)],
        module: &str,
        extras: &[Function],
        opts: &CompileOptions,
    ) -> Result<(String, Vec<NlpDims>, Vec<String>, Option<KernelLibrary>)> {
        let alias = Self::alias(nlps, module, extras)?;
        let dims = Self::dims_of(nlps);
        let extra_names: Vec<String> = extras.iter().map(|e| e.name()).collect();
        let cached = KernelLibrary::load_alias(&alias, module, &kernel_names(&dims, &extra_names), opts)?;
        Ok((alias, dims, extra_names, cached))
    }

    /// Prefix and sizes of each NLP.
    fn dims_of<K: Kind>(nlps: &[(&SymbolicNlp<K>, &str)]) -> Vec<NlpDims> {
        nlps.iter()
            .map(|(nlp, prefix)| NlpDims { prefix: prefix.to_string(), n: nlp.x.nrow(), m: nlp.g.nrow(), np: nlp.p.nrow() })
            .collect()
    }

    /// Every function of the module: each NLP's five derivative functions (in the order
    /// of `KERNELS`), then the extras.
    fn functions<K: Kind>(nlps: &[(&SymbolicNlp<K>, &str)], extras: &[Function]) -> Result<Vec<Function>> {
        let mut functions = Vec::new();
        for (nlp, prefix) in nlps {
            functions.extend(nlp.derivative_functions(prefix)?);
        }
        functions.extend(extras.iter().cloned());
        Ok(functions)
    }

    /// The C module of `functions`.
    fn render(module: &str, functions: &[Function]) -> Result<GeneratedSource> {
        let mut ctx = CodegenContext::new(module)?;
        for f in functions {
            ctx.add(f)?;
        }
        Ok(ctx.render()?)
    }

    /// The NLPs `dims` and the extras `extras` (by name) of the cached module at
    /// `library` (a [`CompiledNlp::library_path`] of an earlier build), verified and
    /// loaded without any symbolic work; `None` if the object is gone or damaged.
    pub fn load_group(library: &Path, module: &str, dims: &[NlpDims], extras: &[String]) -> Result<Option<Vec<CompiledNlp>>> {
        let t0 = Instant::now();
        let Some(lib) = KernelLibrary::load_verified(library, module, &kernel_names(dims, extras))? else {
            return Ok(None);
        };
        let report = BuildReport { compile_and_load: t0.elapsed(), cache_hit: true, ..BuildReport::default() };
        let built = Self::assemble(&lib, dims, extras, report)?;
        for (nlp, d) in built.iter().zip(dims) {
            let jac = nlp.jac_g.sparsity_out(0);
            let sizes = [nlp.f.sparsity_in(0).nnz(), nlp.f.sparsity_in(1).nnz(), nlp.g.sparsity_out(0).nnz(), jac.nrow, jac.ncol];
            if sizes != [d.n, d.np, d.m, d.m, d.n] {
                return Err(NlpError::Dimension(format!(
                    "module {} does not hold NLP {} with {} variables, {} parameters and {} constraints",
                    library.display(),
                    d.prefix,
                    d.n,
                    d.np,
                    d.m
                )));
            }
        }
        Ok(Some(built))
    }

    /// Binds the kernels of each NLP (by prefix) and the extras (to the first NLP).
    fn assemble(lib: &KernelLibrary, dims: &[NlpDims], extras: &[String], report: BuildReport) -> Result<Vec<CompiledNlp>> {
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
    fn from_parts(
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

    /// Text that determines the generated module: the NLPs and the extras, serialized
    /// by CasADi, the kernel prefixes, the module name and this crate's version (its
    /// derivative code).
    fn alias<K: Kind>(nlps: &[(&SymbolicNlp<K>, &str)], module: &str, extras: &[Function]) -> Result<String> {
        let mut alias = format!("fesd-nlp {} {module}", env!("CARGO_PKG_VERSION"));
        for (nlp, prefix) in nlps {
            let problem = Function::new(&format!("{prefix}_problem"), &[("x", &nlp.x), ("p", &nlp.p)], &[("f", &nlp.f), ("g", &nlp.g)])?;
            alias.push_str(&format!("\n{prefix}\n{}", problem.serialize()?));
        }
        for e in extras {
            alias.push('\n');
            alias.push_str(&e.serialize()?);
        }
        Ok(alias)
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
