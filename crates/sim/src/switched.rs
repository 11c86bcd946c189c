//! Switched systems as a simulation kind: the FESD step of a [`PssModel`], switch
//! prediction and alignment, re-cuts at stretched switch elements, the active-set warm
//! start, and the record of elements, stages and switches ([`SimulationResult`]).

use crate::discretization::FesdInterval;
use crate::engine::{Dims, Io, LookAhead, Piece, Prepared, SimState, SimulationKind, Simulator, Split, Start};
use crate::error::{Result, SimError};
use crate::options::SimulatorOptions;
use crate::report::{record_with_reports, SimulationTiming, StepReport};
use fesd_discretization::FesdOptions;
use fesd_model::{PssModel, SubsystemLowering};
use fesd_mpcc::{presets, Mpcc};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Switch detection and warm starts of switched systems
/// ([`SimulatorOptions::detection`] of a [`PssModel`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchDetection {
    /// A complementarity primal (θ_i, α_j or 1 − α_j) above this marks its region or
    /// sign as active in an element; changes of the active set are reported as switches
    /// (default 1e-5).
    pub active_tol: f64,
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
}

impl Default for SwitchDetection {
    fn default() -> Self {
        SwitchDetection {
            active_tol: 1e-5,
            predict_switches: true,
            align_switches: true,
            warm_start_active_set: true,
            extrapolate_states: true,
            neutral_start_when_nearly_biactive: true,
            max_switch_element_ratio: None,
        }
    }
}

impl SimulatorOptions<PssModel> {
    /// [`SwitchDetection::max_switch_element_ratio`] as given or derived from the
    /// scheme's order.
    pub fn switch_element_ratio(&self) -> f64 {
        let order = self.fesd.rk_family.order(self.fesd.n_s) as f64;
        self.detection.max_switch_element_ratio.unwrap_or_else(|| 16f64.powf(1.0 / (order + 1.0)))
    }
}

/// See [`PssModel`]'s `surface_near`: piece lengths within which a dual reaching zero
/// counts as a surface within reach. Evidence: `docs/evidence/sim.md`, "warm_start_duals".
const DUAL_START_REACH: f64 = 2.0;

/// A switch predicted within this fraction of a piece's length after its start (the
/// bisection of `predict_switch_time` resolves 1e-3) is at the start.
const SWITCH_AT_START: f64 = 1e-3;

/// A predicted switch closer than `ALIGN_MARGIN (1 − γ_h) / N_FE` of a piece's length
/// (within [0.05, 0.3]) to either end gets the piece cut (`align_switches`).
/// Evidence: `docs/evidence/sim.md`, "align_switches".
const ALIGN_MARGIN: f64 = 5.0;

/// A primal at most this large whose dual is zero makes a pair nearly biactive (see
/// [`SwitchDetection::neutral_start_when_nearly_biactive`]).
/// Evidence: `docs/evidence/sim.md`, "neutral_start_when_nearly_biactive".
const NEARLY_BIACTIVE: f64 = 0.02;

/// A simulated trajectory of a switched system.
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

record_with_reports!(SimulationResult);

/// A solved piece's outputs (see [`FesdInterval::outputs`]), one entry per finite
/// element where per element.
pub struct PieceOutputs {
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

/// What a switched system carries from piece to piece.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwitchCarry {
    /// The boundary duals at the current point, parameters of the next piece.
    pub lambda0: Vec<f64>,
    /// The complementarity primals at the current point (paired with `lambda0`).
    pub primal0: Vec<f64>,
}

impl SimulationKind for PssModel {
    type Elements = FesdOptions;
    type Detection = SwitchDetection;
    type Step = FesdInterval;
    type Carry = SwitchCarry;
    type Record = SimulationResult;
    type Outputs = PieceOutputs;
    const FRESH_STARTS: usize = 1;

    fn default_options() -> SimulatorOptions<PssModel> {
        SimulatorOptions {
            fesd: FesdOptions::default(),
            step: 0.1,
            n_steps: 10,
            homotopies: vec![presets::simulation_single_nlp(), presets::simulation_short()],
            formulation: presets::simulation_formulation(),
            fallback_homotopy: Some(presets::simulation_robust()),
            on_failure: Default::default(),
            max_step_halvings: 5,
            tiers_before_halving: 1,
            fresh_starts_on_every_tier: false,
            skip_unproductive_tiers: true,
            warm_start_duals: true,
            retry_without_duals: false,
            neutral_start_max_iter: Some(45),
            kernels: Default::default(),
            detection: SwitchDetection::default(),
        }
    }

