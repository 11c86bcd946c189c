//! The optimal control problem of a rigid-body model: horizon, control intervals,
//! costs, bounds and terminal constraints, validated once.

use crate::error::{ClsError, Result};
use crate::model::ClsModel;
use crate::options::ClsOptions;
use casadi::{Function, SX};
use fesd_mpcc::{HomotopyOptions, Kernels};
use serde::{Deserialize, Serialize};

/// Options of a rigid-body OCP.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClsOcpOptions {
    /// The FESD-J discretization; `n_fe` is the number of finite elements per control
    /// interval (nosnoc's `N_finite_elements`). Defaults as for simulation except
    /// `rho_multipliers = 0` and `slip_complementarity = true`.
    /// In an OCP the full ℓ1 tie-break is a cost on |tᵀv| (through γ) and on
    /// approach velocities (through Newton's split) that competes with the user's
    /// cost: on a box pushed 1 m in 2 s against friction 0.2 (min ∫u², N = 10) it waits
    /// 0.6 s stuck and ends at cost 10.007 without reaching comp_tol; without it the
    /// solve reaches the exact piecewise-constant optimum 9.2140 of its sliding
    /// pattern. The slip pair keeps γ = |tᵀv| where a contact is open (otherwise γ is
    /// free there and drifts). `rho_impulses` (ℓ1 on the normal impulses alone)
    /// removes the √σ hops of resting contacts; it stays 0 by default: it adds
    /// weight × impulse to the objective, and on the pushed box weight 1 costs the
    /// homotopy a recovery.
    pub cls: ClsOptions,
    /// The MPCC homotopy (Scholtes relaxation, σ₀, κ, comp_tol, Ipopt options); by
    /// default [`HomotopyOptions::scholtes_direct`] as for PSS optimal control (see
    /// `fesd_ocp::OcpOptions::homotopy` for why) with `max_iter = 500` and
    /// `max_recoveries = 10` ([`ClsOcpOptions::default_homotopy`]), also for fields
    /// JSON leaves out.
    #[serde(deserialize_with = "deserialize_homotopy")]
    pub homotopy: HomotopyOptions,
    /// How the kernels are evaluated (default [`Kernels::Auto`]: on a cold cache the
    /// first solve starts on CasADi's evaluation while the C compiles beside it).
    pub kernels: Kernels,
}

impl ClsOcpOptions {
    /// The rigid-body OCP's homotopy: direct steering from σ_0 = 1 with the superlinear σ
    /// update (as for switched systems), each NLP stopped after 500 Ipopt iterations and
    /// resumed from its last iterate, up to 10 recoveries: resting frictional contacts stall
    /// Ipopt and a resume frees it. Not the MPCC default, where the cap costs iterations.
    /// Evidence: `docs/evidence/cls.md`, "The rigid-body OCP homotopy".
    pub fn default_homotopy() -> HomotopyOptions {
        HomotopyOptions { max_iter: 500, max_recoveries: 10, sigma_exponent: 2.0, ..HomotopyOptions::scholtes_direct() }
    }
}

/// Reads homotopy options whose missing fields take [`ClsOcpOptions::default_homotopy`]'s values.
fn deserialize_homotopy<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<HomotopyOptions, D::Error> {
    HomotopyOptions::deserialize_onto(ClsOcpOptions::default_homotopy(), d)
}

impl Default for ClsOcpOptions {
    fn default() -> Self {
        ClsOcpOptions {
            cls: ClsOptions { rho_multipliers: 0.0, slip_complementarity: true, ..ClsOptions::default() },
            homotopy: ClsOcpOptions::default_homotopy(),
            kernels: Kernels::default(),
        }
    }
}

/// Constraints `lower ≤ c(q(T), v(T), p) ≤ upper` on the final state.
#[derive(Clone, Debug)]
pub struct ClsTerminalConstraint {
    /// `c`, in the model's q, v and p.
    pub expr: SX,
    /// Lower bounds.
    pub lower: Vec<f64>,
    /// Upper bounds.
    pub upper: Vec<f64>,
}

/// Direct optimal control of a rigid-body model with FESD-J: N control intervals of
/// equal length T/N with piecewise-constant controls, `options.cls.n_fe` finite
/// elements each (Σh = T/N per interval), impacts and friction in complementarity
/// form at every element.
///
/// Minimizes `∫₀ᵀ L(q, v, u, p) dt + Φ(q(T), v(T), p)` (Lagrange term integrated with
/// the Runge–Kutta quadrature) subject to control bounds, state bounds at every
/// element boundary and terminal constraints.
#[derive(Clone, Debug)]
pub struct ClsOcp {
    /// The rigid-body model.
    pub model: ClsModel,
    /// Horizon T.
    pub horizon: f64,
    /// Number of control intervals N.
    pub n_intervals: usize,
    /// Initial position.
    pub q0: Vec<f64>,
    /// Initial velocity (before any impulse at t = 0).
    pub v0: Vec<f64>,
    /// Values of the model's parameters.
    pub p: Vec<f64>,
    /// Control bounds and guess (each n_u; default unbounded, guess 0).
    pub u_lower: Vec<f64>,
    /// See `u_lower`.
    pub u_upper: Vec<f64>,
    /// See `u_lower`.
    pub u_guess: Vec<f64>,
    /// Bounds of q at the element boundaries (default unbounded).
    pub q_lower: Vec<f64>,
    /// See `q_lower`.
    pub q_upper: Vec<f64>,
    /// Bounds of v at the element boundaries (default unbounded).
    pub v_lower: Vec<f64>,
    /// See `v_lower`.
    pub v_upper: Vec<f64>,
    /// Lagrange term `L(q, v, u, p)`.
    pub lagrange: Option<SX>,
    /// Mayer term `Φ(q(T), v(T), p)`.
    pub mayer: Option<SX>,
    /// Hard terminal constraints.
    pub terminal: Option<ClsTerminalConstraint>,
    /// Options.
    pub options: ClsOcpOptions,
}

