//! The finite-element scheme both model kinds share, with its one set of defaults and
//! checks.

use crate::error::{DiscretizationError, Result};
use crate::options::{CrossComplementarity, StepEquilibration, StepEquilibrationHessian};
use fesd_rk::{ButcherTableau, RkFamily};

/// The finite-element scheme of a control interval or simulation step, shared by
/// switched systems (`FesdOptions`) and rigid bodies (`ClsOptions`): the one owner of
/// these fields' defaults ([`ElementScheme::default`]) and ranges
/// ([`ElementScheme::validate`]). Each kind's options keep the fields flat (users write
/// `opts.fesd.n_s = 3`, and the JSON form stays one object with unknown fields
/// rejected), take their defaults from here and hand them over with `scheme()`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElementScheme {
    /// Runge–Kutta family (default Radau IIA).
    pub rk_family: RkFamily,
    /// Stages per finite element, 1–9 (default 2).
    pub n_s: usize,
    /// Finite elements per interval, at least 1 (default 2).
    pub n_fe: usize,
    /// FESD (step sizes as unknowns, cross complementarity, step equilibration);
    /// `false` gives the standard fixed-step discretization (default true).
    pub use_fesd: bool,
    /// Step sizes lie in `[(1 − γ_h), (1 + γ_h)] · T/N_FE`, γ_h ∈ [0, 1] (default 0.9;
    /// nosnoc uses 1, which admits zero-length elements that make the next step
    /// degenerate).
    pub gamma_h: f64,
    /// Cross complementarity mode (default `StageVsElementSum`).
    pub cross_complementarity: CrossComplementarity,
    /// Step equilibration mode (default `HeuristicMean`).
    pub step_equilibration: StepEquilibration,
    /// Weight ρ_h ≥ 0 of the step-equilibration cost (default 1).
    pub rho_h: f64,
    /// How an L2 step-equilibration cost enters the Lagrangian Hessian (default
    /// Gauss–Newton in the step sizes).
    pub step_equilibration_hessian: StepEquilibrationHessian,
}

impl Default for ElementScheme {
    fn default() -> Self {
        ElementScheme {
            rk_family: RkFamily::RadauIIA,
            n_s: 2,
            n_fe: 2,
            use_fesd: true,
            gamma_h: 0.9,
            cross_complementarity: CrossComplementarity::default(),
            step_equilibration: StepEquilibration::default(),
            rho_h: 1.0,
            step_equilibration_hessian: StepEquilibrationHessian::default(),
        }
    }
}

impl ElementScheme {
    /// Checks every range and returns the Butcher tableau.
    pub fn validate(&self) -> Result<ButcherTableau> {
        let tableau = ButcherTableau::new(self.rk_family, self.n_s).map_err(DiscretizationError::Stages)?;
        let bad = |name, reason: String| Err(DiscretizationError::InvalidOption { name, reason });
        if self.n_fe == 0 {
            return bad("n_fe", "needs at least one finite element".into());
        }
        if !(self.gamma_h.is_finite() && (0.0..=1.0).contains(&self.gamma_h)) {
            return bad("gamma_h", format!("{} must lie in [0, 1]", self.gamma_h));
        }
        if !(self.rho_h.is_finite() && self.rho_h >= 0.0) {
            return bad("rho_h", format!("{} must be finite and ≥ 0", self.rho_h));
        }
        Ok(tableau)
    }

    /// The element counts of `n_intervals` intervals of `n_fe` elements each.
    pub fn uniform_grid(&self, n_intervals: usize) -> Result<ElementCounts> {
        ElementCounts::new(vec![self.n_fe; n_intervals])
    }
}

/// Finite elements per interval of a horizon, checked once: at least one interval,
/// each with at least one element. The grids and the element chain read only this.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElementCounts(Vec<usize>);

impl ElementCounts {
    /// Checks `fe` (`fe[k]` elements in interval k).
    pub fn new(fe: Vec<usize>) -> Result<ElementCounts> {
        if fe.is_empty() || fe.contains(&0) {
            return Err(DiscretizationError::InvalidOption {
                name: "n_fe",
                reason: format!("{fe:?}: every interval needs at least one finite element"),
            });
        }
        Ok(ElementCounts(fe))
    }
}

/// Read as the slice of counts (`fe[k]`, `fe.len()`, `fe.iter()`).
impl std::ops::Deref for ElementCounts {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        &self.0
    }
}
