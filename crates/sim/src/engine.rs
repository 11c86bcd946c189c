//! The simulation engine, one for every model kind: pieces of each step solved by the
//! MPCC homotopy in tiers from the previous solution and from fresh starts, failed
//! pieces halved, pieces cut where the kind asks, multipliers carried where the active
//! set goes on, open loop (`simulate`) or closed loop (`start`/`step`), every attempt
//! reported as data. A model kind ([`SimulationKind`]) supplies the discretized step,
//! its guesses and look-ahead, and what a solved piece adds to its record.

use crate::error::{Result, SimError};
use crate::options::SimulatorOptions;
use crate::report::{Attempt, OnStepFailure, Record, StepReport};
use fesd_mpcc::presets::DUAL_START_STALL;
use fesd_mpcc::{CompileOptions, DualStart, HomotopyOptions, Mpcc, MpccResult, MpccSolver};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;
use std::time::Instant;

/// A model kind the simulator runs: how one step is discretized, started, looked
/// ahead of and recorded. Implemented by [`fesd_model::PssModel`] (switched systems)
/// and `fesd_cls::ClsModel` (rigid bodies, state x = (q, v) with v before any impulse).
pub trait SimulationKind: Sized + Clone + Debug {
    /// The discretization options of one step.
    type Elements: Clone + Debug + Default + Serialize + DeserializeOwned;
    /// The kind's own settings ([`SimulatorOptions::detection`]).
    type Detection: Clone + Debug + Default + Serialize + DeserializeOwned;
    /// The discretized step: an MPCC in the piece's parameters.
    type Step;
    /// What the kind carries from piece to piece besides the state and the previous
    /// solution.
    type Carry: Clone + Debug;
    /// The simulation record (trajectory and reports).
    type Record: Record + Clone + Debug;
    /// What is read from a solved piece.
    type Outputs;
    /// How many fresh starts [`SimulationKind::fresh_starts`] makes.
    const FRESH_STARTS: usize;

    /// The kind's defaults.
    fn default_options() -> SimulatorOptions<Self>;
    /// Checks the discretization and the kind's settings.
    fn validate_options(opts: &SimulatorOptions<Self>) -> Result<()>;
    /// Discretizes one step (validating the model).
    fn discretize(&self, opts: &SimulatorOptions<Self>) -> Result<Self::Step>;
    /// The step's MPCC.
    fn mpcc(step: &Self::Step) -> &Mpcc;
    /// Sizes of the state, controls and parameters.
    fn dims(&self) -> Dims;
    /// Checks an initial point (beyond sizes and finiteness) and returns what a
    /// simulation from it starts with.
    fn start(step: &Self::Step, opts: &SimulatorOptions<Self>, x0: &[f64], u: &[f64], p: &[f64]) -> Result<Start<Self>>;
    /// Before a piece: a predicted switch in it, and whether to cut or halve it first.
    fn look_ahead(step: &Self::Step, opts: &SimulatorOptions<Self>, state: &SimState<Self>, piece: &Piece, io: Io) -> Result<LookAhead>;
    /// The piece's parameters and its start from the previous solution.
    fn prepare(
        step: &Self::Step,
        opts: &SimulatorOptions<Self>,
        state: &SimState<Self>,
        piece: &Piece,
        look: &LookAhead,
        io: Io,
    ) -> Result<Prepared>;
    /// The fresh starts at the current state, in the order tried (made only once the
    /// start from the previous solution has failed, or first where `Prepared::fresh_first`).
    fn fresh_starts(step: &Self::Step, state: &SimState<Self>, params: &[f64]) -> Result<Vec<Vec<f64>>>;
    /// True if the active set may change soon although the last piece went on calmly
    /// (the previous multipliers would mislead).
    fn surface_near(_step: &Self::Step, _opts: &SimulatorOptions<Self>, _state: &SimState<Self>, _io: Io, _len: f64) -> Result<bool> {
        Ok(false)
    }
    /// True if nothing switched (no active-set change, no impact) in the piece of
    /// `report`.
    fn went_on(record: &Self::Record, report: &StepReport) -> bool;
    /// Reads a solved piece.
    fn read(step: &Self::Step, opts: &SimulatorOptions<Self>, w: &[f64], params: &[f64]) -> Result<Self::Outputs>;
    /// Where to cut a converged piece again (first part's length, whether the switch is
    /// in it); `None` keeps it. `floor` is the shortest piece halving allows.
    fn recut(_step: &Self::Step, _opts: &SimulatorOptions<Self>, _out: &Self::Outputs, _len: f64, _floor: f64) -> Option<(f64, bool)> {
        None
    }
    /// Appends a solved piece to the record and moves `state.t`, `state.x` and
    /// `state.carry` to its end.
    fn record(step: &Self::Step, opts: &SimulatorOptions<Self>, state: &mut SimState<Self>, w: &[f64], out: Self::Outputs) -> Result<()>;
}

