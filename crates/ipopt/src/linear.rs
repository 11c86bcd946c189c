//! fesd's sparse LDLᵀ (`fesd-kkt`) as Ipopt's linear solver (`linear_solver = ldl`):
//! the function table the application shim calls. A matrix the LDLᵀ finds singular is
//! reported so (Ipopt then regularizes it); one whose delayed pivots pile up
//! ([`KktError::TooManyDelays`]) is handed by the shim to Ipopt's own solver (MUMPS,
//! behind Ipopt's lock; after one such MUMPS takes the matrices, the LDLᵀ retried every
//! 16th). The pivot threshold u starts at Ipopt's option `ldl_pivtol` (1e-8, registered
//! by the shim and range-checked by Ipopt); `IncreaseQuality` raises it as Ipopt's MUMPS
//! interface does (u ← √u up to `ldl_pivtolmax`, 0.1) and the next solve factors the
//! matrix again, except after a wrong inertia from the pivoting factor (exact whatever
//! u: Ipopt regularizes instead). Every function catches panics; a failure is a status
//! Ipopt understands, never an unwind across the shim.

use crate::sys::LinearSolver;
use fesd_kkt::{KktError, Ldl};
use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// One KKT system as Ipopt handed it to `linear_solver = ldl`: the lower triangle by
/// columns and the first right-hand side.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KktSystem {
    /// Order of the matrix.
    pub dim: usize,
    /// Column pointers (dim + 1).
    pub col_ptr: Vec<usize>,
    /// Row indices.
    pub row_idx: Vec<usize>,
    /// Values.
    pub values: Vec<f64>,
    /// The first right-hand side of the solve that followed the factorization.
    pub rhs: Vec<f64>,
    /// The pivot threshold u it was factored with (`ldl_pivtol`, or higher after
    /// `IncreaseQuality`; files written without it: 1e-8).
    #[serde(default = "default_pivot_threshold")]
    pub pivot_threshold: f64,
}

fn default_pivot_threshold() -> f64 {
    fesd_kkt::DEFAULT_PIVOT_THRESHOLD
}

struct Capture {
    every: usize,
    max: usize,
    seen: usize,
    systems: Vec<KktSystem>,
}

thread_local! {
    static CAPTURE: RefCell<Option<Capture>> = const { RefCell::new(None) };
}

/// Records every `every`-th KKT system that `linear_solver = ldl` factors on this
/// thread (those with the wrong inertia too), at most `max`, until
/// [`take_captured_kkt`] (for benchmarks).
pub fn capture_kkt(every: usize, max: usize) {
    CAPTURE.with(|c| *c.borrow_mut() = Some(Capture { every: every.max(1), max, seen: 0, systems: Vec::new() }));
}

/// The systems recorded since [`capture_kkt`]; recording stops.
pub fn take_captured_kkt() -> Vec<KktSystem> {
    CAPTURE.with(|c| c.borrow_mut().take().map(|c| c.systems).unwrap_or_default())
}

static LDL_FACTORIZATIONS: AtomicUsize = AtomicUsize::new(0);
static PIVOTING_FACTORIZATIONS: AtomicUsize = AtomicUsize::new(0);
static LDL_SOLVES: AtomicUsize = AtomicUsize::new(0);
static DELAYED_PIVOTS: AtomicUsize = AtomicUsize::new(0);
static QUALITY_INCREASES: AtomicUsize = AtomicUsize::new(0);
static FACTOR_NANOS: AtomicU64 = AtomicU64::new(0);
static SOLVE_NANOS: AtomicU64 = AtomicU64::new(0);

/// Work done under `linear_solver = ldl` in this process so far (for benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LdlWork {
    /// Successful factorizations by the LDLᵀ.
    pub factorizations: usize,
    /// Of them, by its pivoting multifrontal factor.
    pub pivoting: usize,
    /// Matrices handed to Ipopt's MUMPS (the LDLᵀ gave up on them or skipped them).
    pub mumps_fallbacks: usize,
    /// Right-hand sides solved by the LDLᵀ.
    pub solves: usize,
    /// Pivots the pivoting factor delayed to a parent front.
    pub delayed_pivots: usize,
    /// Times Ipopt asked for a more accurate factorization (`IncreaseQuality`) and got it.
    pub quality_increases: usize,
    /// Seconds spent factoring (failed attempts included).
    pub factor_seconds: f64,
    /// Seconds spent solving.
    pub solve_seconds: f64,
}

