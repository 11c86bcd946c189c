//! One process-wide lock around every call into CasADi.
//!
//! Independent expression graphs in CasADi share global state (cached nodes and
//! sparsity patterns, function registries). The SDK's libcasadi is built with
//! thread-safe symbolics, yet building, evaluating and generating functions from two
//! threads at once still corrupts its heap (`tests/threads.rs` aborted with
//! "malloc(): unaligned fastbin chunk" without this lock). Our types are neither
//! `Send` nor `Sync`, but two threads may build their own graphs at the same time
//! (tests do); every call into CasADi and every destructor of a CasADi object
//! therefore runs under this reentrant lock. Uncontended it costs a few tens of
//! nanoseconds per call. Compiled kernels do not use it.

use parking_lot::{ReentrantMutex, ReentrantMutexGuard};

static LOCK: ReentrantMutex<()> = parking_lot::const_reentrant_mutex(());

/// Holds the CasADi lock until dropped.
pub(crate) fn guard() -> ReentrantMutexGuard<'static, ()> {
    LOCK.lock()
}
