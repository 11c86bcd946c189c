//! Simulation: one FESD interval per step, each an MPCC solved by the homotopy,
//! warm-started from the previous step, all steps sharing one compiled kernel set.

use crate::discretization::FesdInterval;
use crate::error::{Result, SimError};
use fesd_discretization::FesdOptions;
use fesd_model::{PssModel, SubsystemLowering};
use fesd_mpcc::{HomotopyOptions, MpccResult, MpccSolver, MpccStatus};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// What to do when a step's MPCC fails or misses comp_tol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum OnStepFailure {
    /// Stop the simulation after the failed step (default); the result says why.
    #[default]
    Stop,
    /// Record the failure and go on from the step's last iterate.
    Continue,
}

/// Options of a simulation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimulatorOptions {
    /// The discretization of each step.
    pub fesd: FesdOptions,
    /// Length of one simulation step (T of each FESD interval).
    pub step: f64,
    /// Number of steps.
    pub n_steps: usize,
    /// The MPCC homotopies tried on each step, in order, until one converges.
    pub homotopies: Vec<HomotopyOptions>,
    /// The homotopy tried when the first one fails on a step that may not be halved
    /// any more (None: accept the failure).
    pub fallback_homotopy: Option<HomotopyOptions>,
    /// Failure policy.
    pub on_failure: OnStepFailure,
    /// A complementarity primal (θ_i, α_j or 1 − α_j) above this marks its region or
    /// sign as active in an element; changes of the active set are reported as switches
    /// (default 1e-5).
    pub active_tol: f64,
    /// A step on which every one of [`SimulatorOptions::homotopies`] fails is retried as two
    /// steps of half the length, up to this many times in a row (default 5; 0
    /// disables); after the last halving the fallback homotopy gets its turn. More active-set changes than
    /// finite elements in one step (e.g. reaching and leaving a sliding mode) make the
    /// step's MPCC infeasible; halving the step gives each change its own element.
    pub max_step_halvings: usize,
    /// How many of `homotopies` are tried on a piece that may still be halved
    /// (default 2, all of the default ones). At the last halving level every homotopy
    /// and then the fallback are tried. Measured Ipopt iterations with 2 / 1 (before
    /// the neutral second start of the first tier): oscillator 329 / 432, relay
    /// 5 552 / 4 134, friction blocks 2 421 / 3 832.
    pub tiers_before_halving: usize,
    /// Switch prediction (default true): before each piece the state is extrapolated
    /// linearly from the last element over the piece's length; if its boundary duals
    /// have another zero pattern than the current state's (another active set), the
    /// first tier starts from the neutral guess before the previous solution (which
    /// assumes the active set goes on). Measured Ipopt iterations without / with:
    /// oscillator 306 / 285 (no failed attempt left), relay 4 588 / 4 543, friction
    /// blocks 2 727 / 2 547, same trajectories. (Also halving a predicted piece once
    /// both starts of the first tier fail: relay 4 066 but friction blocks 2 964; also
    /// the neutral start first after a piece that switched inside: friction 2 625 —
    /// neither kept.)
    pub predict_switches: bool,
    /// Skip a later tier (not the first) on pieces that may still be halved once it
    /// has failed on at least three quarters of at least 4 such pieces in this
    /// simulation: halve at once instead (default true).
    pub skip_unproductive_tiers: bool,
}

impl Default for SimulatorOptions {
    fn default() -> Self {
        SimulatorOptions {
            fesd: FesdOptions::default(),
            step: 0.1,
            n_steps: 10,
            homotopies: vec![Self::single_nlp_homotopy(), Self::short_homotopy()],
            fallback_homotopy: Some(Self::robust_homotopy()),
            on_failure: OnStepFailure::default(),
            active_tol: 1e-5,
            max_step_halvings: 5,
            tiers_before_halving: 2,
            predict_switches: true,
            skip_unproductive_tiers: true,
        }
    }
}

