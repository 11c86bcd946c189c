//! Options of a simulation: the step discretization of the model's kind, the step
//! grid, the homotopy tiers with halving and warm starts (shared by every kind), and
//! the kind's own detection settings. One owner per field, validated once by
//! [`SimulatorOptions::validate`].

use crate::engine::SimulationKind;
use crate::error::{Result, SimError};
use crate::report::OnStepFailure;
use fesd_mpcc::{Formulation, HomotopyOptions, Kernels};
use serde::{Deserialize, Serialize};

/// Options of a simulation of a model of kind `M` ([`fesd_model::PssModel`]: switched
/// systems, the default; `fesd_cls::ClsModel`: rigid bodies). Defaults differ by kind
/// where the kinds were measured apart (see each field).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default, bound = "")]
pub struct SimulatorOptions<M: SimulationKind = fesd_model::PssModel> {
    /// The discretization of each step (`FesdOptions` or `ClsOptions`).
    pub fesd: M::Elements,
    /// Length of one simulation step (T of each FESD interval; default 0.1).
    pub step: f64,
    /// Number of steps (default 10).
    pub n_steps: usize,
    /// The MPCC homotopies tried on each step, in order, until one converges (switched
    /// systems: one NLP at σ = 1e-9, then a short homotopy; rigid bodies: the three
    /// tiers of `fesd_mpcc::presets::simulation_tiers`).
    pub homotopies: Vec<HomotopyOptions>,
    /// What the step's MPCC solver compiles in (default
    /// [`presets::simulation_formulation`](fesd_mpcc::presets::simulation_formulation):
    /// direct steering, no active-set finish), shared by every tier.
    pub formulation: Formulation,
    /// The homotopy tried when every tier fails on a piece that may not be halved any
    /// more (None: accept the failure; switched systems: the robust homotopy, rigid
    /// bodies: None).
    pub fallback_homotopy: Option<HomotopyOptions>,
    /// Failure policy (switched systems: stop; rigid bodies: continue from the last
    /// iterate).
    pub on_failure: OnStepFailure,
    /// A step on which every tier fails is retried as two steps of half the length, up
    /// to this many times in a row (default 5; 0 disables); after the last halving the
    /// fallback homotopy gets its turn. More active-set changes than finite elements in
    /// one step (e.g. reaching and leaving a sliding mode) make the step's MPCC
    /// infeasible; halving the step gives each change its own element.
    pub max_step_halvings: usize,
    /// How many of `homotopies` are tried on a piece that may still be halved (switched
    /// systems: 1, the first tier; rigid bodies: all three); at the last halving level
    /// every homotopy and then the fallback are tried. Two halves cost about what a
    /// second tier's attempt does and succeed more often. Evidence:
    /// `docs/evidence/sim.md`, "tiers_before_halving".
    pub tiers_before_halving: usize,
    /// Which tiers also start fresh at the current state (the neutral guess of switched
    /// systems; the resting and then the predicted contact-free guess of rigid bodies)
    /// after (or, where the kind predicts a switch, before) the start from the previous
    /// solution: the first tier only (switched systems) or every tier (rigid bodies).
    /// Evidence: `docs/evidence/sim.md`, "The tiers"; `docs/evidence/cls.md`, "The three
    /// starts".
    pub fresh_starts_on_every_tier: bool,
    /// Skip a later tier (not the first) on pieces that may still be halved once it has
    /// failed on at least three quarters of at least 2 such pieces in this simulation:
    /// halve at once instead (switched systems: true; rigid bodies: false). Acts only
    /// with `tiers_before_halving` ≥ 2. Evidence: `docs/evidence/sim.md`,
    /// "skip_unproductive_tiers".
    pub skip_unproductive_tiers: bool,
    /// Start the first attempt on a piece from the previous solution together with the
    /// previous solve's multipliers (an Ipopt warm start, bound pushes 1e-6) where no
    /// switch is predicted and the active set went on through the previous piece (it
    /// converged from the previous solution in at most
    /// [`DUAL_START_AFTER`](fesd_mpcc::presets::DUAL_START_AFTER) Ipopt iterations and
    /// recorded no switch or impact) and, for switched systems, no switching surface is
    /// within reach (no inactive dual reaches zero within 2 piece lengths at its current
    /// rate) (default true): such a piece converges in 2–4 Ipopt iterations instead of
    /// ~12. A start with multipliers converges quickly or not at all, so its stall rule
    /// is [`DUAL_START_STALL`](fesd_mpcc::presets::DUAL_START_STALL); the fresh start
    /// follows as before. Evidence: `docs/evidence/sim.md`, "warm_start_duals".
    pub warm_start_duals: bool,
    /// After a failed start with multipliers, start once more from the same point
    /// without them before the fresh starts (rigid bodies: true, their warm start
    /// usually holds and only the multipliers mislead; switched systems: false, the
    /// fresh start follows at once). Evidence: `docs/evidence/cls.md`, "warm_start_duals".
    pub retry_without_duals: bool,
    /// Ipopt's `max_iter` for an attempt from a fresh start (switched systems: 45, the
    /// first tier allows the other starts 30: from the neutral guess a piece takes
    /// 11–30 iterations where it converges; rigid bodies: None, the tier's own).
    /// Evidence: `docs/evidence/sim.md`, "neutral_start_max_iter".
    pub neutral_start_max_iter: Option<usize>,
    /// How the step problem's kernels are evaluated (default [`Kernels::Auto`]: on a
    /// cold cache the first steps run on CasADi's evaluation while the C compiles beside
    /// them; the steps after the compiler is done use the compiled kernels).
    pub kernels: Kernels,
    /// The kind's own settings: switch detection and warm starts of switched systems
    /// ([`crate::SwitchDetection`]), impact detection of rigid bodies
    /// ([`crate::ImpactDetection`]).
    pub detection: M::Detection,
}

