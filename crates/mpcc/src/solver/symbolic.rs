//! Building an MPCC solver from expressions: the relaxed NLP and the finish's branch
//! NLP derived, their module generated and compiled (or evaluated by CasADi until it
//! is).

use super::{branch_prefix, compile_beside, MpccSolver};
use crate::error::Result;
use crate::options::{HomotopyOptions, Kernels};
use crate::problem::{Mpcc, MpccData};
use crate::record::MpccRecord;
use crate::relax::RelaxedNlp;
use casadi::Kind;
use fesd_codegen::CompileOptions;
use fesd_nlp::{CompiledNlp, PendingModule};
use std::time::Instant;

impl MpccSolver {
    /// Validates `mpcc` and `opts`, builds the relaxed NLP with σ as a parameter and
    /// compiles its kernels (or loads them from the cache).
    pub fn new<K: Kind>(mpcc: &Mpcc<K>, opts: HomotopyOptions) -> Result<Self> {
        Self::with_compile_options(mpcc, opts, &CompileOptions::default())
    }

    /// As [`MpccSolver::new`] with explicit compiler settings.
    pub fn with_compile_options<K: Kind>(mpcc: &Mpcc<K>, opts: HomotopyOptions, compile: &CompileOptions) -> Result<Self> {
        Self::build(mpcc, opts, compile, Kernels::Compiled, &[]).map(|(solver, _)| solver)
    }

    /// As [`MpccSolver::new`], the functions evaluated by CasADi itself (no compiler
    /// run; compiled kernels are used if the cache already has them).
    pub fn interpreted<K: Kind>(mpcc: &Mpcc<K>, opts: HomotopyOptions) -> Result<Self> {
        Self::build(mpcc, opts, &CompileOptions::default(), Kernels::Interpreted, &[]).map(|(solver, _)| solver)
    }

    /// As [`MpccSolver::new`], the kernels obtained as `kernels` says: with
    /// [`Kernels::Auto`] and nothing cached the solver is returned at once, evaluated
    /// by CasADi, while the C compiles on another thread; the homotopy switches to the
    /// compiled kernels at the first NLP that starts after the compiler is done.
    pub fn with_kernels<K: Kind>(mpcc: &Mpcc<K>, opts: HomotopyOptions, compile: &CompileOptions, kernels: Kernels) -> Result<Self> {
        Self::with_outputs(mpcc, opts, compile, kernels, &[])
    }

    /// As [`MpccSolver::with_kernels`], with the functions `outputs` of `(w, p)` (e.g.
    /// what a caller reads off a solution) built into the same module and evaluated by
    /// [`MpccSolver::eval_output`]: one compiler run, and no CasADi call after a solve.
    /// Their names must be unique C identifiers; prefix them with [`Mpcc::module`] so
    /// that modules linked into one program do not clash.
    pub fn with_outputs<K: Kind>(
        mpcc: &Mpcc<K>,
        opts: HomotopyOptions,
        compile: &CompileOptions,
        kernels: Kernels,
        outputs: &[casadi::Function],
    ) -> Result<Self> {
        let (mut solver, pending) = Self::build(mpcc, opts, compile, kernels, outputs)?;
        if let Some(pending) = pending {
            if solver.opts.verbosity >= 1 {
                println!("kernels: not in the cache; CasADi evaluates them while their C compiles on another thread");
            }
            solver.background_compile = Some(compile_beside(pending, compile, |_| {}));
        }
        Ok(solver)
    }

    /// The solver, its kernels obtained as `kernels` says; with [`Kernels::Auto`] and no
    /// cached object, also the module's C to compile (the caller decides where).
    pub(crate) fn build<K: Kind>(
        mpcc: &Mpcc<K>,
        opts: HomotopyOptions,
        compile: &CompileOptions,
        kernels: Kernels,
        outputs: &[casadi::Function],
    ) -> Result<(Self, Option<PendingModule>)> {
        let t = Instant::now();
        mpcc.validate()?;
        opts.validate()?;
        let module = mpcc.module.as_str();
        let relaxed = RelaxedNlp::build(mpcc, module)?;
        // The finish's branch NLP shares the module: one compiler run, and the kernels
        // both are built from (e.g. a mapped element and its derivatives) appear once.
        let branch_nlp = (mpcc.formulation.active_set_finish && mpcc.n_comp() > 0).then(|| branch_symbolic(mpcc)).transpose()?;
        let branch_prefix = branch_prefix(module);
        let mut group = vec![(&relaxed.nlp, module)];
        if let Some(b) = &branch_nlp {
            group.push((b, &branch_prefix));
        }
        let extras: Vec<casadi::Function> = std::iter::once(relaxed.report.clone()).chain(outputs.iter().cloned()).collect();
        let (mut built, pending) = match kernels {
            Kernels::Compiled => (CompiledNlp::build_group(&group, module, &extras, compile)?, None),
            Kernels::Auto => CompiledNlp::build_group_or_interpret(&group, module, &extras, compile)?,
            Kernels::Interpreted => (CompiledNlp::build_group_or_interpret(&group, module, &extras, compile)?.0, None),
        };
        let compiled = built.remove(0);
        let mut record = MpccRecord::new(mpcc.module.clone(), mpcc.formulation, relaxed.layout, MpccData::of(mpcc), branch_nlp.is_some());
        record.outputs = outputs.iter().map(casadi::Function::name).collect();
        let solver = Self::assemble(compiled, built.pop(), record, (mpcc.formulation, opts), t)?;
        Ok((solver, pending))
    }
}

/// The finish's NLP: `min f s.t. lbg ≤ g ≤ ubg, G ≥ 0, H ≥ 0` in w (no relaxation),
/// whose G/H upper bounds select a branch.
fn branch_symbolic<K: Kind>(mpcc: &Mpcc<K>) -> Result<fesd_nlp::SymbolicNlp<K>> {
    let g = casadi::Matrix::<K>::vertcat(&[&mpcc.g, &mpcc.big_g, &mpcc.big_h])?;
    Ok(fesd_nlp::SymbolicNlp { x: mpcc.w.clone(), p: mpcc.p.clone(), f: mpcc.f.clone(), g })
}
