//! Piecewise smooth systems and their dynamic complementarity systems.
//!
//! A [`PssModel`] holds states, controls, parameters, an optional mode-independent
//! part `f_0`, and one or more [`Subsystem`]s (independent Filippov systems, each
//! with switching functions `c(x)`, regions — a sign matrix S or [`RegionSet`]
//! expressions — and the dynamics of every region). [`StageAlgebra::new`] lowers it
//! to the Stewart or the Step representation ([`Representation`]) at one time point;
//! the FESD discretization repeats that at every stage.
//!
//! ```
//! use casadi::SX;
//! use fesd_model::{PssModel, Subsystem};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // ẋ = 1 for x > 0, 3 for x < 0: switching function c = x, S = [[1], [−1]].
//! let x = SX::sym("x", 1);
//! let model = PssModel::new(x.clone())
//!     .with_subsystem(Subsystem::new(x.clone(), vec![vec![1], vec![-1]], vec![SX::scalar(1.0), SX::scalar(3.0)]));
//! model.validate()?;
//! // Regions that do not partition the sign patterns are refused by name.
//! let gap = PssModel::new(x.clone()).with_subsystem(Subsystem::new(x, vec![vec![1]], vec![SX::scalar(1.0)]));
//! assert!(gap.validate().is_err());
//! # Ok(()) }
//! ```

mod dcs;
mod model;
mod partition;
mod regions;

pub use dcs::{AlgebraBuilder, DcsOptions, EquilibrationGroup, Representation, StageAlgebra, Step, Stewart, SubsystemLowering};
pub use model::{ModelError, PssModel, Subsystem};
pub use partition::MAX_ENUMERATED_SWITCHING_FUNCTIONS;
pub use regions::{RegionSet, Regions};
