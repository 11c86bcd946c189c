//! fesd's MPCC solver behind a C ABI (`include/fesd.h`).
//!
//! A C program links a generated module (its kernels and their table,
//! `<module>_kernel_table()`), this library and Ipopt, and builds a solver from the
//! module and the solver's record ([`fesd_mpcc::MpccRecord`], JSON): no CasADi, no
//! compiler, no file. The solver is the same Rust homotopy and active-set finish as in
//! a Rust program, so both give the same iterates.
//!
//! Contract of every function: a status code ([`FESD_OK`] or a negative `FESD_ERR_*`)
//! instead of an abort; pointers may be NULL (an error, never a crash); buffers come
//! with their lengths; a failed call leaves the solver as it was and its reason in
//! [`fesd_solver_last_error`]. Nothing unwinds across the ABI.

// The ABI's types carry their C names.
#![allow(non_camel_case_types)]

use fesd_codegen::{BindTablesFn, KernelLibrary, KernelTable};
use fesd_mpcc::{MpccRecord, MpccResult, MpccSolver, MpccStatus, Stationarity};
use std::ffi::{c_char, c_int, c_longlong, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Version of this ABI; [`fesd_problem::abi_version`] must equal it.
pub const FESD_ABI_VERSION: c_int = 2;

/// Success; after a solve: converged.
pub const FESD_OK: c_int = 0;
/// The solve ran but stopped above comp_tol (the last iterate is available).
pub const FESD_NOT_CONVERGED: c_int = 1;
/// A homotopy NLP failed and could not be recovered (the last iterate is available).
pub const FESD_NLP_FAILED: c_int = 2;
/// A required pointer was NULL.
pub const FESD_ERR_NULL: c_int = -1;
/// A buffer's length does not match.
pub const FESD_ERR_LENGTH: c_int = -2;
/// An input value is NaN or infinite.
pub const FESD_ERR_NOT_FINITE: c_int = -3;
/// The call needs a state the solver is not in (e.g. a result before any solve).
pub const FESD_ERR_STATE: c_int = -4;
/// The problem's ABI or record version does not match this library.
pub const FESD_ERR_ABI: c_int = -5;
/// An internal error (a bug: please report the message).
pub const FESD_ERR_INTERNAL: c_int = -6;
/// An option's name or value was refused.
pub const FESD_ERR_OPTION: c_int = -7;

/// A generated problem: its module's kernel table and constant tables, and its
/// solver's record.
#[repr(C)]
pub struct fesd_problem {
    /// [`FESD_ABI_VERSION`] of the headers the program was compiled with.
    pub abi_version: c_int,
    /// What the module's `<module>_kernel_table()` returns.
    pub kernel_table: *const c_void,
    /// The module's `<module>_bind_tables`, or NULL if its C kept every table.
    pub bind_tables: Option<unsafe extern "C" fn(*const c_longlong, c_longlong, *const f64, c_longlong) -> c_int>,
    /// The module's constant tables (the bytes its export wrote), or NULL.
    pub tables: *const u8,
    /// Length of `tables` in bytes.
    pub tables_len: usize,
    /// The solver's record (JSON text, not necessarily NUL-terminated).
    pub record: *const c_char,
    /// Length of `record` in bytes.
    pub record_len: usize,
}

/// [`fesd_solve_info::stationarity`]: the active-set finish did not run or could not
/// decide.
pub const FESD_STATIONARITY_UNKNOWN: c_int = 0;
/// Strongly stationary (the biactive pairs' multipliers are nonnegative).
pub const FESD_STATIONARITY_S: c_int = 1;
/// B-stationary (no feasible descent direction to first order).
pub const FESD_STATIONARITY_B: c_int = 2;
/// The LPEC found a descent direction its branch NLP did not follow.
pub const FESD_STATIONARITY_NOT_B: c_int = 3;
/// No branch of the linearized MPCC is feasible near the point (a diagnosis).
pub const FESD_STATIONARITY_LOCALLY_INFEASIBLE: c_int = 4;

/// Options of [`fesd_solver_create`]; NULL means all defaults.
#[repr(C)]
pub struct fesd_create_options {
    /// Nonzero: let the solver tune the process (glibc keeps freed memory, OpenBLAS
    /// runs one thread), as fesd's own programs do. Zero (the default): leave both to
    /// the program.
    pub tune_process: c_int,
}

/// What a solve did.
#[repr(C)]
#[derive(Default)]
pub struct fesd_solve_info {
    /// [`FESD_OK`], [`FESD_NOT_CONVERGED`] or [`FESD_NLP_FAILED`].
    pub status: c_int,
    /// Ipopt's status code of the failed NLP (`FESD_NLP_FAILED`), else 0.
    pub ipopt_status: c_int,
    /// Ipopt iterations over the homotopy and the finish.
    pub ipopt_iterations: i64,
    /// Homotopy NLPs solved.
    pub homotopy_steps: i64,
    /// max_i |G_i H_i| at the result.
    pub comp_residual: f64,
    /// The MPCC's objective f(w) at the result.
    pub objective: f64,
    /// Wall time of the solve in seconds.
    pub wall_time: f64,
    /// What the active-set finish certified: a `FESD_STATIONARITY_*` value.
    pub stationarity: c_int,
    /// The OCP's cost (without the relaxation's terms) and horizon T: filled by an
    /// exported OCP's `<name>_solve`; NaN from [`fesd_solver_solve`], which knows only
    /// the MPCC.
    pub cost: f64,
    /// See `cost`.
    pub t_final: f64,
}

/// A solver: opaque to C.
pub struct fesd_solver {
    solver: MpccSolver,
    last: Option<MpccResult>,
    /// The parameters of the last solve (outputs are functions of them).
    last_p: Vec<f64>,
    error: CString,
}

/// Runs `f`, turning a panic into [`FESD_ERR_INTERNAL`].
fn guarded(f: impl FnOnce() -> c_int) -> c_int {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(FESD_ERR_INTERNAL)
}

impl fesd_solver {
    /// Records `message` as the last error and returns `code`.
    fn fail(&mut self, code: c_int, message: impl Into<String>) -> c_int {
        self.error = CString::new(message.into().replace('\0', " ")).unwrap_or_default();
        code
    }

    fn ok(&mut self) -> c_int {
        self.error = CString::default();
        FESD_OK
    }
}

/// The slice behind `(ptr, len)`, checked: NULL only with length 0, and every value
/// finite.
///
/// # Safety
/// `ptr` must point to `len` readable doubles when it is not NULL.
unsafe fn finite_slice<'a>(ptr: *const f64, len: usize) -> Result<&'a [f64], (c_int, String)> {
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err((FESD_ERR_NULL, "a NULL array with a nonzero length".into())) };
    }
    // SAFETY: the caller's contract.
    let values = unsafe { std::slice::from_raw_parts(ptr, len) };
    match values.iter().position(|v| !v.is_finite()) {
        Some(i) => Err((FESD_ERR_NOT_FINITE, format!("entry {i} is {}", values[i]))),
        None => Ok(values),
    }
}