/// Sizes of a model's state, controls and parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// States.
    pub n_x: usize,
    /// Controls.
    pub n_u: usize,
    /// Parameters.
    pub n_p: usize,
}

/// The controls and parameters of the current piece.
#[derive(Clone, Copy, Debug)]
pub struct Io<'a> {
    /// Controls.
    pub u: &'a [f64],
    /// Parameters.
    pub p: &'a [f64],
}

/// What a simulation starts with (see [`SimulationKind::start`]).
pub struct Start<M: SimulationKind> {
    /// The kind's carried values at x0.
    pub carry: M::Carry,
    /// The first piece's start from a "previous solution" (empty: the kind makes it).
    pub guess: Vec<f64>,
    /// The record holding x0.
    pub record: M::Record,
}

/// A piece of a step still to be solved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    /// Its length.
    pub len: f64,
    /// How many times the planned step was halved to get here.
    pub depth: usize,
    /// Cut to a predicted switch.
    pub aligned: bool,
    /// A part of a piece re-cut at its switch ([`SimulationKind::recut`]).
    pub recut: bool,
    /// True if it may still be halved.
    pub may_halve: bool,
    /// Length of the planned step it belongs to.
    pub step: f64,
}

/// What the kind sees ahead of a piece.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LookAhead {
    /// The predicted time of a switch after the piece's start.
    pub predicted_switch: Option<f64>,
    /// Cut or halve the piece before any attempt.
    pub split: Option<Split>,
}

/// How a piece is split before it is attempted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Split {
    /// Two parts at the same halving depth, the first of this length (a predicted
    /// switch in the middle of one).
    Cut(f64),
    /// Two halves, one halving deeper (an attempt would fail).
    Halve,
}

/// A piece ready to be attempted.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    /// The step problem's parameters.
    pub params: Vec<f64>,
    /// The start from the previous solution (as the kind adapts it).
    pub warm: Vec<f64>,
    /// Try the fresh starts before the warm one.
    pub fresh_first: bool,
}

/// Where an attempt on a piece starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum From {
    /// The previous piece's solution (as the kind adapts it).
    Previous,
    /// The same, with the previous solve's multipliers (`warm_start_duals`).
    PreviousWithDuals,
    /// The i-th fresh start at the current state.
    Fresh(usize),
}

/// One attempt of a piece's plan.
struct Plan {
    tier: usize,
    h: HomotopyOptions,
    from: From,
}

/// A tier tried at least twice on pieces that could be halved and successful in
/// fewer than a quarter of them: halving is the better use of its iterations.
fn unproductive((tries, successes): (usize, usize)) -> bool {
    tries >= 2 && 4 * successes < tries
}

/// A step-by-step simulation in progress (see [`Simulator::start`]).
#[derive(Clone, Debug)]
pub struct SimState<M: SimulationKind> {
    /// Current time.
    pub t: f64,
    /// Current state.
    pub x: Vec<f64>,
    /// What the kind carries from piece to piece.
    pub carry: M::Carry,
    /// The last piece's solution, the next piece's start.
    guess: Vec<f64>,
    /// Its primal-dual point (`warm_start_duals`).
    duals: Option<DualStart>,
    steps_done: usize,
    /// Per tier of `homotopies`: (attempts, successes) on pieces that could still be
    /// halved, for `skip_unproductive_tiers`.
    tier_record: Vec<(usize, usize)>,
    started: Instant,
    /// The trajectory so far.
    pub result: M::Record,
}

impl<M: SimulationKind> SimState<M> {
    /// The last piece's NLP vector (in the step problem's layout); before the first
    /// step the kind's first start (possibly empty).
    pub fn solution(&self) -> &[f64] {
        &self.guess
    }

