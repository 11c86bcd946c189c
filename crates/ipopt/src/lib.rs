//! Safe binding to Ipopt 3.14 (the library shipped in the CasADi 3.8.2 SDK, with MUMPS),
//! driven through its C++ application object by a small shim (`cpp/app.cc`) that keeps
//! the signatures of Ipopt's C interface and can hand Ipopt fesd's own sparse LDLᵀ
//! (crate `fesd-kkt`) as its linear solver: the option `linear_solver = ldl` (any other
//! value is Ipopt's, default MUMPS). Ipopt's C++ exceptions never cross the shim.
//! [`mumps::Mumps`] and [`capture_kkt`] serve the KKT benchmark.
//!
//! An NLP
//!
//! ```text
//! min f(x)  s.t.  x_L ≤ x ≤ x_U,  g_L ≤ g(x) ≤ g_U
//! ```
//!
//! is described once by its [`NlpStructure`] (sizes, bounds, the sparsity of the
//! constraint Jacobian and of the lower triangle of the Lagrangian Hessian as index
//! pairs) and evaluated through [`NlpCallbacks`], which fill values in the order of
//! those index pairs. [`IpoptSolver::solve`] returns a [`Solution`] whose
//! [`ApplicationReturnStatus`] says how Ipopt ended; a failed solve still returns the
//! last iterate. Warm starts pass the previous solution's primal and dual values
//! ([`Solution::warm_start`]).

mod allocator;
mod blas;
mod linear;
pub mod mumps;
pub use blas::blas_threads;
pub use linear::{capture_kkt, ldl_work, take_captured_kkt, KktSystem, LdlWork};
mod sys;

pub use allocator::keep_freed_memory;

