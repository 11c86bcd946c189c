//! The homotopy loop of [`MpccSolver`]: one NLP per σ, a recovery when an NLP fails,
//! the handover to the active-set finish.

use super::{MpccSolver, Resume};
use crate::ipopt_setup::max_abs;
use crate::options::{next_sigma, steps_from_to, HomotopyOptions, Steering};
use crate::relax::RelaxedLayout;
use crate::result::{HomotopyStep, MpccResult, MpccStatus, Timing};
use ipopt::{ApplicationReturnStatus, OptionValue, Solution, StartPoint};
use std::time::{Duration, Instant};

/// The homotopy's state between its NLPs.
struct Run {
    /// Index of the next NLP.
    k: usize,
    /// Number of NLPs planned (recoveries may add some).
    n_steps: usize,
    sigma: f64,
    kappa: f64,
    exponent: f64,
    /// Start of the next NLP (the relaxed NLP's variables: w, then the slacks).
    x: Vec<f64>,
    /// The relaxed NLP's parameters: the MPCC's, then σ.
    params: Vec<f64>,
    /// A warm re-solve: the first NLP starts from this primal-dual point.
    warm_first: Option<Solution>,
    steps: Vec<HomotopyStep>,
    messages: Vec<String>,
    /// The last NLP's solution, successful or not.
    last: Option<Solution>,
    /// The last successful NLP's solution and its σ.
    last_good: Option<(Solution, f64)>,
    /// Resume the next NLP from this primal-dual point and barrier parameter.
    resume: Option<(Solution, f64)>,
    recoveries: usize,
    /// Solved NLPs in a row at σ ≤ 1e-4 whose residual fell by less than 10 %, and the
    /// previous solved NLP's residual (see `HomotopyOptions::stalled_steps`).
    stalled: usize,
    previous_residual: f64,
    /// The next NLP is a recovery's.
    recovery: bool,
    /// Direct steering with the elastic kernels (the slacks fixed at σ), with the Ipopt
    /// iterations left to this run: [`HomotopyOptions::direct_fallback`].
    direct_budget: Option<usize>,
    /// After a failure of a dual warm start: solve the same NLP from the primal point only.
    force_cold: bool,
    status: MpccStatus,
    inside_ipopt: Duration,
    first_iteration: Option<Duration>,
    started: Instant,
}

/// One NLP's solution and what its iterations showed.
struct Attempt {
    sol: Solution,
    /// The barrier parameter of its last iteration.
    last_mu: f64,
    /// Its steps added up to more than `reach` (see [`is_diverging`]).
    ran_away: bool,
    reach: f64,
    /// It started from a previous NLP's duals too.
    warm_duals: bool,
    /// Iterations in Ipopt's restoration phase.
    restoration_iterations: usize,
}

impl MpccSolver {
    /// The homotopy from the initial guess; with `handover`, it stops (status
    /// `CompTolNotReached`) at the first solved NLP whose residual is at most that and
    /// records where it would go on; `resume_at` goes on from such a record.
    pub(super) fn run_homotopy(&mut self, handover: Option<f64>, resume_at: Option<Resume>) -> MpccResult {
        let mut run = self.begin(resume_at);
        self.compiled.reset_eval_stats();
        if self.opts.verbosity >= 1 {
            self.print_header(run.n_steps);
        }
        while run.k < run.n_steps {
            if run.direct_budget == Some(0) {
                run.messages.push(format!("step {}: the direct-steering fallback used its Ipopt iterations (direct_fallback)", run.k));
                break;
            }
            let t_step = Instant::now();
            let Some(attempt) = self.attempt(&mut run) else { break };
            let residual = self.record_step(&mut run, &attempt, t_step);
            if let Some(left) = run.direct_budget.as_mut() {
                *left = left.saturating_sub(attempt.sol.iterations);
            }
            if !attempt.sol.status.is_success() {
                if self.recover(&mut run, attempt) {
                    continue;
                }
                break;
            }
            if self.accept(&mut run, attempt.sol, residual, handover) {
                break;
            }
        }
        self.conclude(run)
    }

