//! Simulation of rigid-body models step after step with FESD-J: impacts land on
//! element boundaries and are reported with their times and impulses.

use crate::error::{ClsError, Result};
use crate::model::ClsModel;
use crate::options::ClsOptions;
use crate::step::ClsStep;
use fesd_mpcc::presets::{DUAL_START_AFTER, DUAL_START_STALL};
use fesd_mpcc::{CompileOptions, HomotopyOptions, Kernels, MpccResult, MpccSolver, MpccStatus};
use serde::{Deserialize, Serialize};

/// Options of a rigid-body simulation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClsSimulatorOptions {
    /// The FESD-J discretization of each step.
    pub cls: ClsOptions,
    /// Length of one simulation step (default 0.1).
    pub step: f64,
    /// Number of steps (default 10).
    pub n_steps: usize,
    /// The MPCC homotopies tried on each step, in order, each from three starts: the
    /// previous step's solution, a resting guess at the current state (impulses and forces
    /// re-initialized to zero), the predicted contact-free motion (default: the
    /// switched-system simulator's three tiers). Evidence: `docs/evidence/cls.md`, "The three starts".
    pub homotopies: Vec<HomotopyOptions>,
    /// A step on which every homotopy fails is retried as two halves, up to this many
    /// times in a row (default 5).
    pub max_step_halvings: usize,
    /// Before the starts above, a piece whose predecessor converged at its first attempt in
    /// at most 20 Ipopt iterations without an impact is tried once from the previous
    /// solution with its multipliers (an Ipopt warm start, as
    /// `fesd_sim::SimulatorOptions::warm_start_duals`; stall rule from Ipopt's 4th
    /// iteration, 3 short steps) (default true). Evidence: `docs/evidence/cls.md`, "warm_start_duals".
    pub warm_start_duals: bool,
    /// A normal impulse above this is reported as an impact (default 1e-6).
    pub impact_tol: f64,
    /// How the step problem's kernels are evaluated (default [`Kernels::Auto`], as
    /// `fesd_sim::SimulatorOptions::kernels`).
    pub kernels: Kernels,
}

impl Default for ClsSimulatorOptions {
    fn default() -> Self {
        ClsSimulatorOptions {
            cls: ClsOptions::default(),
            step: 0.1,
            n_steps: 10,
            homotopies: fesd_mpcc::presets::simulation_tiers(),
            max_step_halvings: 5,
            warm_start_duals: true,
            impact_tol: 1e-6,
            kernels: Kernels::default(),
        }
    }
}

impl ClsSimulatorOptions {
    /// Checks ranges and every homotopy.
    pub fn validate(&self) -> Result<()> {
        let bad = |name, reason: String| Err(ClsError::InvalidOption { name, reason });
        if self.n_steps == 0 {
            return bad("n_steps", "needs at least one step".into());
        }
        if !(self.step.is_finite() && self.step > 0.0) {
            return bad("step", format!("{} must be positive and finite", self.step));
        }
        if !(self.impact_tol.is_finite() && self.impact_tol > 0.0) {
            return bad("impact_tol", format!("{} must be positive", self.impact_tol));
        }
        if self.homotopies.is_empty() {
            return bad("homotopies", "needs at least one homotopy".into());
        }
        for h in &self.homotopies {
            h.validate()?;
        }
        self.cls.validate()?;
        Ok(())
    }
}

/// One impact: an element boundary where a normal impulse acted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Impact {
    /// Time of the impact.
    pub time: f64,
    /// Index of the contact.
    pub contact: usize,
    /// Normal impulse Λ_n.
    pub impulse: f64,
    /// Velocity before the impact.
    pub v_before: Vec<f64>,
    /// Velocity after it.
    pub v_after: Vec<f64>,
}

/// How one step (or a halved part of one) went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClsStepReport {
    /// Start time.
    pub t_start: f64,
    /// Length.
    pub length: f64,
    /// Halvings of the planned step to get here.
    pub halvings: usize,
    /// The MPCC status of the attempt kept.
    pub status: MpccStatus,
    /// Homotopy attempts made (each tier from the warm start, the resting guess and
    /// the prediction).
    pub attempts: usize,
    /// True if the attempt kept started from a re-initialized guess (resting or
    /// predicted: impulses and forces zero) because the warm start had failed.
    pub reinitialized: bool,
    /// Ipopt iterations of all attempts.
    pub iterations: usize,
}

