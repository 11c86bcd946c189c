//! Rigid bodies as a simulation kind: the FESD-J step of a [`ClsModel`] (state
//! x = (q, v), v before any impulse), the resting and the predicted contact-free
//! starts, halving ahead of a contact that closes within the first element, and the
//! record of positions, velocities and impacts ([`ClsSimulation`]).

use crate::engine::{Dims, Io, LookAhead, Piece, Prepared, SimState, SimulationKind, Split, Start};
use crate::error::{Result, SimError};
use crate::options::SimulatorOptions;
use crate::report::{record_with_reports, OnStepFailure, SimulationTiming, StepReport};
use fesd_cls::{ClsModel, ClsOptions, ClsStep};
use fesd_mpcc::{presets, Mpcc};
use serde::{Deserialize, Serialize};

/// Impact detection of rigid bodies ([`SimulatorOptions::detection`] of a
/// [`ClsModel`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImpactDetection {
    /// A normal impulse above this is reported as an impact (default 1e-6).
    pub impact_tol: f64,
}

impl Default for ImpactDetection {
    fn default() -> Self {
        ImpactDetection { impact_tol: 1e-6 }
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

/// A rigid-body simulation: element boundaries, states, impacts, piece reports.
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
    /// One report per piece that ran (pieces given up and replaced by two halves are
    /// marked `halved`).
    pub steps: Vec<StepReport>,
    /// True if every piece kept converged.
    pub completed: bool,
    /// Time split.
    pub timing: SimulationTiming,
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
}

record_with_reports!(ClsSimulation);

/// Numbers read from one solved piece.
pub struct RigidPiece {
    h: Vec<f64>,
    q: Vec<f64>,
    v: Vec<f64>,
    v_post: Vec<f64>,
    impulse: Vec<f64>,
}

/// The parameters `(q0, v0, u, p, T)` of a piece from the state x = (q, v), by name.
fn piece_parameters(step: &ClsStep, x: &[f64], io: Io, len: f64) -> Result<Vec<f64>> {
    let (q, v) = x.split_at(step.layout.n_q);
    let named = [("q0", q), ("v0", v), ("u", io.u), ("p", io.p), ("len", &[len][..])];
    step.parameters.fill(&named).ok_or(SimError::BadInput { what: "x0", reason: "does not fit the step's parameters".into() })
}

impl SimulationKind for ClsModel {
    type Elements = ClsOptions;
    type Detection = ImpactDetection;
    type Step = ClsStep;
    type Carry = ();
    type Record = ClsSimulation;
    type Outputs = RigidPiece;
    const FRESH_STARTS: usize = 2;

    /// Every tier from the previous solution, the resting guess and the prediction;
    /// failures go on. Evidence: `docs/evidence/cls.md`, "The three starts".
    fn default_options() -> SimulatorOptions<ClsModel> {
        let homotopies = presets::simulation_tiers();
        SimulatorOptions {
            fesd: ClsOptions::default(),
            step: 0.1,
            n_steps: 10,
            tiers_before_halving: homotopies.len(),
            homotopies,
            formulation: presets::simulation_formulation(),
            fallback_homotopy: None,
            on_failure: OnStepFailure::Continue,
            max_step_halvings: 5,
            fresh_starts_on_every_tier: true,
            skip_unproductive_tiers: false,
            warm_start_duals: true,
            retry_without_duals: true,
            neutral_start_max_iter: None,
            kernels: Default::default(),
            detection: ImpactDetection::default(),
        }
    }

    fn validate_options(opts: &SimulatorOptions<ClsModel>) -> Result<()> {
        let tol = opts.detection.impact_tol;
        if !(tol.is_finite() && tol > 0.0) {
            return Err(SimError::InvalidOption { name: "impact_tol", reason: format!("{tol} must be positive") });
        }
        opts.fesd.validate()?;
        Ok(())
    }

    fn discretize(&self, opts: &SimulatorOptions<ClsModel>) -> Result<ClsStep> {
        Ok(ClsStep::new(self, &opts.fesd)?)
    }

    fn mpcc(step: &ClsStep) -> &Mpcc {
        &step.mpcc
    }

    fn dims(&self) -> Dims {
        Dims { n_x: 2 * self.n_q(), n_u: self.u.nrow(), n_p: self.p.nrow() }
    }

    /// q0 must not penetrate a contact; the first piece starts from its prediction.
    fn start(step: &ClsStep, opts: &SimulatorOptions<ClsModel>, x0: &[f64], _u: &[f64], p: &[f64]) -> Result<Start<ClsModel>> {
        let n_q = step.layout.n_q;
        let (q0, v0) = x0.split_at(n_q);
        let gaps = step.gaps.eval_dense(&[q0, p])?.remove(0);
        if let Some((l, g)) = gaps.iter().enumerate().find(|(_, g)| **g < -opts.fesd.contact_tol) {
            return Err(SimError::BadInput { what: "x0", reason: format!("q0 penetrates contact {l} (gap {g:e} < 0)") });
        }
        let record = ClsSimulation {
            t: vec![0.0],
            q: vec![q0.to_vec()],
            v: vec![v0.to_vec()],
            impacts: vec![],
            steps: vec![],
            completed: true,
            timing: SimulationTiming::default(),
        };
        Ok(Start { carry: (), guess: vec![], record })
    }

