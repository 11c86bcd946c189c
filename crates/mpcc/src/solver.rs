//! The relaxation homotopy: one compiled NLP, solved for a decreasing σ.

mod homotopy;
#[cfg(feature = "symbolic")]
mod symbolic;

use crate::error::{MpccError, Result};
use crate::finish::BranchNlp;
use crate::ipopt_setup::{max_abs, set_common_ipopt_options};
use crate::options::{steps_from_to, Formulation, HomotopyOptions, Steering};
use crate::problem::MpccData;
use crate::record::MpccRecord;
use crate::relax::{NlpBounds, RelaxedLayout};
use crate::result::{DualStart, HomotopyStep, MpccResult, MpccStatus, Multipliers, Stationarity, Timing};
#[cfg(feature = "symbolic")]
use fesd_codegen::CompileOptions;
use fesd_nlp::BuildReport;
#[cfg(feature = "symbolic")]
use fesd_nlp::PendingModule;
use fesd_nlp::{CompiledNlp, NlpDims};
use ipopt::{IpoptSolver, Solution};
use std::time::{Duration, Instant};

/// Kernel prefix of the active-set finish's branch NLP in the module `module`.
fn branch_prefix(module: &str) -> String {
    format!("{module}_branch")
}

/// Name of the module's report kernel (objective and complementarity residual).
pub(crate) fn report_kernel(module: &str) -> String {
    format!("{module}_report")
}

/// Where a homotopy that handed over to the active-set finish would go on: the full
/// NLP iterate, the next σ and step index, the plan and κ (both as recoveries left
/// them).
struct Resume {
    x: Vec<f64>,
    sigma: f64,
    k: usize,
    n_steps: usize,
    kappa: f64,
    exponent: f64,
    /// The direct-steering fallback's run, with the Ipopt iterations it has left.
    direct_budget: Option<usize>,
}

/// An MPCC compiled once, solvable many times (new parameters, new initial guesses)
/// without recompiling.
pub struct MpccSolver {
    compiled: CompiledNlp,
    /// Ipopt for primal starts.
    ipopt: IpoptSolver,
    /// The same with small warm-start pushes, for starts that carry duals.
    ipopt_warm: IpoptSolver,
    /// Both, with the slacks' bounds fixed at σ by the direct-steering fallback (made at
    /// its first use).
    ipopt_direct: Option<(IpoptSolver, IpoptSolver)>,
    /// The NLP of the active-set finish (built when `active_set_finish` is on).
    branch: Option<BranchNlp>,
    /// Where a homotopy that handed over to the finish would go on.
    handed_over: Option<Resume>,
    /// The last successful homotopy NLP of the latest solve (primal-dual).
    last_point: Option<Solution>,
    /// The start of the next solve when armed by [`MpccSolver::warm_start_from_last_solve`].
    warm_start: Option<Solution>,
    /// What the kernels were built for (fixed).
    formulation: Formulation,
    opts: HomotopyOptions,
    n_w: usize,
    n_g: usize,
    n_comp: usize,
    w0: Vec<f64>,
    p0: Vec<f64>,
    build_time: Duration,
    /// What the build decided besides the kernels (the relaxed NLP's layout, the
    /// MPCC's data, the module's name and outputs).
    record: MpccRecord,
    /// True if built from a prepared file's record (no expressions read).
    prepared: bool,
    /// How [`MpccSolver::from_file`] spent its time, phase by phase.
    start_up: Vec<(&'static str, Duration)>,
    /// The module compiling on another thread: its path once built, or the compiler's
    /// error. Not joined on drop: the compiler finishes the object for the next run.
    pub(crate) background_compile: Option<BackgroundCompile>,
    /// Why the kernels compiling beside the solve could not be used, once known.
    compile_error: Option<String>,
}

/// A module compiling on another thread: its path and the compile time, or why it
/// could not be built.
pub(crate) type BackgroundCompile = std::thread::JoinHandle<std::result::Result<(std::path::PathBuf, Duration), String>>;

/// Compiles `pending` on another thread (compiling calls no CasADi, so it runs beside a
/// solve) and then calls `done` with the module's path.
#[cfg(feature = "symbolic")]
pub(crate) fn compile_beside(
    pending: PendingModule,
    compile: &CompileOptions,
    done: impl FnOnce(&std::path::Path) + Send + 'static,
) -> BackgroundCompile {
    let compile = compile.clone();
    std::thread::spawn(move || {
        let started = Instant::now();
        let library = pending.compile_and_load(&compile).map_err(|e| e.to_string())?.path().to_path_buf();
        done(&library);
        Ok((library, started.elapsed()))
    })
}

struct Evaluated {
    objective: f64,
    residual: f64,
}

impl MpccSolver {
    /// The solver of the relaxed NLP `compiled` (and the finish's `branch`, if built),
    /// whose bounds follow from `record`; `started` is when building began.
    pub(crate) fn assemble(
        compiled: CompiledNlp,
        branch: Option<CompiledNlp>,
        record: MpccRecord,
        (formulation, opts): (Formulation, HomotopyOptions),
        started: Instant,
    ) -> Result<Self> {
        let (layout, data) = (&record.layout, &record.data);
        let NlpBounds { x_l, x_u, g_l, g_u } = layout.bounds(data, &formulation);
        let structure = compiled.structure(x_l, x_u, g_l, g_u)?;
        let (ipopt, ipopt_warm) = configured_ipopt(structure, &opts)?;
        let branch = match branch {
            Some(b) => Some(branch_nlp_from(data, b, layout.pair_variables.clone())?),
            None => None,
        };
        Ok(MpccSolver {
            compiled,
            ipopt,
            ipopt_warm,
            ipopt_direct: None,
            branch,
            handed_over: None,
            last_point: None,
            warm_start: None,
            n_w: data.lbw.len(),
            n_g: data.lbg.len(),
            n_comp: layout.n_comp,
            w0: data.w0.clone(),
            p0: data.p0.clone(),
            build_time: started.elapsed(),
            record,
            prepared: false,
            start_up: Vec::new(),
            background_compile: None,
            compile_error: None,
            formulation,
            opts,
        })
    }

