//! The optimal control problem on a model of either kind, validated once.

use crate::error::{invalid, Result};
use crate::kind::{ElementOptions, ModelKind};
use casadi::SX;
use fesd_discretization::{ElementCounts, FesdOptions};
use fesd_model::PssModel;
use fesd_mpcc::{Formulation, HomotopyOptions, Kernels};

/// The horizon T.
#[derive(Clone, Debug, PartialEq)]
pub enum Horizon {
    /// A fixed T > 0.
    Fixed(f64),
    /// T is a decision variable in `[lower, upper]` (e.g. time-optimal control).
    Free {
        /// Lower bound (> 0).
        lower: f64,
        /// Upper bound.
        upper: f64,
        /// Initial guess.
        guess: f64,
    },
}

impl Horizon {
    /// T when fixed, its initial guess when free.
    pub fn guess(&self) -> f64 {
        match *self {
            Horizon::Fixed(t) => t,
            Horizon::Free { guess, .. } => guess,
        }
    }
}

/// The initial state.
#[derive(Clone, Debug, PartialEq)]
pub enum InitialState {
    /// Given; a parameter of the NLP, so it can change between solves without
    /// recompiling ([`OcpSolver::set_x0`](crate::OcpSolver::set_x0)).
    Fixed(Vec<f64>),
    /// A decision variable with bounds and guess.
    Free {
        /// Lower bounds.
        lower: Vec<f64>,
        /// Upper bounds.
        upper: Vec<f64>,
        /// Initial guess.
        guess: Vec<f64>,
    },
}

impl InitialState {
    /// x0 when fixed, its initial guess when free.
    pub fn guess(&self) -> &[f64] {
        match self {
            InitialState::Fixed(x0) => x0,
            InitialState::Free { guess, .. } => guess,
        }
    }
}

/// Constraints `lower ≤ c(x(T), p) ≤ upper` on the final state.
#[derive(Clone, Debug)]
pub struct TerminalConstraint {
    /// `c` in the model's symbols `x` and `p`.
    pub expr: SX,
    /// Lower bounds.
    pub lower: Vec<f64>,
    /// Upper bounds.
    pub upper: Vec<f64>,
}

/// A model parameter that is a global decision variable instead of a given value.
#[derive(Clone, Debug, PartialEq)]
pub struct FreeParameter {
    /// Index into the model's `p`.
    pub index: usize,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Initial guess.
    pub guess: f64,
}

/// How a soft terminal constraint is penalized.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TerminalPenalty {
    /// `weight · Σ_i s_i` with slacks `s ≥ 0`, `lower − s ≤ c ≤ upper + s` (exact for a
    /// weight above the constraint's multipliers).
    L1 {
        /// The weight (> 0).
        weight: f64,
    },
    /// `weight · Σ_i (max(0, c_i − upper_i) + max(0, lower_i − c_i))²`.
    L2 {
        /// The weight (> 0).
        weight: f64,
    },
}

/// `lower ≤ c(x(T), p) ≤ upper` as a penalty in the cost instead of a constraint.
#[derive(Clone, Debug)]
pub struct SoftTerminalConstraint {
    /// The constraint.
    pub constraint: TerminalConstraint,
    /// Its penalty.
    pub penalty: TerminalPenalty,
}

/// Least-squares tracking `∫ (y − r_k)ᵀ W (y − r_k) dt` of outputs `y(x, u, p)` with a
/// reference `r_k` per control interval (NLP parameters: change them between solves
/// with [`OcpSolver::set_reference`](crate::OcpSolver::set_reference), no recompilation).
#[derive(Clone, Debug)]
pub struct Tracking {
    /// The outputs y in the model's symbols (column vector, n_y entries).
    pub expr: SX,
    /// Diagonal of W (n_y nonnegative weights).
    pub weight: Vec<f64>,
    /// r_k for every interval (N rows of n_y values).
    pub reference: Vec<Vec<f64>>,
}

pub use fesd_discretization::PathPoints;

/// A nonlinear path constraint `lower ≤ c(x, u, p) ≤ upper`.
#[derive(Clone, Debug)]
pub struct PathConstraint {
    /// `c` in the model's symbols `x`, `u`, `p` (column vector).
    pub expr: SX,
    /// Lower bounds.
    pub lower: Vec<f64>,
    /// Upper bounds.
    pub upper: Vec<f64>,
    /// Where it is imposed.
    pub at: PathPoints,
}

