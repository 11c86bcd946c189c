//! Mixed-integer linear programs solved by HiGHS (1.13, shipped in the CasADi SDK),
//! through its C API.
//!
//! ```text
//! min cᵀx  s.t.  row_lower ≤ A x ≤ row_upper,  col_lower ≤ x ≤ col_upper,  x_j ∈ ℤ for integer j
//! ```
//!
//! [`Milp::solve`] validates the data, runs HiGHS with its output switched off and
//! returns the model status with the solution. HiGHS holds no global state here: every
//! solve creates and frees its own instance, so solves on different threads are
//! independent.

use std::ffi::{c_char, c_void, CString};

/// `HighsInt` of this build (32-bit: `HIGHSINT64` is off in the SDK's `HConfig.h`).
type HighsInt = i32;

#[link(name = "highs")]
extern "C" {
    fn Highs_create() -> *mut c_void;
    fn Highs_destroy(highs: *mut c_void);
    fn Highs_setBoolOptionValue(highs: *mut c_void, option: *const c_char, value: HighsInt) -> HighsInt;
    fn Highs_setDoubleOptionValue(highs: *mut c_void, option: *const c_char, value: f64) -> HighsInt;
    #[allow(clippy::too_many_arguments)]
    fn Highs_passMip(
        highs: *mut c_void,
        num_col: HighsInt,
        num_row: HighsInt,
        num_nz: HighsInt,
        a_format: HighsInt,
        sense: HighsInt,
        offset: f64,
        col_cost: *const f64,
        col_lower: *const f64,
        col_upper: *const f64,
        row_lower: *const f64,
        row_upper: *const f64,
        a_start: *const HighsInt,
        a_index: *const HighsInt,
        a_value: *const f64,
        integrality: *const HighsInt,
    ) -> HighsInt;
    fn Highs_run(highs: *mut c_void) -> HighsInt;
    fn Highs_getModelStatus(highs: *const c_void) -> HighsInt;
    fn Highs_getObjectiveValue(highs: *const c_void) -> f64;
    fn Highs_getSolution(
        highs: *const c_void,
        col_value: *mut f64,
        col_dual: *mut f64,
        row_value: *mut f64,
        row_dual: *mut f64,
    ) -> HighsInt;
}

const STATUS_ERROR: HighsInt = -1;
const MATRIX_ROWWISE: HighsInt = 2;
const SENSE_MINIMIZE: HighsInt = 1;

/// What went wrong before HiGHS could report a model status.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HighsError {
    /// The problem data are inconsistent (sizes, indices, NaN, crossed bounds).
    #[error("invalid MILP: {0}")]
    Invalid(String),
    /// HiGHS rejected the model or failed to run.
    #[error("HiGHS failed: {0}")]
    Failed(String),
}

/// A MILP in row-wise sparse form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Milp {
    /// Objective coefficients c (one per column).
    pub cost: Vec<f64>,
    /// Lower bounds of x (`-inf` allowed).
    pub col_lower: Vec<f64>,
    /// Upper bounds of x (`inf` allowed).
    pub col_upper: Vec<f64>,
    /// Which columns are integer.
    pub integer: Vec<bool>,
    /// Rows of A as `(column, value)` lists.
    pub rows: Vec<Vec<(usize, f64)>>,
    /// Lower bounds of A x.
    pub row_lower: Vec<f64>,
    /// Upper bounds of A x.
    pub row_upper: Vec<f64>,
}

/// HiGHS's model status after a solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MilpStatus {
    /// Optimal (to HiGHS's MIP gap).
    Optimal,
    /// Infeasible.
    Infeasible,
    /// Unbounded (or infeasible).
    Unbounded,
    /// A limit was reached (time, iterations, solutions); the solution may be usable.
    Limit,
    /// Any other status, with HiGHS's code.
    Other(i32),
}

/// The outcome of [`Milp::solve`].
#[derive(Clone, Debug, PartialEq)]
pub struct MilpSolution {
    /// Model status.
    pub status: MilpStatus,
    /// Column values (meaningful for `Optimal` and, possibly, `Limit`).
    pub x: Vec<f64>,
    /// Objective value cᵀx.
    pub objective: f64,
}

impl Milp {
    /// Number of columns.
    pub fn n_col(&self) -> usize {
        self.cost.len()
    }

