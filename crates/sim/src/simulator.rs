//! Simulation: one FESD interval per step, each an MPCC solved by the homotopy,
//! warm-started from the previous step, all steps sharing one compiled kernel set.

use crate::discretization::FesdInterval;
use crate::error::{Result, SimError};
use fesd_discretization::FesdOptions;
use fesd_model::{PssModel, SubsystemLowering};
use fesd_mpcc::presets::{DUAL_START_AFTER, DUAL_START_STALL};
use fesd_mpcc::{presets, CompileOptions, DualStart, HomotopyOptions, Kernels, MpccResult, MpccSolver, MpccStatus};
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
    /// How many of `homotopies` are tried on a piece that may still be halved (default 1:
    /// the first tier, from both starts); at the last halving level every homotopy and then
    /// the fallback are tried. Two halves cost about what a second tier's attempt does and
    /// succeed more often. Evidence: `docs/evidence/sim.md`, "tiers_before_halving".
    pub tiers_before_halving: usize,
    /// Switch prediction (default true): before each piece the state is extrapolated
    /// linearly from the last element; the first time within the piece at which its boundary
    /// duals have another zero pattern than the current state's (found by bisection), or at
    /// which an active Filippov multiplier θ_i, extrapolated from the last stages of the last
    /// two elements, falls to `active_tol` (a sliding exit), is the predicted switch
    /// (reported per piece). A piece with a predicted switch starts its first tier from the
    /// neutral guess before the previous solution (which assumes the active set goes on),
    /// and may be cut (`align_switches`). Evidence: `docs/evidence/sim.md`, "predict_switches".
    pub predict_switches: bool,
    /// Cut a piece whose predicted switch (see `predict_switches`) is too close to either
    /// end for its finite elements to put it on an element boundary — the first boundary
    /// cannot come earlier than (1 − γ_h) T/N_FE — into two parts, the switch in the middle
    /// of one of them (default true). Without it such a piece fails every start and is
    /// halved, often repeatedly. Evidence: `docs/evidence/sim.md`, "align_switches".
    pub align_switches: bool,
    /// Start each piece's first attempt from the previous solution's active set: its last
    /// point's algebraic variables (θ, λ, μ or α, λ±) in every element, the states at the
    /// current state, the step sizes neutral (default true), instead of the previous
    /// solution as it is (whose states and first elements belong to the previous piece).
    /// Evidence: `docs/evidence/sim.md`, "warm_start_active_set".
    pub warm_start_active_set: bool,
    /// With `warm_start_active_set`: the first attempt's states lie on the straight line
    /// through the current state along the slope of the last recorded element, each element
    /// at its neutral length, instead of all at the current state (default true). The
    /// neutral start keeps the constant states: it is the one tried when the previous
    /// solution misleads (a switch), and so would its slope. Evidence: `docs/evidence/sim.md`, "extrapolate_states".
    pub extrapolate_states: bool,
    /// Try the neutral start first on a piece whose starting point has a nearly biactive
    /// complementarity pair: a Filippov multiplier just above zero (at most 0.02) whose dual
    /// is zero too, as in a sliding mode that barely uses one region (default true). Started
    /// there, Ipopt often creeps between the two branches of the pair until the stall rule
    /// stops it; the neutral start lets it choose. Evidence: `docs/evidence/sim.md`, "neutral_start_when_nearly_biactive".
    pub neutral_start_when_nearly_biactive: bool,
    /// Skip a later tier (not the first) on pieces that may still be halved once it has
    /// failed on at least three quarters of at least 2 such pieces in this simulation: halve
    /// at once instead (default true). Acts only with `tiers_before_halving` ≥ 2.
    /// Evidence: `docs/evidence/sim.md`, "skip_unproductive_tiers".
    pub skip_unproductive_tiers: bool,
    /// Start the first attempt on a piece from the active-set guess together with the
    /// previous solve's multipliers (an Ipopt warm start, bound pushes 1e-6) where no
    /// switch is predicted, the active set went on through the previous piece (it converged
    /// from the previous solution in at most [`DUAL_START_AFTER`](fesd_mpcc::presets::DUAL_START_AFTER) Ipopt iterations and
    /// recorded no switch) and no switching surface is within reach (no inactive dual
    /// reaches zero within 2 piece lengths at its current rate) (default true): such a piece
    /// converges in 2–4 Ipopt iterations instead of ~12. A start with multipliers converges
    /// quickly or not at all, so its stall rule is [`DUAL_START_STALL`](fesd_mpcc::presets::DUAL_START_STALL); the neutral start
    /// follows as before. Evidence: `docs/evidence/sim.md`, "warm_start_duals".
    pub warm_start_duals: bool,
    /// Ipopt's `max_iter` for an attempt from the neutral guess (default 45; the first
    /// tier allows the other starts 30): from the neutral guess a piece takes 11–30
    /// iterations where it converges. Evidence: `docs/evidence/sim.md`, "neutral_start_max_iter".
    pub neutral_start_max_iter: usize,
    /// A converged piece whose solution has a switch (the active set changes at an element
    /// boundary inside it) and an element longer than this many times the piece's nominal
    /// element `len / N_FE` is solved again as two parts, cut so that the switch falls on a
    /// nominal element boundary of one of them; parts of such a cut are not cut again.
    /// `None` (default) derives it from the scheme's order p: `16^(1/(p+1))`, the stretch at
    /// which an element's local error (∝ h_n^(p+1)) is 16 times a nominal one's — 2.0 for
    /// Radau IIA n_s = 2 (no re-cut within γ_h = 0.9), 1.59 for n_s = 3, 1.41 for n_s = 4;
    /// `f64::INFINITY` never re-cuts. Without it the error of a high-order simulation
    /// depends on where a switch falls instead of falling with h. Evidence: `docs/evidence/sim.md`, "Switch elements".
    pub max_switch_element_ratio: Option<f64>,
    /// How the step problem's kernels are evaluated (default [`Kernels::Auto`]: on a
    /// cold cache the first steps run on CasADi's evaluation while the C compiles beside
    /// them; the steps after the compiler is done use the compiled kernels).
    pub kernels: Kernels,
}