/// The work of `linear_solver = ldl` in this process so far.
pub fn ldl_work() -> LdlWork {
    // SAFETY: reads an atomic counter of the shim.
    let fallbacks = unsafe { crate::sys::fesd_ipopt_fallbacks() };
    LdlWork {
        factorizations: LDL_FACTORIZATIONS.load(Ordering::Relaxed),
        pivoting: PIVOTING_FACTORIZATIONS.load(Ordering::Relaxed),
        mumps_fallbacks: usize::try_from(fallbacks).unwrap_or(0),
        solves: LDL_SOLVES.load(Ordering::Relaxed),
        delayed_pivots: DELAYED_PIVOTS.load(Ordering::Relaxed),
        quality_increases: QUALITY_INCREASES.load(Ordering::Relaxed),
        factor_seconds: FACTOR_NANOS.load(Ordering::Relaxed) as f64 * 1e-9,
        solve_seconds: SOLVE_NANOS.load(Ordering::Relaxed) as f64 * 1e-9,
    }
}

/// Adds the time since `start` to `counter`.
fn clock(counter: &AtomicU64, start: Instant) {
    counter.fetch_add(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX), Ordering::Relaxed);
}

/// One solver instance of Ipopt's.
#[derive(Default)]
struct Handle {
    ldl: Ldl,
    /// The pivot threshold went up: the next solve factors the matrix again (Ipopt
    /// does not hand it over again).
    refactor: bool,
    /// The last factorization gave up (for Ipopt's own solver), not a singular matrix.
    hand_over: bool,
    /// The last solve reported a wrong inertia.
    wrong_inertia: bool,
}

fn record(ldl: &Ldl, rhs: &[f64]) {
    CAPTURE.with(|c| {
        if let Some(c) = c.borrow_mut().as_mut() {
            c.seen += 1;
            if (c.seen - 1) % c.every == 0 && c.systems.len() < c.max {
                let (col_ptr, row_idx, values) = ldl.matrix();
                let dim = ldl.dim();
                let rhs = rhs.get(..dim).unwrap_or(rhs).to_vec();
                c.systems.push(KktSystem {
                    dim,
                    col_ptr: col_ptr.to_vec(),
                    row_idx: row_idx.to_vec(),
                    values: values.to_vec(),
                    rhs,
                    pivot_threshold: ldl.pivot_threshold,
                });
            }
        }
    })
}

/// The name that selects it as `linear_solver`.
pub const NAME: &str = "ldl";

/// Ipopt's `ESymSolverStatus`.
const SUCCESS: c_int = 0;
const SINGULAR: c_int = 1;
const WRONG_INERTIA: c_int = 2;
const FATAL: c_int = 4;

/// The table handed to the shim.
pub static TABLE: LinearSolver =
    LinearSolver { create, configure, destroy, structure, values, solve, negative_eigenvalues, increase_quality, hand_over };

fn with<T>(handle: *mut c_void, fallback: T, f: impl FnOnce(&mut Handle) -> T) -> T {
    if handle.is_null() {
        return fallback;
    }
    // SAFETY: `handle` came from `create` and is used by one Ipopt solve at a time.
    let h = unsafe { &mut *(handle as *mut Handle) };
    catch_unwind(AssertUnwindSafe(|| f(h))).unwrap_or(fallback)
}

extern "C" fn create() -> *mut c_void {
    catch_unwind(|| Box::into_raw(Box::<Handle>::default()) as *mut c_void).unwrap_or(std::ptr::null_mut())
}

extern "C" fn configure(handle: *mut c_void, pivtol: f64, pivtolmax: f64) -> c_int {
    with(handle, FATAL, |h| {
        // Ipopt checked each option's range; the pair's order is checked here.
        if !(pivtol > 0.0 && pivtol <= pivtolmax && pivtolmax < 1.0) {
            return FATAL;
        }
        (h.ldl.pivot_threshold, h.ldl.max_pivot_threshold) = (pivtol, pivtolmax);
        SUCCESS
    })
}