impl ClsOcp {
    /// An OCP on `[0, horizon]` with `n_intervals` control intervals from `(q0, v0)`,
    /// no cost, unbounded controls and states, default options.
    pub fn new(model: ClsModel, horizon: f64, n_intervals: usize, q0: &[f64], v0: &[f64]) -> ClsOcp {
        let (n_q, n_u) = (model.n_q(), model.u.nrow());
        let inf = f64::INFINITY;
        ClsOcp {
            horizon,
            n_intervals,
            q0: q0.to_vec(),
            v0: v0.to_vec(),
            p: vec![0.0; model.p.nrow()],
            u_lower: vec![-inf; n_u],
            u_upper: vec![inf; n_u],
            u_guess: vec![0.0; n_u],
            q_lower: vec![-inf; n_q],
            q_upper: vec![inf; n_q],
            v_lower: vec![-inf; n_q],
            v_upper: vec![inf; n_q],
            lagrange: None,
            mayer: None,
            terminal: None,
            options: ClsOcpOptions::default(),
            model,
        }
    }

    /// Sets the control bounds.
    pub fn with_control_bounds(mut self, lower: &[f64], upper: &[f64]) -> Self {
        self.u_lower = lower.to_vec();
        self.u_upper = upper.to_vec();
        self
    }

    /// Sets the Lagrange term `L(q, v, u, p)`.
    pub fn with_lagrange(mut self, l: SX) -> Self {
        self.lagrange = Some(l);
        self
    }

    /// Sets the Mayer term `Φ(q(T), v(T), p)`.
    pub fn with_mayer(mut self, m: SX) -> Self {
        self.mayer = Some(m);
        self
    }

    /// Adds the hard terminal constraints `lower ≤ c(q(T), v(T), p) ≤ upper`.
    pub fn with_terminal(mut self, expr: SX, lower: &[f64], upper: &[f64]) -> Self {
        self.terminal = Some(ClsTerminalConstraint { expr, lower: lower.to_vec(), upper: upper.to_vec() });
        self
    }

    /// Number of control inputs.
    pub fn n_u(&self) -> usize {
        self.model.u.nrow()
    }

    /// Checks sizes, values, expressions and options; returns the Butcher tableau.
    pub fn validate(&self) -> Result<fesd_rk::ButcherTableau> {
        self.model.validate()?;
        let tableau = self.options.cls.validate()?;
        self.options.homotopy.validate()?;
        let bad = |what: &'static str, reason: String| Err(ClsError::BadInput { what, reason });
        if !(self.horizon.is_finite() && self.horizon > 0.0) {
            return bad("horizon", format!("{} must be positive and finite", self.horizon));
        }
        if self.n_intervals == 0 {
            return bad("n_intervals", "needs at least one control interval".into());
        }
        let (n_q, n_u, n_p) = (self.model.n_q(), self.n_u(), self.model.p.nrow());
        for (what, v, n) in [("q0", &self.q0, n_q), ("v0", &self.v0, n_q), ("p", &self.p, n_p), ("u_guess", &self.u_guess, n_u)] {
            if v.len() != n || v.iter().any(|x| !x.is_finite()) {
                return bad(what, format!("{n} finite values expected, {} given", v.len()));
            }
        }
        for (what, lo, hi, n) in [
            ("control bounds", &self.u_lower, &self.u_upper, n_u),
            ("q bounds", &self.q_lower, &self.q_upper, n_q),
            ("v bounds", &self.v_lower, &self.v_upper, n_q),
        ] {
            if lo.len() != n || hi.len() != n {
                return bad(what, format!("{n} lower and {n} upper bounds expected"));
            }
            if lo.iter().zip(hi.iter()).any(|(l, h)| l.is_nan() || h.is_nan() || l > h) {
                return bad(what, "a lower bound above its upper bound (or NaN)".into());
            }
        }
        let m = &self.model;
        if let Some(l) = &self.lagrange {
            scalar_in("Lagrange term", l, &[("q", &m.q), ("v", &m.v), ("u", &m.u), ("p", &m.p)])?;
        }
        if let Some(phi) = &self.mayer {
            scalar_in("Mayer term", phi, &[("q", &m.q), ("v", &m.v), ("p", &m.p)])?;
        }
        if let Some(t) = &self.terminal {
            let n = t.expr.nrow();
            if t.expr.ncol() != 1 || t.lower.len() != n || t.upper.len() != n {
                return bad("terminal constraint", format!("a column with {} lower and upper bounds expected", t.expr.nrow()));
            }
            expression_in("terminal constraint", &t.expr, &[("q", &m.q), ("v", &m.v), ("p", &m.p)])?;
        }
        Ok(tableau)
    }
}

/// A function of `inputs` with output `e`; a stray symbol is a model error naming
/// `what`.
pub(crate) fn expression_in(what: &str, e: &SX, inputs: &[(&str, &SX)]) -> Result<Function> {
    Function::new("cls_ocp_check", inputs, &[("out", e)]).map_err(|err| {
        crate::error::model_error(
            what,
            format!("must depend only on {}: {err}", inputs.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")),
        )
    })
}

fn scalar_in(what: &str, e: &SX, inputs: &[(&str, &SX)]) -> Result<Function> {
    if e.nrow() != 1 || e.ncol() != 1 {
        return Err(crate::error::model_error(what, format!("must be scalar, is {}×{}", e.nrow(), e.ncol())));
    }
    expression_in(what, e, inputs)
}
