//! Options of the FESD-J discretization, validated once.

use crate::error::{ClsError, Result};
use fesd_discretization::{CrossComplementarity, ElementScheme, StepEquilibration, StepEquilibrationHessian};
use fesd_rk::{ButcherTableau, RkFamily};
use serde::{Deserialize, Serialize};

/// How the accelerations are obtained from `M(q) a = f + contact forces`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MassMatrixForm {
    /// Accelerations are unknowns of every stage with the equations `M(q) a = rhs`
    /// (default: no inverse, sparse, any M).
    #[default]
    Lifted,
    /// `a = M(q)⁻¹ rhs` written symbolically (small n_q, constant or simple M).
    Inverse,
}

/// How the Coulomb friction cone `‖λ_t‖ ≤ μ λ_n` of a spatial contact is written
/// (nosnoc's `friction_model`). Planar contacts have the exact cone either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum FrictionModel {
    /// A polyhedron of `friction_directions` directions with multipliers β_k ≥ 0
    /// (default): linear complementarity, exact for slides along a direction.
    #[default]
    Polyhedral,
    /// The circular cone itself: the friction force `μ λ_n w` with the direction w in
    /// the unit disk, the sliding speed γ ≥ 0, `γ w + J_tᵀ v = 0` and
    /// `0 ≤ γ ⊥ 1 − ‖w‖² ≥ 0`; exact in every direction. (The form
    /// `J_tᵀ v + 2 γ λ_t = 0`, `γ ⊥ (μλ_n)² − ‖λ_t‖²` would force `J_tᵀ v = 0` at
    /// open contacts, where the cone pins λ_t to zero, and its apex is degenerate.)
    Conic,
}

/// Options of the FESD-J discretization of one interval `[0, T]`. The fields from
/// `rk_family` to `step_equilibration_hessian` are the [`ElementScheme`] switched
/// systems share: their defaults and ranges are owned there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClsOptions {
    /// Runge–Kutta family (default Radau IIA).
    pub rk_family: RkFamily,
    /// Stages per finite element (default 2).
    pub n_s: usize,
    /// Finite elements per interval (default 2).
    pub n_fe: usize,
    /// FESD (step sizes as unknowns, cross complementarity); `false` gives the
    /// standard time-stepping discretization with fixed, equal elements (default true).
    pub use_fesd: bool,
    /// Step sizes lie in `[(1 − γ_h), (1 + γ_h)] · T/N_FE` (default 0.9).
    pub gamma_h: f64,
    /// Cross complementarity mode (the same modes as for switched systems).
    pub cross_complementarity: CrossComplementarity,
    /// Step equilibration (default `HeuristicMean`); the indicator-based modes use the
    /// FESD-J switch indicators (contact made or broken, impact, slide start/stop).
    pub step_equilibration: StepEquilibration,
    /// Weight ρ_h of the step-equilibration cost (default 1).
    pub rho_h: f64,
    /// How an L2 step-equilibration cost enters the optimal control problem's
    /// Lagrangian Hessian (default Gauss–Newton in the step sizes, as for switched
    /// systems; the simulator's steps, expanded into SX, use the exact one).
    pub step_equilibration_hessian: StepEquilibrationHessian,
    /// ε_c of the impact guard `f_c(q_n) + ε_c h_n J_nᵀ v_n⁺ ≥ 0`, which excludes the
    /// spurious impulse-free solutions at a contact (default 1e-3).
    pub eps_c: f64,
    /// Lifted accelerations (default) or a symbolic inverse of M.
    pub mass_matrix: MassMatrixForm,
    /// A contact whose gap at the start of an interval is below this counts as
    /// closed there and may take an impulse at t = 0 (default 1e-7); above it the
    /// impulse at t = 0 is zero.
    pub contact_tol: f64,
    /// Weight of an ℓ1 cost on the multipliers the relaxed complementarity leaves
    /// free: normal impulses Λ_n with the split z₊, z₋ of Newton's law, and the
    /// friction multipliers γ (stages) and Γ (impulses) (default 1). At a resting
    /// contact the relaxation admits impulses of size √σ, in flight any γ ≥ |tᵀv|;
    /// this picks zero impulses and γ = |tᵀv|. Where the constraints fix them (an
    /// impact, a slide) the term changes nothing.
    pub rho_multipliers: f64,
    /// Weight of an ℓ1 cost on the normal impulses Λ_n alone (default 0). At a resting
    /// contact the relaxed pairs Λ·f_c ≤ σ and Λ·z± ≤ σ admit impulses Λ = √σ that
    /// make the body hop; in an OCP these hops left the homotopy infeasible at σ = 1e-4
    /// (three boxes, one box pushed into another: with weight 1 the homotopy passes
    /// σ = 1e-7, with 1e-2 or 0 it ends infeasible at 1e-3 … 1e-4). Where an impact
    /// happens the impulse is fixed by the velocities; the term then favours gentler
    /// impacts (weight × impulse is added to the objective, not to the reported cost).
    pub rho_impulses: f64,
    /// Adds the pair `(γ + tᵀv) ⊥ (γ − tᵀv)` at every frictional point of planar contacts,
    /// which makes γ = |tᵀv| (its value at every physical solution) even where the contact
    /// is open and γ is otherwise free (default false; the optimal control problem's
    /// default is true, where `rho_multipliers` is 0): without it γ drifts far in the first
    /// homotopy NLP. Spatial contacts ignore it: with four or more directions such pairs
    /// would contradict each other. Evidence: `docs/evidence/cls.md`, "slip_complementarity".
    pub slip_complementarity: bool,
    /// Spatial contacts: the number n_d of directions of the polyhedral friction
    /// cone, `cos θ_k t₁ + sin θ_k t₂` with θ_k = 2πk/n_d (even, ≥ 4; default 8).
    /// Friction is exact for sliding along one of them; otherwise the force is the
    /// polyhedron's maximally dissipating one. Planar contacts use ±t.
    pub friction_directions: usize,
    /// The friction cone of spatial contacts: polyhedral (default) or conic.
    pub friction_model: FrictionModel,
}