/// Options of the discretization and the solver, `E` the finite elements' options of
/// the model kind ([`FesdOptions`] for switched systems, `fesd_cls::ClsOptions` for
/// rigid bodies). Read from JSON, unknown keys are errors and missing ones take their
/// defaults.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default, bound(serialize = "E: serde::Serialize", deserialize = "E: ElementOptions"))]
pub struct OcpOptions<E: ElementOptions = FesdOptions> {
    /// The FESD discretization of every control interval (`n_fe` elements each);
    /// default [`ElementOptions::ocp_default`] (for rigid bodies not the simulator's:
    /// no ℓ1 tie-break on the multipliers, the slip pair on).
    pub fesd: E,
    /// The MPCC homotopy (default [`ElementOptions::ocp_homotopy`]: direct steering from
    /// σ_0 = 1 with the superlinear σ update, also for the fields a JSON object leaves
    /// out). Not the MPCC default (ℓ∞ elastic mode from σ_0 = 100): that one is faster
    /// but ends several of this crate's test problems in spurious local minima.
    /// Evidence: `docs/evidence/ocp.md`, "The optimal-control homotopy".
    #[serde(deserialize_with = "deserialize_homotopy::<E, _>")]
    pub homotopy: HomotopyOptions,
    /// What the MPCC solver compiles in (default [`Formulation::direct`]: direct steering,
    /// the schedule above is made for it, with the active-set finish); fixed once the
    /// solver is built.
    pub formulation: Formulation,
    /// Also bound the states at the Runge–Kutta stages by `x_lower`/`x_upper`, not
    /// only at the element boundaries (default false; a switched system needs the
    /// integral form, whose stage unknowns are the stage states).
    pub state_bounds_at_stages: bool,
    /// Expand the transcribed NLP (mapped element kernels, MX) into one SX graph and let
    /// CasADi evaluate it, instead of generating and compiling C for the mapped kernels
    /// (default false). No compiler runs and the evaluations are cheaper, but the graph, and
    /// the time to build it, grow with N; the compiled kernels stay the default because
    /// their C is flat in N and is what an exported solver embeds. An expanded problem uses
    /// the exact equilibration Hessian ([`ElementOptions::for_expansion`]).
    /// Evidence: `docs/evidence/ocp.md`, "expand".
    pub expand: bool,
    /// How the kernels are evaluated (default [`Kernels::Auto`]: on a cold cache the
    /// first solve starts at once on CasADi's evaluation while the C compiles on another
    /// thread, and the homotopy switches to the compiled kernels once they are there).
    /// With `expand` CasADi always evaluates, so `Compiled` is refused.
    /// Evidence: `docs/evidence/ocp.md`, "First result".
    pub kernels: Kernels,
    /// Start the states on straight lines from x0 to the values the terminal
    /// constraint pins them to ([`Ocp::terminal_state_targets`]; the other states at
    /// x0), a position's velocity at the line's slope ([`ModelKind::velocity_states`]),
    /// instead of at x0 everywhere (default false). It often saves many iterations
    /// (the cart-pole swing-up 338 instead of 770, the car with turbo about half) but
    /// can lead to other local solutions (the car at N = 30 with N_FE = 2: T = 15.19
    /// instead of 40/3). Evidence: `docs/evidence/ocp.md`, "Straight-line guess".
    pub straight_line_guess: bool,
}

/// Reads homotopy options whose missing fields take `E`'s [`ElementOptions::ocp_homotopy`].
fn deserialize_homotopy<'de, E: ElementOptions, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<HomotopyOptions, D::Error> {
    HomotopyOptions::deserialize_onto(E::ocp_homotopy(), d)
}

impl<E: ElementOptions> Default for OcpOptions<E> {
    fn default() -> Self {
        OcpOptions {
            fesd: E::ocp_default(),
            homotopy: E::ocp_homotopy(),
            formulation: Formulation::direct(),
            state_bounds_at_stages: false,
            expand: false,
            kernels: Kernels::default(),
            straight_line_guess: false,
        }
    }
}