use serde::{Deserialize, Serialize};
use std::ffi::{c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Errors that prevent a solve from starting (not a failed solve: see [`Solution::status`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IpoptError {
    /// The problem description is inconsistent.
    #[error("invalid NLP: {0}")]
    InvalidProblem(String),
    /// Ipopt rejected an option name or value.
    #[error("Ipopt rejected option {name} = {value}")]
    InvalidOption {
        /// Option name.
        name: String,
        /// The value given.
        value: String,
    },
    /// The starting point has the wrong size.
    #[error("invalid start point: {0}")]
    InvalidStart(String),
    /// Ipopt could not create the problem.
    #[error("Ipopt could not create the problem")]
    CreateFailed,
}

/// Every `ApplicationReturnStatus` of Ipopt 3.14.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApplicationReturnStatus {
    /// Optimal solution found to the requested tolerance.
    SolveSucceeded,
    /// Solved to the acceptable (looser) tolerance.
    SolvedToAcceptableLevel,
    /// The problem appears locally infeasible.
    InfeasibleProblemDetected,
    /// The search direction became too small.
    SearchDirectionBecomesTooSmall,
    /// The iterates appear to diverge.
    DivergingIterates,
    /// A callback (intermediate or evaluation) asked to stop.
    UserRequestedStop,
    /// A feasible point was found (square problems).
    FeasiblePointFound,
    /// `max_iter` reached.
    MaximumIterationsExceeded,
    /// The restoration phase failed.
    RestorationFailed,
    /// The step computation failed.
    ErrorInStepComputation,
    /// `max_cpu_time` reached.
    MaximumCpuTimeExceeded,
    /// `max_wall_time` reached.
    MaximumWallTimeExceeded,
    /// Fewer degrees of freedom than equality constraints.
    NotEnoughDegreesOfFreedom,
    /// The problem definition is invalid.
    InvalidProblemDefinition,
    /// An option is invalid.
    InvalidOption,
    /// A callback returned NaN or Inf.
    InvalidNumberDetected,
    /// An unrecoverable exception occurred inside Ipopt.
    UnrecoverableException,
    /// A non-Ipopt exception was thrown.
    NonIpoptExceptionThrown,
    /// Out of memory.
    InsufficientMemory,
    /// Internal error.
    InternalError,
    /// A code this binding does not know.
    Unknown(i32),
}

impl ApplicationReturnStatus {
    /// Ipopt's integer code (the inverse of [`ApplicationReturnStatus::from_code`]).
    pub fn code(self) -> i32 {
        use ApplicationReturnStatus::*;
        match self {
            SolveSucceeded => 0,
            SolvedToAcceptableLevel => 1,
            InfeasibleProblemDetected => 2,
            SearchDirectionBecomesTooSmall => 3,
            DivergingIterates => 4,
            UserRequestedStop => 5,
            FeasiblePointFound => 6,
            MaximumIterationsExceeded => -1,
            RestorationFailed => -2,
            ErrorInStepComputation => -3,
            MaximumCpuTimeExceeded => -4,
            MaximumWallTimeExceeded => -5,
            NotEnoughDegreesOfFreedom => -10,
            InvalidProblemDefinition => -11,
            InvalidOption => -12,
            InvalidNumberDetected => -13,
            UnrecoverableException => -100,
            NonIpoptExceptionThrown => -101,
            InsufficientMemory => -102,
            InternalError => -199,
            Unknown(c) => c,
        }
    }

    /// Maps Ipopt's integer code.
    pub fn from_code(code: i32) -> Self {
        use ApplicationReturnStatus::*;
        match code {
            0 => SolveSucceeded,
            1 => SolvedToAcceptableLevel,
            2 => InfeasibleProblemDetected,
            3 => SearchDirectionBecomesTooSmall,
            4 => DivergingIterates,
            5 => UserRequestedStop,
            6 => FeasiblePointFound,
            -1 => MaximumIterationsExceeded,
            -2 => RestorationFailed,
            -3 => ErrorInStepComputation,
            -4 => MaximumCpuTimeExceeded,
            -5 => MaximumWallTimeExceeded,
            -10 => NotEnoughDegreesOfFreedom,
            -11 => InvalidProblemDefinition,
            -12 => InvalidOption,
            -13 => InvalidNumberDetected,
            -100 => UnrecoverableException,
            -101 => NonIpoptExceptionThrown,
            -102 => InsufficientMemory,
            -199 => InternalError,
            c => Unknown(c),
        }
    }

    /// True for `SolveSucceeded` and `SolvedToAcceptableLevel`.
    pub fn is_success(self) -> bool {
        matches!(self, Self::SolveSucceeded | Self::SolvedToAcceptableLevel)
    }
}

/// Sizes, bounds and derivative sparsity of an NLP (0-based index pairs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NlpStructure {
    /// Lower bounds of x (`-inf` allowed; Ipopt treats ≤ −1e19 as none).
    pub x_l: Vec<f64>,
    /// Upper bounds of x.
    pub x_u: Vec<f64>,
    /// Lower bounds of g.
    pub g_l: Vec<f64>,
    /// Upper bounds of g.
    pub g_u: Vec<f64>,
    /// Row (constraint) index of each Jacobian nonzero.
    pub jac_rows: Vec<usize>,
    /// Column (variable) index of each Jacobian nonzero.
    pub jac_cols: Vec<usize>,
    /// Row index of each nonzero of the Hessian's lower triangle (row ≥ col).
    pub hess_rows: Vec<usize>,
    /// Column index of each nonzero of the Hessian's lower triangle.
    pub hess_cols: Vec<usize>,
}

impl NlpStructure {
    /// Number of variables.
    pub fn n(&self) -> usize {
        self.x_l.len()
    }

    /// Number of constraints.
    pub fn m(&self) -> usize {
        self.g_l.len()
    }

    /// Checks sizes, index ranges, the lower-triangular Hessian and bound order.
    pub fn validate(&self) -> Result<(), IpoptError> {
        let bad = |s: String| Err(IpoptError::InvalidProblem(s));
        let (n, m) = (self.n(), self.m());
        if n == 0 {
            return bad("the NLP has no variables".into());
        }
        if self.x_u.len() != n {
            return bad(format!("x_l has {n} entries, x_u {}", self.x_u.len()));
        }
        if self.g_u.len() != m {
            return bad(format!("g_l has {m} entries, g_u {}", self.g_u.len()));
        }
        if n > i32::MAX as usize || m > i32::MAX as usize {
            return bad("more than 2^31 variables or constraints".into());
        }
        for (what, l, u) in [("x", &self.x_l, &self.x_u), ("g", &self.g_l, &self.g_u)] {
            for (i, (a, b)) in l.iter().zip(u.iter()).enumerate() {
                if a.is_nan() || b.is_nan() {
                    return bad(format!("bound of {what}[{i}] is NaN"));
                }
                if a > b {
                    return bad(format!("lower bound {a} of {what}[{i}] exceeds upper bound {b}"));
                }
            }
        }
        if self.jac_rows.len() != self.jac_cols.len() {
            return bad("jac_rows and jac_cols differ in length".into());
        }
        if let Some(k) = (0..self.jac_rows.len()).find(|&k| self.jac_rows[k] >= m || self.jac_cols[k] >= n) {
            return bad(format!("Jacobian entry {k} ({}, {}) outside {m}x{n}", self.jac_rows[k], self.jac_cols[k]));
        }
        if self.hess_rows.len() != self.hess_cols.len() {
            return bad("hess_rows and hess_cols differ in length".into());
        }
        for k in 0..self.hess_rows.len() {
            let (r, c) = (self.hess_rows[k], self.hess_cols[k]);
            if r >= n || c >= n {
                return bad(format!("Hessian entry {k} ({r}, {c}) outside {n}x{n}"));
            }
            if r < c {
                return bad(format!("Hessian entry {k} ({r}, {c}) is above the diagonal; give the lower triangle"));
            }
        }
        Ok(())
    }
}

/// Evaluation callbacks. Each returns `false` (or `None`) if it cannot evaluate at `x`;
/// Ipopt then backtracks or stops. `new_x` is true when `x` changed since the last call.
pub trait NlpCallbacks {
    /// f(x).
    fn objective(&mut self, x: &[f64], new_x: bool) -> Option<f64>;
    /// ∇f(x), dense.
    fn gradient(&mut self, x: &[f64], new_x: bool, grad: &mut [f64]) -> bool;
    /// g(x).
    fn constraints(&mut self, x: &[f64], new_x: bool, g: &mut [f64]) -> bool;
    /// Values of ∂g/∂x in the order of `NlpStructure::jac_rows/jac_cols`.
    fn jacobian(&mut self, x: &[f64], new_x: bool, values: &mut [f64]) -> bool;
    /// Values of the lower triangle of `obj_factor ∇²f + Σ λ_i ∇²g_i`, in the order
    /// of `NlpStructure::hess_rows/hess_cols`.
    fn hessian(&mut self, x: &[f64], new_x: bool, obj_factor: f64, lambda: &[f64], new_lambda: bool, values: &mut [f64]) -> bool;
}

/// What Ipopt reports at the end of every iteration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationInfo {
    /// True in the restoration phase.
    pub restoration: bool,
    /// Iteration number.
    pub iter: usize,
    /// Objective value (of the original problem).
    pub objective: f64,
    /// Primal infeasibility.
    pub inf_pr: f64,
    /// Dual infeasibility.
    pub inf_du: f64,
    /// Barrier parameter μ.
    pub mu: f64,
    /// ∞-norm of the primal step.
    pub d_norm: f64,
    /// Hessian regularization.
    pub regularization: f64,
    /// Dual step length.
    pub alpha_du: f64,
    /// Primal step length.
    pub alpha_pr: f64,
    /// Line search trials.
    pub ls_trials: usize,
}

