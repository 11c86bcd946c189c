//! FESD for switched systems: the discretization of one step and a simulator.
//!
//! [`FesdInterval`] (one interval of the element grid of `fesd-discretization`) discretizes a [`fesd_model::PssModel`] on `[0, T]` with
//! Runge–Kutta finite elements whose step sizes are unknowns (FESD), cross
//! complementarity and step equilibration ([`FesdOptions`]), yielding an MPCC in the
//! parameters `(x0, u, p, T, λ0)`. [`Simulator`] solves it step after step with the
//! homotopy of `fesd-mpcc`, warm-started, with one compiled kernel set, and returns a
//! [`SimulationResult`]: element boundaries, states, stage values, step sizes,
//! detected switch times, per-step reports; CSV/JSON output and a plot.
//!
//! ```
//! use fesd_sim::{models, Simulator, SimulatorOptions};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // ẋ ∈ 2 − sign(x) from x0 = −1: the switch at t = 1/3 lands on an element boundary.
//! let mut sim = Simulator::new(&models::scalar_switch(3.0, 1.0), SimulatorOptions { step: 0.1, n_steps: 6, ..Default::default() })?;
//! let r = sim.simulate(&[-1.0], &[], &[])?;
//! assert!((r.switch_times[0] - 1.0 / 3.0).abs() < 1e-8);
//! assert!((r.x_final()[0] - (0.6 - 1.0 / 3.0)).abs() < 1e-8);
//! # Ok(()) }
//! ```

mod discretization;
mod error;
pub mod models;
mod output;
#[cfg(feature = "plot")]
mod plot;
mod simulator;

pub use discretization::{FesdInterval, Layout};
pub use error::{Result, SimError};
pub use fesd_discretization::{
    complementarity_pairs, sliding_exit_pairs, CrossComplementarity, FesdOptions, IrkRepresentation, StepEquilibration,
    StepEquilibrationHessian,
};
#[cfg(feature = "plot")]
pub use plot::register_font;
pub use simulator::{
    Attempt, OnStepFailure, SimState, SimulationResult, SimulationTiming, Simulator, SimulatorOptions, StepReport, DUAL_START_AFTER,
    DUAL_START_STALL,
};