impl<M: SimulationKind> Default for SimulatorOptions<M> {
    fn default() -> Self {
        M::default_options()
    }
}

impl<M: SimulationKind> PartialEq for SimulatorOptions<M> {
    fn eq(&self, other: &Self) -> bool {
        // Compared through their serialized form: every field is data.
        serde_json::to_value(self).ok() == serde_json::to_value(other).ok()
    }
}

impl<M: SimulationKind> SimulatorOptions<M> {
    /// Checks ranges, every homotopy, the discretization and the kind's settings.
    pub fn validate(&self) -> Result<()> {
        let bad = |name, reason: String| Err(SimError::InvalidOption { name, reason });
        if self.n_steps == 0 {
            return bad("n_steps", "needs at least one step".into());
        }
        if !(self.step.is_finite() && self.step > 0.0) {
            return bad("step", format!("{} must be positive and finite", self.step));
        }
        if self.homotopies.is_empty() {
            return bad("homotopies", "needs at least one homotopy".into());
        }
        if self.tiers_before_halving == 0 {
            return bad("tiers_before_halving", "needs at least one tier".into());
        }
        if self.neutral_start_max_iter == Some(0) {
            return bad("neutral_start_max_iter", "needs at least one iteration (None: the tier's own)".into());
        }
        for h in self.homotopies.iter().chain(&self.fallback_homotopy) {
            h.validate()?;
        }
        M::validate_options(self)
    }

    /// Applies `f` to every homotopy the simulator may run — each tier of
    /// `homotopies` and the fallback —: one place to set comp_tol, an Ipopt option or
    /// the verbosity for all of them, e.g.
    /// `opts.for_each_homotopy(|h| h.comp_tol = 1e-10)`.
    pub fn for_each_homotopy(&mut self, mut f: impl FnMut(&mut HomotopyOptions)) {
        self.homotopies.iter_mut().chain(self.fallback_homotopy.as_mut()).for_each(&mut f);
    }
}