/// A value of an Ipopt option.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum OptionValue {
    /// String option (e.g. `"yes"`, `"mumps"`).
    Str(String),
    /// Integer option.
    Int(i32),
    /// Numeric option.
    Num(f64),
}

/// Ipopt 3.14's integer-valued options (all others with numeric values are reals).
pub const INTEGER_OPTIONS: &[&str] = &[
    "accept_after_max_steps",
    "acceptable_iter",
    "file_print_level",
    "filter_reset_trigger",
    "limited_memory_max_history",
    "limited_memory_max_skipping",
    "ma27_liw_init_factor",
    "ma57_block_size",
    "ma57_node_amalgamation",
    "ma57_small_pivot_flag",
    "max_filter_resets",
    "max_iter",
    "max_refinement_steps",
    "max_resto_iter",
    "max_soc",
    "min_refinement_steps",
    "mumps_mem_percent",
    "mumps_permuting_scaling",
    "mumps_pivot_order",
    "mumps_print_level",
    "mumps_scaling",
    "num_linear_variables",
    "print_frequency_iter",
    "print_level",
    "quality_function_max_section_steps",
    "watchdog_shortened_iter_trigger",
    "watchdog_trial_iter_max",
];

impl OptionValue {
    /// Reads a command-line value of option `name`: an integer for Ipopt's integer
    /// options ([`INTEGER_OPTIONS`]), else a number if it parses as one, else a string.
    pub fn parse_for(name: &str, text: &str) -> OptionValue {
        if INTEGER_OPTIONS.contains(&name) {
            if let Ok(i) = text.parse::<i32>() {
                return OptionValue::Int(i);
            }
        }
        match text.parse::<f64>() {
            Ok(v) => OptionValue::Num(v),
            Err(_) => OptionValue::Str(text.to_string()),
        }
    }
}

impl From<&str> for OptionValue {
    fn from(s: &str) -> Self {
        OptionValue::Str(s.to_string())
    }
}
impl From<String> for OptionValue {
    fn from(s: String) -> Self {
        OptionValue::Str(s)
    }
}
impl From<i32> for OptionValue {
    fn from(v: i32) -> Self {
        OptionValue::Int(v)
    }
}
impl From<f64> for OptionValue {
    fn from(v: f64) -> Self {
        OptionValue::Num(v)
    }
}

impl std::fmt::Display for OptionValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionValue::Str(s) => f.write_str(s),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Num(v) => write!(f, "{v:e}"),
        }
    }
}

/// Initial primal point and, for a warm start, dual values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StartPoint {
    /// Initial x.
    pub x: Vec<f64>,
    /// Constraint multipliers λ (warm start).
    pub mult_g: Option<Vec<f64>>,
    /// Lower bound multipliers z_L (warm start).
    pub mult_x_l: Option<Vec<f64>>,
    /// Upper bound multipliers z_U (warm start).
    pub mult_x_u: Option<Vec<f64>>,
}

impl StartPoint {
    /// A cold start from `x`.
    pub fn primal(x: Vec<f64>) -> Self {
        StartPoint { x, ..Default::default() }
    }

    /// True if all three dual vectors are given.
    pub fn has_duals(&self) -> bool {
        self.mult_g.is_some() && self.mult_x_l.is_some() && self.mult_x_u.is_some()
    }
}