/// A rigid-body simulation: element boundaries, states, impacts, step reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClsSimulation {
    /// Times of the element boundaries.
    pub t: Vec<f64>,
    /// Positions at the boundaries.
    pub q: Vec<Vec<f64>>,
    /// Velocities at the boundaries, before any impulse there.
    pub v: Vec<Vec<f64>>,
    /// Detected impacts, in time order.
    pub impacts: Vec<Impact>,
    /// One report per solved piece.
    pub steps: Vec<ClsStepReport>,
    /// Reports of the pieces given up and replaced by two halves (every attempt
    /// failed): what the halving cost.
    #[serde(default)]
    pub halved: Vec<ClsStepReport>,
}

impl ClsSimulation {
    /// Final positions.
    pub fn q_final(&self) -> &[f64] {
        self.q.last().map_or(&[], |v| v.as_slice())
    }

    /// Final velocities.
    pub fn v_final(&self) -> &[f64] {
        self.v.last().map_or(&[], |v| v.as_slice())
    }

    /// Times of the impacts.
    pub fn impact_times(&self) -> Vec<f64> {
        self.impacts.iter().map(|i| i.time).collect()
    }

    /// Ipopt iterations of every step.
    pub fn total_iterations(&self) -> usize {
        self.steps.iter().map(|s| s.iterations).sum()
    }

    /// Ipopt iterations of the pieces given up and halved (not in
    /// [`ClsSimulation::total_iterations`]).
    pub fn halved_iterations(&self) -> usize {
        self.halved.iter().map(|s| s.iterations).sum()
    }

    /// Steps whose MPCC did not converge (their last iterate was kept).
    pub fn failed_steps(&self) -> Vec<&ClsStepReport> {
        self.steps.iter().filter(|s| !s.status.is_converged()).collect()
    }
}

/// Simulates a rigid-body model with one compiled step problem.
pub struct ClsSimulator {
    step: ClsStep,
    solver: MpccSolver,
    opts: ClsSimulatorOptions,
    n_u: usize,
    n_p: usize,
}

/// Numbers read from one solved piece.
struct Piece {
    h: Vec<f64>,
    q: Vec<f64>,
    v: Vec<f64>,
    v_post: Vec<f64>,
    impulse: Vec<f64>,
}

impl ClsSimulator {
    /// Validates the model and options and compiles the step problem.
    pub fn new(model: &ClsModel, opts: ClsSimulatorOptions) -> Result<ClsSimulator> {
        opts.validate()?;
        let step = ClsStep::new(model, &opts.cls)?;
        let solver = MpccSolver::with_kernels(&step.mpcc, opts.homotopies[0].clone(), &CompileOptions::default(), opts.kernels)?;
        Ok(ClsSimulator { step, solver, opts, n_u: model.u.numel(), n_p: model.p.numel() })
    }

    /// The discretized step.
    pub fn step_problem(&self) -> &ClsStep {
        &self.step
    }

    /// Sizes and values of an initial state, controls and parameters; q0 must not
    /// penetrate a contact.
    fn check_inputs(&self, q0: &[f64], v0: &[f64], u: &[f64], p: &[f64]) -> Result<()> {
        let n_q = self.step.layout.n_q;
        for (what, vals, n) in [("q0", q0, n_q), ("v0", v0, n_q), ("u", u, self.n_u), ("p", p, self.n_p)] {
            if vals.len() != n {
                return Err(ClsError::BadInput { what, reason: format!("has {} entries, the model needs {n}", vals.len()) });
            }
            if let Some(x) = vals.iter().find(|x| !x.is_finite()) {
                return Err(ClsError::BadInput { what, reason: format!("contains {x}") });
            }
        }
        let gaps = self.step.gaps.eval_dense(&[q0, p])?.remove(0);
        if let Some((l, g)) = gaps.iter().enumerate().find(|(_, g)| **g < -self.opts.cls.contact_tol) {
            return Err(ClsError::BadInput { what: "q0", reason: format!("penetrates contact {l} (gap {g:e} < 0)") });
        }
        Ok(())
    }