/// Builds a solver from `problem`; on success `*out` owns it (free it with
/// [`fesd_solver_free`]). On failure `*out` is NULL and, where `error` is not NULL and
/// `error_len` > 0, the reason is written there (NUL-terminated, truncated).
///
/// # Safety
/// `problem` and `options` (if not NULL) must point to valid structs whose pointers
/// hold what their fields say; the kernel table must be a generated module's.
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_create(
    problem: *const fesd_problem,
    options: *const fesd_create_options,
    out: *mut *mut fesd_solver,
    error: *mut c_char,
    error_len: usize,
) -> c_int {
    guarded(|| {
        let report = |code: c_int, message: String| {
            if !error.is_null() && error_len > 0 {
                let bytes = message.as_bytes();
                let n = bytes.len().min(error_len - 1);
                // SAFETY: `error` holds `error_len` bytes (the caller's contract); n < error_len.
                unsafe {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), error.cast::<u8>(), n);
                    *error.add(n) = 0;
                }
            }
            code
        };
        if out.is_null() {
            return report(FESD_ERR_NULL, "out is NULL".into());
        }
        // SAFETY: checked non-NULL; the caller's contract.
        unsafe { *out = std::ptr::null_mut() };
        if problem.is_null() {
            return report(FESD_ERR_NULL, "problem is NULL".into());
        }
        // SAFETY: checked non-NULL; the caller's contract.
        let p = unsafe { &*problem };
        if p.abi_version != FESD_ABI_VERSION {
            return report(FESD_ERR_ABI, format!("the problem has ABI version {}, this library {FESD_ABI_VERSION}", p.abi_version));
        }
        if p.kernel_table.is_null() || p.record.is_null() {
            return report(FESD_ERR_NULL, "the problem's kernel_table or record is NULL".into());
        }
        // SAFETY: checked non-NULL; the caller's contract.
        let (tune, record) = unsafe {
            (!options.is_null() && (*options).tune_process != 0, std::slice::from_raw_parts(p.record.cast::<u8>(), p.record_len))
        };
        ipopt::set_process_tuning(tune);
        let Ok(record) = std::str::from_utf8(record) else { return report(FESD_ERR_ABI, "the record is not UTF-8".into()) };
        let record = match MpccRecord::from_json(record) {
            Ok(r) => r,
            Err(e) => return report(FESD_ERR_ABI, e.to_string()),
        };
        let tables = match (p.bind_tables, p.tables.is_null()) {
            // SAFETY: `tables` holds `tables_len` bytes (the caller's contract).
            (Some(bind), false) => Some((bind as BindTablesFn, unsafe { std::slice::from_raw_parts(p.tables, p.tables_len) })),
            (None, true) => None,
            _ => return report(FESD_ERR_NULL, "bind_tables and tables must both be set or both be NULL".into()),
        };
        // SAFETY: the caller's contract: a generated module's table, static.
        let table: &'static KernelTable = unsafe { &*p.kernel_table.cast::<KernelTable>() };
        // SAFETY: as above; the binding function is that module's.
        let library = match unsafe { KernelLibrary::from_table(table, tables) } {
            Ok(l) => l,
            Err(e) => return report(FESD_ERR_ABI, e.to_string()),
        };
        let solver = match MpccSolver::from_record(&record, &library, record.options().clone()) {
            Ok(s) => s,
            Err(e) => return report(FESD_ERR_ABI, e.to_string()),
        };
        // SAFETY: checked non-NULL above.
        unsafe { *out = fesd_solver_from(solver) };
        FESD_OK
    })
}