impl SimulatorOptions {
    /// Checks ranges and every homotopy (the discretization options are checked when
    /// the step problem is built).
    pub fn validate(&self) -> Result<()> {
        if self.n_steps == 0 {
            return Err(SimError::InvalidOption { name: "n_steps", reason: "needs at least one step".into() });
        }
        if !(self.step.is_finite() && self.step > 0.0) {
            return Err(SimError::InvalidOption { name: "step", reason: format!("{} must be positive and finite", self.step) });
        }
        if !(self.active_tol > 0.0 && self.active_tol.is_finite()) {
            return Err(SimError::InvalidOption { name: "active_tol", reason: format!("{} must be positive", self.active_tol) });
        }
        if self.homotopies.is_empty() {
            return Err(SimError::InvalidOption { name: "homotopies", reason: "needs at least one homotopy".into() });
        }
        for h in self.homotopies.iter().chain(&self.fallback_homotopy) {
            h.validate()?;
        }
        self.fesd.validate()?;
        Ok(())
    }

    /// Applies `f` to every homotopy the simulator may run — each tier of
    /// `homotopies` and the fallback —: one place to set comp_tol, an Ipopt option or
    /// the verbosity for all of them, e.g.
    /// `opts.for_each_homotopy(|h| h.comp_tol = 1e-10)`.
    pub fn for_each_homotopy(&mut self, mut f: impl FnMut(&mut HomotopyOptions)) {
        self.homotopies.iter_mut().chain(self.fallback_homotopy.as_mut()).for_each(&mut f);
    }

    // All three tiers keep Ipopt's `warm_start_init_point no` and a σ-independent `tol`
    // (not the MPCC defaults): measured on `sim_benchmark`, the MPCC defaults cost
    // 449 instead of 329 Ipopt iterations on the oscillator and 9238 instead of 5552 on
    // the relay. The active-set finish is off: a simulation step is certified by its
    // own accuracy checks, and the finish would compile a second NLP per model.

    /// Tried first on each step by default: one NLP at σ = 1e-9 (a second at
    /// σ_N = 1e-10 if needed) from the previous step's solution, at most 30 Ipopt
    /// iterations, no recovery. Steps without a switch, the large majority, need
    /// nothing more.
    pub fn single_nlp_homotopy() -> HomotopyOptions {
        HomotopyOptions { sigma_0: 1e-9, kappa: 0.1, max_recoveries: 0, tol_follows_sigma: false, active_set_finish: false, ..HomotopyOptions::scholtes_direct() }
            .with_ipopt("mu_strategy", "adaptive")
            .with_ipopt("warm_start_init_point", "no")
            .with_ipopt("max_iter", 30)
    }

    /// Tried second by default: σ = 0.1, 1e-5, 1e-9 (κ = 1e-4), at most 30 Ipopt
    /// iterations per NLP, no recovery: steps with a switch.
    pub fn short_homotopy() -> HomotopyOptions {
        HomotopyOptions { sigma_0: 0.1, kappa: 1e-4, max_recoveries: 0, tol_follows_sigma: false, active_set_finish: false, ..HomotopyOptions::scholtes_direct() }
            .with_ipopt("mu_strategy", "adaptive")
            .with_ipopt("warm_start_init_point", "no")
            .with_ipopt("max_iter", 30)
    }

    /// The fallback homotopy by default, for steps that cannot be halved any more:
    /// nosnoc's σ_0 = 1, κ = 0.1, comp_tol = 1e-9, with Ipopt's adaptive barrier
    /// update, the usual recovery and at most 500 Ipopt iterations per NLP.
    pub fn robust_homotopy() -> HomotopyOptions {
        HomotopyOptions { tol_follows_sigma: false, active_set_finish: false, ..HomotopyOptions::scholtes_direct() }.with_ipopt("mu_strategy", "adaptive")
            .with_ipopt("warm_start_init_point", "no")
            .with_ipopt("max_iter", 500)
    }
}

/// How one simulation step (or a halved part of one) went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    /// Index of the planned step.
    pub step: usize,
    /// Start time.
    pub t_start: f64,
    /// Length (the planned step length over 2^halvings).
    pub length: f64,
    /// How many times the planned step was halved to get here.
    pub halvings: usize,
    /// The MPCC status.
    pub status: MpccStatus,
    /// Homotopy NLPs solved in all attempts (the same attempts `iterations` counts).
    pub homotopy_steps: usize,
    /// Ipopt iterations.
    pub iterations: usize,
    /// Complementarity residual reached.
    pub comp_residual: f64,
    /// Wall time of all homotopy attempts on this piece (s).
    pub wall_time: f64,
    /// The homotopy's messages.
    pub messages: Vec<String>,
    /// Every homotopy attempt on this piece, in order (the last one's outcome is
    /// `status`).
    pub attempts: Vec<Attempt>,
    /// True if the piece failed and was retried as two halves (its failure was not
    /// accepted).
    #[serde(default)]
    pub halved: bool,
    /// True if a switch was predicted inside the piece (the neutral start went first;
    /// see [`SimulatorOptions::predict_switches`]).
    #[serde(default)]
    pub switch_predicted: bool,
}

