//! Solver for mathematical programs with complementarity constraints (MPCCs)
//!
//! ```text
//! min f(w, p)  s.t.  lbw ≤ w ≤ ubw,  lbg ≤ g(w, p) ≤ ubg,  0 ≤ G(w, p) ⊥ H(w, p) ≥ 0
//! ```
//!
//! by a relaxation homotopy over Ipopt: a sequence of NLPs with relaxation parameter
//! σ_k = κ^k σ_0, each warm-started from the previous solution, until the
//! complementarity residual max_i |G_i H_i| reaches `comp_tol`. The relaxed NLP is
//! built once with σ as a parameter and compiled once into C kernels, so the whole
//! homotopy, and every later solve with new parameters, reuses one compiled object.
//!
//! - [`Mpcc`]: the problem, from expressions or from a NOSBENCH JSON file ([`nosbench`]).
//! - [`HomotopyOptions`]: σ_0, κ, comp_tol, σ_N, [`Relaxation`] (Scholtes or
//!   Fischer–Burmeister, inequality or equality), [`Steering`] (direct, ℓ∞ or ℓ1
//!   elastic), [`LowerBounds`], warm start of duals, recovery, verbosity, Ipopt options.
//! - [`MpccSolver`]: compile once, [`MpccSolver::solve`] many times;
//!   [`MpccSolver::from_file`] reads a NOSBENCH file and prepares it, so the next run
//!   of the same file skips its expressions (see [`MpccSolver::prepared_from_cache`]).
//! - [`MpccResult`]: status ([`MpccStatus::Converged`] only when the residual reached
//!   comp_tol *and* the last NLP succeeded), iterate, multipliers, homotopy table,
//!   timing split — serializable as JSON.
//!
//! ```
//! use casadi::SX;
//! use fesd_mpcc::{HomotopyOptions, Mpcc, MpccSolver};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // min (x − 1)² + (y − 2)²  s.t.  0 ≤ x ⊥ y ≥ 0: the optimum is (0, 2), f = 1.
//! let w = SX::sym("w", 2);
//! let (x, y) = (w.at(0)?, w.at(1)?);
//! let f = (&x - 1.0).powf(2.0) + (&y - 2.0).powf(2.0);
//! let mut mpcc = Mpcc::new(w, f, x, y);
//! mpcc.w0 = vec![1.0, 1.0];
//! let r = MpccSolver::new(&mpcc, HomotopyOptions::default())?.solve();
//! assert!(r.status.is_converged());
//! assert!((r.w[0]).abs() < 1e-6 && (r.w[1] - 2.0).abs() < 1e-6 && (r.objective - 1.0).abs() < 1e-6);
//! # Ok(()) }
//! ```

mod error;
mod finish;
pub mod nosbench;
mod options;
mod prepared;
mod problem;
pub mod problems;
mod relax;
mod result;
mod solver;

pub use error::{MpccError, Result};
/// Compiler settings and build timings of the kernels, as the solvers take and report them.
pub use fesd_codegen::CompileOptions;
pub use fesd_nlp::BuildReport;
pub use options::{HomotopyOptions, Kernels, LowerBounds, Relaxation, Steering, MAX_HOMOTOPY_STEPS};
pub use problem::Mpcc;
pub use result::{DualStart, FinishReport, HomotopyStep, MpccResult, MpccStatus, Multipliers, Stationarity, Timing};
pub use solver::MpccSolver;