    /// Halve first where a contact open at the start of the piece (gap above
    /// `contact_tol`, so no impulse at t = 0) closes, moving on with the current
    /// velocity, before the shortest first element the piece allows, (1 − γ_h) ·
    /// length / N_FE, can end. With cross complementarity an element whose start is
    /// open carries no contact force, so such a piece has no solution and every attempt
    /// at it would fail; halving it first saves them.
    fn look_ahead(
        step: &ClsStep,
        opts: &SimulatorOptions<ClsModel>,
        state: &SimState<ClsModel>,
        piece: &Piece,
        io: Io,
    ) -> Result<LookAhead> {
        let cls = &opts.fesd;
        if !(piece.may_halve && cls.use_fesd) {
            return Ok(LookAhead::default());
        }
        let (q, v) = state.x.split_at(step.layout.n_q);
        let h_min = (1.0 - cls.gamma_h) * piece.len / cls.n_fe as f64;
        let ahead: Vec<f64> = q.iter().zip(v).map(|(q, v)| q + h_min * v).collect();
        let now = step.gaps.eval_dense(&[q, io.p])?.remove(0);
        let then = step.gaps.eval_dense(&[&ahead, io.p])?.remove(0);
        let closes = now.iter().zip(&then).any(|(g0, g1)| *g0 > cls.contact_tol && *g1 < -cls.contact_tol);
        Ok(LookAhead { predicted_switch: None, split: closes.then_some(Split::Halve) })
    }

    fn prepare(
        step: &ClsStep,
        _opts: &SimulatorOptions<ClsModel>,
        state: &SimState<ClsModel>,
        piece: &Piece,
        _look: &LookAhead,
        io: Io,
    ) -> Result<Prepared> {
        let params = piece_parameters(step, &state.x, io, piece.len)?;
        let warm = if state.solution().is_empty() { step.initial_guess(&params)? } else { state.solution().to_vec() };
        Ok(Prepared { params, warm, fresh_first: false })
    }

    /// The resting guess at the current state (impulses and forces zero), then the
    /// predicted contact-free motion.
    fn fresh_starts(step: &ClsStep, state: &SimState<ClsModel>, params: &[f64]) -> Result<Vec<Vec<f64>>> {
        let (q, v) = state.x.split_at(step.layout.n_q);
        Ok(vec![step.resting_guess(q, v)?, step.initial_guess(params)?])
    }

    /// No impact since the piece's start.
    fn went_on(record: &ClsSimulation, s: &StepReport) -> bool {
        !record.impacts.iter().any(|i| i.time > s.t_start - 1e-12)
    }

    fn read(step: &ClsStep, _opts: &SimulatorOptions<ClsModel>, w: &[f64], params: &[f64]) -> Result<RigidPiece> {
        let out = step.outputs.eval_dense(&[w, params])?;
        let mut it = out.into_iter();
        let mut next = || it.next().unwrap_or_default();
        let (h, q, v, v_post, impulse) = (next(), next(), next(), next(), next());
        Ok(RigidPiece { h, q, v, v_post, impulse })
    }

    fn record(
        step: &ClsStep,
        opts: &SimulatorOptions<ClsModel>,
        state: &mut SimState<ClsModel>,
        _w: &[f64],
        piece: RigidPiece,
    ) -> Result<()> {
        let l = &step.layout;
        let (n_q, n_c) = (l.n_q, l.n_c);
        let sim = &mut state.result;
        let mut t = state.t;
        for n in 0..l.n_fe {
            for c in 0..n_c {
                let imp = piece.impulse[n * n_c + c];
                if imp > opts.detection.impact_tol {
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
        state.t = t;
        state.x = [sim.q_final(), sim.v_final()].concat();
        Ok(())
    }
}

impl crate::Simulator<ClsModel> {
    /// As [`Simulator::simulate`](crate::Simulator::simulate) from positions `q0` and
    /// velocities `v0` (x0 = (q0, v0)).
    pub fn simulate_from(&mut self, q0: &[f64], v0: &[f64], u: &[f64], p: &[f64]) -> Result<ClsSimulation> {
        let n_q = self.step_problem().layout.n_q;
        for (what, vals) in [("q0", q0), ("v0", v0)] {
            if vals.len() != n_q {
                return Err(SimError::BadInput { what, reason: format!("has {} entries, the model needs {n_q}", vals.len()) });
            }
        }
        self.simulate(&[q0, v0].concat(), u, p)
    }
}