/// `min ∫ L dt + M(x(T)) + w_T T` over piecewise-constant controls, subject to the
/// dynamics of `M` (FESD for a switched system, FESD-J for rigid bodies), bounds on
/// controls and on the states at element boundaries, and terminal constraints. The
/// state x is the model's ([`ModelKind::state`]: a rigid body's is `(q, v)`, v the
/// velocity before any impulse); costs and constraints are written in its symbols.
#[derive(Clone, Debug)]
pub struct Ocp<M: ModelKind = PssModel> {
    /// The dynamics.
    pub model: M,
    /// Fixed or free horizon.
    pub horizon: Horizon,
    /// Number of control intervals N (≥ 1); Σh = T/N in each.
    pub n_intervals: usize,
    /// Finite elements of each control interval (N entries, each ≥ 1); empty (the
    /// default): `options.fesd.n_fe` in every interval.
    pub n_fe_per_interval: Vec<usize>,
    /// Initial state.
    pub x0: InitialState,
    /// Control bounds and guess (one value per control).
    pub u_lower: Vec<f64>,
    /// Upper control bounds.
    pub u_upper: Vec<f64>,
    /// Initial guess of the controls.
    pub u_guess: Vec<f64>,
    /// State bounds at every element boundary.
    pub x_lower: Vec<f64>,
    /// Upper state bounds.
    pub x_upper: Vec<f64>,
    /// Stage cost L(x, u, p), integrated with the RK quadrature.
    pub lagrange: Option<SX>,
    /// Terminal cost M(x, p) at x(T).
    pub mayer: Option<SX>,
    /// Weight of T in the cost (1 for time-optimal control; default 0).
    pub time_cost: f64,
    /// Terminal constraints.
    pub terminal: Option<TerminalConstraint>,
    /// Terminal constraints as ℓ1 or ℓ2 penalties.
    pub soft_terminal: Option<SoftTerminalConstraint>,
    /// Nonlinear path constraints.
    pub path: Vec<PathConstraint>,
    /// Least-squares tracking with time-varying references.
    pub tracking: Option<Tracking>,
    /// Values of the model's parameters.
    pub p: Vec<f64>,
    /// Model parameters that are global decision variables (their entry in `p` is
    /// then ignored).
    pub free_parameters: Vec<FreeParameter>,
    /// Discretization and solver options.
    pub options: OcpOptions<M::Options>,
}

impl<M: ModelKind> Ocp<M> {
    /// Finite elements of every control interval: `n_fe_per_interval`, or the element
    /// options' `n_fe` in each of the N intervals; the one place the grids take them
    /// from.
    pub fn fe_counts(&self) -> Result<ElementCounts> {
        if self.n_fe_per_interval.is_empty() {
            return Ok(self.options.fesd.scheme().uniform_grid(self.n_intervals)?);
        }
        if self.n_fe_per_interval.len() != self.n_intervals {
            return invalid(
                "n_fe_per_interval",
                format!("{:?}: needs one count ≥ 1 per control interval ({}), or none", self.n_fe_per_interval, self.n_intervals),
            );
        }
        Ok(ElementCounts::new(self.n_fe_per_interval.clone())?)
    }

    /// An OCP on `model` with `n_intervals` intervals over a fixed horizon `t_final`,
    /// fixed initial state `x0`, unbounded controls and states, no cost yet.
    pub fn new(model: M, t_final: f64, n_intervals: usize, x0: &[f64]) -> Self {
        let (n_x, n_u) = (model.n_x(), model.controls().nrow());
        Ocp {
            horizon: Horizon::Fixed(t_final),
            n_intervals,
            n_fe_per_interval: Vec::new(),
            x0: InitialState::Fixed(x0.to_vec()),
            u_lower: vec![f64::NEG_INFINITY; n_u],
            u_upper: vec![f64::INFINITY; n_u],
            u_guess: vec![0.0; n_u],
            x_lower: vec![f64::NEG_INFINITY; n_x],
            x_upper: vec![f64::INFINITY; n_x],
            lagrange: None,
            mayer: None,
            time_cost: 0.0,
            terminal: None,
            soft_terminal: None,
            path: Vec::new(),
            tracking: None,
            p: vec![0.0; model.parameters().nrow()],
            free_parameters: Vec::new(),
            options: OcpOptions::default(),
            model,
        }
    }

    /// Per state, the value the terminal constraint pins it to: a row `a·x_j + b` (a ≠ 0,
    /// no other state, no parameter) whose lower and upper bounds are equal fixes x_j at
    /// `(bound − b)/a`; None for every other state.
    pub fn terminal_state_targets(&self) -> Result<Vec<Option<f64>>> {
        let x = self.model.state()?;
        let mut targets = vec![None; x.nrow()];
        let Some(terminal) = &self.terminal else { return Ok(targets) };
        for ((row, &lower), &upper) in terminal.expr.entries()?.iter().zip(&terminal.lower).zip(&terminal.upper) {
            if lower != upper || !lower.is_finite() {
                continue;
            }
            if let Some((j, a, b)) = one_state_affine(row, &x)? {
                targets[j] = Some((lower - b) / a);
            }
        }
        Ok(targets)
    }

    /// The model's parameters with the free ones at their guesses.
    pub fn parameter_guess(&self) -> Vec<f64> {
        let mut p = self.p.clone();
        for fp in &self.free_parameters {
            p[fp.index] = fp.guess;
        }
        p
    }

