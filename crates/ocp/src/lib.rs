//! Direct optimal control of piecewise smooth systems with FESD.
//!
//! An [`Ocp`] states the problem on a [`fesd_model::PssModel`]: horizon (fixed or
//! free), N control intervals with piecewise-constant controls, N_FE finite elements
//! per interval, bounds, Lagrange and Mayer costs, terminal constraints.
//! [`OcpSolver::new`] transcribes it on the element grid of `fesd-discretization`:
//! one SX kernel holds a finite element's
//! equations and complementarity pairs, mapped (CasADi `map`) over all N · N_FE
//! elements, so the generated C does not grow with N; small couplings link neighbours
//! (continuity, boundary duals, Σh = T/N per interval). Every unknown is named in a
//! [`VariableTable`]. The MPCC is solved by the homotopy of `fesd-mpcc`;
//! [`OcpSolver::solve`] again reuses the compiled kernels and starts from the previous
//! solution.
//!
//! ```
//! use fesd_model::Representation;
//! use fesd_ocp::{problems, OcpSolver};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The time-optimal car with turbo: T* = 40/3.
//! let ocp = problems::car_turbo(10, 3, Representation::Stewart)?;
//! let r = OcpSolver::new(&ocp)?.solve()?;
//! assert!(r.status.is_converged() && (r.t_final - 40.0 / 3.0).abs() < 1e-4);
//! # Ok(()) }
//! ```

mod error;
mod output;
#[cfg(feature = "plot")]
mod plot;
mod problem;
pub mod problems;
mod solver;
mod transcribe;

pub use error::{OcpError, Result};
pub use fesd_discretization::{interval_sums, Block, VariableTable};
pub use problem::{
    FreeParameter, Horizon, InitialState, Ocp, OcpOptions, PathConstraint, PathPoints, SoftTerminalConstraint, TerminalConstraint,
    TerminalPenalty, Tracking,
};
pub use solver::{OcpResult, OcpSolver};