/// Frees a solver (NULL is allowed).
///
/// # Safety
/// `solver` must come from [`fesd_solver_create`] and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_free(solver: *mut fesd_solver) {
    if !solver.is_null() {
        // SAFETY: the caller's contract: a box from `fesd_solver_create`, freed once.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(solver) })));
    }
}

/// Runs `f` on the solver behind `solver`, or returns [`FESD_ERR_NULL`]. A panic (a
/// bug in fesd) becomes [`FESD_ERR_INTERNAL`] with its message as the last error.
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`].
unsafe fn with_solver(solver: *mut fesd_solver, f: impl FnOnce(&mut fesd_solver) -> c_int) -> c_int {
    if solver.is_null() {
        return FESD_ERR_NULL;
    }
    // SAFETY: the caller's contract.
    match catch_unwind(AssertUnwindSafe(|| f(unsafe { &mut *solver }))) {
        Ok(code) => code,
        Err(payload) => {
            let what = payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned());
            let message = format!("internal error (a bug in fesd): {}", what.unwrap_or_else(|| "a panic".into()));
            // SAFETY: as above; the closure's borrow ended with the unwind.
            guarded(|| unsafe { (*solver).fail(FESD_ERR_INTERNAL, message) })
        }
    }
}

/// Hands a solver built in Rust to C code: the pointer is what
/// [`fesd_solver_create`] returns (free it with [`fesd_solver_free`]).
pub fn fesd_solver_from(solver: MpccSolver) -> *mut fesd_solver {
    Box::into_raw(Box::new(fesd_solver { solver, last: None, last_p: Vec::new(), error: CString::default() }))
}

/// The reason of the solver's last failed call ("" after a successful one); valid until
/// the next call on the solver. NULL for a NULL solver.
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`].
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_last_error(solver: *const fesd_solver) -> *const c_char {
    if solver.is_null() {
        return std::ptr::null();
    }
    // SAFETY: the caller's contract.
    unsafe { (*solver).error.as_ptr() }
}