/// The outcome of a solve: the last iterate, whatever the status.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solution {
    /// How Ipopt ended.
    pub status: ApplicationReturnStatus,
    /// Final (or last) x.
    pub x: Vec<f64>,
    /// g(x).
    pub g: Vec<f64>,
    /// f(x).
    pub objective: f64,
    /// Constraint multipliers λ.
    pub mult_g: Vec<f64>,
    /// Lower bound multipliers z_L.
    pub mult_x_l: Vec<f64>,
    /// Upper bound multipliers z_U.
    pub mult_x_u: Vec<f64>,
    /// Number of Ipopt iterations.
    pub iterations: usize,
    /// A panic message, if an evaluation callback panicked (the solve was stopped).
    pub callback_panic: Option<String>,
    /// The first evaluation that produced NaN or ±∞ (which function, which entry, at
    /// which Ipopt iteration). Such an evaluation is reported to Ipopt as failed, never
    /// passed on: Ipopt then shortens its step or, at the start point, ends with
    /// [`ApplicationReturnStatus::InvalidNumberDetected`] and the last finite iterate.
    #[serde(default)]
    pub non_finite: Option<String>,
}

impl Solution {
    /// A start point with this solution's primal and dual values.
    pub fn warm_start(&self) -> StartPoint {
        StartPoint {
            x: self.x.clone(),
            mult_g: Some(self.mult_g.clone()),
            mult_x_l: Some(self.mult_x_l.clone()),
            mult_x_u: Some(self.mult_x_u.clone()),
        }
    }
}

/// An Ipopt solver for one NLP structure, with its options.
///
/// The underlying Ipopt problem (and its `IpoptApplication`, whose creation costs
/// about half a millisecond) is created on the first solve and reused by later ones.
pub struct IpoptSolver {
    structure: NlpStructure,
    options: Vec<(String, OptionValue)>,
    problem: std::cell::RefCell<Option<Problem>>,
    /// Names of the per-solve options applied to the cached problem.
    applied_extra: std::cell::RefCell<Vec<String>>,
    /// See [`IpoptSolver::set_reuse_hessian_perturbation`].
    reuse_hessian_perturbation: bool,
}

impl Clone for IpoptSolver {
    fn clone(&self) -> Self {
        IpoptSolver {
            structure: self.structure.clone(),
            options: self.options.clone(),
            problem: Default::default(),
            applied_extra: Default::default(),
            reuse_hessian_perturbation: self.reuse_hessian_perturbation,
        }
    }
}

impl std::fmt::Debug for IpoptSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IpoptSolver").field("structure", &self.structure).field("options", &self.options).finish()
    }
}

struct Context<'a, 's> {
    cb: &'a mut dyn NlpCallbacks,
    intermediate: Option<&'a mut dyn FnMut(&IterationInfo) -> bool>,
    structure: &'s NlpStructure,
    iterations: usize,
    panic: Option<String>,
    non_finite: Option<String>,
}

impl Context<'_, '_> {
    fn guard<T>(&mut self, fallback: T, f: impl FnOnce(&mut Self) -> T) -> T {
        if self.panic.is_some() {
            return fallback;
        }
        match catch_unwind(AssertUnwindSafe(|| f(self))) {
            Ok(v) => v,
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "callback panicked".into());
                self.panic = Some(msg);
                fallback
            }
        }
    }
}

impl Context<'_, '_> {
    /// Passes on a successful evaluation only if every value is finite; otherwise
    /// records the first offender and reports the evaluation as failed.
    fn finite(&mut self, ok: bool, what: &str, values: &[f64]) -> bool {
        if !ok {
            return false;
        }
        match values.iter().position(|v| !v.is_finite()) {
            None => true,
            Some(i) => {
                if self.non_finite.is_none() {
                    self.non_finite = Some(format!("{what}: entry {i} is {} (Ipopt iteration {})", values[i], self.iterations));
                }
                false
            }
        }
    }
}

/// # Safety
/// `ud` is the `Context` passed to `IpoptSolve`, alive for the duration of the solve.
unsafe fn ctx<'a>(ud: *mut c_void) -> &'a mut Context<'a, 'a> {
    // SAFETY: the caller's contract above.
    unsafe { &mut *(ud as *mut Context<'a, 'a>) }
}

/// # Safety
/// `p` points to `n` readable values that outlive `'a` (or `n` is 0).
unsafe fn slice<'a>(p: *const f64, n: usize) -> &'a [f64] {
    // SAFETY: the caller's contract above.
    unsafe {
        if n == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(p, n)
        }
    }
}

/// # Safety
/// `p` points to `n` writable values that outlive `'a` and nothing else aliases (or `n` is 0).
unsafe fn slice_mut<'a>(p: *mut f64, n: usize) -> &'a mut [f64] {
    // SAFETY: the caller's contract above.
    unsafe {
        if n == 0 {
            &mut []
        } else {
            std::slice::from_raw_parts_mut(p, n)
        }
    }
}