    /// Waits for kernels compiling on another thread (see [`Kernels::Auto`](crate::Kernels::Auto)) and makes
    /// the following solves evaluate them; true if this solver's kernels are compiled
    /// afterwards. Solves adopt finished kernels by themselves; this is for a caller
    /// that wants them before its next solve.
    pub fn wait_for_compiled_kernels(&mut self) -> bool {
        self.adopt_compiled_kernels();
        !self.kernels_interpreted()
    }

    /// True while this solver's kernels are still compiling on another thread (see
    /// [`Kernels::Auto`](crate::Kernels::Auto)); dropping the solver then waits for the compiler.
    pub fn compiling_in_background(&self) -> bool {
        self.background_compile.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// The relaxed NLP's start: the initial guess w0, each elastic slack at `sigma`.
    fn initial_point(&self, sigma: f64) -> Vec<f64> {
        self.w0.iter().copied().chain(std::iter::repeat_n(sigma, self.record.layout.n_slack)).collect()
    }

    /// Adopts the kernels compiling beside the solve if the compiler is done (never
    /// waits for it): called before each NLP of the homotopy.
    fn adopt_finished_kernels(&mut self) {
        if self.background_compile.as_ref().is_some_and(|h| h.is_finished()) {
            self.adopt_compiled_kernels();
        }
    }

    /// Joins the background compiler (if any) and swaps in its module's kernels; if
    /// that fails, keeps CasADi's evaluation and the reason
    /// ([`MpccSolver::compile_error`], printed once at verbosity ≥ 1).
    fn adopt_compiled_kernels(&mut self) {
        let Some(handle) = self.background_compile.take() else { return };
        let started = Instant::now();
        let (library, compile_time) = match handle.join() {
            Ok(Ok(done)) => done,
            Ok(Err(reason)) => return self.keep_interpreted(reason),
            Err(_) => return self.keep_interpreted("the compiling thread panicked".into()),
        };
        let (dims, extras) = (self.record.dims(), self.record.extras());
        let mut built = match CompiledNlp::load_group(&library, &self.record.module, &dims, &extras) {
            Ok(Some(built)) => built,
            Ok(None) => return self.keep_interpreted(format!("{} does not hold this solver's kernels", library.display())),
            Err(e) => return self.keep_interpreted(e.to_string()),
        };
        let mut relaxed = built.remove(0);
        if let (Some(branch), Some(compiled)) = (self.branch.as_mut(), built.pop()) {
            branch.compiled = compiled;
        }
        relaxed.continue_eval_stats(&self.compiled);
        let before = self.compiled.build_report();
        relaxed.set_build_report(BuildReport {
            compile_and_load: compile_time + started.elapsed(),
            interpreted: false,
            compiled_in_background: true,
            ..before
        });
        self.compiled = relaxed;
        if self.opts.verbosity >= 1 {
            println!("kernels: compiled module loaded ({:.3} s); the following NLPs evaluate compiled C", started.elapsed().as_secs_f64());
        }
    }

    fn keep_interpreted(&mut self, reason: String) {
        if self.opts.verbosity >= 1 {
            println!("kernels: the compiled kernels cannot be used ({reason}); CasADi goes on evaluating them");
        }
        self.compile_error = Some(reason);
    }

    /// Why the kernels compiling beside the solve (see [`Kernels::Auto`](crate::Kernels::Auto)) could not be
    /// used, e.g. the compiler's error; the solver then goes on with CasADi's evaluation.
    pub fn compile_error(&self) -> Option<&str> {
        self.compile_error.as_deref()
    }

    #[cfg(feature = "symbolic")]
    pub(crate) fn set_build_time(&mut self, t: Duration) {
        self.build_time = t;
    }

    #[cfg(feature = "symbolic")]
    pub(crate) fn set_start_up(&mut self, phases: Vec<(&'static str, Duration)>) {
        self.start_up = phases;
    }

    /// Where [`MpccSolver::from_file`] spent its time, phase by phase (e.g. reading the
    /// file, finding its record, loading the kernels, setting up Ipopt); empty for
    /// solvers built otherwise.
    pub fn start_up(&self) -> &[(&'static str, Duration)] {
        &self.start_up
    }

    #[cfg(feature = "symbolic")]
    pub(crate) fn mark_prepared(&mut self) {
        self.prepared = true;
    }

    /// True if [`MpccSolver::from_file`] found the file prepared by an earlier run and
    /// built this solver from the record and the cached kernels alone, without reading
    /// the file's expressions.
    pub fn prepared_from_cache(&self) -> bool {
        self.prepared
    }

    /// The module's path and the sizes and bound decisions this solver was assembled
    /// from: what [`MpccSolver::from_file`] records to skip the expressions next time.
    #[cfg(feature = "symbolic")]
    pub(crate) fn prepared_parts(&self) -> (Option<&std::path::Path>, &RelaxedLayout, bool) {
        (self.compiled.library_path(), &self.record.layout, self.branch.is_some())
    }

    /// What the build decided besides the kernels: with the module
    /// ([`MpccSolver::library_path`], or the module linked into a program) it rebuilds
    /// this solver without CasADi ([`MpccSolver::from_record`]).
    pub fn record(&self) -> MpccRecord {
        MpccRecord { options: self.opts.clone(), ..self.record.clone() }
    }

    /// The loaded module's file; `None` while CasADi evaluates the functions.
    pub fn library_path(&self) -> Option<&std::path::Path> {
        self.compiled.library_path()
    }

    /// The homotopy options.
    pub fn options(&self) -> &HomotopyOptions {
        &self.opts
    }

    /// The formulation the kernels were built for (the problem's, fixed).
    pub fn formulation(&self) -> &Formulation {
        &self.formulation
    }

    /// Replaces the homotopy schedule for the following solves: every field may
    /// change (what is compiled in is the problem's [`Formulation`], not part of it).
    pub fn set_options(&mut self, opts: HomotopyOptions) -> Result<()> {
        opts.validate()?;
        let ipopt_changed = opts.ipopt != self.opts.ipopt
            || opts.verbosity != self.opts.verbosity
            || opts.perturb_always_cd != self.opts.perturb_always_cd
            || opts.reuse_hessian_perturbation != self.opts.reuse_hessian_perturbation;
        if ipopt_changed {
            (self.ipopt, self.ipopt_warm) = configured_ipopt(self.ipopt.structure().clone(), &opts)?;
            self.ipopt_direct = None;
        }
        self.opts = opts;
        Ok(())
    }

    /// Time spent building and compiling (or loading) the kernels; for
    /// [`MpccSolver::from_file`], from the start of reading the file.
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// How the kernels were obtained (the relaxed NLP and the active-set finish's
    /// branch NLP are one module): time deriving and generating C, time compiling and
    /// loading, and whether they came from the cache.
    pub fn build_report(&self) -> BuildReport {
        self.compiled.build_report()
    }

    /// The relaxed NLP as Ipopt sees it: bounds and the sparsity of the constraint
    /// Jacobian and of the Lagrangian Hessian (lower triangle).
    pub fn nlp_structure(&self) -> &ipopt::NlpStructure {
        self.ipopt.structure()
    }

    /// True if CasADi evaluates this solver's functions (no compiled kernels yet; see
    /// [`Kernels`](crate::Kernels)).
    pub fn kernels_interpreted(&self) -> bool {
        self.compiled.build_report().interpreted
    }

    /// True if the kernels came from the on-disk cache.
    pub fn kernels_cached(&self) -> bool {
        self.compiled.build_report().cache_hit
    }

    /// How many of the `G ≥ 0`, `H ≥ 0` conditions became variable bounds.
    pub fn lower_bounds_as_variable_bounds(&self) -> usize {
        self.record.layout.bounds_as_variable_bounds
    }

    /// How many of the `G ≥ 0`, `H ≥ 0` conditions the variable bounds already imply
    /// (affine entries whose interval lower bound is ≥ 0), so no constraint is added.
    pub fn lower_bounds_implied(&self) -> usize {
        self.record.layout.implied_by_bounds
    }

    /// The MPCC's numbers of variables w and parameters p.
    pub fn sizes(&self) -> (usize, usize) {
        (self.n_w, self.p0.len())
    }

    /// The parameter values of the following solves.
    pub fn parameters(&self) -> &[f64] {
        &self.p0
    }

    /// New parameter values for the following solves (no recompilation).
    pub fn set_parameters(&mut self, p0: &[f64]) -> Result<()> {
        check_len("p0", p0, self.p0.len())?;
        self.p0 = p0.to_vec();
        Ok(())
    }

    /// New initial guess for the following solves.
    pub fn set_initial_guess(&mut self, w0: &[f64]) -> Result<()> {
        check_len("w0", w0, self.n_w)?;
        self.w0 = w0.to_vec();
        self.warm_start = None;
        Ok(())
    }

    /// The next solve starts from the MPCC's own initial guess again (its w0), not from
    /// a guess set since or a warm start.
    pub fn reset_guess(&mut self) {
        self.w0.clone_from(&self.record.data.w0);
        self.warm_start = None;
    }

    /// Makes the next solve a warm re-solve (the MPC use case: new parameters, the
    /// same problem): its first NLP starts from the primal-dual point of the latest
    /// solve's last successful homotopy NLP at σ = `warm_sigma_0`, and the homotopy
    /// goes on from there. False (and nothing changes) if no solve has produced such
    /// a point. [`MpccSolver::set_initial_guess`] disarms it.
    pub fn warm_start_from_last_solve(&mut self) -> bool {
        let Some(sol) = self.last_point.clone() else { return false };
        self.w0 = sol.x[..self.n_w].to_vec();
        self.warm_start = Some(sol);
        true
    }

    /// The primal-dual point of the latest solve's last successful homotopy NLP, to
    /// start a later solve of the same problem from new primal values with its
    /// multipliers ([`MpccSolver::set_initial_guess_with_duals`]); `None` before any
    /// NLP succeeded.
    pub fn dual_start(&self) -> Option<DualStart> {
        self.last_point.clone().map(DualStart)
    }

    /// Makes the next solve start from `w0` with the multipliers of `duals` (from
    /// [`MpccSolver::dual_start`] of this solver: the simulator's next piece, the
    /// same problem shifted in time, whose active set mostly goes on), at σ =
    /// `warm_sigma_0` as in [`MpccSolver::warm_start_from_last_solve`]. An error if
    /// `w0` or `duals` do not fit this problem.
    pub fn set_initial_guess_with_duals(&mut self, w0: &[f64], duals: &DualStart) -> Result<()> {
        // Both checked before anything changes: a refused start leaves the last one.
        check_len("duals", &duals.0.x, self.ipopt.structure().x_l.len())?;
        check_len("duals (constraint multipliers)", &duals.0.mult_g, self.ipopt.structure().g_l.len())?;
        self.set_initial_guess(w0)?;
        let mut sol = duals.0.clone();
        sol.x[..self.n_w].copy_from_slice(w0);
        self.warm_start = Some(sol);
        Ok(())
    }

    /// Evaluates the function `name` of [`MpccSolver::with_outputs`] at `(w, p)`;
    /// returns its outputs dense, column-major.
    pub fn eval_output(&mut self, name: &str, w: &[f64], p: &[f64]) -> Result<Vec<Vec<f64>>> {
        if !self.record.outputs.iter().any(|o| o == name) {
            return Err(MpccError::InvalidOption {
                name: "output",
                reason: format!("{name:?} is not among this solver's outputs {:?}", self.record.outputs),
            });
        }
        let kernel = self.compiled.extra(name).ok_or_else(|| MpccError::Format(format!("the module lacks the output {name}")))?;
        Ok(kernel.eval_dense(&[w, p])?)
    }

    /// How far `w` is from satisfying the MPCC's constraints other than
    /// complementarity: the largest violation of `lbg ≤ g(w, p) ≤ ubg`, of
    /// `lbw ≤ w ≤ ubw` and of `G(w), H(w) ≥ 0`, at the current parameters (∞ where an
    /// evaluation fails or gives NaN). Complementarity itself is `max_i |G_i H_i|`
    /// ([`MpccResult::comp_residual`]).
    pub fn constraint_violation(&mut self, w: &[f64]) -> Result<f64> {
        check_len("w", w, self.n_w)?;
        self.compiled.set_parameters(&RelaxedLayout::parameters(&self.p0, self.opts.sigma_0))?;
        let ipopt::NlpStructure { x_l, x_u, g_l, g_u, .. } = self.ipopt.structure();
        // The slacks do not enter g's own rows nor the G, H ≥ 0 rows.
        let x: Vec<f64> = w.iter().copied().chain(std::iter::repeat_n(0.0, x_l.len() - self.n_w)).collect();
        let mut g = vec![f64::NAN; g_l.len()];
        if !ipopt::NlpCallbacks::constraints(&mut self.compiled, &x, true, &mut g) {
            return Ok(f64::INFINITY);
        }
        let beyond = |v: f64, lo: f64, hi: f64| if v.is_nan() { f64::INFINITY } else { (lo - v).max(v - hi).max(0.0) };
        let bounds = (0..self.n_w).map(|j| beyond(w[j], x_l[j], x_u[j]));
        // Rows: g, then the relaxed products (skipped), then the G, H ≥ 0 rows.
        let rows = (0..g.len()).filter(|&i| i < self.n_g || i >= self.n_g + self.n_comp).map(|i| beyond(g[i], g_l[i], g_u[i]));
        Ok(bounds.chain(rows).fold(0.0, f64::max))
    }

    fn evaluate(&mut self, x: &[f64], params: &[f64]) -> Evaluated {
        let kernel = self.compiled.extra(&report_kernel(&self.record.module));
        let mut f = [f64::NAN];
        let mut gh = vec![f64::NAN; self.n_comp];
        let ok = kernel.map(|k| k.eval(&[x, params], &mut [&mut f, &mut gh]).is_ok()).unwrap_or(false);
        if !ok {
            return Evaluated { objective: f64::NAN, residual: f64::NAN };
        }
        let residual = max_abs(&gh);
        Evaluated { objective: f[0], residual }
    }

    fn print_header(&self, n_steps: usize) {
        println!(
            "homotopy: {} relaxation, {} steering, sigma_0 = {:e}, kappa = {}{}, comp_tol = {:e}, {} steps planned, linear solver {}",
            self.formulation.relaxation.name(),
            self.formulation.steering.name(),
            self.opts.sigma_0,
            self.opts.kappa,
            if self.opts.sigma_exponent > 1.0 { format!(", sigma_exponent = {}", self.opts.sigma_exponent) } else { String::new() },
            self.opts.comp_tol,
            n_steps,
            self.opts.linear_solver()
        );
        println!("{:>3} {:>10} {:<34} {:>5} {:>15} {:>10} {:>9}", "k", "sigma", "ipopt status", "iter", "objective", "comp_res", "time[s]");
    }

    fn print_row(row: &HomotopyStep) {
        println!(
            "{:>3} {:>10.3e} {:<34} {:>5} {:>15.8e} {:>10.3e} {:>9.4}{}{}",
            row.k,
            row.sigma,
            format!("{:?}", row.ipopt_status),
            row.iterations,
            row.objective,
            row.comp_residual,
            row.wall_time,
            if row.recovery { "  (recovery)" } else { "" },
            if row.interpreted { "  (CasADi-evaluated)" } else { "" }
        );
    }

    fn planned_steps(&self) -> usize {
        if self.n_comp == 0 {
            1
        } else {
            self.opts.homotopy_steps()
        }
    }

    /// Runs the homotopy from the current initial guess and parameters. Never panics:
    /// a failed solve returns its status and last iterate.
    ///
    /// With `warm_start_duals`, a homotopy that does not converge is run once more
    /// with primal warm starts only (the duals of one relaxation can lead the next one
    /// into a locally infeasible region); the table and counts then cover both runs.
    ///
    /// With the active-set finish on, the homotopy hands over to it as soon as
    /// `max_i |G_i H_i| ≤ finish_handover`; if the finish cannot make that point exact
    /// and certified, the homotopy runs to the end and the finish is tried there.
    ///
    /// With elastic steering and [`HomotopyOptions::direct_fallback`], a point the
    /// finish finds locally infeasible is followed by a direct-steering homotopy from the
    /// initial guess.
    pub fn solve(&mut self) -> MpccResult {
        self.handed_over = None;
        // The branch NLP exists exactly where the formulation asks for the finish.
        let finishing = self.branch.is_some();
        let handover = finishing.then_some(self.opts.finish_handover).filter(|&h| h > self.opts.comp_tol);
        let homotopy = self.run_homotopy_with_fallback(handover);
        let result = self.finish_or_go_on(homotopy);
        self.direct_fallback(result, handover)
    }

    /// The finish on a homotopy's result; where it did not certify a point the homotopy
    /// handed over, the homotopy goes on from there and the finish runs again at its end.
    fn finish_or_go_on(&mut self, homotopy: MpccResult) -> MpccResult {
        let first = self.finish(homotopy);
        if first.status.is_converged() {
            return first;
        }
        let Some(resume) = self.handed_over.take() else { return first };
        let homotopy = self.run_homotopy(None, Some(resume));
        let second = self.finish(homotopy);
        merge(first, second, "the finish did not certify the handed-over point; the homotopy went on from it")
    }

    /// [`HomotopyOptions::direct_fallback`]: after an elastic homotopy that ended at a
    /// locally infeasible point, direct steering from the initial guess within as many
    /// Ipopt iterations (and the finish where it hands a point over); its result if it
    /// converged, else `result` (with both tables).
    fn direct_fallback(&mut self, result: MpccResult, handover: Option<f64>) -> MpccResult {
        let infeasible = result.finish.as_ref().is_some_and(|f| f.stationarity == Stationarity::LocallyInfeasible);
        let elastic = self.formulation.steering != Steering::Direct && self.record.layout.n_slack > 0;
        if !(self.opts.direct_fallback && elastic && infeasible && !result.status.is_converged()) {
            return result;
        }
        let (sigma, kappa) = (1.0, 0.1);
        let start = Resume {
            x: self.initial_point(sigma),
            sigma,
            k: 0,
            n_steps: steps_from_to(sigma, self.opts.sigma_final(), kappa, 1.0),
            kappa,
            exponent: 1.0,
            direct_budget: Some(result.total_iterations.max(1)),
        };
        self.handed_over = None;
        let first_point = self.last_point.clone();
        let homotopy = self.run_homotopy(handover, Some(start));
        // The finish only for a point this run brought close to complementarity (its
        // phase I on a failed run would search again where the first run's found nothing).
        let close = homotopy.status.is_converged() || self.handed_over.is_some();
        let second = if close { self.finish_or_go_on(homotopy) } else { homotopy };
        let keep_second = second.status.is_converged();
        if !keep_second {
            // A warm re-solve starts from the first run's last NLP, as without the fallback.
            self.last_point = first_point;
        }
        let note = "the elastic homotopy ended at a locally infeasible point; direct steering (G_i H_i <= sigma from sigma = 1) from the initial guess (direct_fallback)";
        combine(result, second, note, keep_second)
    }

    /// The active-set finish on the homotopy's result (when enabled): the returned point
    /// becomes the finish's if its complementarity holds to comp_tol and its objective
    /// is not worse.
    fn finish(&mut self, mut result: MpccResult) -> MpccResult {
        let Some(branch) = self.branch.as_mut() else { return result };
        let t = Instant::now();
        if branch.compiled.set_parameters(&self.p0).is_err() {
            return result;
        }
        let done = crate::finish::finish(branch, &result.w, &self.opts);
        let elapsed = t.elapsed().as_secs_f64();
        result.timing.total += elapsed;
        result.timing.ipopt += elapsed;
        let Some(done) = done else {
            result.messages.push("active-set finish: the active set could not be identified or its NLP failed".into());
            return result;
        };
        result.total_iterations += done.report.iterations;
        if let Some((objective, residual)) = branch_eval(branch, &done.w) {
            // A certified point is taken (its complementarity is exact, the homotopy's only
            // approximate, so its objective may be a little higher); otherwise only if
            // it is no worse.
            let certified = done.report.stationarity.is_certified();
            let no_worse = objective <= result.objective + 1e-9 * (1.0 + result.objective.abs()) || !result.status.is_converged();
            // A non-finite objective (the model evaluates to NaN at the parameters) is
            // never taken, whatever the homotopy's status.
            if objective.is_finite() && residual <= self.opts.comp_tol && (certified || no_worse) {
                result.w = done.w;
                result.objective = objective;
                result.comp_residual = residual;
                result.status = MpccStatus::Converged;
            }
        }
        if !done.report.phase_one.is_empty() {
            let tried: Vec<String> = done
                .report
                .phase_one
                .iter()
                .map(|(rho, v)| format!("{rho:.0e}: {}", v.map_or("no answer".into(), |v| format!("{v:.2e}"))))
                .collect();
            let verdict = match done.report.stationarity {
                Stationarity::LocallyInfeasible => {
                    "no branch near the homotopy's point is feasible: the MPCC looks locally infeasible there"
                }
                Stationarity::Unknown => "undecided",
                _ => "a feasible branch was found and solved",
            };
            result.messages.push(format!("phase I (linearized violation per trust-region radius: {}): {verdict}", tried.join(", ")));
        }
        if self.opts.verbosity >= 1 {
            let r = &done.report;
            println!(
                "finish: {} ({} biactive), {} NLPs, {} Ipopt iterations, {} branch changes, LPEC value {:?}; f = {:.8e}, comp_res = {:.3e}",
                r.stationarity.name(),
                r.biactive,
                r.nlps,
                r.iterations,
                r.branch_changes,
                r.lpec_value,
                result.objective,
                result.comp_residual
            );
        }
        result.finish = Some(done.report);
        result
    }

    fn run_homotopy_with_fallback(&mut self, handover: Option<f64>) -> MpccResult {
        let first = self.run_homotopy(handover, None);
        let handed_over = handover.is_some_and(|h| first.comp_residual <= h);
        if first.status.is_converged() || handed_over || !self.opts.warm_start_duals {
            return first;
        }
        self.opts.warm_start_duals = false;
        let second = self.run_homotopy(handover, None);
        self.opts.warm_start_duals = true;
        let note = format!("homotopy with dual warm starts ended {}; ran it again with primal warm starts only", first.status.name());
        merge(first, second, &note)
    }

    fn multipliers(&self, s: &Solution) -> Multipliers {
        let (m, nc) = (self.n_g, self.n_comp);
        Multipliers {
            lambda_g: s.mult_g[..m].to_vec(),
            lambda_comp: s.mult_g[m..m + nc].to_vec(),
            lambda_w: (0..self.n_w).map(|i| s.mult_x_u[i] - s.mult_x_l[i]).collect(),
        }
    }
}

/// Ipopt with fesd's defaults and the user's options, checked by Ipopt: one for
/// primal starts, one for starts with duals (warm-start pushes 1e-9).
///
/// Defaults: `mu_strategy adaptive`, `warm_start_init_point yes` for every NLP, the
/// first included, `bound_relax_factor 0` (Ipopt would otherwise let G, H dip 1e-8
/// below their bounds, and the products G_i H_i could not reach comp_tol),
/// `mumps_pivtol 1e-8` (Ipopt's MA27/MA57 default; MUMPS's 1e-6 delays pivots on large
/// OCPs), `perturb_always_cd` as [`HomotopyOptions::perturb_always_cd`] says.
/// Evidence: `docs/evidence/mpcc.md`, "Ipopt defaults".
fn configured_ipopt(structure: ipopt::NlpStructure, opts: &HomotopyOptions) -> Result<(IpoptSolver, IpoptSolver)> {
    let mut ipopt = IpoptSolver::new(structure)?;
    set_common_ipopt_options(&mut ipopt, opts).set_option("mumps_pivtol", 1e-8);
    if opts.perturb_always_cd {
        ipopt.set_option("perturb_always_cd", "yes");
    }
    ipopt.set_reuse_hessian_perturbation(opts.reuse_hessian_perturbation);
    let mut warm = ipopt.clone();
    warm.set_option("warm_start_bound_push", 1e-9).set_option("warm_start_mult_bound_push", 1e-9);
    for (solver, warm_start) in [(&mut ipopt, false), (&mut warm, true)] {
        for (k, v) in &opts.ipopt {
            // A start with multipliers is a warm start whatever the options say.
            if !(warm_start && k == "warm_start_init_point") {
                solver.set_option(k, v.clone());
            }
        }
        solver.validate_options()?;
    }
    Ok((ipopt, warm))
}

/// One result from two runs: the second's outcome if it converged or got closer, the
/// tables, messages, iterations and times of both.
fn merge(first: MpccResult, second: MpccResult, note: &str) -> MpccResult {
    let keep_second = second.status.is_converged() || second.comp_residual <= first.comp_residual;
    combine(first, second, note, keep_second)
}

/// One result from two runs: the outcome of the second if `keep_second`, else of the
/// first; the tables, messages, iterations and times of both.
fn combine(first: MpccResult, second: MpccResult, note: &str, keep_second: bool) -> MpccResult {
    let mut messages = first.messages.clone();
    messages.push(note.to_string());
    messages.extend(second.messages.iter().cloned());
    let mut steps = first.steps.clone();
    steps.extend(second.steps.iter().map(|s| HomotopyStep { recovery: true, ..s.clone() }));
    let (a, b) = (first.timing, second.timing);
    let timing = Timing {
        total: a.total + b.total,
        ipopt: a.ipopt + b.ipopt,
        kernels: a.kernels + b.kernels,
        kernels_hessian: a.kernels_hessian + b.kernels_hessian,
        own: a.own + b.own,
        first_iteration: a.first_iteration,
    };
    let total_iterations = first.total_iterations + second.total_iterations;
    let chosen = if keep_second { second } else { first };
    MpccResult { total_iterations, steps, messages, timing, ..chosen }
}

/// The NLPs of the MPCC module `module`: the relaxed NLP, then the finish's branch NLP
/// if `branch`.
pub(crate) fn module_dims(module: &str, layout: &RelaxedLayout, n_w: usize, n_g: usize, n_p: usize, branch: bool) -> Vec<NlpDims> {
    let n_c = layout.n_comp;
    let mut dims = vec![NlpDims { prefix: module.into(), n: n_w + layout.n_slack, m: n_g + n_c + layout.lower_bound_rows, np: n_p + 1 }];
    if branch {
        dims.push(NlpDims { prefix: branch_prefix(module), n: n_w, m: n_g + 2 * n_c, np: n_p });
    }
    dims
}

/// The MPCC module's report kernel among the module's extra kernels, for
/// [`CompiledNlp::load_group`].
pub(crate) fn report_kernels(module: &str) -> [String; 1] {
    [report_kernel(module)]
}

/// The compiled branch NLP with its bounds.
fn branch_nlp_from(data: &MpccData, compiled: CompiledNlp, pair_variables: Vec<[Option<usize>; 2]>) -> Result<BranchNlp> {
    let nc = pair_variables.len();
    let g_l = data.lbg.iter().copied().chain(std::iter::repeat_n(0.0, 2 * nc)).collect();
    let g_u = data.ubg.iter().copied().chain(std::iter::repeat_n(f64::INFINITY, 2 * nc)).collect();
    let structure = compiled.structure(data.lbw.clone(), data.ubw.clone(), g_l, g_u)?;
    Ok(BranchNlp { compiled, structure, n_w: data.lbw.len(), n_g: data.lbg.len(), n_comp: nc, pair_variables })
}

/// Objective and max |G_i H_i| at `w`.
fn branch_eval(b: &mut BranchNlp, w: &[f64]) -> Option<(f64, f64)> {
    use ipopt::NlpCallbacks;
    let f = b.compiled.objective(w, true)?;
    Some((f, b.residual(w)?))
}

fn check_len(what: &'static str, v: &[f64], len: usize) -> Result<()> {
    if v.len() != len {
        return Err(MpccError::Dimension { what: format!("length of {what}"), expected: len.to_string(), got: v.len().to_string() });
    }
    if let Some((index, &value)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(MpccError::NotFinite { what, index, value });
    }
    Ok(())
}