    fn validate_options(opts: &SimulatorOptions<PssModel>) -> Result<()> {
        let d = &opts.detection;
        if !(d.active_tol > 0.0 && d.active_tol.is_finite()) {
            return Err(SimError::InvalidOption { name: "active_tol", reason: format!("{} must be positive", d.active_tol) });
        }
        if let Some(r) = d.max_switch_element_ratio.filter(|r| r.is_nan() || *r <= 1.0) {
            return Err(SimError::InvalidOption {
                name: "max_switch_element_ratio",
                reason: format!("{r} must be above 1 (infinity: never re-cut)"),
            });
        }
        opts.fesd.validate()?;
        Ok(())
    }

    fn discretize(&self, opts: &SimulatorOptions<PssModel>) -> Result<FesdInterval> {
        FesdInterval::new(self, &opts.fesd)
    }

    fn mpcc(step: &FesdInterval) -> &Mpcc {
        &step.mpcc
    }

    fn dims(&self) -> Dims {
        Dims { n_x: self.n_x(), n_u: self.u.nrow(), n_p: self.p.nrow() }
    }

    /// The boundary duals follow from x0 with the control `u`.
    fn start(step: &FesdInterval, _opts: &SimulatorOptions<PssModel>, x0: &[f64], u: &[f64], p: &[f64]) -> Result<Start<PssModel>> {
        let lambda0 = step.dual_at_state.eval_dense(&[x0, u, p])?.remove(0);
        if let Some(i) = lambda0.iter().position(|v| !v.is_finite()) {
            return Err(SimError::BadInput {
                what: "x0",
                reason: format!(
                    "the switching functions are not finite at x0 (boundary dual {i} is {}): check c(x) for NaN/inf and x0",
                    lambda0[i]
                ),
            });
        }
        Ok(Start {
            carry: SwitchCarry { lambda0, primal0: vec![] },
            guess: step.initial_guess(x0),
            record: SimulationResult {
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
                timing: SimulationTiming::default(),
            },
        })
    }

    /// A part of a re-cut piece knows where its switch is: no prediction moves it.
    fn look_ahead(
        step: &FesdInterval,
        opts: &SimulatorOptions<PssModel>,
        state: &SimState<PssModel>,
        piece: &Piece,
        io: Io,
    ) -> Result<LookAhead> {
        let predicted = if piece.recut { None } else { predicted_switch(step, opts, state, io, piece.len)? };
        let split =
            predicted.filter(|(_, alignable)| *alignable).and_then(|(ts, _)| aligned_cut(opts, piece.len, ts, piece.step)).map(Split::Cut);
        Ok(LookAhead { predicted_switch: predicted.map(|(t, _)| t), split })
    }

    fn prepare(
        step: &FesdInterval,
        opts: &SimulatorOptions<PssModel>,
        state: &SimState<PssModel>,
        piece: &Piece,
        look: &LookAhead,
        io: Io,
    ) -> Result<Prepared> {
        let (d, len) = (&opts.detection, piece.len);
        // A switch at the piece's start (the state within the bisection's resolution
        // of a switching surface, e.g. a crossing exactly on the step boundary): the
        // boundary duals carried from the previous piece belong to the old side,
        // while on the surface they vanish; carried, their cross complementarity
        // keeps the first element in the old region, which the state leaves at once
        // (four quadrants of the README, step 0.1 / 0.0625: failed pieces halved
        // down to the fallback and the simulation stopped at t = 2.003 / in the
        // last quadrant). Zero, they let the first element take the new region.
        let at_start = look.predicted_switch.is_some_and(|ts| ts < SWITCH_AT_START * len);
        let carry = &state.carry;
        let lambda0: Vec<f64> = if at_start { vec![0.0; carry.lambda0.len()] } else { carry.lambda0.clone() };
        let named = [("x0", &state.x[..]), ("u", io.u), ("p", io.p), ("len", &[len][..]), ("lambda0", &lambda0)];
        let params = step
            .parameters
            .fill(&named)
            .ok_or(SimError::BadInput { what: "lambda0", reason: "the carried boundary duals do not fit the step's parameters".into() })?;
        let warm = if d.warm_start_active_set {
            let mut g = step.active_set_guess(&step.initial_guess(&state.x), state.solution());
            if let Some(slope) = d.extrapolate_states.then(|| state.result.last_slope()).flatten() {
                step.extrapolate_states(&mut g, &state.x, &slope, len);
            }
            g
        } else {
            state.solution().to_vec()
        };
        let nearly_biactive = d.neutral_start_when_nearly_biactive && nearly_biactive(opts, &carry.primal0, &carry.lambda0);
        let fresh_first = piece.recut
            || look.predicted_switch.is_some()
            || nearly_biactive
            || state.result.steps.last().is_some_and(StepReport::needed_neutral_start);
        Ok(Prepared { params, warm, fresh_first })
    }