extern "C" fn eval_f(_n: i32, x: *mut f64, new_x: bool, obj: *mut f64, ud: *mut c_void) -> bool {
    // SAFETY: `ud` is the Context this crate passed to IpoptSolve, alive during the solve.
    let c = unsafe { ctx(ud) };
    c.guard(false, |c| {
        // SAFETY: Ipopt's arrays hold the NLP's n, m and nele entries.
        let x = unsafe { slice(x, c.structure.n()) };
        match c.cb.objective(x, new_x) {
            Some(v) if c.finite(true, "objective", &[v]) => {
                // SAFETY: `obj` points to Ipopt's objective value.
                unsafe { *obj = v };
                true
            }
            _ => false,
        }
    })
}

extern "C" fn eval_grad_f(n: i32, x: *mut f64, new_x: bool, grad: *mut f64, ud: *mut c_void) -> bool {
    // SAFETY: `ud` is the Context this crate passed to IpoptSolve, alive during the solve.
    let c = unsafe { ctx(ud) };
    c.guard(false, |c| {
        // SAFETY: Ipopt's arrays hold the NLP's n, m and nele entries.
        let (x, g) = unsafe { (slice(x, c.structure.n()), slice_mut(grad, n as usize)) };
        // The perturbation pin (if any) has no gradient.
        let (g, pin) = g.split_at_mut(c.structure.n());
        pin.fill(0.0);
        let ok = c.cb.gradient(x, new_x, g);
        c.finite(ok, "objective gradient", g)
    })
}

extern "C" fn eval_g(_n: i32, x: *mut f64, new_x: bool, m: i32, g: *mut f64, ud: *mut c_void) -> bool {
    // SAFETY: `ud` is the Context this crate passed to IpoptSolve, alive during the solve.
    let c = unsafe { ctx(ud) };
    c.guard(false, |c| {
        // SAFETY: Ipopt's arrays hold the NLP's n, m and nele entries.
        let (x, g) = unsafe { (slice(x, c.structure.n()), slice_mut(g, m as usize)) };
        let ok = c.cb.constraints(x, new_x, g);
        c.finite(ok, "constraints", g)
    })
}

/// Copies a sparsity pattern into Ipopt's index arrays.
///
/// # Safety
/// `irow` and `jcol` point to at least `nele` writable entries; `nele ≤ rows.len()`.
unsafe fn write_pattern(rows: &[usize], cols: &[usize], irow: *mut i32, jcol: *mut i32, nele: i32) {
    // SAFETY: the caller's contract above.
    unsafe {
        for k in 0..nele as usize {
            *irow.add(k) = rows[k] as i32;
            *jcol.add(k) = cols[k] as i32;
        }
    }
}

extern "C" fn eval_jac_g(
    _n: i32,
    x: *mut f64,
    new_x: bool,
    _m: i32,
    nele: i32,
    irow: *mut i32,
    jcol: *mut i32,
    values: *mut f64,
    ud: *mut c_void,
) -> bool {
    // SAFETY: `ud` is the Context this crate passed to IpoptSolve, alive during the solve.
    let c = unsafe { ctx(ud) };
    c.guard(false, |c| {
        let padded = c.structure.jac_rows.is_empty();
        if values.is_null() {
            // SAFETY: Ipopt passes arrays of nele entries when asking for the pattern.
            unsafe {
                if padded {
                    write_pattern(&[0], &[0], irow, jcol, nele)
                } else {
                    write_pattern(&c.structure.jac_rows, &c.structure.jac_cols, irow, jcol, nele)
                }
            };
            return true;
        }
        if padded {
            // SAFETY: one entry, the structural zero of `jacobian_entries`.
            unsafe { *values = 0.0 };
            return true;
        }
        // SAFETY: Ipopt's arrays hold the NLP's n, m and nele entries.
        let (x, v) = unsafe { (slice(x, c.structure.n()), slice_mut(values, nele as usize)) };
        let ok = c.cb.jacobian(x, new_x, v);
        c.finite(ok, "constraint Jacobian", v)
    })
}

extern "C" fn eval_h(
    _n: i32,
    x: *mut f64,
    new_x: bool,
    obj_factor: f64,
    m: i32,
    lambda: *mut f64,
    new_lambda: bool,
    nele: i32,
    irow: *mut i32,
    jcol: *mut i32,
    values: *mut f64,
    ud: *mut c_void,
) -> bool {
    // SAFETY: `ud` is the Context this crate passed to IpoptSolve, alive during the solve.
    let c = unsafe { ctx(ud) };
    c.guard(false, |c| {
        if values.is_null() {
            // SAFETY: as for the Jacobian.
            unsafe { write_pattern(&c.structure.hess_rows, &c.structure.hess_cols, irow, jcol, nele) };
            return true;
        }
        // SAFETY: Ipopt's arrays hold the NLP's n, m and nele entries.
        let (x, l, v) = unsafe { (slice(x, c.structure.n()), slice(lambda, m as usize), slice_mut(values, nele as usize)) };
        let ok = c.cb.hessian(x, new_x, obj_factor, l, new_lambda, v);
        c.finite(ok, "Lagrangian Hessian", v)
    })
}