/// Sizes of the MPCC: variables w and parameters p (either pointer may be NULL).
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`]; `n_w` and `n_p` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_sizes(solver: *mut fesd_solver, n_w: *mut usize, n_p: *mut usize) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        with_solver(solver, |s| {
            let (w, p) = s.solver.sizes();
            if !n_w.is_null() {
                *n_w = w;
            }
            if !n_p.is_null() {
                *n_p = p;
            }
            s.ok()
        })
    }
}

/// New parameter values p (`len` = n_p) for the following solves.
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`]; `p` must hold `len`
/// doubles.
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_set_parameters(solver: *mut fesd_solver, p: *const f64, len: usize) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { with_solver(solver, |s| set_vector(s, p, len, Vector::Parameters)) }
}

/// New values of the parameters `offset .. offset + count` (a block of the header's
/// layout, such as x0; `len` = `count`) for the following solves; the others keep
/// theirs.
///
/// # Safety
/// As [`fesd_solver_set_parameters`].
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_set_parameter_range(
    solver: *mut fesd_solver,
    offset: usize,
    count: usize,
    values: *const f64,
    len: usize,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        with_solver(solver, |s| {
            let n_p = s.solver.sizes().1;
            let what = format!("parameters {offset}..{}", offset.saturating_add(count));
            if offset.checked_add(count).is_none_or(|end| end > n_p) {
                return s.fail(FESD_ERR_LENGTH, format!("{what}: beyond the {n_p} parameters"));
            }
            if len != count {
                return s.fail(FESD_ERR_LENGTH, format!("{what}: {len} values given, {count} expected"));
            }
            let values = match finite_slice(values, len) {
                Ok(v) => v,
                Err((code, why)) => return s.fail(code, format!("{what}: {why}")),
            };
            let mut p = s.solver.parameters().to_vec();
            p[offset..offset + count].copy_from_slice(values);
            match s.solver.set_parameters(&p) {
                Ok(()) => s.ok(),
                Err(e) => s.fail(FESD_ERR_INTERNAL, e.to_string()),
            }
        })
    }
}

/// The next solve starts from the record's initial guess again (not from the last
/// solution, a guess set since, or a warm start).
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`].
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_reset_guess(solver: *mut fesd_solver) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        with_solver(solver, |s| {
            s.solver.reset_guess();
            s.ok()
        })
    }
}

/// Records `message` (NULL: none) as the solver's last error and returns `code`: for
/// generated wrappers that refuse a call themselves (a solver of an OCP whose x0 is
/// free has no `set_x0`).
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`]; `message` NULL or a
/// NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_report(solver: *mut fesd_solver, code: c_int, message: *const c_char) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        with_solver(solver, |s| {
            let message = if message.is_null() { String::new() } else { CStr::from_ptr(message).to_string_lossy().into_owned() };
            s.fail(code, message)
        })
    }
}

/// The next solve starts from `w` (`len` = n_w).
///
/// # Safety
/// As [`fesd_solver_set_parameters`].
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_set_initial_guess(solver: *mut fesd_solver, w: *const f64, len: usize) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { with_solver(solver, |s| set_vector(s, w, len, Vector::Guess)) }
}

enum Vector {
    Parameters,
    Guess,
}