impl StepReport {
    /// The tier (index into the schedules tried: `homotopies`, then the fallback)
    /// whose attempt solved this piece, if one did.
    pub fn solved_by(&self) -> Option<usize> {
        self.attempts.iter().find(|a| a.status.is_converged()).map(|a| a.tier)
    }

    /// Ipopt iterations of attempts that did not solve the piece.
    pub fn wasted_iterations(&self) -> usize {
        self.attempts.iter().filter(|a| !a.status.is_converged()).map(|a| a.iterations).sum()
    }
}

/// One homotopy attempt on a piece of a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// Index of the schedule: `0..homotopies.len()`, then the fallback.
    pub tier: usize,
    /// True if it started from the neutral guess at the current state instead of the
    /// previous step's solution.
    #[serde(default)]
    pub neutral_start: bool,
    /// How it ended.
    pub status: MpccStatus,
    /// Ipopt iterations.
    pub iterations: usize,
    /// Homotopy NLPs solved (recoveries included).
    #[serde(default)]
    pub nlps: usize,
    /// Complementarity residual `max_i |G_i H_i|` at the attempt's last iterate.
    #[serde(default)]
    pub comp_residual: f64,
    /// Wall time in seconds.
    pub wall_time: f64,
}

/// A tier tried at least 4 times on pieces that could be halved and successful in
/// fewer than a quarter of them: halving is the better use of its iterations.
fn unproductive((tries, successes): (usize, usize)) -> bool {
    tries >= 4 && 4 * successes < tries
}

/// The report of one piece from its last homotopy result and all its attempts.
fn step_report(step: usize, t_start: f64, length: f64, halvings: usize, r: &MpccResult, attempts: Vec<Attempt>) -> StepReport {
    let mut messages: Vec<String> = attempts[..attempts.len().saturating_sub(1)]
        .iter()
        .map(|a| format!("homotopy {} ended {:?} after {} Ipopt iterations", a.tier, a.status, a.iterations))
        .collect();
    messages.extend(r.messages.iter().cloned());
    StepReport {
        step,
        t_start,
        length,
        halvings,
        status: r.status,
        homotopy_steps: attempts.iter().map(|a| a.nlps).sum(),
        iterations: attempts.iter().map(|a| a.iterations).sum(),
        comp_residual: r.comp_residual,
        wall_time: attempts.iter().map(|a| a.wall_time).sum(),
        messages,
        attempts,
        halved: false,
        switch_predicted: false,
    }
}

/// Wall-time split of a simulation in seconds (excluding the one-time compilation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SimulationTiming {
    /// All steps.
    pub total: f64,
    /// Inside Ipopt (excluding kernels).
    pub ipopt: f64,
    /// Compiled kernel evaluations.
    pub kernels: f64,
    /// Our own code.
    pub own: f64,
    /// Building and compiling (or loading) the step problem, once.
    pub build: f64,
}

/// A simulated trajectory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulationResult {
    /// Times of every finite-element boundary (length = elements + 1).
    pub t: Vec<f64>,
    /// States at those times.
    pub x: Vec<Vec<f64>>,
    /// Step size of every finite element.
    pub h: Vec<f64>,
    /// Times of every stage point.
    pub t_stage: Vec<f64>,
    /// States at the stage points.
    pub x_stage: Vec<Vec<f64>>,
    /// θ (every subsystem's, stacked) at the stage points.
    pub theta_stage: Vec<Vec<f64>>,
    /// All algebraic variables at the stage points, per subsystem in the order of the
    /// lowering: Stewart `(θ, λ, μ)`, Step `(α, λp, λn[, β])`.
    pub z_stage: Vec<Vec<f64>>,
    /// Active complementarity components of every element: region indices (θ) for
    /// Stewart, sign channels (α_j, then 1 − α_j) for Step; see
    /// [`SimulationResult::active_regions`] for a view that means the same in both.
    pub active_sets: Vec<Vec<usize>>,
    /// Element boundaries where the active set changed.
    pub switch_times: Vec<f64>,
    /// One report per step that ran.
    pub steps: Vec<StepReport>,
    /// True if every planned step ran and converged.
    pub completed: bool,
    /// Time split.
    pub timing: SimulationTiming,
}