    /// True if the state is no longer finite (the simulation cannot go on).
    pub fn diverged(&self) -> bool {
        self.x.iter().any(|v| !v.is_finite())
    }

    /// The trajectory so far, with the timing up to now.
    pub fn into_result(mut self) -> M::Record {
        self.close_timing();
        self.result
    }

    fn close_timing(&mut self) {
        let total = self.started.elapsed().as_secs_f64();
        let timing = self.result.timing_mut();
        timing.total = total;
        timing.own = (timing.total - timing.ipopt - timing.kernels).max(0.0);
    }
}

/// A simulator for one model and scheme; the step problem is compiled once.
pub struct Simulator<M: SimulationKind = fesd_model::PssModel> {
    step: M::Step,
    solver: MpccSolver,
    opts: SimulatorOptions<M>,
    dims: Dims,
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

impl<M: SimulationKind> Simulator<M> {
    /// Validates the options, discretizes one step of `model` and compiles its MPCC.
    pub fn new(model: &M, opts: SimulatorOptions<M>) -> Result<Simulator<M>> {
        let t = Instant::now();
        opts.validate()?;
        let step = model.discretize(&opts)?;
        Self::with_step(model.dims(), step, opts, t)
    }

    /// The simulator of an already discretized step (options validated).
    pub(crate) fn with_step(dims: Dims, step: M::Step, opts: SimulatorOptions<M>, t: Instant) -> Result<Simulator<M>> {
        let first = opts.homotopies[0].clone();
        let mpcc = Mpcc { formulation: opts.formulation, ..M::mpcc(&step).clone() };
        let mut solver = MpccSolver::with_kernels(&mpcc, first.clone(), &CompileOptions::default(), opts.kernels)?;
        // Check every schedule now rather than at the first step that needs it.
        for h in opts.homotopies.iter().skip(1).chain(&opts.fallback_homotopy) {
            solver.set_options(h.clone())?;
        }
        solver.set_options(first)?;
        Ok(Simulator { step, solver, opts, dims, build_time: t.elapsed().as_secs_f64() })
    }

    /// The discretized step.
    pub fn step_problem(&self) -> &M::Step {
        &self.step
    }

    /// The options.
    pub fn options(&self) -> &SimulatorOptions<M> {
        &self.opts
    }

    /// Seconds spent building and compiling (or loading) the step problem.
    pub fn build_time(&self) -> f64 {
        self.build_time
    }

    /// Simulates `options().n_steps` steps of length `options().step` from `x0` with
    /// constant controls `u` and parameters `p`.
    pub fn simulate(&mut self, x0: &[f64], u: &[f64], p: &[f64]) -> Result<M::Record> {
        self.simulate_steps(x0, u, p, self.opts.step, self.opts.n_steps)
    }