    /// The neutral guess at the current state.
    fn fresh_starts(step: &FesdInterval, state: &SimState<PssModel>, _params: &[f64]) -> Result<Vec<Vec<f64>>> {
        Ok(vec![step.initial_guess(&state.x)])
    }

    /// True if some dual that is positive at the current state (a region or sign not
    /// active) would reach zero within `DUAL_START_REACH` (2) piece lengths at its current
    /// rate of change, whichever its direction: the active set may change soon even
    /// where the linear extrapolation does not cross a surface (a trajectory turning
    /// back). False without a last element to take the rate from
    /// ([`SimulationResult::last_slope`]).
    fn surface_near(step: &FesdInterval, opts: &SimulatorOptions<PssModel>, state: &SimState<PssModel>, io: Io, len: f64) -> Result<bool> {
        let Some(slope) = state.result.last_slope() else { return Ok(false) };
        let x = &state.x;
        let ahead: Vec<f64> = x.iter().zip(&slope).map(|(a, s)| a + s * len).collect();
        let now = step.dual_at_state.eval_dense(&[x, io.u, io.p])?.remove(0);
        let then = step.dual_at_state.eval_dense(&[&ahead, io.u, io.p])?.remove(0);
        let tol = opts.detection.active_tol;
        Ok(now.iter().zip(&then).any(|(a, b)| *a > tol && *a < DUAL_START_REACH * (b - a).abs()))
    }

    /// No switch recorded in the piece.
    fn went_on(record: &SimulationResult, s: &StepReport) -> bool {
        let (t0, t1) = (s.t_start, s.t_start + s.length);
        !record.switch_times.iter().any(|&t| t > t0 - 1e-12 && t <= t1 + 1e-12)
    }

    fn read(step: &FesdInterval, opts: &SimulatorOptions<PssModel>, w: &[f64], params: &[f64]) -> Result<PieceOutputs> {
        let l = &step.layout;
        let mut out = step.outputs.eval_dense(&[w, params])?;
        let dual_end = out.pop().unwrap_or_default();
        let mut out = out.into_iter();
        let mut next = || out.next().unwrap_or_default();
        let (h, x_boundary, x_stage, theta, primal) = (next(), next(), next(), next(), next());
        let n_pts = l.n_points();
        let tol = opts.detection.active_tol;
        let active = (0..l.n_fe)
            .map(|n| (0..l.n_comp).filter(|&i| (0..l.n_s).any(|m| primal[(n * n_pts + m) * l.n_comp + i] > tol)).collect())
            .collect();
        Ok(PieceOutputs { h, x_boundary, x_stage, theta, primal, dual_end, active })
    }

    /// A converged piece with a switch inside and an element stretched beyond
    /// [`SwitchDetection::max_switch_element_ratio`] times the nominal one.
    fn recut(step: &FesdInterval, opts: &SimulatorOptions<PssModel>, piece: &PieceOutputs, len: f64, floor: f64) -> Option<(f64, bool)> {
        let ts = piece.first_switch()?;
        let n_fe = step.layout.n_fe;
        let nominal = len / n_fe as f64;
        if piece.h.iter().all(|&h| h <= opts.switch_element_ratio() * nominal) {
            return None;
        }
        let first = boundary_cut(len, ts, n_fe);
        (first >= floor && len - first >= floor).then_some((first, ts < first))
    }

    /// Appends the piece's elements, stages and active sets; the boundary duals and
    /// complementarity primals at its last point are carried.
    fn record(
        step: &FesdInterval,
        _opts: &SimulatorOptions<PssModel>,
        state: &mut SimState<PssModel>,
        w: &[f64],
        piece: PieceOutputs,
    ) -> Result<()> {
        let (l, c) = (&step.layout, &step.tableau.c);
        let (res, t0) = (&mut state.result, &mut state.t);
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
        state.carry = SwitchCarry { lambda0: piece.dual_end, primal0: piece.primal[last..last + l.n_comp].to_vec() };
        state.x = res.x.last().cloned().unwrap_or_default();
        Ok(())
    }
}

impl Simulator<PssModel> {
    /// As [`Simulator::new`] with the DCS written by `lowering` (e.g. a
    /// representation of your own; `opts.fesd.representation` is then ignored).
    pub fn with_lowering(
        model: &PssModel,
        opts: SimulatorOptions<PssModel>,
        lowering: &dyn SubsystemLowering,
    ) -> Result<Simulator<PssModel>> {
        let t = Instant::now();
        opts.validate()?;
        let interval = FesdInterval::with_lowering(model, &opts.fesd, lowering)?;
        Self::with_step(model.dims(), interval, opts, t)
    }

    /// The discretized interval.
    pub fn interval(&self) -> &FesdInterval {
        self.step_problem()
    }
}

