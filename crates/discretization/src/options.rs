//! Options of the FESD discretization, validated once.

use crate::error::Result;
use crate::scheme::ElementScheme;
use fesd_model::Representation;
use fesd_rk::{ButcherTableau, RkFamily};
use serde::{Deserialize, Serialize};

/// How the Runge–Kutta equations are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum IrkRepresentation {
    /// Stage states `X_{n,m}` are unknowns: `X_m = x_n + h Σ_k a_mk f(X_k)` (default).
    #[default]
    Integral,
    /// Stage derivatives `v_{n,m}` are unknowns: `v_m = f(x_n + h Σ_k a_mk v_k)`.
    Differential,
}

/// Which products enforce cross complementarity within a finite element (all
/// equivalent by non-negativity; they differ in the number and shape of the pairs).
/// `0` below is the element's left boundary point (the previous element's last point).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum CrossComplementarity {
    /// `P_{n,m} ∘ D_{n,m'}` for every stage m and every point m' (including 0).
    StagePairs,
    /// `P_{n,m} ∘ Σ_{m'} D_{n,m'}` for every stage m (default).
    #[default]
    StageVsElementSum,
    /// `Σ_m P_{n,m} ∘ D_{n,m'}` for every point m'.
    ElementSumVsStage,
    /// `Σ_m P_{n,m} ∘ Σ_{m'} D_{n,m'}`: one pair per component and element.
    ElementSums,
}

impl CrossComplementarity {
    /// Every mode.
    pub const ALL: [CrossComplementarity; 4] = [
        CrossComplementarity::StagePairs,
        CrossComplementarity::StageVsElementSum,
        CrossComplementarity::ElementSumVsStage,
        CrossComplementarity::ElementSums,
    ];
}

/// How the spurious freedom of the step sizes is removed where no switch happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum StepEquilibration {
    /// Cost `ρ_h Σ_n (h_n − T/N_FE)²` (default, as nosnoc).
    #[default]
    HeuristicMean,
    /// Cost `ρ_h Σ_n (h_n − h_{n−1})²`.
    HeuristicDiff,
    /// Cost `ρ_h Σ_n (η_n (h_n − h_{n−1}))²`, η_n the switch indicator.
    L2Relaxed,
    /// Cost `ρ_h Σ_n (tanh(η_n) (h_n − h_{n−1}))²`.
    L2RelaxedScaled,
    /// Constraint `η_n (h_n − h_{n−1}) = 0`.
    Direct,
}

/// How an L2 step-equilibration cost (`L2Relaxed`, `L2RelaxedScaled`) enters the
/// Lagrangian Hessian; its value and gradient are exact either way, so the NLP and
/// its KKT points are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum StepEquilibrationHessian {
    /// The exact Hessian of `ρ_h Σ_n (η_n Δh_n)²`: besides the step sizes it couples
    /// every variable of both elements' switch indicators η_n with each other (dense
    /// blocks; indefinite where η_n Δh_n ≠ 0).
    Exact,
    /// `2 ρ_h Σ_n η_n² ∇Δh_n ∇Δh_nᵀ`: the curvature in the step sizes with the weights
    /// frozen, a Gauss–Newton term (default): a sparser Hessian and KKT system, the same
    /// iterations and costs. Problems expanded into one SX graph use `Exact`
    /// ([`FesdOptions::for_expansion`]). Evidence: `docs/evidence/ocp.md`, "Gauss–Newton step-equilibration Hessian".
    #[default]
    GaussNewton,
}

