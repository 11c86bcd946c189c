//! Direct optimal control of rigid bodies with FESD-J: the element equations of the
//! simulator as one kernel mapped over N · N_FE elements, controls per interval,
//! Lagrange and Mayer costs, state and control bounds, terminal constraints, solved by
//! the MPCC homotopy.

mod problem;
mod solver;
mod transcribe;

pub use problem::{ClsOcp, ClsOcpOptions, ClsTerminalConstraint};
pub use solver::{ClsOcpResult, ClsOcpSolver, OcpImpact};