/// # Safety
/// `v` must hold `len` doubles when not NULL.
unsafe fn set_vector(s: &mut fesd_solver, v: *const f64, len: usize, which: Vector) -> c_int {
    let (n_w, n_p) = s.solver.sizes();
    let (what, expected) = match which {
        Vector::Parameters => ("parameters", n_p),
        Vector::Guess => ("initial guess", n_w),
    };
    if len != expected {
        return s.fail(FESD_ERR_LENGTH, format!("{what}: {len} values given, {expected} expected"));
    }
    // SAFETY: the caller's contract.
    let values = match unsafe { finite_slice(v, len) } {
        Ok(v) => v,
        Err((code, why)) => return s.fail(code, format!("{what}: {why}")),
    };
    let done = match which {
        Vector::Parameters => s.solver.set_parameters(values),
        Vector::Guess => s.solver.set_initial_guess(values),
    };
    match done {
        Ok(()) => s.ok(),
        Err(e) => s.fail(FESD_ERR_INTERNAL, e.to_string()),
    }
}

/// Copies the parameter values of the following solves (`len` = n_p) into `p`: the
/// record's, or the last ones set.
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`]; `p` must hold `len`
/// doubles.
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_get_parameters(solver: *mut fesd_solver, p: *mut f64, len: usize) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        with_solver(solver, |s| {
            let values = s.solver.parameters();
            if len != values.len() {
                let n = values.len();
                return s.fail(FESD_ERR_LENGTH, format!("parameters: room for {len} values, {n} needed"));
            }
            if p.is_null() && len > 0 {
                return s.fail(FESD_ERR_NULL, "p is NULL");
            }
            if len > 0 {
                std::ptr::copy_nonoverlapping(values.as_ptr(), p, len);
            }
            s.ok()
        })
    }
}

/// Arms the next solve as a warm re-solve from the last solve's final homotopy NLP
/// (primal and dual); [`FESD_ERR_STATE`] if there was no solve to start from.
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`].
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_warm_start_from_last_solve(solver: *mut fesd_solver) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        with_solver(solver, |s| {
            if s.solver.warm_start_from_last_solve() {
                s.ok()
            } else {
                s.fail(FESD_ERR_STATE, "no previous solve to warm-start from")
            }
        })
    }
}

/// Sets one homotopy option by its name (`kappa`, `comp_tol`, `max_iter`, …) to a JSON
/// value (`"0.2"`, `"1e-10"`; for `ipopt` a map of Ipopt options, `"{\"print_level\": 5}"`,
/// added after the solver's own); the options compiled into the kernels (relaxation,
/// steering, lower bounds, finish) are not among them.
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`]; `key` and `value`
/// NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_set_option(solver: *mut fesd_solver, key: *const c_char, value: *const c_char) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        with_solver(solver, |s| {
            if key.is_null() || value.is_null() {
                return s.fail(FESD_ERR_NULL, "key or value is NULL");
            }
            let (Ok(key), Ok(value)) = (CStr::from_ptr(key).to_str(), CStr::from_ptr(value).to_str()) else {
                return s.fail(FESD_ERR_OPTION, "key and value must be UTF-8");
            };
            #[cfg(feature = "fault-injection")]
            if key == "fault_injection.panic" {
                panic!("fault injected by the caller ({value})");
            }
            let value: serde_json::Value = match serde_json::from_str(value) {
                Ok(v) => v,
                Err(e) => return s.fail(FESD_ERR_OPTION, format!("option {key}: {value:?} is not a JSON value ({e})")),
            };
            let fields = serde_json::Map::from_iter([(key.to_string(), value)]);
            let changed = s.solver.options().with_fields(fields).and_then(|o| s.solver.set_options(o));
            match changed {
                Ok(()) => s.ok(),
                Err(e) => s.fail(FESD_ERR_OPTION, e.to_string()),
            }
        })
    }
}

/// Solves from the current start; fills `info` (may be NULL). Returns [`FESD_OK`],
/// [`FESD_NOT_CONVERGED`] or [`FESD_NLP_FAILED`]; the result (also a failed solve's
/// last iterate) is read with [`fesd_solver_get_w`]. Later solves start from it.
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`]; `info` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_solve(solver: *mut fesd_solver, info: *mut fesd_solve_info) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        with_solver(solver, |s| {
            let r = s.solver.solve();
            let (status, ipopt_status) = match r.status {
                MpccStatus::Converged => (FESD_OK, 0),
                MpccStatus::CompTolNotReached => (FESD_NOT_CONVERGED, 0),
                MpccStatus::NlpFailed { ipopt_status, .. } => (FESD_NLP_FAILED, ipopt_status.code()),
            };
            if !info.is_null() {
                *info = fesd_solve_info {
                    status,
                    ipopt_status,
                    ipopt_iterations: r.total_iterations as i64,
                    homotopy_steps: r.steps.len() as i64,
                    comp_residual: r.comp_residual,
                    objective: r.objective,
                    wall_time: r.timing.total,
                    stationarity: match r.finish.as_ref().map(|f| f.stationarity) {
                        Some(Stationarity::SStationary) => FESD_STATIONARITY_S,
                        Some(Stationarity::BStationary) => FESD_STATIONARITY_B,
                        Some(Stationarity::NotBStationary) => FESD_STATIONARITY_NOT_B,
                        Some(Stationarity::LocallyInfeasible) => FESD_STATIONARITY_LOCALLY_INFEASIBLE,
                        Some(Stationarity::Unknown) | None => FESD_STATIONARITY_UNKNOWN,
                    },
                    cost: f64::NAN,
                    t_final: f64::NAN,
                };
            }
            if let Err(e) = s.solver.set_initial_guess(&r.w) {
                return s.fail(FESD_ERR_INTERNAL, e.to_string());
            }
            s.last = Some(r);
            s.last_p = s.solver.parameters().to_vec();
            s.ok();
            status
        })
    }
}