impl SimulationResult {
    /// Pieces whose failure stands: their MPCC did not converge and they were not
    /// retried as halves.
    pub fn failed_steps(&self) -> Vec<&StepReport> {
        self.steps.iter().filter(|s| !s.status.is_converged() && !s.halved).collect()
    }

    /// Total Ipopt iterations.
    pub fn total_iterations(&self) -> usize {
        self.steps.iter().map(|s| s.iterations).sum()
    }

    /// Ipopt iterations spent in attempts that failed (pieces that were then halved,
    /// or solved by a later tier).
    pub fn wasted_iterations(&self) -> usize {
        self.steps.iter().map(|s| s.wasted_iterations()).sum()
    }

    /// The regions (θ indices, every subsystem's stacked) active in each element: θ
    /// above `tol` at some stage. The same in the Stewart and Step representations.
    pub fn active_regions(&self, tol: f64) -> Vec<Vec<usize>> {
        let per_element = if self.h.is_empty() { 0 } else { self.theta_stage.len() / self.h.len() };
        if per_element == 0 {
            return vec![];
        }
        self.theta_stage
            .chunks(per_element)
            .map(|stages| {
                let n = stages.first().map_or(0, |t| t.len());
                (0..n).filter(|&i| stages.iter().any(|t| t[i] > tol)).collect()
            })
            .collect()
    }

    /// The final state.
    pub fn x_final(&self) -> &[f64] {
        self.x.last().map(|v| v.as_slice()).unwrap_or(&[])
    }
}

impl Simulator {
    /// Appends one solved interval (its elements, stages, active sets) to `res`;
    /// returns the duals at its last point.
    fn record(
        &self,
        res: &mut SimulationResult,
        w: &[f64],
        params: &[f64],
        t0: &mut f64,
    ) -> Result<Vec<f64>> {
        let (l, c) = (&self.interval.layout, &self.interval.tableau.c);
        let mut out = self.interval.outputs.eval_dense(&[w, params])?;
        let dual_end = out.pop().unwrap_or_default();
        let (h, xb, xs, th, pr) = (&out[0], &out[1], &out[2], &out[3], &out[4]);
        let n_pts = l.n_points();
        for n in 0..l.n_fe {
            let hn = h[n];
            for m in 0..l.n_s {
                let col = n * l.n_s + m;
                res.t_stage.push(*t0 + c[m] * hn);
                res.x_stage.push(xs[col * l.n_x..(col + 1) * l.n_x].to_vec());
                res.theta_stage.push(th[col * l.n_theta..(col + 1) * l.n_theta].to_vec());
                let z0 = l.z[n][m];
                res.z_stage.push(w[z0..z0 + l.n_z].to_vec());
            }
            let active: Vec<usize> = (0..l.n_comp)
                .filter(|&i| (0..l.n_s).any(|m| pr[(n * n_pts + m) * l.n_comp + i] > self.opts.active_tol))
                .collect();
            if let Some(prev) = res.active_sets.last() {
                if *prev != active {
                    res.switch_times.push(*t0);
                }
            }
            res.active_sets.push(active);
            *t0 += hn;
            res.h.push(hn);
            res.t.push(*t0);
            res.x.push(xb[(n + 1) * l.n_x..(n + 2) * l.n_x].to_vec());
        }
        Ok(dual_end)
    }
}