    /// Solves one piece of length `length` from `(q, v)` with the control `u`, without
    /// halving: every homotopy from the predicted motion, then from the resting guess.
    /// The result's `w` is laid out as [`ClsStep`]'s (a failed piece returns its last
    /// iterate with its status).
    pub fn solve_piece(&mut self, q: &[f64], v: &[f64], u: &[f64], p: &[f64], length: f64) -> Result<MpccResult> {
        self.check_inputs(q, v, u, p)?;
        if !(length.is_finite() && length > 0.0) {
            return Err(ClsError::BadInput { what: "length", reason: format!("{length} must be positive and finite") });
        }
        let params: Vec<f64> = q.iter().chain(v).chain(u).chain(p).copied().chain([length]).collect();
        self.solver.set_parameters(&params)?;
        let guess = self.step.initial_guess(&params)?;
        Ok(self.attempt(&guess, (q, v, &params), 0.0, length, 0, false)?.0)
    }

    /// Simulates `n_steps` steps of length `step` from `(q0, v0)` with constant
    /// controls `u` and parameters `p`.
    pub fn simulate(&mut self, q0: &[f64], v0: &[f64], u: &[f64], p: &[f64]) -> Result<ClsSimulation> {
        self.check_inputs(q0, v0, u, p)?;
        let mut sim = ClsSimulation { t: vec![0.0], q: vec![q0.to_vec()], v: vec![v0.to_vec()], ..Default::default() };
        let mut guess = Vec::new();
        for k in 0..self.opts.n_steps {
            let t0 = k as f64 * self.opts.step;
            self.advance(&mut sim, &mut guess, u, p, t0, self.opts.step, 0)?;
        }
        Ok(sim)
    }

    /// Solves one piece from the last state of `sim`; on failure of every homotopy,
    /// two halves (while allowed); the last failure is accepted with its iterate.
    // See `advance_halves`.
    #[allow(clippy::too_many_arguments)]
    fn advance(
        &mut self,
        sim: &mut ClsSimulation,
        guess: &mut Vec<f64>,
        u: &[f64],
        p: &[f64],
        t0: f64,
        length: f64,
        halvings: usize,
    ) -> Result<()> {
        let (q, v) = (sim.q_final().to_vec(), sim.v_final().to_vec());
        let params: Vec<f64> = q.iter().chain(&v).chain(u).chain(p).copied().chain([length]).collect();
        self.solver.set_parameters(&params)?;
        if guess.is_empty() {
            *guess = self.step.initial_guess(&params)?;
        }
        let may_halve = halvings < self.opts.max_step_halvings;
        if may_halve && self.closes_within_first_element(&q, &v, p, length)? {
            return self.advance_halves(sim, guess, u, p, t0, length, halvings);
        }
        // The previous piece's multipliers fit where its contacts went on unchanged.
        let went_on = |r: &ClsStepReport| {
            r.status.is_converged()
                && r.attempts == 1
                && r.iterations <= DUAL_START_AFTER
                && !sim.impacts.iter().any(|i| i.time > r.t_start - 1e-12)
        };
        let dual_start = self.opts.warm_start_duals && sim.steps.last().is_some_and(went_on);
        let (result, report) = self.attempt(guess, (&q, &v, &params), t0, length, halvings, dual_start)?;
        if !result.status.is_converged() && may_halve {
            sim.halved.push(report);
            return self.advance_halves(sim, guess, u, p, t0, length, halvings);
        }
        let piece = self.read(&result.w, &params)?;
        self.record(sim, &piece, t0);
        sim.steps.push(report);
        *guess = result.w;
        Ok(())
    }

    /// The piece `[t0, t0 + length]` as two halves, one halving deeper.
    // The piece's state comes in as separate arguments until the simulators share one
    // engine (a piece struct of its own).
    #[allow(clippy::too_many_arguments)]
    fn advance_halves(
        &mut self,
        sim: &mut ClsSimulation,
        guess: &mut Vec<f64>,
        u: &[f64],
        p: &[f64],
        t0: f64,
        length: f64,
        halvings: usize,
    ) -> Result<()> {
        let half = length / 2.0;
        self.advance(sim, guess, u, p, t0, half, halvings + 1)?;
        self.advance(sim, guess, u, p, t0 + half, half, halvings + 1)
    }