    /// Simulates `n_steps` steps of length `step` (the compiled problem serves any step
    /// length; nothing is recompiled).
    pub fn simulate_steps(&mut self, x0: &[f64], u: &[f64], p: &[f64], step: f64, n_steps: usize) -> Result<M::Record> {
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

    /// Starts a step-by-step simulation at `x0`; advance it with [`Simulator::step`], a
    /// control of your choice each step (closed loop).
    pub fn start(&self, x0: &[f64], u: &[f64], p: &[f64]) -> Result<SimState<M>> {
        check("x0", x0, self.dims.n_x)?;
        check("u", u, self.dims.n_u)?;
        check("p", p, self.dims.n_p)?;
        let Start { carry, guess, mut record } = M::start(&self.step, &self.opts, x0, u, p)?;
        record.timing_mut().build = self.build_time;
        Ok(SimState {
            t: 0.0,
            x: x0.to_vec(),
            carry,
            guess,
            duals: None,
            steps_done: 0,
            tier_record: vec![(0, 0); self.opts.homotopies.len()],
            started: Instant::now(),
            result: record,
        })
    }

    /// One step of the configured length with control `u`; the state carries time,
    /// state, the kind's carried values and the previous solution (the next start).
    /// Returns whether every piece of the step converged.
    pub fn step(&mut self, state: &mut SimState<M>, u: &[f64], p: &[f64]) -> Result<bool> {
        let length = self.opts.step;
        self.step_with_length(state, u, p, length)
    }

    /// As [`Simulator::step`] with a step of the given length.
    pub fn step_with_length(&mut self, state: &mut SimState<M>, u: &[f64], p: &[f64], length: f64) -> Result<bool> {
        if !(length.is_finite() && length > 0.0) {
            return Err(SimError::InvalidOption { name: "step", reason: format!("{length} must be positive and finite") });
        }
        check("u", u, self.dims.n_u)?;
        check("p", p, self.dims.n_p)?;
        let io = Io { u, p };
        let k = state.steps_done;
        state.steps_done += 1;
        let mut all_converged = true;
        // The shortest piece halving allows (`as i32` would wrap for a huge halving
        // count; 2^-1100 is already 0).
        let floor = length / 2f64.powi(self.opts.max_step_halvings.min(1100) as i32);
        let max_halvings = self.opts.max_step_halvings;
        let piece_at = move |len: f64, depth: usize, aligned: bool, recut: bool| Piece {
            len,
            depth,
            aligned,
            recut,
            may_halve: depth < max_halvings,
            step: length,
        };
        // Pieces of this step still to do, as a stack (the second part pushed first).
        let mut pieces = vec![piece_at(length, 0, false, false)];
        while let Some(piece) = pieces.pop() {
            let look = M::look_ahead(&self.step, &self.opts, state, &piece, io)?;
            match look.split {
                Some(Split::Cut(first)) => {
                    pieces.push(piece_at(piece.len - first, piece.depth, true, piece.recut));
                    pieces.push(piece_at(first, piece.depth, true, piece.recut));
                    continue;
                }
                Some(Split::Halve) => {
                    let half = piece_at(piece.len / 2.0, piece.depth + 1, piece.aligned, piece.recut);
                    pieces.extend([half, half]);
                    continue;
                }
                None => {}
            }
            let prep = M::prepare(&self.step, &self.opts, state, &piece, &look, io)?;
            self.solver.set_parameters(&prep.params)?;
            // The previous piece's multipliers fit where the active set goes on.
            let calm = |s: &StepReport| s.calm() && M::went_on(&state.result, s);
            let dual_start = self.opts.warm_start_duals
                && !prep.fresh_first
                && state.result.steps().last().is_some_and(calm)
                && !M::surface_near(&self.step, &self.opts, state, io, piece.len)?;
            let duals = state.duals.clone().filter(|_| dual_start);
            let (r, tries) = self.attempt_piece(state, &prep, piece.may_halve, duals.as_ref())?;
            let converged = r.status.is_converged();
            let report = StepReport::new(k, state.t, piece.len, piece.depth, &r, tries);
            let steps = state.result.steps_mut();
            steps.push(StepReport {
                switch_predicted: look.predicted_switch.is_some(),
                predicted_switch: look.predicted_switch,
                aligned_to_switch: piece.aligned,
                halved: !converged && piece.may_halve,
                ..report
            });
            if !converged && piece.may_halve {
                let half = piece_at(piece.len / 2.0, piece.depth + 1, piece.aligned, piece.recut);
                pieces.extend([half, half]);
                continue;
            }
            let out = M::read(&self.step, &self.opts, &r.w, &prep.params)?;
            if converged && !piece.recut {
                if let Some((first, in_first)) = M::recut(&self.step, &self.opts, &out, piece.len, floor) {
                    if let Some(last) = state.result.steps_mut().last_mut() {
                        last.recut_at_switch = true;
                    }
                    pieces.push(piece_at(piece.len - first, piece.depth, piece.aligned, !in_first));
                    pieces.push(piece_at(first, piece.depth, piece.aligned, in_first));
                    continue;
                }
            }
            M::record(&self.step, &self.opts, state, &r.w, out)?;
            state.guess = r.w;
            state.duals = if converged { self.solver.dual_start() } else { None };
            if !converged {
                state.result.set_incomplete();
                all_converged = false;
                if self.opts.on_failure == OnStepFailure::Stop {
                    break;
                }
            }
            if state.diverged() {
                state.result.set_incomplete();
                return Ok(false);
            }
        }
        state.close_timing();
        Ok(all_converged)
    }

    /// Tries the homotopy tiers on the current piece (parameters already set) until one
    /// converges: the first `tiers_before_halving` where the piece may still be halved,
    /// every tier and then the fallback where it may not. The first tier (every tier
    /// with `fresh_starts_on_every_tier`) runs from the previous solution and, if that
    /// fails, from each fresh start at the current state — fresh first where the kind
    /// says so (`Prepared::fresh_first`); the other tiers run from the previous
    /// solution. Evidence: `docs/evidence/sim.md`, "The tiers".
    fn attempt_piece(
        &mut self,
        state: &mut SimState<M>,
        prep: &Prepared,
        may_halve: bool,
        duals: Option<&DualStart>,
    ) -> Result<(MpccResult, Vec<Attempt>)> {
        let opts = &self.opts;
        let n = opts.homotopies.len();
        let tiers = if may_halve { opts.tiers_before_halving.min(n) } else { n };
        let fallback = if may_halve { None } else { opts.fallback_homotopy.clone() };
        let schedules: Vec<(usize, HomotopyOptions)> = opts.homotopies[..tiers].iter().cloned().chain(fallback).enumerate().collect();
        let mut fresh: Option<Vec<Vec<f64>>> = None;
        let mut plan: Vec<Plan> = Vec::new();
        for (tier, h) in schedules {
            if may_halve && opts.skip_unproductive_tiers && tier > 0 && unproductive(state.tier_record[tier]) {
                continue;
            }
            let with_fresh = plan.is_empty() || opts.fresh_starts_on_every_tier;
            let mut tier_plan = vec![Plan { tier, h: h.clone(), from: From::Previous }];
            if with_fresh {
                let n_fresh = M::FRESH_STARTS;
                let mut hf = h;
                if let Some(max_iter) = opts.neutral_start_max_iter {
                    hf.max_iter = max_iter;
                }
                let starts = (0..n_fresh).map(|i| Plan { tier, h: hf.clone(), from: From::Fresh(i) });
                if prep.fresh_first {
                    tier_plan.splice(0..0, starts);
                } else {
                    tier_plan.extend(starts);
                }
            }
            plan.extend(tier_plan);
        }
        if let (Some(at), Some(_)) = (plan.iter().position(|p| p.from == From::Previous), duals) {
            let mut with_duals = Plan { tier: plan[at].tier, h: plan[at].h.clone(), from: From::PreviousWithDuals };
            (with_duals.h.stall_iterations, with_duals.h.stall_warmup) = DUAL_START_STALL;
            if opts.retry_without_duals {
                plan.insert(at, with_duals);
            } else {
                plan[at] = with_duals;
            }
        }
        let mut last = None;
        let mut tries = Vec::new();
        for Plan { tier, h, from } in plan {
            self.solver.set_options(h)?;
            match from {
                From::Fresh(i) => {
                    if fresh.is_none() {
                        fresh = Some(M::fresh_starts(&self.step, state, &prep.params)?);
                    }
                    let Some(start) = fresh.as_ref().and_then(|f| f.get(i)) else { continue };
                    self.solver.set_initial_guess(start)?;
                }
                From::Previous => self.solver.set_initial_guess(&prep.warm)?,
                From::PreviousWithDuals => match duals {
                    Some(d) => self.solver.set_initial_guess_with_duals(&prep.warm, d)?,
                    None => self.solver.set_initial_guess(&prep.warm)?,
                },
            }
            let this = self.solver.solve();
            let timing = state.result.timing_mut();
            timing.ipopt += this.timing.ipopt;
            timing.kernels += this.timing.kernels;
            tries.push(Attempt {
                tier,
                neutral_start: matches!(from, From::Fresh(_)),
                with_duals: from == From::PreviousWithDuals,
                status: this.status,
                iterations: this.total_iterations,
                nlps: this.steps.len(),
                comp_residual: this.comp_residual,
                wall_time: this.timing.total,
            });
            let done = this.status.is_converged();
            if may_halve && tier < state.tier_record.len() {
                state.tier_record[tier].0 += 1;
                state.tier_record[tier].1 += usize::from(done);
            }
            last = Some(this);
            if done {
                break;
            }
        }
        let r = last.ok_or(SimError::InvalidOption { name: "homotopies", reason: "no homotopy to try".into() })?;
        Ok((r, tries))
    }
}
