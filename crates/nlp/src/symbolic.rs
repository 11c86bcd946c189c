//! The symbolic side: NLPs as CasADi expressions, their derivatives, and the C module
//! generated from them (compiled, or evaluated by CasADi until it is).

use crate::evaluator::{Evaluator, Interpreted};
use crate::{kernel_names, BuildReport, CompiledNlp, NlpDims, NlpError, PendingModule, Result, KERNEL_SUFFIXES};
use casadi::{Function, Kind, Matrix, Sx};
use fesd_codegen::{CodegenContext, CompileOptions, GeneratedSource, KernelLibrary};
use std::time::Instant;

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
            let own = &functions[KERNEL_SUFFIXES.len() * i..KERNEL_SUFFIXES.len() * (i + 1)];
            let [f, grad_f, g, jac_g, hess_l] = [0, 1, 2, 3, 4].map(|k| interpreted(&own[k]));
            let kernels = [f?, grad_f?, g?, jac_g?, hess_l?]; // in the order of KERNEL_SUFFIXES
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
    /// of `KERNEL_SUFFIXES`), then the extras.
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
}