    /// Checks sizes, indices, finiteness of data and the order of bounds.
    pub fn validate(&self) -> Result<(), HighsError> {
        let bad = |s: String| Err(HighsError::Invalid(s));
        let n = self.n_col();
        for (what, len) in [("col_lower", self.col_lower.len()), ("col_upper", self.col_upper.len()), ("integer", self.integer.len())] {
            if len != n {
                return bad(format!("{what} has {len} entries for {n} columns"));
            }
        }
        let m = self.rows.len();
        if self.row_lower.len() != m || self.row_upper.len() != m {
            return bad(format!("row bounds have {} and {} entries for {m} rows", self.row_lower.len(), self.row_upper.len()));
        }
        if n > HighsInt::MAX as usize || m > HighsInt::MAX as usize {
            return bad("too large for 32-bit indices".into());
        }
        if let Some(j) = self.cost.iter().position(|c| !c.is_finite()) {
            return bad(format!("cost[{j}] is {}", self.cost[j]));
        }
        for (what, lo, up) in [("column", &self.col_lower, &self.col_upper), ("row", &self.row_lower, &self.row_upper)] {
            for (i, (l, u)) in lo.iter().zip(up.iter()).enumerate() {
                if l.is_nan() || u.is_nan() || l > u {
                    return bad(format!("{what} {i}: bounds [{l}, {u}]"));
                }
            }
        }
        for (i, row) in self.rows.iter().enumerate() {
            if let Some(&(j, v)) = row.iter().find(|(j, v)| *j >= n || !v.is_finite()) {
                return bad(format!("row {i}: entry ({j}, {v})"));
            }
        }
        Ok(())
    }

    /// Solves with HiGHS (output off), stopping after `time_limit` seconds.
    pub fn solve(&self, time_limit: f64) -> Result<MilpSolution, HighsError> {
        self.validate()?;
        let (n, m) = (self.n_col(), self.rows.len());
        let mut start = Vec::with_capacity(m);
        let (mut index, mut value) = (Vec::new(), Vec::new());
        for row in &self.rows {
            start.push(index.len() as HighsInt);
            for &(j, v) in row {
                index.push(j as HighsInt);
                value.push(v);
            }
        }
        let integrality: Vec<HighsInt> = self.integer.iter().map(|&b| HighsInt::from(b)).collect();
        let instance = Instance::new()?;
        let h = instance.0;
        let flag = CString::new("output_flag").expect("no NUL");
        let limit = CString::new("time_limit").expect("no NUL");
        // SAFETY: `h` is a live instance; every array has the length passed with it.
        unsafe {
            Highs_setBoolOptionValue(h, flag.as_ptr(), 0);
            if time_limit.is_finite() && time_limit > 0.0 {
                Highs_setDoubleOptionValue(h, limit.as_ptr(), time_limit);
            }
            let status = Highs_passMip(
                h,
                n as HighsInt,
                m as HighsInt,
                index.len() as HighsInt,
                MATRIX_ROWWISE,
                SENSE_MINIMIZE,
                0.0,
                self.cost.as_ptr(),
                self.col_lower.as_ptr(),
                self.col_upper.as_ptr(),
                self.row_lower.as_ptr(),
                self.row_upper.as_ptr(),
                start.as_ptr(),
                index.as_ptr(),
                value.as_ptr(),
                integrality.as_ptr(),
            );
            if status == STATUS_ERROR {
                return Err(HighsError::Failed("the model was rejected".into()));
            }
            if Highs_run(h) == STATUS_ERROR {
                return Err(HighsError::Failed("the solve failed".into()));
            }
            let status = match Highs_getModelStatus(h) {
                7 => MilpStatus::Optimal,
                8 => MilpStatus::Infeasible,
                9 | 10 => MilpStatus::Unbounded,
                13 | 14 | 16 => MilpStatus::Limit,
                c => MilpStatus::Other(c),
            };
            let mut x = vec![0.0; n];
            let mut row_value = vec![0.0; m];
            Highs_getSolution(h, x.as_mut_ptr(), std::ptr::null_mut(), row_value.as_mut_ptr(), std::ptr::null_mut());
            Ok(MilpSolution { status, x, objective: Highs_getObjectiveValue(h) })
        }
    }
}

/// One HiGHS instance, destroyed on drop.
struct Instance(*mut c_void);

impl Instance {
    fn new() -> Result<Self, HighsError> {
        // SAFETY: no preconditions.
        let h = unsafe { Highs_create() };
        if h.is_null() {
            return Err(HighsError::Failed("could not create an instance".into()));
        }
        Ok(Instance(h))
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: created by Highs_create, destroyed once.
        unsafe { Highs_destroy(self.0) }
    }
}
