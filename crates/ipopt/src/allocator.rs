//! Keeping freed memory in the process between factorizations.
//!
//! MUMPS allocates its factorization workspace for every factorization and frees it
//! after. glibc hands such large blocks to the kernel and back (mmap/munmap), so each
//! factorization page-faults its whole workspace in again, zero-filled by the kernel.
//! Keeping padding at the top of the heap (`M_TOP_PAD`) avoids that. Evidence:
//! `docs/evidence/ocp.md`, "Keeping freed memory".

use std::sync::Once;

/// Sets glibc's heap top padding to 256 MiB and its mmap threshold to its maximum
/// (32 MiB), so blocks freed between factorizations stay in the heap and are reused
/// instead of returned to the kernel (the process keeps up to 256 MiB it has touched). Called once by [`crate::IpoptSolver::new`]; set the environment
/// variable `FESD_MALLOC_TUNING=0` to leave the allocator alone (e.g. when the host
/// program tunes it itself). A no-op on targets without glibc.
pub fn keep_freed_memory() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var("FESD_MALLOC_TUNING").is_ok_and(|v| v == "0") {
            return;
        }
        tune();
    });
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune() {
    // SAFETY: mallopt only changes allocator parameters; it is thread-safe in glibc.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 256 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune() {}
