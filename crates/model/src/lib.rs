//! Piecewise smooth systems and their dynamic complementarity systems.
//!
//! A [`PssModel`] holds states, controls, parameters, an optional mode-independent
//! part `f_0`, and one or more [`Subsystem`]s (independent Filippov systems, each
//! with switching functions `c(x)`, regions — a sign matrix S or [`RegionSet`]
//! expressions — and the dynamics of every region). [`StageAlgebra::new`] lowers it
//! to the Stewart or the Step representation ([`Representation`]) at one time point;
//! the FESD discretization repeats that at every stage.

mod dcs;
mod model;
mod partition;

pub use dcs::{DcsOptions, EquilibrationGroup, Representation, StageAlgebra};
pub use model::{ModelError, PssModel, RegionSet, Regions, Subsystem};
pub use partition::MAX_ENUMERATED_SWITCHING_FUNCTIONS;
