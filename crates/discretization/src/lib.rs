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
//!
//! # One chain for every DCS
//!
//! Switched systems (Stewart, Step or your own `SubsystemLowering`) and rigid bodies are
//! discretized by the same code: [`assemble_chain`] drives a
//! [`DcsElement`] — an element kernel with the signature `(blocks…, b_in, h, u, p, data) ->
//! (g, G, H, quad, penalty, indicators, link, …)`, the element's right boundary read from
//! its own unknowns (`boundary(blocks…)`: end state and boundary duals for a switched
//! system; position, pre-impact velocity and gaps for a rigid body), a switch indicator
//! η(indicators of two neighbours) that vanishes where the active set changes, and
//! optional pairs between neighbours (the sliding-exit condition). The chain maps the
//! kernel over the horizon's N · N_FE elements (a different kernel on the first element
//! where the DCS needs one: FESD-J's gaps at t = 0 are data), feeds each element its
//! predecessor's boundary, and adds what is the same for every DCS: step sizes
//! h = τ T/N with the sum of each interval's steps fixed, and step equilibration
//! (heuristic, or η-weighted as a cost or a constraint) between neighbours. The
//! switched-system grid ([`ElementGrid`]), the rigid-body OCP and the rigid-body simulation
//! step are its three users; `crates/discretization/tests/chain.rs` drives it with an
//! element of its own (an integrator) and checks every row against hand-computed values.

pub mod chain;
mod dcs;
mod element;
mod error;
mod grid;
mod options;
mod pairs;
mod scheme;
mod table;

pub use chain::{assemble_chain, element_intervals, interval_sums, Chain, ChainInputs, ChainOptions, DcsElement};
pub use dcs::{Dcs, HorizonGuess};
pub use element::{ElementSizes, ElementTerms, PathPoints, StageTerms};
pub use error::{DiscretizationError, Result};
pub use grid::{end_state_offset, read_end_state, Assembly, BlockOrder, ElementBounds, ElementGrid, GridInputs};
pub use options::{CrossComplementarity, FesdOptions, IrkRepresentation, StepEquilibration, StepEquilibrationHessian};
pub use pairs::{complementarity_pairs, sliding_exit_pairs};
pub use scheme::{ElementCounts, ElementScheme};
pub use table::{Block, VariableTable};
