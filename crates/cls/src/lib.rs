//! FESD-J: rigid bodies with impacts and Coulomb friction.
//!
//! A [`ClsModel`] (complementarity Lagrangian system: coordinates q, velocities v,
//! mass matrix, forces, unilateral [`Contact`]s with restitution and friction) is
//! discretized by [`ClsStep`] with Runge–Kutta finite elements whose step sizes are
//! unknowns; velocity jumps happen only at element boundaries through impulse
//! equations in complementarity form, and cross complementarity puts every impact,
//! contact change and stick–slip transition on a boundary. [`ClsSimulator`] solves
//! it step after step with the MPCC homotopy of `fesd-mpcc` and reports the impacts.
//!
//! ```
//! use fesd_cls::{models, ClsSimulator, ClsSimulatorOptions};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // An elastic ball dropped from 0.8: impacts at 0.403855 + k · 0.807710.
//! let opts = ClsSimulatorOptions { step: 0.15, n_steps: 6, ..Default::default() };
//! let mut sim = ClsSimulator::new(&models::bouncing_ball(1.0), opts)?;
//! let r = sim.simulate(&[0.8], &[0.0], &[], &[])?;
//! let t = r.impact_times();
//! assert!((t[0] - (1.6f64 / 9.81).sqrt()).abs() < 1e-6);
//! assert!((r.impacts[0].v_after[0] + r.impacts[0].v_before[0]).abs() < 1e-6);
//! # Ok(()) }
//! ```

mod blocks;
mod element;
mod error;
mod geometry;
mod kernel;
mod model;
pub mod models;
mod ocp;
mod options;
mod output;
mod pairs;
#[cfg(feature = "plot")]
mod plot;
mod simulator;
mod step;

pub use error::{ClsError, Result};
pub use model::{ClsModel, Contact};
pub use ocp::{ClsOcp, ClsOcpOptions, ClsOcpResult, ClsOcpSolver, ClsTerminalConstraint, OcpImpact};
pub use options::{ClsOptions, FrictionModel, MassMatrixForm};
pub use simulator::{ClsSimulation, ClsSimulator, ClsSimulatorOptions, ClsStepReport, Impact};
pub use step::{ClsLayout, ClsStep};