/// Copies the last solve's w (`len` = n_w) into `w`.
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`]; `w` must hold `len`
/// doubles.
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_get_w(solver: *mut fesd_solver, w: *mut f64, len: usize) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        with_solver(solver, |s| {
            let Some(r) = &s.last else { return s.fail(FESD_ERR_STATE, "no solve yet") };
            if w.is_null() {
                return s.fail(FESD_ERR_NULL, "w is NULL");
            }
            if len != r.w.len() {
                let n = r.w.len();
                return s.fail(FESD_ERR_LENGTH, format!("w: room for {len} values, {n} needed"));
            }
            std::ptr::copy_nonoverlapping(r.w.as_ptr(), w, len);
            s.ok()
        })
    }
}

/// Evaluates output `index` of the module's function `name` (one of the record's
/// outputs) at the last solve's w and parameters, dense column-major,
/// into `values` (`len` = its number of entries).
///
/// # Safety
/// `solver` must be NULL or come from [`fesd_solver_create`]; `name` a NUL-terminated
/// string; `values` must hold `len` doubles.
#[no_mangle]
pub unsafe extern "C" fn fesd_solver_get_output(
    solver: *mut fesd_solver,
    name: *const c_char,
    index: usize,
    values: *mut f64,
    len: usize,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        with_solver(solver, |s| {
            if name.is_null() || values.is_null() {
                return s.fail(FESD_ERR_NULL, "name or values is NULL");
            }
            let Some(w) = s.last.as_ref().map(|r| r.w.clone()) else { return s.fail(FESD_ERR_STATE, "no solve yet") };
            let name = CStr::from_ptr(name).to_string_lossy().into_owned();
            let outputs = match s.solver.eval_output(&name, &w, &s.last_p) {
                Ok(o) => o,
                Err(e) => return s.fail(FESD_ERR_OPTION, e.to_string()),
            };
            let Some(out) = outputs.get(index) else {
                let n = outputs.len();
                return s.fail(FESD_ERR_OPTION, format!("{name} has {n} outputs, not {}", index + 1));
            };
            if len != out.len() {
                let n = out.len();
                return s.fail(FESD_ERR_LENGTH, format!("{name}[{index}]: room for {len} values, {n} needed"));
            }
            std::ptr::copy_nonoverlapping(out.as_ptr(), values, len);
            s.ok()
        })
    }
}