/// The predicted time of the next active-set change after the piece's start (switch
/// or sliding exit, whichever comes first), see
/// [`SwitchDetection::predict_switches`], and whether the piece may be cut around it
/// (`align_switches`: a region becoming active or a sliding exit, not the state leaving
/// a surface it starts on).
fn predicted_switch(
    step: &FesdInterval,
    opts: &SimulatorOptions<PssModel>,
    state: &SimState<PssModel>,
    io: Io,
    len: f64,
) -> Result<Option<(f64, bool)>> {
    if !opts.detection.predict_switches {
        return Ok(None);
    }
    let exit = predict_exit_time(opts, &state.result, state.t, len).map(|t| (t, true));
    Ok(match (predict_switch_time(step, opts, &state.x, &state.result, io, len)?, exit) {
        (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
        (a, b) => a.or(b),
    })
}

/// When the state, extrapolated linearly from the last recorded element, first has
/// another set of zero boundary duals than the current state (another active set)
/// within `len`: the predicted time of the next switch after the piece's start
/// (bisection on the zero pattern to 1e-3 of `len`), and whether a dual that is
/// positive now reaches zero there (a region or sign becomes active; otherwise the
/// state only leaves a surface it is on, e.g. right after a switch on the piece's
/// start). `None` if no change is predicted.
fn predict_switch_time(
    step: &FesdInterval,
    opts: &SimulatorOptions<PssModel>,
    x: &[f64],
    r: &SimulationResult,
    io: Io,
    len: f64,
) -> Result<Option<(f64, bool)>> {
    let (Some(h), true) = (r.h.last(), r.x.len() >= 2) else { return Ok(None) };
    let (x1, x0) = (&r.x[r.x.len() - 1], &r.x[r.x.len() - 2]);
    let at = |tau: f64| -> Vec<f64> { x1.iter().zip(x0).map(|(a, b)| a + (a - b) * tau / h).collect() };
    let tol = opts.detection.active_tol;
    let zeros = |x: &[f64]| -> Result<Vec<bool>> {
        Ok(step.dual_at_state.eval_dense(&[x, io.u, io.p])?.remove(0).iter().map(|l| *l <= tol).collect())
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

/// When a Filippov multiplier θ_i still active at the last stage, extrapolated
/// linearly from the last stages of the last two elements, falls to `active_tol`
/// within `len` of `t_now`: the predicted time (after `t_now`) of a sliding exit (or
/// of a region's end), `None` if none is predicted.
fn predict_exit_time(opts: &SimulatorOptions<PssModel>, r: &SimulationResult, t_now: f64, len: f64) -> Option<f64> {
    let n_s = opts.fesd.n_s;
    let k = r.theta_stage.len().checked_sub(1 + n_s)?;
    let (ta, tb) = (r.t_stage[k], r.t_stage[k + n_s]);
    if tb <= ta {
        return None;
    }
    let tol = opts.detection.active_tol;
    r.theta_stage[k]
        .iter()
        .zip(&r.theta_stage[k + n_s])
        .filter(|(a, b)| **b > tol && b < a)
        .map(|(a, b)| tb + (b - tol) / (a - b) * (tb - ta) - t_now)
        .filter(|tau| *tau > 0.0 && *tau <= len)
        .min_by(f64::total_cmp)
}

/// True if a complementarity pair at the current point is nearly biactive: its primal
/// side (θ_i in Stewart's representation) above `active_tol` but at most
/// [`NEARLY_BIACTIVE`] while its dual (the boundary dual) is at most `active_tol`.
fn nearly_biactive(opts: &SimulatorOptions<PssModel>, primal: &[f64], dual: &[f64]) -> bool {
    let tol = opts.detection.active_tol;
    primal.iter().zip(dual).any(|(g, h)| *g > tol && *g <= NEARLY_BIACTIVE && *h <= tol)
}

/// Where to cut a piece of length `len` whose switch is predicted at `ts` after its
/// start, if that is too close to either end for its finite elements (the first
/// element boundary can be no earlier than (1 − γ_h) len / N_FE): the length of the
/// first part, chosen so that the switch sits in the middle of one part. `None`:
/// attempt the piece whole (or a part would be shorter than the smallest halved
/// piece).
fn aligned_cut(opts: &SimulatorOptions<PssModel>, len: f64, ts: f64, step: f64) -> Option<f64> {
    if !opts.detection.align_switches {
        return None;
    }
    let fesd = &opts.fesd;
    let edge = (ALIGN_MARGIN * (1.0 - fesd.gamma_h) / fesd.n_fe as f64).clamp(0.05, 0.3);
    // (`as i32` would wrap for a huge halving count; 2^-1100 is already 0.)
    let floor = step / 2f64.powi(opts.max_step_halvings.min(1100) as i32);
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