    /// True if a contact open at the start of a piece of `length` (gap above
    /// `contact_tol`, so no impulse at t = 0) closes, moving on with the velocity
    /// `v`, before the shortest first element the piece allows, (1 − γ_h) ·
    /// length / N_FE, can end. With cross complementarity an element whose start is
    /// open carries no contact force, so such a piece has no solution and every
    /// attempt at it would fail; halving it first saves them.
    fn closes_within_first_element(&self, q: &[f64], v: &[f64], p: &[f64], length: f64) -> Result<bool> {
        let cls = &self.opts.cls;
        if !cls.use_fesd {
            return Ok(false);
        }
        let h_min = (1.0 - cls.gamma_h) * length / cls.n_fe as f64;
        let ahead: Vec<f64> = q.iter().zip(v).map(|(q, v)| q + h_min * v).collect();
        let now = self.step.gaps.eval_dense(&[q, p])?.remove(0);
        let then = self.step.gaps.eval_dense(&[&ahead, p])?.remove(0);
        Ok(now.iter().zip(&then).any(|(g0, g1)| *g0 > cls.contact_tol && *g1 < -cls.contact_tol))
    }

    /// Every tier from the warm start `guess`, then the resting guess and the
    /// prediction at `(q, v, params)` (built only once the warm start has failed).
    fn attempt(
        &mut self,
        guess: &[f64],
        (q, v, params): (&[f64], &[f64], &[f64]),
        t0: f64,
        length: f64,
        halvings: usize,
        dual_start: bool,
    ) -> Result<(MpccResult, ClsStepReport)> {
        let mut report = ClsStepReport {
            t_start: t0,
            length,
            halvings,
            status: MpccStatus::CompTolNotReached,
            attempts: 0,
            reinitialized: false,
            iterations: 0,
        };
        let mut last = None;
        if dual_start {
            let mut h = self.opts.homotopies[0].clone();
            (h.stall_iterations, h.stall_warmup) = DUAL_START_STALL;
            self.solver.set_options(h)?;
            match self.solver.dual_start() {
                Some(d) => self.solver.set_initial_guess_with_duals(guess, &d)?,
                None => self.solver.set_initial_guess(guess)?,
            }
            let r = self.solve_counted(&mut report, false);
            if r.status.is_converged() {
                return Ok((r, report));
            }
        }
        let mut fresh: Vec<Vec<f64>> = Vec::new();
        for h in self.opts.homotopies.clone() {
            self.solver.set_options(h)?;
            for i in 0..3 {
                if i > 0 && fresh.is_empty() {
                    fresh = vec![self.step.resting_guess(q, v)?, self.step.initial_guess(params)?];
                }
                let start = if i == 0 { guess } else { &fresh[i - 1] };
                self.solver.set_initial_guess(start)?;
                let r = self.solve_counted(&mut report, i > 0);
                if r.status.is_converged() {
                    return Ok((r, report));
                }
                last = Some(r);
            }
        }
        let r = last.ok_or(ClsError::InvalidOption { name: "homotopies", reason: "no homotopy to try".into() })?;
        Ok((r, report))
    }

    /// One solve from the start already set, counted in `report` (`reinitialized`:
    /// the start is not the warm one).
    fn solve_counted(&mut self, report: &mut ClsStepReport, reinitialized: bool) -> MpccResult {
        let r = self.solver.solve();
        report.attempts += 1;
        report.iterations += r.total_iterations;
        report.status = r.status;
        report.reinitialized = reinitialized;
        r
    }

    fn read(&self, w: &[f64], params: &[f64]) -> Result<Piece> {
        let out = self.step.outputs.eval_dense(&[w, params])?;
        let mut it = out.into_iter();
        let mut next = || it.next().unwrap_or_default();
        let h = next();
        let q = next();
        let v = next();
        let v_post = next();
        let impulse = next();
        Ok(Piece { h, q, v, v_post, impulse })
    }

    fn record(&self, sim: &mut ClsSimulation, piece: &Piece, t0: f64) {
        let l = &self.step.layout;
        let (n_q, n_c) = (l.n_q, l.n_c);
        let mut t = t0;
        for n in 0..l.n_fe {
            for c in 0..n_c {
                let imp = piece.impulse[n * n_c + c];
                if imp > self.opts.impact_tol {
                    sim.impacts.push(Impact {
                        time: t,
                        contact: c,
                        impulse: imp,
                        v_before: piece.v[n * n_q..(n + 1) * n_q].to_vec(),
                        v_after: piece.v_post[n * n_q..(n + 1) * n_q].to_vec(),
                    });
                }
            }
            t += piece.h[n];
            sim.t.push(t);
            sim.q.push(piece.q[(n + 1) * n_q..(n + 2) * n_q].to_vec());
            sim.v.push(piece.v[(n + 1) * n_q..(n + 2) * n_q].to_vec());
        }
    }
}