    /// Sets the control bounds.
    pub fn with_control_bounds(mut self, lower: &[f64], upper: &[f64]) -> Self {
        self.u_lower = lower.to_vec();
        self.u_upper = upper.to_vec();
        self
    }

    /// Sets the Lagrange term `L(x, u, p)`.
    pub fn with_lagrange(mut self, l: SX) -> Self {
        self.lagrange = Some(l);
        self
    }

    /// Sets the Mayer term `M(x(T), p)`.
    pub fn with_mayer(mut self, m: SX) -> Self {
        self.mayer = Some(m);
        self
    }

    /// Sets the hard terminal constraints `lower ≤ c(x(T), p) ≤ upper`.
    pub fn with_terminal(mut self, expr: SX, lower: &[f64], upper: &[f64]) -> Self {
        self.terminal = Some(TerminalConstraint { expr, lower: lower.to_vec(), upper: upper.to_vec() });
        self
    }

    /// Checks sizes, bounds and options; the first problem found is the error.
    pub fn validate(&self) -> Result<()> {
        self.model.validate_model()?;
        self.options.fesd.validate_element()?;
        self.options.homotopy.validate()?;
        if self.options.expand && self.options.kernels == Kernels::Compiled {
            return invalid(
                "kernels",
                "\"compiled\" contradicts expand = true, whose NLP CasADi evaluates (use \"auto\" or \"interpreted\")",
            );
        }
        let (n_x, n_u, n_p) = (self.model.n_x(), self.model.controls().nrow(), self.model.parameters().nrow());
        if self.n_intervals == 0 {
            return invalid("n_intervals", "needs at least one control interval");
        }
        match &self.horizon {
            Horizon::Fixed(t) if !(t.is_finite() && *t > 0.0) => return invalid("horizon", format!("T = {t} must be positive and finite")),
            Horizon::Free { lower, upper, guess }
                if !(lower.is_finite() && *lower > 0.0 && lower <= upper && upper.is_finite() && guess.is_finite()) =>
            {
                return invalid("horizon", format!("bounds [{lower}, {upper}] must be finite with 0 < lower ≤ upper"))
            }
            _ => {}
        }
        match &self.x0 {
            InitialState::Fixed(x0) => check_values("x0", x0, n_x)?,
            InitialState::Free { lower, upper, guess } => {
                check_bounds("x0", lower, upper, n_x)?;
                check_values("x0 guess", guess, n_x)?;
            }
        }
        check_bounds("u", &self.u_lower, &self.u_upper, n_u)?;
        check_values("u_guess", &self.u_guess, n_u)?;
        check_bounds("x", &self.x_lower, &self.x_upper, n_x)?;
        self.fe_counts()?;
        if self.options.state_bounds_at_stages && !self.options.fesd.stage_states_are_unknowns() {
            return invalid(
                "state_bounds_at_stages",
                "needs the integral form (irk_representation Integral): the differential form's stage states are not unknowns",
            );
        }
        check_values("p", &self.p, n_p)?;
        if !self.time_cost.is_finite() {
            return invalid("time_cost", "must be finite");
        }
        self.validate_terms()?;
        self.validate_symbols()
    }