extern "C" fn intermediate(
    alg_mod: i32,
    iter: i32,
    obj: f64,
    inf_pr: f64,
    inf_du: f64,
    mu: f64,
    d_norm: f64,
    reg: f64,
    alpha_du: f64,
    alpha_pr: f64,
    ls: i32,
    ud: *mut c_void,
) -> bool {
    // SAFETY: `ud` is the Context this crate passed to IpoptSolve, alive during the solve.
    let c = unsafe { ctx(ud) };
    c.iterations = iter.max(0) as usize;
    c.guard(false, |c| match c.intermediate.as_mut() {
        None => true,
        Some(f) => f(&IterationInfo {
            restoration: alg_mod == 1,
            iter: iter.max(0) as usize,
            objective: obj,
            inf_pr,
            inf_du,
            mu,
            d_norm,
            regularization: reg,
            alpha_du,
            alpha_pr,
            ls_trials: ls.max(0) as usize,
        }),
    })
}

/// Jacobian entries declared to Ipopt: Ipopt refuses constraints without any
/// (all constant), so those get one structural zero at (0, 0).
fn jacobian_entries(s: &NlpStructure) -> usize {
    if s.m() > 0 && s.jac_rows.is_empty() {
        1
    } else {
        s.jac_rows.len()
    }
}

struct Problem(sys::IpoptProblem);

impl Drop for Problem {
    fn drop(&mut self) {
        // SAFETY: created by CreateIpoptProblem, freed once.
        unsafe { sys::FreeIpoptProblem(self.0) }
    }
}

fn cstring(s: &str) -> Result<CString, IpoptError> {
    CString::new(s).map_err(|_| IpoptError::InvalidOption { name: s.to_string(), value: "contains NUL".into() })
}

/// See [`set_process_tuning`].
static PROCESS_TUNING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Whether [`IpoptSolver::new`] changes process-wide settings: glibc's allocator keeps
/// freed memory and OpenBLAS runs one thread (default on; both measured faster for
/// fesd's own solves, see their functions). A program that embeds fesd beside work of
/// its own, whose allocator and BLAS threads are its business, turns it off before its
/// first solver; settings already made stay.
pub fn set_process_tuning(on: bool) {
    PROCESS_TUNING.store(on, std::sync::atomic::Ordering::Relaxed);
}

impl IpoptSolver {
    /// A solver for `structure` (validated here). Unless a host program turned it off
    /// ([`set_process_tuning`]), the first one also tunes the process: glibc keeps freed
    /// memory ([`keep_freed_memory`]) and OpenBLAS runs one thread
    /// (see [`blas_threads`]).
    pub fn new(structure: NlpStructure) -> Result<Self, IpoptError> {
        structure.validate()?;
        if PROCESS_TUNING.load(std::sync::atomic::Ordering::Relaxed) {
            keep_freed_memory();
            blas::single_threaded_blas();
        }
        Ok(IpoptSolver {
            structure,
            options: Vec::new(),
            problem: Default::default(),
            applied_extra: Default::default(),
            reuse_hessian_perturbation: false,
        })
    }

    /// Start every KKT factorization with a Hessian perturbation δ_w (Ipopt's
    /// `lg(rg)`) — the last one times `perturb_dec_fact` — instead of trying δ_w = 0
    /// first (default false). Ipopt only does so once it has classified the Hessian
    /// as structurally degenerate, so this adds a variable that appears nowhere
    /// (free, zero gradient, no Jacobian or Hessian entries; invisible in every
    /// result): its zero row makes the first factorizations singular, and after
    /// three of them Ipopt perturbs every matrix. Saves factorizations where the
    /// Hessian is indefinite in most iterations, as in relaxed MPCCs (each such
    /// iteration factorizes at least twice: δ_w = 0, wrong inertia, then δ_w > 0);
    /// where no perturbation is needed it lingers, shrinking by `perturb_dec_fact`
    /// per iteration, which can cost iterations near the solution.
    pub fn set_reuse_hessian_perturbation(&mut self, on: bool) -> &mut Self {
        if on != self.reuse_hessian_perturbation {
            *self.problem.get_mut() = None;
        }
        self.reuse_hessian_perturbation = on;
        self
    }

    /// Number of variables Ipopt sees: the NLP's, plus the pin of
    /// [`IpoptSolver::set_reuse_hessian_perturbation`].
    fn ipopt_n(&self) -> usize {
        self.structure.n() + usize::from(self.reuse_hessian_perturbation)
    }

    /// The problem structure.
    pub fn structure(&self) -> &NlpStructure {
        &self.structure
    }

    /// Replaces the variable bounds (validated as at [`IpoptSolver::new`]; on an error
    /// the old ones stay); the next solve sets Ipopt's problem up anew. A variable with
    /// equal bounds is fixed (Ipopt's `fixed_variable_treatment`).
    pub fn set_variable_bounds(&mut self, x_l: Vec<f64>, x_u: Vec<f64>) -> Result<(), IpoptError> {
        let candidate = NlpStructure { x_l, x_u, ..self.structure.clone() };
        candidate.validate()?;
        self.structure = candidate;
        *self.problem.get_mut() = None;
        Ok(())
    }