    /// The run's start: σ_0 from the initial guess, a handed-over point, or a warm
    /// re-solve's previous solution at `warm_sigma_0`.
    fn begin(&mut self, resume_at: Option<Resume>) -> Run {
        let started = Instant::now();
        let sigma_n = self.opts.sigma_final();
        let mut run = Run {
            k: 0,
            n_steps: self.planned_steps(),
            sigma: self.opts.sigma_0,
            kappa: self.opts.kappa,
            exponent: self.opts.sigma_exponent,
            x: self.initial_point(self.opts.sigma_0),
            params: Vec::new(),
            warm_first: None,
            steps: Vec::new(),
            messages: Vec::new(),
            last: None,
            last_good: None,
            resume: None,
            recoveries: 0,
            stalled: 0,
            previous_residual: f64::INFINITY,
            recovery: false,
            direct_budget: None,
            force_cold: false,
            status: MpccStatus::CompTolNotReached,
            inside_ipopt: Duration::ZERO,
            first_iteration: None,
            started,
        };
        if let Some(r) = resume_at {
            (run.x, run.sigma, run.k, run.n_steps, run.kappa, run.exponent) = (r.x, r.sigma, r.k, r.n_steps, r.kappa, r.exponent);
            run.direct_budget = r.direct_budget;
        } else if let Some(sol) = self.warm_start.take() {
            run.sigma = self.opts.warm_sigma_0.max(sigma_n);
            if self.opts.n_homotopy.is_none() {
                run.n_steps = steps_from_to(run.sigma, sigma_n, run.kappa, run.exponent);
            }
            run.x = sol.x.clone();
            run.warm_first = Some(sol);
        }
        run.params = RelaxedLayout::parameters(&self.p0, run.sigma);
        run
    }

