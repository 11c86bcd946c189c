//! The FESD discretization layer, shared by simulation and optimal control and by
//! every dynamic complementarity system (DCS).
//!
//! A DCS hands over its finite element as a [`DcsElement`]: one SX function holding
//! everything inside one element (for a switched system: RK stage equations in the
//! integral or differential form, the DCS at every point, cross complementarity
//! against the element's left boundary, the end state, the boundary duals, the
//! quadrature of a stage cost; a rigid body adds impulse equations at its left
//! boundary), its boundary and its switch indicator. [`assemble_chain`] maps it
//! (CasADi `map`, MX) over the N · N_FE elements of a horizon and adds small coupling
//! kernels between neighbours (Σh per interval, step equilibration, the DCS's own
//! pairs), so the generated C does not grow with N or N_FE; it does not know which
//! DCS it drives. [`ElementGrid`] is the switched systems' use of it. Every unknown
//! is named in a [`VariableTable`] with its (interval, element), bounds and initial
//! guess.
//!
//! Optimal control (`fesd-ocp`) assembles N intervals with costs and constraints on
//! top; the simulator (`fesd-sim`) assembles one interval whose start, control,
//! length and boundary duals are parameters.

pub mod chain;
mod element;
mod error;
mod grid;
mod options;
mod pairs;
mod table;

pub use chain::{assemble_chain, element_intervals, Chain, ChainInputs, ChainOptions, DcsElement};
pub use element::{ElementSizes, ElementTerms, PathPoints};
pub use error::{DiscretizationError, Result};
pub use grid::{end_state_offset, interval_sums, read_end_state, Assembly, BlockOrder, ElementBounds, ElementGrid, GridInputs};
pub use options::{CrossComplementarity, FesdOptions, IrkRepresentation, StepEquilibration, StepEquilibrationHessian};
pub use pairs::{complementarity_pairs, sliding_exit_pairs};
pub use table::{Block, VariableTable};