/// A step-by-step simulation in progress (see [`Simulator::start`]).
#[derive(Clone, Debug)]
pub struct SimState {
    /// Current time.
    pub t: f64,
    /// Current state.
    pub x: Vec<f64>,
    /// Boundary duals at the current point, carried into the next step.
    lambda0: Vec<f64>,
    /// The last step's solution, the next step's initial guess.
    guess: Vec<f64>,
    steps_done: usize,
    /// Per tier of `homotopies`: (attempts, successes) on pieces that could still be
    /// halved, for [`SimulatorOptions::skip_unproductive_tiers`].
    tier_record: Vec<(usize, usize)>,
    started: Instant,
    /// The trajectory so far.
    pub result: SimulationResult,
}

impl SimState {
    /// The last piece's NLP vector (in the layout of [`Simulator::interval`]); the
    /// neutral guess at x0 before the first step.
    pub fn solution(&self) -> &[f64] {
        &self.guess
    }

    /// True if the state is no longer finite (the simulation cannot go on).
    pub fn diverged(&self) -> bool {
        self.x.iter().any(|v| !v.is_finite())
    }

    /// The trajectory so far, with the timing up to now.
    pub fn into_result(mut self) -> SimulationResult {
        let r = &mut self.result;
        r.timing.total = self.started.elapsed().as_secs_f64();
        r.timing.own = (r.timing.total - r.timing.ipopt - r.timing.kernels).max(0.0);
        self.result
    }
}

/// A simulator for one model and scheme; the step problem is compiled once.
pub struct Simulator {
    interval: FesdInterval,
    solver: MpccSolver,
    opts: SimulatorOptions,
    n_x: usize,
    n_u: usize,
    n_p: usize,
    build_time: f64,
}

fn check(what: &'static str, v: &[f64], len: usize) -> Result<()> {
    if v.len() != len {
        return Err(SimError::BadInput { what, reason: format!("{} values given, {len} expected", v.len()) });
    }
    if let Some((i, x)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(SimError::BadInput { what, reason: format!("entry {i} is {x}, must be finite") });
    }
    Ok(())
}

impl Simulator {
    /// Discretizes one step of `model` and compiles its MPCC.
    pub fn new(model: &PssModel, opts: SimulatorOptions) -> Result<Simulator> {
        let lowering = opts.fesd.lowering();
        Self::with_lowering(model, opts, lowering.as_ref())
    }

    /// As [`Simulator::new`] with the DCS written by `lowering` (e.g. a
    /// representation of your own; `opts.fesd.representation` is then ignored).
    pub fn with_lowering(model: &PssModel, opts: SimulatorOptions, lowering: &dyn SubsystemLowering) -> Result<Simulator> {
        let t = Instant::now();
        opts.validate()?;
        let interval = FesdInterval::with_lowering(model, &opts.fesd, lowering)?;
        let first = opts.homotopies.first().cloned().ok_or(SimError::InvalidOption {
            name: "homotopies",
            reason: "needs at least one homotopy".into(),
        })?;
        let mut solver = MpccSolver::new(&interval.mpcc, first.clone())?;
        // Check every schedule now rather than at the first step that needs it.
        for h in opts.homotopies.iter().skip(1).chain(&opts.fallback_homotopy) {
            solver.set_options(h.clone())?;
        }
        solver.set_options(first)?;
        Ok(Simulator {
            n_x: model.n_x(),
            n_u: model.u.nrow(),
            n_p: model.p.nrow(),
            interval,
            solver,
            opts,
            build_time: t.elapsed().as_secs_f64(),
        })
    }

    /// The discretized interval.
    pub fn interval(&self) -> &FesdInterval {
        &self.interval
    }

    /// The options.
    pub fn options(&self) -> &SimulatorOptions {
        &self.opts
    }

    /// Simulates `options().n_steps` steps of length `options().step` from `x0` with
    /// constant controls `u` and parameters `p`.
    pub fn simulate(&mut self, x0: &[f64], u: &[f64], p: &[f64]) -> Result<SimulationResult> {
        self.simulate_steps(x0, u, p, self.opts.step, self.opts.n_steps)
    }