    /// Solves the NLP at the run's σ from the start its state calls for. `None` ends
    /// the homotopy (with a message; a failed status if Ipopt could not start).
    fn attempt(&mut self, run: &mut Run) -> Option<Attempt> {
        self.adopt_finished_kernels();
        run.params = RelaxedLayout::parameters(&self.p0, run.sigma);
        if let Err(e) = self.compiled.set_parameters(&run.params) {
            run.messages.push(format!("internal error setting parameters: {e}"));
            return None;
        }
        let tolerances = step_tol(&self.opts, run.sigma);
        // An early NLP's acceptable level (it may stop there, see `step_tol`).
        let early_level = tolerances.map(|(_, a)| a).filter(|&a| a > 1e-6 && !self.opts.sets_ipopt("acceptable_tol"));
        let mut extra = self.step_options(tolerances, early_level);
        if let Some(left) = run.direct_budget.filter(|&left| left < self.opts.max_iter && !self.opts.sets_ipopt("max_iter")) {
            extra.retain(|(k, _)| k != "max_iter");
            extra.push(("max_iter".into(), i32::try_from(left).unwrap_or(i32::MAX).into()));
        }
        if run.direct_budget.is_some() {
            if let Err(e) = self.fix_slacks(run.sigma) {
                run.messages.push(format!("step {}: Ipopt could not take the fixed slacks: {e}", run.k));
                run.status = MpccStatus::NlpFailed { step: run.k, ipopt_status: ApplicationReturnStatus::InvalidOption };
                return None;
            }
        }
        let (start, warm_solver, warm_duals) = match run.resume.take() {
            // Resume where the previous attempt stopped: its primal-dual point and barrier parameter.
            Some((sol, mu)) => {
                if mu.is_finite() && mu > 0.0 {
                    extra.push(("mu_init".into(), mu.into()));
                }
                (StartPoint { x: run.x.clone(), ..sol.warm_start() }, true, false)
            }
            None => {
                let previous = match (&run.last_good, &run.warm_first) {
                    (Some((sol, _)), _) if self.opts.warm_start_duals => Some(sol),
                    (None, Some(sol)) => Some(sol),
                    _ => None,
                };
                match previous.filter(|_| !run.force_cold) {
                    Some(sol) => (StartPoint { x: run.x.clone(), ..sol.warm_start() }, true, true),
                    None => (StartPoint::primal(run.x.clone()), false, false),
                }
            }
        };
        // Distance the iterates may travel before the NLP counts as diverging (see
        // `is_diverging`); the steps' lengths add up to a bound of it.
        let reach = DIVERGENCE_FACTOR * (1.0 + max_abs(&run.x));
        let (mut last_mu, mut travelled, mut ran_away, mut restoration_iterations) = (f64::NAN, 0.0, false, 0);
        let mut stagnation = Stagnation::new(self.opts.stagnation_window, early_level);
        let (started, first_iteration) = (run.started, &mut run.first_iteration);
        let mut stall = Stall::new(self.opts.stall_iterations, self.opts.stall_step, self.opts.stall_warmup);
        let mut observe = |info: &ipopt::IterationInfo| {
            last_mu = info.mu;
            restoration_iterations += usize::from(info.restoration);
            first_iteration.get_or_insert_with(|| started.elapsed());
            travelled += info.alpha_pr * info.d_norm;
            ran_away = travelled > reach;
            !ran_away && !stall.observe(info) && !stagnation.observe(info)
        };
        let t_ipopt = Instant::now();
        let solver = match (&self.ipopt_direct, run.direct_budget.is_some(), warm_solver) {
            (Some((_, warm)), true, true) => warm,
            (Some((cold, _)), true, false) => cold,
            (_, _, true) => &self.ipopt_warm,
            (_, _, false) => &self.ipopt,
        };
        let solved = solver.solve_with(&mut self.compiled, &start, Some(&mut observe), &extra);
        run.inside_ipopt += t_ipopt.elapsed();
        match solved {
            Ok(mut sol) => {
                if stagnation.stopped && sol.status == ApplicationReturnStatus::UserRequestedStop {
                    // An early NLP whose objective stopped moving at an acceptable point.
                    sol.status = ApplicationReturnStatus::SolvedToAcceptableLevel;
                    run.messages.push(format!(
                        "step {}: stopped after {} iterations: objective stagnant at an acceptable point (stagnation_window)",
                        run.k, sol.iterations
                    ));
                }
                if stall.stopped && sol.status == ApplicationReturnStatus::UserRequestedStop {
                    run.messages.push(format!(
                        "step {}: stopped after {} iterations: {} primal steps in a row shorter than {} of the Newton step (stall_iterations)",
                        run.k, sol.iterations, self.opts.stall_iterations, self.opts.stall_step
                    ));
                }
                Some(Attempt { sol, last_mu, ran_away, reach, warm_duals, restoration_iterations })
            }
            Err(e) => {
                run.messages.push(format!("step {}: Ipopt could not start: {e}", run.k));
                run.status = MpccStatus::NlpFailed { step: run.k, ipopt_status: ApplicationReturnStatus::InvalidOption };
                None
            }
        }
    }

    /// Fixes the relaxed NLP's slacks at `sigma` in the direct-steering fallback's Ipopt
    /// solvers (made from the usual ones at the first call): `G_i H_i ≤ s = σ`, and the
    /// penalty `s/σ` a constant.
    fn fix_slacks(&mut self, sigma: f64) -> Result<(), ipopt::IpoptError> {
        let (cold, warm) = self.ipopt_direct.get_or_insert_with(|| (self.ipopt.clone(), self.ipopt_warm.clone()));
        let (mut x_l, mut x_u) = (cold.structure().x_l.clone(), cold.structure().x_u.clone());
        for j in self.n_w..x_l.len() {
            (x_l[j], x_u[j]) = (sigma, sigma);
        }
        cold.set_variable_bounds(x_l.clone(), x_u.clone())?;
        warm.set_variable_bounds(x_l, x_u)
    }