    /// Sets an Ipopt option (string, integer or number); checked by Ipopt at solve time.
    pub fn set_option(&mut self, name: &str, value: impl Into<OptionValue>) -> &mut Self {
        let value = value.into();
        if self.options.iter().any(|(n, _)| n == name) {
            // A changed option list: start the next solve from a fresh Ipopt problem so
            // that options removed or replaced do not linger.
            *self.problem.get_mut() = None;
        }
        self.options.retain(|(n, _)| n != name);
        self.options.push((name.to_string(), value));
        self
    }

    /// Creates the Ipopt problem object for the structure.
    fn create_problem(&self) -> Result<Problem, IpoptError> {
        let s = &self.structure;
        let (n, m) = (self.ipopt_n(), s.m());
        let (mut xl, mut xu, mut gl, mut gu) = (s.x_l.clone(), s.x_u.clone(), s.g_l.clone(), s.g_u.clone());
        xl.resize(n, -1e20);
        xu.resize(n, 1e20);
        // SAFETY: arrays have the declared lengths; Ipopt copies the bounds.
        let prob = unsafe {
            sys::CreateIpoptProblem(
                n as i32,
                xl.as_mut_ptr(),
                xu.as_mut_ptr(),
                m as i32,
                gl.as_mut_ptr(),
                gu.as_mut_ptr(),
                jacobian_entries(s) as i32,
                s.hess_rows.len() as i32,
                0,
                eval_f,
                eval_g,
                eval_grad_f,
                eval_jac_g,
                eval_h,
            )
        };
        if prob.is_null() {
            return Err(IpoptError::CreateFailed);
        }
        Ok(Problem(prob))
    }

    /// Checks every option set so far against Ipopt (names, types, values) without solving.
    pub fn validate_options(&self) -> Result<(), IpoptError> {
        apply_options(&self.create_problem()?, &self.options)
    }

    /// Options set so far.
    pub fn options(&self) -> &[(String, OptionValue)] {
        &self.options
    }

    /// Solves from `start`. If `start` carries all duals and `warm_start_init_point`
    /// was not set, it is set to `yes`. `intermediate` runs after every iteration;
    /// returning `false` stops the solve (`UserRequestedStop`).
    pub fn solve<'a>(
        &self,
        callbacks: &'a mut dyn NlpCallbacks,
        start: &StartPoint,
        intermediate: Option<&'a mut dyn FnMut(&IterationInfo) -> bool>,
    ) -> Result<Solution, IpoptError> {
        self.solve_with(callbacks, start, intermediate, &[])
    }

    /// Checks the start's sizes against the NLP's.
    fn check_start(&self, start: &StartPoint) -> Result<(), IpoptError> {
        let (n, m) = (self.structure.n(), self.structure.m());
        if start.x.len() != n {
            return Err(IpoptError::InvalidStart(format!("x has {} entries, the NLP {n} variables", start.x.len())));
        }
        for (what, v, len) in [("mult_g", &start.mult_g, m), ("mult_x_l", &start.mult_x_l, n), ("mult_x_u", &start.mult_x_u, n)] {
            if let Some(v) = v {
                if v.len() != len {
                    return Err(IpoptError::InvalidStart(format!("{what} has {} entries, {len} expected", v.len())));
                }
            }
        }
        Ok(())
    }

    /// The cached Ipopt problem (created again where an earlier solve's per-solve
    /// option must not linger) with the options and the per-solve `extra` applied.
    fn ready_problem(
        &self,
        start: &StartPoint,
        extra: &[(String, OptionValue)],
    ) -> Result<std::cell::RefMut<'_, Option<Problem>>, IpoptError> {
        let mut cached = self.problem.borrow_mut();
        // A per-solve option of an earlier solve that is not given again must not linger.
        let mut applied = self.applied_extra.borrow_mut();
        if applied.iter().any(|name| !extra.iter().any(|(k, _)| k == name)) {
            *cached = None;
        }
        *applied = extra.iter().map(|(k, _)| k.clone()).collect();
        if cached.is_none() {
            *cached = Some(self.create_problem()?);
        }
        let prob = cached.as_ref().ok_or(IpoptError::CreateFailed)?;
        let mut options = self.options.clone();
        options.extend(extra.iter().cloned());
        if !options.iter().any(|(k, _)| k == "warm_start_init_point") {
            let warm = if start.has_duals() { "yes" } else { "no" };
            options.push(("warm_start_init_point".into(), warm.into()));
        }
        if let Err(e) = apply_options(prob, &options) {
            // Drop the problem: it may hold a partly applied option set.
            *cached = None;
            return Err(e);
        }
        Ok(cached)
    }

    /// As [`IpoptSolver::solve`], with options that apply to this solve only (after
    /// the stored ones). Each later solve re-applies the stored options, so an option
    /// given here does not carry over unless it is stored too or given again.
    pub fn solve_with<'a>(
        &self,
        callbacks: &'a mut dyn NlpCallbacks,
        start: &StartPoint,
        intermediate: Option<&'a mut dyn FnMut(&IterationInfo) -> bool>,
        extra: &[(String, OptionValue)],
    ) -> Result<Solution, IpoptError> {
        let s = &self.structure;
        let (n, m) = (s.n(), s.m());
        self.check_start(start)?;
        let cached = self.ready_problem(start, extra)?;
        let prob = cached.as_ref().ok_or(IpoptError::CreateFailed)?;
        // SAFETY: `intermediate` has the declared signature.
        unsafe { sys::SetIntermediateCallback(prob.0, intermediate_trampoline()) };
        let n_ipopt = self.ipopt_n();
        let padded = |v: &[f64]| {
            let mut v = v.to_vec();
            v.resize(n_ipopt, 0.0);
            v
        };
        let mut x = padded(&start.x);
        let mut g = vec![0.0; m];
        let mut obj = f64::NAN;
        let mut mult_g = start.mult_g.clone().unwrap_or_else(|| vec![0.0; m]);
        let mut mult_x_l = padded(start.mult_x_l.as_deref().unwrap_or(&[]));
        let mut mult_x_u = padded(start.mult_x_u.as_deref().unwrap_or(&[]));
        let mut context = Context { cb: callbacks, intermediate, structure: s, iterations: 0, panic: None, non_finite: None };
        // SAFETY: all arrays have the sizes Ipopt expects; `context` outlives the call.
        let code = unsafe {
            sys::IpoptSolve(
                prob.0,
                x.as_mut_ptr(),
                g.as_mut_ptr(),
                &mut obj,
                mult_g.as_mut_ptr(),
                mult_x_l.as_mut_ptr(),
                mult_x_u.as_mut_ptr(),
                &mut context as *mut Context as *mut c_void,
            )
        };
        for v in [&mut x, &mut mult_x_l, &mut mult_x_u] {
            v.truncate(n);
        }
        Ok(Solution {
            status: ApplicationReturnStatus::from_code(code),
            x,
            g,
            objective: obj,
            mult_g,
            mult_x_l,
            mult_x_u,
            iterations: context.iterations,
            callback_panic: context.panic,
            non_finite: context.non_finite,
        })
    }
}