impl Default for SimulatorOptions {
    fn default() -> Self {
        SimulatorOptions {
            fesd: FesdOptions::default(),
            step: 0.1,
            n_steps: 10,
            homotopies: vec![presets::simulation_single_nlp(), presets::simulation_short()],
            fallback_homotopy: Some(presets::simulation_robust()),
            on_failure: OnStepFailure::default(),
            active_tol: 1e-5,
            max_step_halvings: 5,
            tiers_before_halving: 1,
            predict_switches: true,
            align_switches: true,
            warm_start_active_set: true,
            extrapolate_states: true,
            neutral_start_when_nearly_biactive: true,
            skip_unproductive_tiers: true,
            warm_start_duals: true,
            neutral_start_max_iter: 45,
            max_switch_element_ratio: None,
            kernels: Kernels::default(),
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
        if let Some(r) = self.max_switch_element_ratio.filter(|r| r.is_nan() || *r <= 1.0) {
            return Err(SimError::InvalidOption {
                name: "max_switch_element_ratio",
                reason: format!("{r} must be above 1 (infinity: never re-cut)"),
            });
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

    /// [`SimulatorOptions::max_switch_element_ratio`] as given or derived from the
    /// scheme's order.
    pub fn switch_element_ratio(&self) -> f64 {
        let order = self.fesd.rk_family.order(self.fesd.n_s) as f64;
        self.max_switch_element_ratio.unwrap_or_else(|| 16f64.powf(1.0 / (order + 1.0)))
    }

    /// Applies `f` to every homotopy the simulator may run — each tier of
    /// `homotopies` and the fallback —: one place to set comp_tol, an Ipopt option or
    /// the verbosity for all of them, e.g.
    /// `opts.for_each_homotopy(|h| h.comp_tol = 1e-10)`.
    pub fn for_each_homotopy(&mut self, mut f: impl FnMut(&mut HomotopyOptions)) {
        self.homotopies.iter_mut().chain(self.fallback_homotopy.as_mut()).for_each(&mut f);
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
    /// see [`SimulatorOptions::predict_switches`]): `predicted_switch.is_some()`, kept
    /// as a field of its own for readers of reports written before that field.
    #[serde(default)]
    pub switch_predicted: bool,
    /// The predicted time of the switch (or sliding exit) after the piece's start.
    #[serde(default)]
    pub predicted_switch: Option<f64>,
    /// True if the piece's length was chosen to put a predicted switch in the middle
    /// of one of two parts (see [`SimulatorOptions::align_switches`]), or the piece is
    /// a halved part of such a piece.
    #[serde(default)]
    pub aligned_to_switch: bool,
    /// True if the piece converged with a switch next to a stretched element and was
    /// solved again as two parts with the switch on an element boundary (see
    /// [`SimulatorOptions::max_switch_element_ratio`]); its solution was not kept.
    #[serde(default)]
    pub recut_at_switch: bool,
}

impl StepReport {
    /// The tier (index into the schedules tried: `homotopies`, then the fallback)
    /// whose attempt solved this piece, if one did.
    pub fn solved_by(&self) -> Option<usize> {
        self.attempts.iter().find(|a| a.status.is_converged()).map(|a| a.tier)
    }

    /// True if the start from the previous solution failed and the neutral start
    /// solved the piece (the next piece then tries the neutral start first).
    pub fn needed_neutral_start(&self) -> bool {
        !self.halved
            && self.attempts.iter().any(|a| a.neutral_start && a.status.is_converged())
            && self.attempts.iter().any(|a| !a.neutral_start && !a.status.is_converged())
    }

    /// Ipopt iterations of attempts that did not solve the piece, or of all its
    /// attempts if its solution was not kept (`recut_at_switch`).
    pub fn wasted_iterations(&self) -> usize {
        self.attempts.iter().filter(|a| self.recut_at_switch || !a.status.is_converged()).map(|a| a.iterations).sum()
    }
}

/// Where an attempt on a piece starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    /// The previous piece's solution (its active set, see `warm_start_active_set`).
    Previous,
    /// The same, with the previous solve's multipliers (`warm_start_duals`).
    PreviousWithDuals,
    /// The neutral guess at the current state.
    Neutral,
}

/// One attempt of [`Simulator::attempt_piece`]'s plan.
struct Plan {
    tier: usize,
    h: HomotopyOptions,
    start: Start,
}

/// See [`Simulator::surface_within_reach`]: piece lengths within which a dual reaching
/// zero counts as a surface within reach. Evidence: `docs/evidence/sim.md`, "warm_start_duals".
const DUAL_START_REACH: f64 = 2.0;

/// A switch predicted within this fraction of a piece's length after its start (the
/// bisection of `predict_switch_time` resolves 1e-3) is at the start.
const SWITCH_AT_START: f64 = 1e-3;

/// One homotopy attempt on a piece of a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// Index of the schedule: `0..homotopies.len()`, then the fallback.
    pub tier: usize,
    /// True if it started from the neutral guess at the current state instead of the
    /// previous step's solution.
    #[serde(default)]
    pub neutral_start: bool,
    /// True if it started with the previous solve's multipliers
    /// ([`SimulatorOptions::warm_start_duals`]).
    #[serde(default)]
    pub with_duals: bool,
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

/// A predicted switch closer than `ALIGN_MARGIN (1 − γ_h) / N_FE` of a piece's length
/// (within [0.05, 0.3]) to either end gets the piece cut (`align_switches`).
/// Evidence: `docs/evidence/sim.md`, "align_switches".
const ALIGN_MARGIN: f64 = 5.0;

/// A primal at most this large whose dual is zero makes a pair nearly biactive (see
/// [`SimulatorOptions::neutral_start_when_nearly_biactive`]).
/// Evidence: `docs/evidence/sim.md`, "neutral_start_when_nearly_biactive".
const NEARLY_BIACTIVE: f64 = 0.02;

/// A tier tried at least twice on pieces that could be halved and successful in
/// fewer than a quarter of them: halving is the better use of its iterations.
fn unproductive((tries, successes): (usize, usize)) -> bool {
    tries >= 2 && 4 * successes < tries
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
        predicted_switch: None,
        aligned_to_switch: false,
        recut_at_switch: false,
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

    /// The slope dx/dt over the last recorded element (its end state minus its start
    /// over its length), `None` before the first element or after one of zero length.
    pub fn last_slope(&self) -> Option<Vec<f64>> {
        let (&h, [.., a, b]) = (self.h.last()?, self.x.as_slice()) else { return None };
        (h > 0.0).then(|| a.iter().zip(b).map(|(x0, x1)| (x1 - x0) / h).collect())
    }

    /// The final state.
    pub fn x_final(&self) -> &[f64] {
        self.x.last().map(|v| v.as_slice()).unwrap_or(&[])
    }
}

/// A solved piece's outputs (see [`FesdInterval::outputs`]), one entry per finite
/// element where per element.
struct PieceOutputs {
    h: Vec<f64>,
    x_boundary: Vec<f64>,
    x_stage: Vec<f64>,
    theta: Vec<f64>,
    /// The complementarity primals at every point.
    primal: Vec<f64>,
    /// The boundary duals at the piece's last point.
    dual_end: Vec<f64>,
    /// The active complementarity components of every element.
    active: Vec<Vec<usize>>,
}

impl PieceOutputs {
    /// The time after the piece's start of its first switch inside it (the first
    /// element boundary where the active set changes), if any.
    fn first_switch(&self) -> Option<f64> {
        let n = (1..self.active.len()).find(|&n| self.active[n] != self.active[n - 1])?;
        Some(self.h[..n].iter().sum())
    }
}

/// The length of the first of two parts of a piece of length `len` with `n_fe`
/// elements each, such that a switch at `ts` after the piece's start falls on an
/// interior nominal element boundary of one part (all elements of both parts are then
/// no longer than `len / n_fe`): the first part holds the switch at its k-th boundary
/// (`k = ⌈ts n_fe / len⌉`) where that is interior, else the second holds it at its
/// last interior boundary.
fn boundary_cut(len: f64, ts: f64, n_fe: usize) -> f64 {
    let n = n_fe as f64;
    let u = ts * n / len;
    if u <= n - 1.0 {
        ts * n / u.ceil().max(1.0)
    } else {
        len - n * (len - ts)
    }
}

impl Simulator {
    /// Evaluates the outputs of a solved piece with NLP vector `w`.
    fn piece_outputs(&self, w: &[f64], params: &[f64]) -> Result<PieceOutputs> {
        let l = &self.interval.layout;
        let mut out = self.interval.outputs.eval_dense(&[w, params])?;
        let dual_end = out.pop().unwrap_or_default();
        let mut out = out.into_iter();
        let mut next = || out.next().unwrap_or_default();
        let (h, x_boundary, x_stage, theta, primal) = (next(), next(), next(), next(), next());
        let n_pts = l.n_points();
        let active = (0..l.n_fe)
            .map(|n| (0..l.n_comp).filter(|&i| (0..l.n_s).any(|m| primal[(n * n_pts + m) * l.n_comp + i] > self.opts.active_tol)).collect())
            .collect();
        Ok(PieceOutputs { h, x_boundary, x_stage, theta, primal, dual_end, active })
    }

    /// Where to cut a converged piece of length `len` again: the first part's length
    /// and whether the switch lies in it (see
    /// [`SimulatorOptions::max_switch_element_ratio`]); `None` keeps its solution (no
    /// switch inside, no stretched element, or a part would be shorter than the
    /// shortest halved piece).
    fn switch_recut(&self, piece: &PieceOutputs, len: f64, step: f64) -> Option<(f64, bool)> {
        let ts = piece.first_switch()?;
        let n_fe = self.interval.layout.n_fe;
        let nominal = len / n_fe as f64;
        if piece.h.iter().all(|&h| h <= self.opts.switch_element_ratio() * nominal) {
            return None;
        }
        let floor = step / 2f64.powi(self.opts.max_step_halvings.min(1100) as i32);
        let first = boundary_cut(len, ts, n_fe);
        (first >= floor && len - first >= floor).then_some((first, ts < first))
    }

    /// Appends one solved interval (its elements, stages, active sets) to `res`;
    /// returns the duals and the complementarity primals at its last point.
    fn record(&self, res: &mut SimulationResult, w: &[f64], piece: PieceOutputs, t0: &mut f64) -> (Vec<f64>, Vec<f64>) {
        let (l, c) = (&self.interval.layout, &self.interval.tableau.c);
        let n_pts = l.n_points();
        for (n, active) in piece.active.into_iter().enumerate() {
            let hn = piece.h[n];
            for (m, cm) in c.iter().enumerate().take(l.n_s) {
                let col = n * l.n_s + m;
                res.t_stage.push(*t0 + cm * hn);
                res.x_stage.push(piece.x_stage[col * l.n_x..(col + 1) * l.n_x].to_vec());
                res.theta_stage.push(piece.theta[col * l.n_theta..(col + 1) * l.n_theta].to_vec());
                let z0 = l.z[n][m];
                res.z_stage.push(w[z0..z0 + l.n_z].to_vec());
            }
            if res.active_sets.last().is_some_and(|prev| *prev != active) {
                res.switch_times.push(*t0);
            }
            res.active_sets.push(active);
            *t0 += hn;
            res.h.push(hn);
            res.t.push(*t0);
            res.x.push(piece.x_boundary[(n + 1) * l.n_x..(n + 2) * l.n_x].to_vec());
        }
        let last = (l.n_fe * n_pts - 1) * l.n_comp;
        (piece.dual_end, piece.primal[last..last + l.n_comp].to_vec())
    }
}

/// A piece of a step still to be solved.
struct Piece {
    len: f64,
    /// How many times the planned step was halved to get here.
    depth: usize,
    /// Cut to a predicted switch (`align_switches`).
    aligned: bool,
    /// A part of a piece re-cut at its switch (`max_switch_element_ratio`).
    recut: bool,
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
    /// The complementarity primals at the current point (paired with `lambda0`).
    primal0: Vec<f64>,
    /// The last step's solution, the next step's initial guess.
    guess: Vec<f64>,
    /// Its primal-dual point (`SimulatorOptions::warm_start_duals`).
    duals: Option<DualStart>,
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
        let first = opts
            .homotopies
            .first()
            .cloned()
            .ok_or(SimError::InvalidOption { name: "homotopies", reason: "needs at least one homotopy".into() })?;
        let mut solver = MpccSolver::with_kernels(&interval.mpcc, first.clone(), &CompileOptions::default(), opts.kernels)?;
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
    /// is predicted or the previous piece needed the neutral start (`neutral_first`);
    /// the other tiers run from the previous solution. Evidence: `docs/evidence/sim.md`,
    /// "The tiers".
    // The piece's state comes in as separate arguments until the simulators share one
    // engine (a piece struct of its own).
    #[allow(clippy::too_many_arguments)]
    fn attempt_piece(
        &mut self,
        guess: &[f64],
        neutral: &[f64],
        may_halve: bool,
        neutral_first: bool,
        duals: Option<&DualStart>,
        record: &mut [(usize, usize)],
        res: &mut SimulationResult,
    ) -> Result<(MpccResult, Vec<Attempt>)> {
        let tiers =
            if may_halve { self.opts.tiers_before_halving.clamp(1, self.opts.homotopies.len()) } else { self.opts.homotopies.len() };
        let fallback = if may_halve { None } else { self.opts.fallback_homotopy.clone() };
        let schedules: Vec<HomotopyOptions> = self.opts.homotopies[..tiers].iter().cloned().chain(fallback).collect();
        let mut plan: Vec<Plan> = schedules.into_iter().enumerate().map(|(tier, h)| Plan { tier, h, start: Start::Previous }).collect();
        if may_halve && self.opts.skip_unproductive_tiers {
            plan.retain(|p| p.tier == 0 || !unproductive(record[p.tier]));
        }
        if let Some(first) = plan.first_mut() {
            let mut h = first.h.clone();
            h.max_iter = self.opts.neutral_start_max_iter;
            let neutral = Plan { tier: first.tier, h, start: Start::Neutral };
            if duals.is_some() {
                first.start = Start::PreviousWithDuals;
                (first.h.stall_iterations, first.h.stall_warmup) = DUAL_START_STALL;
            }
            plan.insert(usize::from(!neutral_first), neutral);
        }
        let mut last = None;
        let mut tries = Vec::new();
        for Plan { tier, h, start } in plan {
            self.solver.set_options(h)?;
            match start {
                Start::Neutral => self.solver.set_initial_guess(neutral)?,
                Start::Previous => self.solver.set_initial_guess(guess)?,
                Start::PreviousWithDuals => match duals {
                    Some(d) => self.solver.set_initial_guess_with_duals(guess, d)?,
                    None => self.solver.set_initial_guess(guess)?,
                },
            }
            let neutral_start = start == Start::Neutral;
            let this = self.solver.solve();
            res.timing.ipopt += this.timing.ipopt;
            res.timing.kernels += this.timing.kernels;
            tries.push(Attempt {
                tier,
                neutral_start,
                with_duals: start == Start::PreviousWithDuals,
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

    /// True if the piece `s` converged from the previous solution without trouble
    /// (at most [`DUAL_START_AFTER`](fesd_mpcc::presets::DUAL_START_AFTER) Ipopt iterations, not from the neutral guess)
    /// and no switch was recorded in it: its multipliers then suit the next piece
    /// (`warm_start_duals`).
    fn active_set_went_on(&self, s: &StepReport, switch_times: &[f64]) -> bool {
        let calm = s.attempts.last().is_some_and(|a| !a.neutral_start && a.iterations <= DUAL_START_AFTER);
        let (t0, t1) = (s.t_start, s.t_start + s.length);
        s.status.is_converged() && calm && !switch_times.iter().any(|&t| t > t0 - 1e-12 && t <= t1 + 1e-12)
    }

    /// True if some dual that is positive at `x` (a region or sign not active) would
    /// reach zero within [`DUAL_START_REACH`] piece lengths at its current rate of
    /// change, whichever its direction: the active set may change soon even where the
    /// linear extrapolation does not cross a surface (a trajectory turning back), and
    /// the previous multipliers then mislead (`warm_start_duals`). False without a
    /// last element to take the rate from ([`SimulationResult::last_slope`]).
    fn surface_within_reach(&self, x: &[f64], r: &SimulationResult, u: &[f64], p: &[f64], len: f64) -> Result<bool> {
        let Some(slope) = r.last_slope() else { return Ok(false) };
        let ahead: Vec<f64> = x.iter().zip(&slope).map(|(a, s)| a + s * len).collect();
        let now = self.interval.dual_at_state.eval_dense(&[x, u, p])?.remove(0);
        let then = self.interval.dual_at_state.eval_dense(&[&ahead, u, p])?.remove(0);
        let tol = self.opts.active_tol;
        Ok(now.iter().zip(&then).any(|(a, b)| *a > tol && *a < DUAL_START_REACH * (b - a).abs()))
    }

    /// When the state, extrapolated linearly from the last recorded element, first
    /// has another set of zero boundary duals than the current state (another active
    /// set) within `len`: the predicted time of the next switch after the piece's
    /// start (bisection on the zero pattern to 1e-3 of `len`), and whether a dual
    /// that is positive now reaches zero there (a region or sign becomes active;
    /// otherwise the state only leaves a surface it is on, e.g. right after a switch
    /// on the piece's start). `None` if no change is predicted.
    fn predict_switch_time(&self, x: &[f64], r: &SimulationResult, u: &[f64], p: &[f64], len: f64) -> Result<Option<(f64, bool)>> {
        let (Some(h), true) = (r.h.last(), r.x.len() >= 2) else { return Ok(None) };
        let (x1, x0) = (&r.x[r.x.len() - 1], &r.x[r.x.len() - 2]);
        let at = |tau: f64| -> Vec<f64> { x1.iter().zip(x0).map(|(a, b)| a + (a - b) * tau / h).collect() };
        let tol = self.opts.active_tol;
        let zeros = |x: &[f64]| -> Result<Vec<bool>> {
            Ok(self.interval.dual_at_state.eval_dense(&[x, u, p])?.remove(0).iter().map(|l| *l <= tol).collect())
        };
        let now = zeros(x)?;
        // The zero pattern at `hi`, the earliest time seen with another pattern.
        let mut then = zeros(&at(len))?;
        if then == now {
            return Ok(None);
        }
        let (mut lo, mut hi) = (0.0, len);
        while hi - lo > 1e-3 * len {
            let mid = 0.5 * (lo + hi);
            let pattern = zeros(&at(mid))?;
            if pattern == now {
                lo = mid;
            } else {
                (hi, then) = (mid, pattern);
            }
        }
        let entry = now.iter().zip(&then).any(|(was, is)| !was && *is);
        Ok(Some((0.5 * (lo + hi), entry)))
    }

    /// The predicted time of the next active-set change after the piece's start
    /// (switch or sliding exit, whichever comes first), see
    /// [`SimulatorOptions::predict_switches`], and whether the piece may be cut
    /// around it (`align_switches`: a region becoming active or a sliding exit, not
    /// the state leaving a surface it starts on).
    fn predicted_switch(&self, x: &[f64], r: &SimulationResult, u: &[f64], p: &[f64], t_now: f64, len: f64) -> Result<Option<(f64, bool)>> {
        if !self.opts.predict_switches {
            return Ok(None);
        }
        let exit = self.predict_exit_time(r, t_now, len).map(|t| (t, true));
        Ok(match (self.predict_switch_time(x, r, u, p, len)?, exit) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        })
    }

    /// When a Filippov multiplier θ_i still active at the last stage, extrapolated
    /// linearly from the last stages of the last two elements, falls to `active_tol`
    /// within `len` of `t_now`: the predicted time (after `t_now`) of a sliding exit
    /// (or of a region's end), `None` if none is predicted.
    fn predict_exit_time(&self, r: &SimulationResult, t_now: f64, len: f64) -> Option<f64> {
        let n_s = self.opts.fesd.n_s;
        let k = r.theta_stage.len().checked_sub(1 + n_s)?;
        let (ta, tb) = (r.t_stage[k], r.t_stage[k + n_s]);
        if tb <= ta {
            return None;
        }
        let tol = self.opts.active_tol;
        r.theta_stage[k]
            .iter()
            .zip(&r.theta_stage[k + n_s])
            .filter(|(a, b)| **b > tol && b < a)
            .map(|(a, b)| tb + (b - tol) / (a - b) * (tb - ta) - t_now)
            .filter(|tau| *tau > 0.0 && *tau <= len)
            .min_by(f64::total_cmp)
    }

    /// True if a complementarity pair at the current point is nearly biactive: its
    /// primal side (θ_i in Stewart's representation) above `active_tol` but at most
    /// [`NEARLY_BIACTIVE`] while its dual (the boundary dual) is at most `active_tol`.
    fn nearly_biactive(&self, primal: &[f64], dual: &[f64]) -> bool {
        let tol = self.opts.active_tol;
        primal.iter().zip(dual).any(|(g, h)| *g > tol && *g <= NEARLY_BIACTIVE && *h <= tol)
    }

    /// Where to cut a piece of length `len` whose switch is predicted at `ts` after its
    /// start, if that is too close to either end for its finite elements (the first
    /// element boundary can be no earlier than (1 − γ_h) len / N_FE): the length of
    /// the first part, chosen so that the switch sits in the middle of one part.
    /// `None`: attempt the piece whole (or a part would be shorter than the smallest
    /// halved piece).
    fn aligned_cut(&self, len: f64, ts: f64, step: f64) -> Option<f64> {
        if !self.opts.align_switches {
            return None;
        }
        let fesd = &self.opts.fesd;
        let edge = (ALIGN_MARGIN * (1.0 - fesd.gamma_h) / fesd.n_fe as f64).clamp(0.05, 0.3);
        // (`as i32` would wrap for a huge halving count; 2^-1100 is already 0.)
        let floor = step / 2f64.powi(self.opts.max_step_halvings.min(1100) as i32);
        let f = ts / len;
        let first = if f < edge {
            (2.0 * ts).max(floor)
        } else if f > 1.0 - edge {
            2.0 * ts - len
        } else {
            return None;
        };
        (first >= floor && len - first >= floor).then_some(first)
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
            duals: None,
            primal0: vec![],
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
        let mut all_converged = true;
        // Pieces of this step still to do, as a stack.
        let mut pieces = vec![Piece { len: length, depth: 0, aligned: false, recut: false }];
        while let Some(Piece { len, depth, aligned, recut }) = pieces.pop() {
            // A part of a re-cut piece knows where its switch is: no prediction moves it.
            let predicted = if recut { None } else { self.predicted_switch(&state.x, &state.result, u, p, state.t, len)? };
            let t_switch = predicted.map(|(t, _)| t);
            if let Some(first) = predicted.filter(|(_, alignable)| *alignable).and_then(|(ts, _)| self.aligned_cut(len, ts, length)) {
                // The switch lies in the middle of one of the two parts (the second is
                // pushed first: a stack).
                pieces.push(Piece { len: len - first, depth, aligned: true, recut });
                pieces.push(Piece { len: first, depth, aligned: true, recut });
                continue;
            }
            // A switch at the piece's start (the state within the bisection's resolution
            // of a switching surface, e.g. a crossing exactly on the step boundary): the
            // boundary duals carried from the previous piece belong to the old side,
            // while on the surface they vanish; carried, their cross complementarity
            // keeps the first element in the old region, which the state leaves at once
            // (four quadrants of the README, step 0.1 / 0.0625: failed pieces halved
            // down to the fallback and the simulation stopped at t = 2.003 / in the
            // last quadrant). Zero, they let the first element take the new region.
            let at_start = t_switch.is_some_and(|ts| ts < SWITCH_AT_START * len);
            let lambda0: Vec<f64> = if at_start { vec![0.0; state.lambda0.len()] } else { state.lambda0.clone() };
            let params: Vec<f64> = state.x.iter().chain(u).chain(p).chain([&len]).chain(&lambda0).copied().collect();
            self.solver.set_parameters(&params)?;
            let may_halve = depth < self.opts.max_step_halvings;
            let neutral = self.interval.initial_guess(&state.x);
            let guess = if self.opts.warm_start_active_set {
                let mut g = self.interval.active_set_guess(&neutral, &state.guess);
                if let Some(slope) = self.opts.extrapolate_states.then(|| state.result.last_slope()).flatten() {
                    self.interval.extrapolate_states(&mut g, &state.x, &slope, len);
                }
                g
            } else {
                state.guess.clone()
            };
            let nearly_biactive = self.opts.neutral_start_when_nearly_biactive && self.nearly_biactive(&state.primal0, &state.lambda0);
            let neutral_first =
                recut || t_switch.is_some() || nearly_biactive || state.result.steps.last().is_some_and(StepReport::needed_neutral_start);
            // The previous piece's multipliers fit where the active set goes on and no
            // surface is near.
            let went_on = self.opts.warm_start_duals
                && !neutral_first
                && state.result.steps.last().is_some_and(|s| self.active_set_went_on(s, &state.result.switch_times))
                && !self.surface_within_reach(&state.x, &state.result, u, p, len)?;
            let duals = state.duals.as_ref().filter(|_| went_on);
            let (res, record) = (&mut state.result, &mut state.tier_record);
            let (r, tries) = self.attempt_piece(&guess, &neutral, may_halve, neutral_first, duals, record, res)?;
            let converged = r.status.is_converged();
            let report = step_report(k, state.t, len, depth, &r, tries);
            res.steps.push(StepReport {
                switch_predicted: t_switch.is_some(),
                predicted_switch: t_switch,
                aligned_to_switch: aligned,
                ..report
            });
            if !converged && may_halve {
                if let Some(last) = res.steps.last_mut() {
                    last.halved = true;
                }
                // Retry as two halves.
                pieces.push(Piece { len: len / 2.0, depth: depth + 1, aligned, recut });
                pieces.push(Piece { len: len / 2.0, depth: depth + 1, aligned, recut });
                continue;
            }
            let outputs = self.piece_outputs(&r.w, &params)?;
            if let Some((first, in_first)) = converged.then(|| self.switch_recut(&outputs, len, length)).flatten().filter(|_| !recut) {
                if let Some(last) = res.steps.last_mut() {
                    last.recut_at_switch = true;
                }
                pieces.push(Piece { len: len - first, depth, aligned, recut: !in_first });
                pieces.push(Piece { len: first, depth, aligned, recut: in_first });
                continue;
            }
            (state.lambda0, state.primal0) = self.record(res, &r.w, outputs, &mut state.t);
            state.x = res.x.last().cloned().unwrap_or_default();
            state.guess = r.w.clone();
            state.duals = if converged { self.solver.dual_start() } else { None };
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
        let timing = &mut state.result.timing;
        timing.total = state.started.elapsed().as_secs_f64();
        timing.own = (timing.total - timing.ipopt - timing.kernels).max(0.0);
        Ok(all_converged)
    }
}

#[cfg(test)]
mod boundary_cut_tests {
    use super::boundary_cut;

    #[test]
    fn the_switch_lands_on_an_interior_nominal_boundary_of_one_part() {
        let len = 0.3;
        for n_fe in 2..=5 {
            for i in 1..100 {
                let ts = len * i as f64 / 100.0;
                let first = boundary_cut(len, ts, n_fe);
                assert!(first > 0.0 && first <= len + 1e-15, "n_fe {n_fe}, ts {ts}: first {first}");
                // The part holding the switch, and where in it the switch lies.
                let (part, at) = if ts < first { (first, ts) } else { (len - first, ts - first) };
                let k = at / (part / n_fe as f64);
                assert!(
                    (k - k.round()).abs() < 1e-9 && k.round() >= 1.0 && k.round() <= (n_fe - 1) as f64,
                    "n_fe {n_fe}, ts {ts}: boundary {k}"
                );
            }
        }
    }
}
