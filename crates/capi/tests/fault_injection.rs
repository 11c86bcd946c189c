//! A panic inside the C ABI (injected with the test-only feature `fault-injection`:
//! `cargo test -p fesd-capi --features fault-injection`) returns FESD_ERR_INTERNAL
//! with its message in `fesd_solver_last_error`; the solver stays usable.
#![cfg(feature = "fault-injection")]

use fesd_capi::*;
use fesd_mpcc::{HomotopyOptions, MpccSolver};
use std::ffi::CStr;

#[test]
fn a_panic_becomes_an_internal_error() {
    let known = fesd_mpcc::problems::parametric_with_output("capi_fault").unwrap().0;
    let build = || MpccSolver::interpreted(&known.mpcc, HomotopyOptions::default()).unwrap();
    let want = build().solve();
    let solver = fesd_solver_from(build());
    // SAFETY: a solver from fesd_solver_from, NUL-terminated strings, a writable info.
    unsafe {
        let rc = fesd_solver_set_option(solver, c"fault_injection.panic".as_ptr(), c"1".as_ptr());
        assert_eq!(rc, FESD_ERR_INTERNAL);
        let message = CStr::from_ptr(fesd_solver_last_error(solver)).to_string_lossy().into_owned();
        assert!(message.contains("internal error") && message.contains("fault injected"), "{message}");
        let mut info = fesd_solve_info::default();
        assert_eq!(fesd_solver_solve(solver, &mut info), FESD_OK);
        assert_eq!(info.ipopt_iterations as usize, want.total_iterations);
        assert_eq!(CStr::from_ptr(fesd_solver_last_error(solver)).to_bytes(), b"");
        fesd_solver_free(solver);
    }
}