    /// The per-NLP Ipopt options: `max_iter`, `tol` and, for an early NLP, its
    /// acceptable level (unless the user set them).
    fn step_options(&self, tolerances: Option<(f64, f64)>, early_level: Option<f64>) -> Vec<(String, OptionValue)> {
        let mut extra: Vec<(String, OptionValue)> = Vec::new();
        if !self.opts.sets_ipopt("max_iter") {
            extra.push(("max_iter".into(), i32::try_from(self.opts.max_iter).unwrap_or(i32::MAX).into()));
        }
        if let Some((tol, _)) = tolerances {
            extra.push(("tol".into(), tol.into()));
        }
        if let Some(acceptable) = early_level {
            extra.push(("acceptable_tol".into(), acceptable.into()));
            if !self.opts.sets_ipopt("acceptable_iter") {
                extra.push(("acceptable_iter".into(), i32::try_from(self.opts.acceptable_iter).unwrap_or(i32::MAX).into()));
            }
        }
        extra
    }

    /// Adds the NLP's row to the homotopy table (printed at verbosity ≥ 1), keeps its
    /// solution as the last one and returns its complementarity residual.
    fn record_step(&mut self, run: &mut Run, attempt: &Attempt, t_step: Instant) -> f64 {
        let sol = &attempt.sol;
        let eval = self.evaluate(&sol.x, &run.params);
        let row = HomotopyStep {
            k: run.k,
            sigma: run.sigma,
            ipopt_status: sol.status,
            iterations: sol.iterations,
            restoration_iterations: attempt.restoration_iterations,
            objective: eval.objective,
            comp_residual: eval.residual,
            wall_time: t_step.elapsed().as_secs_f64(),
            recovery: run.recovery,
            non_finite: sol.non_finite.clone(),
            interpreted: self.kernels_interpreted(),
        };
        if let Some(what) = &sol.non_finite {
            run.messages
                .push(format!("step {}: an evaluation gave a non-finite number ({what}); it was reported to Ipopt as failed", run.k));
        }
        if self.opts.verbosity >= 1 {
            Self::print_row(&row);
        }
        run.steps.push(row);
        run.last = Some(sol.clone());
        eval.residual
    }

    /// After a failed NLP, plans a recovery and returns true: resume it (out of
    /// iterations or time), solve it again without the dual warm start, step back to
    /// the last good iterate with a gentler κ, or (no good iterate yet) start again
    /// from the initial guess with another σ. Returns false, with a failed status, once
    /// `max_recoveries` are spent.
    fn recover(&mut self, run: &mut Run, attempt: Attempt) -> bool {
        let Attempt { sol, last_mu, ran_away, reach, warm_duals, .. } = attempt;
        let (k, sigma, status) = (run.k, run.sigma, sol.status);
        if run.recoveries >= self.opts.max_recoveries {
            run.messages.push(format!("step {k}: NLP ended with {status:?} at sigma = {sigma:e}; no recovery left"));
            run.status = MpccStatus::NlpFailed { step: k, ipopt_status: status };
            return false;
        }
        run.recoveries += 1;
        run.recovery = true;
        let n = run.recoveries;
        let sigma_n = self.opts.sigma_final();
        let diverging = ran_away || is_diverging(&sol, reach);
        let plan = if is_budget_exhausted(status) && !diverging {
            run.x = sol.x.clone();
            run.resume = Some((sol, last_mu));
            format!("resuming it from its last primal-dual iterate (mu = {last_mu:.1e})")
        } else if warm_duals {
            // The duals of the previous NLP led astray: same σ, primal start only.
            run.force_cold = true;
            "solving it again without the dual warm start".to_string()
        } else if let Some((good, good_sigma)) = &run.last_good {
            // Infeasible or stuck: step back to the last good iterate, reduce σ more gently.
            run.kappa = run.kappa.sqrt();
            run.exponent = 1.0;
            let next = next_sigma(*good_sigma, run.kappa, run.exponent, sigma_n);
            run.x = good.x.clone();
            run.sigma = next;
            if self.opts.n_homotopy.is_none() {
                // A derived plan still ends at σ_N with the gentler κ.
                run.n_steps = run.n_steps.max(k + steps_from_to(next, sigma_n, run.kappa, run.exponent));
            }
            format!("back to the iterate of sigma = {good_sigma:e}, kappa -> {:.4}, sigma -> {next:e}", run.kappa)
        } else {
            // No good iterate yet. Direct steering: relax more (σ ← 10 σ). Elastic
            // steering relaxes complementarity at every σ, so a larger σ only weakens
            // the penalty s/σ; if the iterates diverged, the penalty was too weak to
            // bound the objective (it rewards violating complementarity): σ ← σ/1000.
            let elastic = self.formulation.steering != Steering::Direct && run.direct_budget.is_none();
            let next = if elastic && diverging { 1e-3 * sigma } else { 10.0 * sigma };
            run.x = self.initial_point(next);
            run.sigma = next;
            format!("no good iterate yet, retrying from the initial guess with sigma = {next:e}")
        };
        let why = if diverging { " (diverging iterates)" } else { "" };
        run.messages.push(format!("step {k}: NLP ended with {status:?}{why} at sigma = {sigma:e}; recovery {n}: {plan}"));
        true
    }