fn apply_options(prob: &Problem, options: &[(String, OptionValue)]) -> Result<(), IpoptError> {
    // SAFETY: a live problem; a null table means Ipopt's own linear solver.
    unsafe { sys::fesd_ipopt_set_linear_solver(prob.0, std::ptr::null()) };
    for (name, value) in options {
        if name == "linear_solver" && matches!(value, OptionValue::Str(v) if v == linear::NAME) {
            // fesd's own solver: not an Ipopt value, the shim's table instead.
            // SAFETY: a live problem and a table that lives as long as the program.
            unsafe { sys::fesd_ipopt_set_linear_solver(prob.0, &linear::TABLE) };
            continue;
        }
        let key = cstring(name)?;
        // SAFETY: NUL-terminated strings that Ipopt copies.
        let ok = unsafe {
            match value {
                OptionValue::Str(v) => {
                    let v = cstring(v)?;
                    sys::AddIpoptStrOption(prob.0, key.as_ptr() as *mut _, v.as_ptr() as *mut _)
                }
                // An integer is also a valid value of a numeric option.
                OptionValue::Int(v) => {
                    sys::AddIpoptIntOption(prob.0, key.as_ptr() as *mut _, *v)
                        || sys::AddIpoptNumOption(prob.0, key.as_ptr() as *mut _, *v as f64)
                }
                OptionValue::Num(v) => sys::AddIpoptNumOption(prob.0, key.as_ptr() as *mut _, *v),
            }
        };
        if !ok {
            return Err(IpoptError::InvalidOption { name: name.clone(), value: value.to_string() });
        }
    }
    // Ipopt checks each option's range; the LDLᵀ's pair must also be ordered (defaults:
    // the LDLᵀ's own, which the shim registers with Ipopt).
    let last = |key: &str, default: f64| {
        options.iter().rev().find(|(name, _)| name == key).map_or(default, |(_, v)| match v {
            OptionValue::Num(x) => *x,
            OptionValue::Int(i) => f64::from(*i),
            OptionValue::Str(_) => default,
        })
    };
    let (pivtol, pivtolmax) =
        (last("ldl_pivtol", fesd_kkt::DEFAULT_PIVOT_THRESHOLD), last("ldl_pivtolmax", fesd_kkt::DEFAULT_MAX_PIVOT_THRESHOLD));
    if pivtol > pivtolmax {
        return Err(IpoptError::InvalidOption {
            name: "ldl_pivtolmax".into(),
            value: format!("{pivtolmax} (below ldl_pivtol = {pivtol})"),
        });
    }
    Ok(())
}

fn intermediate_trampoline() -> sys::Intermediate_CB {
    intermediate
}