    /// Tries the homotopy tiers on the current piece (parameters already set) until one
    /// converges: the first `tiers_before_halving` where the piece may still be
    /// halved, every tier and then the fallback where it may not. The first tier runs
    /// from the previous step's solution and, if that fails, once more from the neutral
    /// guess at the current state (the previous active set can be the wrong one, e.g.
    /// after a switch exactly at the step boundary) — in the other order when a switch
    /// is predicted (`neutral_first`); the other tiers run from the
    /// previous solution. Measured Ipopt iterations without / with the second start:
    /// oscillator 329 / 306, relay 5 552 / 4 588, friction blocks 2 421 / 2 725, and a
    /// switch on a step boundary no longer fails every tier down to the fallback.
    fn attempt_piece(
        &mut self,
        guess: &[f64],
        neutral: &[f64],
        may_halve: bool,
        neutral_first: bool,
        record: &mut [(usize, usize)],
        res: &mut SimulationResult,
    ) -> Result<(MpccResult, Vec<Attempt>)> {
        let tiers = if may_halve { self.opts.tiers_before_halving.clamp(1, self.opts.homotopies.len()) } else { self.opts.homotopies.len() };
        let fallback = if may_halve { None } else { self.opts.fallback_homotopy.clone() };
        let schedules: Vec<HomotopyOptions> = self.opts.homotopies[..tiers].iter().cloned().chain(fallback).collect();
        // (tier, schedule, from the neutral guess)
        let mut plan: Vec<(usize, HomotopyOptions, bool)> = schedules.into_iter().enumerate().map(|(t, h)| (t, h, false)).collect();
        if may_halve && self.opts.skip_unproductive_tiers {
            plan.retain(|(t, _, _)| *t == 0 || !unproductive(record[*t]));
        }
        if let Some(first) = plan.first().cloned() {
            plan.insert(usize::from(!neutral_first), (first.0, first.1, true));
        }
        let mut last = None;
        let mut tries = Vec::new();
        for (tier, h, neutral_start) in plan {
            self.solver.set_options(h)?;
            self.solver.set_initial_guess(if neutral_start { neutral } else { guess })?;
            let this = self.solver.solve();
            res.timing.ipopt += this.timing.ipopt;
            res.timing.kernels += this.timing.kernels;
            tries.push(Attempt {
                tier,
                neutral_start,
                status: this.status,
                iterations: this.total_iterations,
                nlps: this.steps.len(),
                comp_residual: this.comp_residual,
                wall_time: this.timing.total,
            });
            let done = this.status.is_converged();
            if may_halve && tier < record.len() {
                record[tier].0 += 1;
                record[tier].1 += usize::from(done);
            }
            last = Some(this);
            if done {
                break;
            }
        }
        let r = last.ok_or(SimError::InvalidOption { name: "homotopies", reason: "no homotopy to try".into() })?;
        Ok((r, tries))
    }

    /// True if the state extrapolated linearly over `len` (from the last recorded
    /// element) has another set of zero boundary duals than the current state: a
    /// switch is predicted inside the piece.
    fn predicts_switch(&self, x: &[f64], r: &SimulationResult, u: &[f64], p: &[f64], len: f64) -> Result<bool> {
        let (Some(h), true) = (r.h.last(), r.x.len() >= 2) else { return Ok(false) };
        let (x1, x0) = (&r.x[r.x.len() - 1], &r.x[r.x.len() - 2]);
        let pred: Vec<f64> = x1.iter().zip(x0).map(|(a, b)| a + (a - b) * len / h).collect();
        let tol = self.opts.active_tol;
        let zeros = |x: &[f64]| -> Result<Vec<bool>> { Ok(self.interval.dual_at_state.eval_dense(&[x, u, p])?.remove(0).iter().map(|l| *l <= tol).collect()) };
        Ok(zeros(&pred)? != zeros(x)?)
    }

    /// Simulates `n_steps` steps of length `step` (the compiled problem serves any step
    /// length; nothing is recompiled).
    pub fn simulate_steps(&mut self, x0: &[f64], u: &[f64], p: &[f64], step: f64, n_steps: usize) -> Result<SimulationResult> {
        if n_steps == 0 {
            return Err(SimError::InvalidOption { name: "n_steps", reason: "needs at least one step".into() });
        }
        let mut state = self.start(x0, u, p)?;
        for _ in 0..n_steps {
            if !self.step_with_length(&mut state, u, p, step)? && (self.opts.on_failure == OnStepFailure::Stop || state.diverged()) {
                break;
            }
        }
        Ok(state.into_result())
    }