    /// After a solved NLP: it becomes the last good iterate. Returns true where the
    /// homotopy ends (comp_tol reached, or handed over to the finish), else moves on
    /// to the next σ.
    fn accept(&mut self, run: &mut Run, sol: Solution, residual: f64, handover: Option<f64>) -> bool {
        run.recovery = false;
        run.force_cold = false;
        run.x = sol.x.clone();
        let (k, sigma) = (run.k, run.sigma);
        run.last_good = Some((sol, sigma));
        let next = next_sigma(sigma, run.kappa, run.exponent, self.opts.sigma_final());
        if residual <= self.opts.comp_tol {
            run.status = MpccStatus::Converged;
            return true;
        }
        let far = residual > self.opts.finish_handover.max(self.opts.comp_tol);
        let stalled = far && sigma <= STALL_SIGMA * (1.0 + 1e-9) && residual > 0.9 * run.previous_residual;
        run.stalled = if stalled { run.stalled + 1 } else { 0 };
        run.previous_residual = residual;
        if self.opts.stalled_steps > 0 && run.stalled >= self.opts.stalled_steps {
            run.messages.push(format!(
                "step {k}: complementarity stalled at {residual:.3e} over {} NLPs down to sigma = {sigma:e} (stalled_steps)",
                run.stalled
            ));
            return true;
        }
        if handover.is_some_and(|h| residual <= h) {
            self.handed_over = Some(Resume {
                x: run.x.clone(),
                sigma: next,
                k: k + 1,
                n_steps: run.n_steps,
                kappa: run.kappa,
                exponent: run.exponent,
                direct_budget: run.direct_budget,
            });
            run.messages.push(format!("handed over to the active-set finish at step {k} (sigma = {sigma:e}, comp_res = {residual:.3e})"));
            return true;
        }
        run.k += 1;
        run.sigma = next;
        false
    }