impl Default for ClsOptions {
    /// The shared fields from [`ElementScheme::default`].
    fn default() -> Self {
        let s = ElementScheme::default();
        ClsOptions {
            rk_family: s.rk_family,
            n_s: s.n_s,
            n_fe: s.n_fe,
            use_fesd: s.use_fesd,
            gamma_h: s.gamma_h,
            cross_complementarity: s.cross_complementarity,
            step_equilibration: s.step_equilibration,
            rho_h: s.rho_h,
            step_equilibration_hessian: s.step_equilibration_hessian,
            eps_c: 1e-3,
            mass_matrix: MassMatrixForm::default(),
            rho_multipliers: 1.0,
            contact_tol: 1e-7,
            rho_impulses: 0.0,
            slip_complementarity: false,
            friction_directions: 8,
            friction_model: FrictionModel::default(),
        }
    }
}

impl ClsOptions {
    /// The fields shared with switched systems.
    pub fn scheme(&self) -> ElementScheme {
        ElementScheme {
            rk_family: self.rk_family,
            n_s: self.n_s,
            n_fe: self.n_fe,
            use_fesd: self.use_fesd,
            gamma_h: self.gamma_h,
            cross_complementarity: self.cross_complementarity,
            step_equilibration: self.step_equilibration,
            rho_h: self.rho_h,
            step_equilibration_hessian: self.step_equilibration_hessian,
        }
    }

    /// Checks ranges (the shared fields by [`ElementScheme::validate`], then what
    /// FESD-J asks beyond it: γ_h < 1) and returns the Butcher tableau.
    pub fn validate(&self) -> Result<ButcherTableau> {
        let tableau = self.scheme().validate()?;
        let bad = |name, reason: String| Err(ClsError::InvalidOption { name, reason });
        if self.friction_directions < 4 || !self.friction_directions.is_multiple_of(2) {
            return bad("friction_directions", format!("{} must be even and at least 4", self.friction_directions));
        }
        if self.gamma_h >= 1.0 {
            return bad("gamma_h", format!("{} must lie in [0, 1) (a zero-length element has no impact guard)", self.gamma_h));
        }
        if !(self.contact_tol.is_finite() && self.contact_tol > 0.0) {
            return bad("contact_tol", format!("{} must be positive and finite", self.contact_tol));
        }
        if !(self.rho_multipliers.is_finite() && self.rho_multipliers >= 0.0) {
            return bad("rho_multipliers", format!("{} must be finite and ≥ 0", self.rho_multipliers));
        }
        if !(self.rho_impulses.is_finite() && self.rho_impulses >= 0.0) {
            return bad("rho_impulses", format!("{} must be finite and ≥ 0", self.rho_impulses));
        }
        if !(self.eps_c.is_finite() && self.eps_c >= 0.0) {
            return bad("eps_c", format!("{} must be finite and ≥ 0", self.eps_c));
        }
        Ok(tableau)
    }
}