    /// Checks the costs' and constraints' shapes, bounds and weights.
    fn validate_terms(&self) -> Result<()> {
        let n_p = self.model.parameters().nrow();
        for (what, e) in [("lagrange", &self.lagrange), ("mayer", &self.mayer)] {
            if let Some(e) = e {
                if e.shape() != (1, 1) {
                    return invalid(what, format!("the cost must be a scalar, got {}x{}", e.nrow(), e.ncol()));
                }
            }
        }
        if let Some(t) = &self.terminal {
            if t.expr.ncol() != 1 {
                return invalid("terminal", "the constraint must be a column vector");
            }
            check_bounds("terminal", &t.lower, &t.upper, t.expr.nrow())?;
        }
        for (i, fp) in self.free_parameters.iter().enumerate() {
            if fp.index >= n_p || self.free_parameters[..i].iter().any(|o| o.index == fp.index) {
                return invalid("free_parameters", format!("index {} is not a parameter of the model or is given twice", fp.index));
            }
            check_bounds("free_parameters", &[fp.lower], &[fp.upper], 1)?;
            check_values("free_parameters guess", &[fp.guess], 1)?;
        }
        if let Some(soft) = &self.soft_terminal {
            let t = &soft.constraint;
            if t.expr.ncol() != 1 {
                return invalid("soft_terminal", "the constraint must be a column vector");
            }
            check_bounds("soft_terminal", &t.lower, &t.upper, t.expr.nrow())?;
            let (TerminalPenalty::L1 { weight } | TerminalPenalty::L2 { weight }) = soft.penalty;
            if !(weight.is_finite() && weight > 0.0) {
                return invalid("soft_terminal", format!("weight {weight} must be positive and finite"));
            }
        }
        if let Some(t) = &self.tracking {
            let n_y = t.expr.nrow();
            if t.expr.ncol() != 1 || n_y == 0 {
                return invalid("tracking", "the outputs must be a non-empty column vector");
            }
            if t.weight.len() != n_y || t.weight.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
                return invalid("tracking", format!("weight needs {n_y} finite nonnegative values"));
            }
            check_reference(&t.reference, self.n_intervals, n_y)?;
        }
        for c in &self.path {
            if c.expr.ncol() != 1 {
                return invalid("path", "a path constraint must be a column vector");
            }
            check_bounds("path", &c.lower, &c.upper, c.expr.nrow())?;
        }
        Ok(())
    }

    /// Checks that every cost and constraint uses only the model's states, parameters
    /// and (where a control may appear) controls.
    fn validate_symbols(&self) -> Result<()> {
        let (x, u, p) = (self.model.state()?, self.model.controls(), self.model.parameters());
        let mut exprs = vec![
            ("lagrange", self.lagrange.clone(), true),
            ("mayer", self.mayer.clone(), false),
            ("terminal", self.terminal.as_ref().map(|t| t.expr.clone()), false),
            ("soft_terminal", self.soft_terminal.as_ref().map(|t| t.constraint.expr.clone()), false),
        ];
        exprs.extend(self.path.iter().map(|c| ("path", Some(c.expr.clone()), true)));
        exprs.extend(self.tracking.iter().map(|t| ("tracking", Some(t.expr.clone()), true)));
        for (what, e, with_u) in exprs {
            if let Some(e) = e {
                let u = if with_u { u.clone() } else { SX::sym("u", 0) };
                if let Err(err) = casadi::Function::new(what, &[("x", &x), ("u", &u), ("p", p)], &[("e", &e)]) {
                    let allowed = if with_u { "states, controls or parameters" } else { "states or parameters" };
                    let names = err.free_symbols().unwrap_or_else(|| err.to_string());
                    return invalid(what, format!("uses symbols that are not {allowed}: {names}"));
                }
            }
        }
        Ok(())
    }
}

fn check_values(what: &'static str, v: &[f64], len: usize) -> Result<()> {
    if v.len() != len {
        return invalid(what, format!("{} values given, {len} expected", v.len()));
    }
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return invalid(what, format!("entry {i} is {}", v[i]));
    }
    Ok(())
}

fn check_bounds(what: &'static str, lower: &[f64], upper: &[f64], len: usize) -> Result<()> {
    if lower.len() != len || upper.len() != len {
        return invalid(what, format!("bounds have {} and {} entries, {len} expected", lower.len(), upper.len()));
    }
    for (i, (l, u)) in lower.iter().zip(upper).enumerate() {
        if l.is_nan() || u.is_nan() || l > u || *l == f64::INFINITY || *u == f64::NEG_INFINITY {
            return invalid(what, format!("entry {i}: bounds [{l}, {u}] are empty"));
        }
    }
    Ok(())
}

/// A reference: `n` rows of `n_y` finite values.
pub(crate) fn check_reference(reference: &[Vec<f64>], n: usize, n_y: usize) -> Result<()> {
    if reference.len() != n {
        return invalid("tracking", format!("{} reference rows given, one per interval ({n}) expected", reference.len()));
    }
    for row in reference {
        check_values("tracking reference", row, n_y)?;
    }
    Ok(())
}

/// `(j, a, b)` where the scalar `e` is `a·x_j + b` (a ≠ 0) with no other symbol than x_j
/// (a control or parameter left in b makes it non-constant): None otherwise.
pub(crate) fn one_state_affine(e: &SX, x: &SX) -> Result<Option<(usize, f64, f64)>> {
    let gradient = SX::jacobian(e, x)?;
    if !gradient.is_constant() {
        return Ok(None);
    }
    let a = gradient.densify().evalf()?;
    let mut nonzero = a.iter().enumerate().filter(|(_, v)| **v != 0.0);
    let (Some((j, &a_j)), None) = (nonzero.next(), nonzero.next()) else { return Ok(None) };
    let Ok(b) = SX::substitute(e, x, &SX::zeros(x.nrow(), 1))?.evalf() else { return Ok(None) };
    Ok(Some((j, a_j, b[0])))
}