    /// The homotopy's result: the last NLP's point (its status says whether it is
    /// solved), the table, the messages and the timings.
    fn conclude(&mut self, run: Run) -> MpccResult {
        if let Some((good, _)) = run.last_good {
            self.last_point = Some(good);
        }
        let final_x = run.last.as_ref().map(|s| s.x.clone()).unwrap_or(run.x);
        let eval = self.evaluate(&final_x, &run.params);
        let multipliers = run.last.as_ref().map(|s| self.multipliers(s)).unwrap_or_default();
        let (kernel_time, _) = self.compiled.eval_stats();
        let total = run.started.elapsed();
        MpccResult {
            status: run.status,
            w: final_x[..self.n_w].to_vec(),
            objective: eval.objective,
            comp_residual: eval.residual,
            multipliers,
            total_iterations: run.steps.iter().map(|s| s.iterations).sum(),
            steps: run.steps,
            timing: Timing {
                total: total.as_secs_f64(),
                ipopt: run.inside_ipopt.saturating_sub(kernel_time).as_secs_f64(),
                kernels: kernel_time.as_secs_f64(),
                kernels_hessian: self.compiled.hessian_eval_time().as_secs_f64(),
                own: total.saturating_sub(run.inside_ipopt).as_secs_f64(),
                first_iteration: run.first_iteration.unwrap_or(total).as_secs_f64(),
            },
            planned_steps: run.n_steps,
            messages: run.messages,
            finish: None,
        }
    }
}

/// σ at and below which NLPs whose residual does not fall count toward
/// `HomotopyOptions::stalled_steps` (compared with a relative 1e-9 allowance: the
/// schedule's products round, e.g. to 1.0000000000000003e-4).
const STALL_SIGMA: f64 = 1e-4;

/// The stagnation stop of an early homotopy NLP (see
/// [`HomotopyOptions::stagnation_window`]): fed every iteration, it says when to stop.
struct Stagnation {
    window: usize,
    /// The NLP's acceptable level; `None`: never stop (not an early NLP, or off).
    level: Option<f64>,
    objectives: std::collections::VecDeque<f64>,
    stopped: bool,
}

impl Stagnation {
    fn new(window: usize, level: Option<f64>) -> Self {
        Stagnation { window, level: level.filter(|_| window > 0), objectives: Default::default(), stopped: false }
    }

    /// True once the objective has varied by at most `level (1 + |f|)` over the last
    /// `window` iterations and the current iterate's primal and dual infeasibilities
    /// are at most `level`.
    fn observe(&mut self, info: &ipopt::IterationInfo) -> bool {
        let Some(level) = self.level else { return false };
        if info.restoration {
            self.objectives.clear();
            return false;
        }
        self.objectives.push_back(info.objective);
        if self.objectives.len() > self.window {
            self.objectives.pop_front();
        }
        let (lo, hi) = self.objectives.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &f| (lo.min(f), hi.max(f)));
        let flat = self.objectives.len() == self.window && hi - lo <= level * (1.0 + info.objective.abs());
        self.stopped = flat && info.inf_pr <= level && info.inf_du <= level;
        self.stopped
    }
}

/// Counts Ipopt's consecutive short primal steps (`alpha_pr < step`); see
/// [`HomotopyOptions::stall_iterations`].
struct Stall {
    limit: usize,
    step: f64,
    warmup: usize,
    short: usize,
    stopped: bool,
}

impl Stall {
    fn new(limit: usize, step: f64, warmup: usize) -> Self {
        Stall { limit, step, warmup, short: 0, stopped: false }
    }

    /// True once the last `limit` iterations, from iteration `warmup` on, all took
    /// primal steps shorter than `step` (never when `limit` is 0).
    fn observe(&mut self, info: &ipopt::IterationInfo) -> bool {
        self.short = if info.iter >= self.warmup && info.alpha_pr < self.step { self.short + 1 } else { 0 };
        self.stopped = self.limit > 0 && self.short >= self.limit;
        self.stopped
    }
}

/// Ipopt's `tol` for the NLP at σ: `min(1e-8, 0.1 σ)`, so that `G_i H_i ≤ σ` is met to
/// a tenth of σ (with Ipopt's default 1e-8 the residual stalled at ~7e-9 at σ = 1e-10),
/// and its acceptable level `min(acceptable_tol_max, acceptable_tol_factor σ)` (early
/// NLPs); `None` when the user set `tol` or `tol_follows_sigma` is off.
fn step_tol(opts: &HomotopyOptions, sigma: f64) -> Option<(f64, f64)> {
    let tight = (0.1 * sigma).clamp(1e-14, 1e-8);
    let acceptable = (opts.acceptable_tol_factor * sigma).min(opts.acceptable_tol_max);
    (opts.tol_follows_sigma && !opts.sets_ipopt("tol")).then_some((tight, acceptable))
}