    /// Starts a step-by-step simulation at `x0` (the boundary duals follow from x0 with
    /// the control `u`); advance it with [`Simulator::step`], a control of your choice
    /// each step (closed loop).
    pub fn start(&self, x0: &[f64], u: &[f64], p: &[f64]) -> Result<SimState> {
        check("x0", x0, self.n_x)?;
        check("u", u, self.n_u)?;
        check("p", p, self.n_p)?;
        let lambda0 = self.interval.dual_at_state.eval_dense(&[x0, u, p])?.remove(0);
        if let Some(i) = lambda0.iter().position(|v| !v.is_finite()) {
            return Err(SimError::BadInput {
                what: "x0",
                reason: format!(
                    "the switching functions are not finite at x0 (boundary dual {i} is {}): check c(x) for NaN/inf and x0",
                    lambda0[i]
                ),
            });
        }
        Ok(SimState {
            t: 0.0,
            x: x0.to_vec(),
            lambda0,
            guess: self.interval.initial_guess(x0),
            steps_done: 0,
            tier_record: vec![(0, 0); self.opts.homotopies.len()],
            started: Instant::now(),
            result: SimulationResult {
                t: vec![0.0],
                x: vec![x0.to_vec()],
                h: vec![],
                t_stage: vec![],
                x_stage: vec![],
                theta_stage: vec![],
                z_stage: vec![],
                active_sets: vec![],
                switch_times: vec![],
                steps: vec![],
                completed: true,
                timing: SimulationTiming { build: self.build_time, ..Default::default() },
            },
        })
    }

    /// One step of the configured length with control `u`; the state carries time,
    /// state, boundary duals and the previous solution (the next initial guess).
    /// Returns whether every piece of the step converged.
    pub fn step(&mut self, state: &mut SimState, u: &[f64], p: &[f64]) -> Result<bool> {
        let length = self.opts.step;
        self.step_with_length(state, u, p, length)
    }

    /// As [`Simulator::step`] with a step of the given length.
    pub fn step_with_length(&mut self, state: &mut SimState, u: &[f64], p: &[f64], length: f64) -> Result<bool> {
        if !(length.is_finite() && length > 0.0) {
            return Err(SimError::InvalidOption { name: "step", reason: format!("{length} must be positive and finite") });
        }
        check("u", u, self.n_u)?;
        check("p", p, self.n_p)?;
        let k = state.steps_done;
        state.steps_done += 1;
        let (res, record) = (&mut state.result, &mut state.tier_record);
        let mut all_converged = true;
        // Pieces of this step still to do, as a stack: (length, halvings).
        let mut pieces = vec![(length, 0usize)];
        while let Some((len, depth)) = pieces.pop() {
            let params: Vec<f64> = state.x.iter().chain(u).chain(p).chain([&len]).chain(&state.lambda0).copied().collect();
            self.solver.set_parameters(&params)?;
            let may_halve = depth < self.opts.max_step_halvings;
            let neutral = self.interval.initial_guess(&state.x);
            let predicted = self.opts.predict_switches && self.predicts_switch(&state.x, res, u, p, len)?;
            let (r, tries) = self.attempt_piece(&state.guess, &neutral, may_halve, predicted, record, res)?;
            let converged = r.status.is_converged();
            res.steps.push(StepReport { switch_predicted: predicted, ..step_report(k, state.t, len, depth, &r, tries) });
            if !converged && may_halve {
                if let Some(last) = res.steps.last_mut() {
                    last.halved = true;
                }
                // Retry as two halves (the second is pushed first: a stack).
                pieces.push((len / 2.0, depth + 1));
                pieces.push((len / 2.0, depth + 1));
                continue;
            }
            state.lambda0 = self.record(res, &r.w, &params, &mut state.t)?;
            state.x = res.x.last().cloned().unwrap_or_default();
            state.guess = r.w.clone();
            if !converged {
                res.completed = false;
                all_converged = false;
                if self.opts.on_failure == OnStepFailure::Stop {
                    break;
                }
            }
            if state.x.iter().any(|v| !v.is_finite()) {
                res.completed = false;
                return Ok(false);
            }
        }
        res.timing.total = state.started.elapsed().as_secs_f64();
        res.timing.own = (res.timing.total - res.timing.ipopt - res.timing.kernels).max(0.0);
        Ok(all_converged)
    }
}
