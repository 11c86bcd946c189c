//! One BLAS thread for MUMPS.
//!
//! The CasADi SDK's OpenBLAS starts a worker thread per core, and its workers
//! spin (`sched_yield`) between BLAS calls. MUMPS's fronts here are small, so the
//! workers gain nothing: the sliding-mode OCP took 0.89–0.96 s with one thread and
//! 0.89–0.96 s with two, the motor OCP at N = 60 5.77 s and 5.88 s. But their spinning
//! takes the cores from any other work of the process or the machine: the NOSBENCH
//! development set from a cold kernel cache, solving while the C compiler runs on the
//! other core, took 78.9 s with two threads and 44.8 s with one.

use std::sync::Once;

/// Sets OpenBLAS to one thread, once, unless the environment chose a count
/// (`OPENBLAS_NUM_THREADS` or `OMP_NUM_THREADS` set). A no-op where the process has
/// no OpenBLAS. Called by [`crate::IpoptSolver::new`].
pub fn single_threaded_blas() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("OPENBLAS_NUM_THREADS").is_some() || std::env::var_os("OMP_NUM_THREADS").is_some() {
            return;
        }
        set_threads(1);
    });
}

/// The number of threads OpenBLAS uses, if the process has OpenBLAS (after the first
/// [`crate::IpoptSolver::new`]: 1 unless the environment chose a count).
pub fn blas_threads() -> Option<i32> {
    blas_threads_impl()
}

#[cfg(unix)]
fn blas_threads_impl() -> Option<i32> {
    type GetThreads = unsafe extern "C" fn() -> libc::c_int;
    // SAFETY: a global-scope lookup; OpenBLAS declares `int openblas_get_num_threads(void)`.
    let sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"openblas_get_num_threads".as_ptr()) };
    // SAFETY: the symbol has that signature.
    (!sym.is_null()).then(|| unsafe { std::mem::transmute::<*mut libc::c_void, GetThreads>(sym)() })
}

#[cfg(not(unix))]
fn blas_threads_impl() -> Option<i32> {
    None
}

#[cfg(unix)]
fn set_threads(n: i32) {
    type SetThreads = unsafe extern "C" fn(libc::c_int);
    // SAFETY: looking a symbol up in the process's global scope has no side effects.
    let sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"openblas_set_num_threads".as_ptr()) };
    if !sym.is_null() {
        // SAFETY: OpenBLAS declares `void openblas_set_num_threads(int)`.
        unsafe { std::mem::transmute::<*mut libc::c_void, SetThreads>(sym)(n) };
    }
}

#[cfg(not(unix))]
fn set_threads(_n: i32) {}