/// The NLP's iterates ran away: Ipopt says so, or they went beyond `reach` (a
/// millionfold the start, see `DIVERGENCE_FACTOR`: an objective unbounded below, e.g. a
/// relaxation that rewards violating complementarity more than its penalty costs) —
/// resuming such a solve only goes further. The homotopy's NLPs also stop early once
/// their steps add up to `reach`.
fn is_diverging(sol: &Solution, reach: f64) -> bool {
    sol.status == ApplicationReturnStatus::DivergingIterates || max_abs(&sol.x) > reach
}

/// How far beyond its start (relative to `1 + max |start|`) an NLP's iterates may go
/// before the homotopy calls them diverging.
const DIVERGENCE_FACTOR: f64 = 1e6;

/// Ipopt stopped for lack of iterations or time, not because the NLP is hard to solve.
fn is_budget_exhausted(status: ApplicationReturnStatus) -> bool {
    use ipopt::ApplicationReturnStatus::*;
    matches!(status, MaximumIterationsExceeded | MaximumCpuTimeExceeded | MaximumWallTimeExceeded)
}

#[cfg(test)]
mod stagnation_tests {
    use super::{Stagnation, Stall};

    fn info(objective: f64, inf_du: f64) -> ipopt::IterationInfo {
        ipopt::IterationInfo {
            restoration: false,
            iter: 0,
            objective,
            inf_pr: 1e-9,
            inf_du,
            mu: 1e-9,
            d_norm: 1e-3,
            regularization: 0.0,
            alpha_du: 1.0,
            alpha_pr: 1.0,
            ls_trials: 1,
        }
    }

    #[test]
    fn stops_only_after_a_flat_window_at_an_acceptable_point() {
        let mut s = Stagnation::new(3, Some(1e-4));
        // Still moving: 1.0 → 0.9 → 0.8.
        assert!(!s.observe(&info(1.0, 0.0)) && !s.observe(&info(0.9, 0.0)) && !s.observe(&info(0.8, 0.0)));
        // Flat within 1e-4 (1 + |f|) over three iterations, but the dual infeasibility jumps.
        assert!(!s.observe(&info(0.80001, 0.0)) && !s.observe(&info(0.80002, 1e3)));
        assert!(s.observe(&info(0.80001, 1e-6)) && s.stopped);
        // Off: no level (not an early NLP), or a window of 0.
        let mut off = Stagnation::new(3, None);
        let mut zero = Stagnation::new(0, Some(1e-4));
        assert!((0..10).all(|_| !off.observe(&info(1.0, 0.0)) && !zero.observe(&info(1.0, 0.0))));
    }

    #[test]
    fn a_stall_is_a_run_of_short_steps_after_the_warm_up() {
        let step = |iter: usize, alpha_pr: f64| ipopt::IterationInfo { iter, alpha_pr, ..info(1.0, 0.0) };
        let warmup = 10;
        let mut s = Stall::new(3, 0.05, warmup);
        // Short steps during the warm-up do not count.
        assert!((0..warmup).all(|k| !s.observe(&step(k, 1e-3))));
        let k = warmup;
        // Two short steps, a long one (the count restarts), then three short ones.
        assert!(!s.observe(&step(k, 1e-3)) && !s.observe(&step(k + 1, 0.01)) && !s.observe(&step(k + 2, 0.5)));
        assert!(!s.observe(&step(k + 3, 0.04)) && !s.observe(&step(k + 4, 0.04)));
        assert!(s.observe(&step(k + 5, 0.04)) && s.stopped);
        // Off with a limit of 0.
        let mut off = Stall::new(0, 0.05, 0);
        assert!((0..30).all(|k| !off.observe(&step(k, 1e-6))));
    }
}
