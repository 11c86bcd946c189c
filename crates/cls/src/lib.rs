//! FESD-J: rigid bodies with impacts and Coulomb friction.
//!
//! A [`ClsModel`] (complementarity Lagrangian system: coordinates q, velocities v,
//! mass matrix, forces, unilateral [`Contact`]s with restitution and friction) is
//! discretized by [`ClsStep`] with Runge–Kutta finite elements whose step sizes are
//! unknowns; velocity jumps happen only at element boundaries through impulse
//! equations in complementarity form, and cross complementarity puts every impact,
//! contact change and stick–slip transition on a boundary. [`ClsSimulator`] solves
//! it step after step with the MPCC homotopy of `fesd-mpcc` and reports the impacts.

mod blocks;
mod element;
mod error;
mod geometry;
mod model;
pub mod models;
mod options;
mod output;
mod pairs;
mod simulator;
mod step;

pub use error::{ClsError, Result};
pub use model::{ClsModel, Contact};
pub use options::{ClsOptions, MassMatrixForm};
pub use simulator::{ClsSimulation, ClsSimulator, ClsSimulatorOptions, ClsStepReport, Impact};
pub use step::{ClsLayout, ClsStep};