extern "C" fn destroy(handle: *mut c_void) {
    if !handle.is_null() {
        // SAFETY: created by `create`, destroyed once by the shim.
        let _ = catch_unwind(|| drop(unsafe { Box::from_raw(handle as *mut Handle) }));
    }
}

extern "C" fn structure(handle: *mut c_void, dim: c_int, nonzeros: c_int, ia: *const c_int, ja: *const c_int) -> c_int {
    with(handle, FATAL, |h| {
        let (Ok(dim), Ok(nnz)) = (usize::try_from(dim), usize::try_from(nonzeros)) else { return FATAL };
        if ia.is_null() || (nnz > 0 && ja.is_null()) {
            return FATAL;
        }
        // SAFETY: Ipopt passes dim + 1 row pointers and `nonzeros` column indices.
        let (ia, ja) =
            unsafe { (std::slice::from_raw_parts(ia, dim + 1), if nnz == 0 { &[][..] } else { std::slice::from_raw_parts(ja, nnz) }) };
        // The upper triangle by rows is the lower triangle by columns.
        match h.ldl.analyze(dim, ia, ja) {
            Ok(()) => SUCCESS,
            Err(_) => FATAL,
        }
    })
}

extern "C" fn values(handle: *mut c_void) -> *mut f64 {
    with(handle, std::ptr::null_mut(), |h| h.ldl.values_mut().as_mut_ptr())
}

extern "C" fn solve(handle: *mut c_void, new_matrix: c_int, nrhs: c_int, rhs: *mut f64, check_neg: c_int, expected_neg: c_int) -> c_int {
    with(handle, FATAL, |h| {
        // After `IncreaseQuality` Ipopt solves with the same matrix (`new_matrix` 0): it
        // is factored again from the values it holds, with the raised threshold.
        h.wrong_inertia = false;
        let refactor = std::mem::take(&mut h.refactor);
        if new_matrix != 0 || refactor {
            let (started, delayed) = (Instant::now(), h.ldl.delayed_pivots);
            let factored = h.ldl.factor();
            clock(&FACTOR_NANOS, started);
            DELAYED_PIVOTS.fetch_add(h.ldl.delayed_pivots - delayed, Ordering::Relaxed);
            // Ipopt cannot regularize a matrix it already accepted (a failed solve there
            // ends the algorithm): one that fails again goes to Ipopt's own solver.
            h.hand_over = matches!(factored, Err(KktError::TooManyDelays { .. })) || (factored.is_err() && new_matrix == 0);
            match factored {
                Ok(_) => {
                    LDL_FACTORIZATIONS.fetch_add(1, Ordering::Relaxed);
                    if h.ldl.pivoted() {
                        PIVOTING_FACTORIZATIONS.fetch_add(1, Ordering::Relaxed);
                    }
                }
                // Singular, or (`hand_over`) for Ipopt's own solver.
                Err(KktError::Singular { .. } | KktError::TooManyDelays { .. }) => return SINGULAR,
                Err(_) => return FATAL,
            }
        } else if !h.ldl.is_factored() {
            return SINGULAR;
        }
        let (Ok(nrhs), dim) = (usize::try_from(nrhs), h.ldl.dim()) else { return FATAL };
        if rhs.is_null() && nrhs * dim > 0 {
            return FATAL;
        }
        // SAFETY: Ipopt passes nrhs right-hand sides of dim values each.
        let rhs = if nrhs * dim == 0 { &mut [][..] } else { unsafe { std::slice::from_raw_parts_mut(rhs, nrhs * dim) } };
        if new_matrix != 0 || refactor {
            record(&h.ldl, rhs);
        }
        h.wrong_inertia = check_neg != 0 && usize::try_from(expected_neg).ok() != Some(h.ldl.negative_eigenvalues());
        if h.wrong_inertia {
            return WRONG_INERTIA;
        }
        let started = Instant::now();
        let solved = h.ldl.solve_in_place(rhs, nrhs);
        clock(&SOLVE_NANOS, started);
        LDL_SOLVES.fetch_add(nrhs, Ordering::Relaxed);
        match solved {
            Ok(_) => SUCCESS,
            Err(_) => FATAL,
        }
    })
}