/// Options of the FESD discretization of a control interval (a simulation step is one).
/// The fields from `rk_family` to `step_equilibration_hessian` (without the
/// representations) are the [`ElementScheme`] rigid bodies share: their defaults and
/// ranges are owned there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FesdOptions {
    /// Runge–Kutta family (default Radau IIA).
    pub rk_family: RkFamily,
    /// Stages per finite element, 1–9 (default 2).
    pub n_s: usize,
    /// Integral (default) or differential form of the RK equations.
    pub irk_representation: IrkRepresentation,
    /// Stewart (default) or Step representation of the Filippov system.
    pub representation: Representation,
    /// Lift products of more than two α factors (Step only; default false).
    pub lift_products: bool,
    /// Finite elements per interval (default 2).
    pub n_fe: usize,
    /// FESD (step sizes as unknowns, cross complementarity, step equilibration);
    /// `false` gives the standard fixed-step discretization (default true).
    pub use_fesd: bool,
    /// Step sizes lie in `[(1 − γ_h), (1 + γ_h)] · T/N_FE` (default 0.9; nosnoc uses 1,
    /// which admits zero-length elements that make the next step degenerate).
    pub gamma_h: f64,
    /// Cross complementarity mode.
    pub cross_complementarity: CrossComplementarity,
    /// Step equilibration mode.
    pub step_equilibration: StepEquilibration,
    /// Weight ρ_h of the step-equilibration cost (default 1).
    pub rho_h: f64,
    /// How an L2 step-equilibration cost enters the Lagrangian Hessian (default
    /// Gauss–Newton in the step sizes).
    pub step_equilibration_hessian: StepEquilibrationHessian,
    /// Sliding-exit condition between neighbouring elements (FESD only; default
    /// false): a complementarity pair that leaves a sliding mode must do so with its
    /// Filippov multiplier at zero at the boundary ([`sliding_exit_pairs`]). Without it
    /// an exit can land up to about c₁h/2 early, a first-order error. It also forbids
    /// a sliding mode ending by a jump of its multiplier inside an interval (e.g. when
    /// another subsystem switches at the same instant).
    ///
    /// [`sliding_exit_pairs`]: crate::sliding_exit_pairs
    pub sliding_exit_continuity: bool,
    /// Keep the state at each element's end as unknowns of their own, with the equation
    /// `x_end = x_0 + h Σ b_j f_j` (default false). Without it, in the integral form with a
    /// stiffly accurate tableau (Radau IIA, Lobatto IIIA/IIIC) the last stage state is the
    /// element's end, as nosnoc has it: n_x fewer unknowns and equations per element, and
    /// faster iterations. Other forms always keep the end unknowns.
    /// Evidence: `docs/evidence/ocp.md`, "lift_element_end".
    pub lift_element_end: bool,
}

impl Default for FesdOptions {
    /// The shared fields from [`ElementScheme::default`].
    fn default() -> Self {
        let s = ElementScheme::default();
        FesdOptions {
            rk_family: s.rk_family,
            n_s: s.n_s,
            irk_representation: IrkRepresentation::default(),
            representation: Representation::default(),
            lift_products: false,
            n_fe: s.n_fe,
            use_fesd: s.use_fesd,
            gamma_h: s.gamma_h,
            cross_complementarity: s.cross_complementarity,
            step_equilibration: s.step_equilibration,
            rho_h: s.rho_h,
            step_equilibration_hessian: s.step_equilibration_hessian,
            sliding_exit_continuity: false,
            lift_element_end: false,
        }
    }
}

impl FesdOptions {
    /// These options for a problem that is expanded into one SX graph (a simulator's
    /// step, `OcpOptions::expand`): the exact step-equilibration Hessian, since
    /// CasADi's SX expansion does not keep the second derivatives of the frozen
    /// weights behind [`StepEquilibrationHessian::GaussNewton`] (expanded, a term
    /// `c (Δh − no_grad(Δh))²` has Hessian 0 instead of 2c).
    pub fn for_expansion(&self) -> FesdOptions {
        FesdOptions { step_equilibration_hessian: StepEquilibrationHessian::Exact, ..self.clone() }
    }

    /// The DCS lowering `representation` (with `lift_products`) names.
    pub fn lowering(&self) -> Box<dyn fesd_model::SubsystemLowering> {
        self.representation.lowering(self.lift_products)
    }

    /// The fields shared with the other model kind.
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

    /// Checks ranges (the shared fields by [`ElementScheme::validate`]; the others
    /// take any value) and returns the Butcher tableau.
    pub fn validate(&self) -> Result<ButcherTableau> {
        self.scheme().validate()
    }
}