extern "C" fn negative_eigenvalues(handle: *mut c_void) -> c_int {
    with(handle, 0, |h| c_int::try_from(h.ldl.negative_eigenvalues()).unwrap_or(c_int::MAX))
}

extern "C" fn hand_over(handle: *mut c_void) -> c_int {
    with(handle, 1, |h| c_int::from(h.hand_over))
}

extern "C" fn increase_quality(handle: *mut c_void) -> c_int {
    with(handle, 0, |h| {
        // The pivoting factor's inertia is exact whatever the threshold: after a wrong
        // one a stricter threshold cannot help, and Ipopt regularizes instead.
        if h.wrong_inertia && h.ldl.pivoted() {
            return 0;
        }
        let raised = h.ldl.increase_quality();
        h.refactor |= raised;
        QUALITY_INCREASES.fetch_add(usize::from(raised), Ordering::Relaxed);
        c_int::from(raised)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table driven as Ipopt's TSymLinearSolver drives it, on [[1, 1], [1, 0]]
    /// (upper triangle by rows: ia = [0, 2, 3], ja = [0, 1, 1]; one negative eigenvalue).
    #[test]
    fn a_quality_increase_refactors_the_matrix_ipopt_solves_again() {
        let h = create();
        assert_eq!(configure(h, 0.2, 0.1), FATAL, "ldl_pivtol above ldl_pivtolmax");
        assert_eq!(configure(h, 1e-8, 0.1), SUCCESS);
        let (ia, ja) = ([0, 2, 3], [0, 1, 1]);
        assert_eq!(structure(h, 2, 3, ia.as_ptr(), ja.as_ptr()), SUCCESS);
        // SAFETY: the values array holds the pattern's 3 entries.
        let give = |v: [f64; 3]| unsafe { std::slice::from_raw_parts_mut(values(h), 3).copy_from_slice(&v) };
        let factorizations = |h: *mut c_void| with(h, 0, |h| h.ldl.factorizations);
        let solve_with = |new_matrix: c_int, expected_neg: Option<c_int>| {
            let mut rhs = [1.0, 2.0];
            let status = solve(h, new_matrix, 1, rhs.as_mut_ptr(), c_int::from(expected_neg.is_some()), expected_neg.unwrap_or(0));
            (status, rhs)
        };
        give([1.0, 1.0, 0.0]);
        assert_eq!(solve_with(1, Some(1)), (SUCCESS, [2.0, -1.0]));
        assert_eq!(factorizations(h), 1);
        // Ipopt raises the quality, then solves with the same matrix (not handed over
        // again): factored again, by the pivoting factor at u = √1e-8.
        assert_eq!(increase_quality(h), 1);
        assert_eq!(solve_with(0, None), (SUCCESS, [2.0, -1.0]));
        assert_eq!(factorizations(h), 2, "factored again");
        assert!(with(h, false, |h| h.ldl.pivoted()));
        assert_eq!(with(h, 0.0, |h| h.ldl.pivot_threshold), 1e-4);
        assert_eq!(solve_with(0, None).0, SUCCESS);
        assert_eq!(factorizations(h), 2, "a plain re-solve reuses the factor");
        // A wrong inertia from the pivoting factor: a stricter threshold cannot help.
        assert_eq!(solve_with(1, Some(0)).0, WRONG_INERTIA);
        assert_eq!(increase_quality(h), 0);
        // A singular matrix is reported so (Ipopt regularizes it) ...
        give([0.0, 0.0, 0.0]);
        assert_eq!(solve_with(1, Some(1)).0, SINGULAR);
        assert_eq!(hand_over(h), 0);
        // ... but one that fails when factored again after a quality increase goes to
        // Ipopt's own solver: Ipopt cannot regularize a system it already accepted.
        assert_eq!(increase_quality(h), 1);
        assert_eq!(solve_with(0, None).0, SINGULAR);
        assert_eq!(hand_over(h), 1);
        destroy(h);
    }
}
