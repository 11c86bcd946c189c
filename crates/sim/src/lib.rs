//! FESD simulation: the discretization of one step of a switched system and one
//! simulation engine for every model kind.
//!
//! [`Simulator<M>`](Simulator) runs pieces of each step through the MPCC homotopy in
//! tiers, from the previous solution and from fresh starts, halves failed pieces,
//! carries multipliers where the active set goes on, runs open loop (`simulate`) or
//! closed loop (`start`/`step`), and reports every attempt as data ([`StepReport`]).
//! A model kind ([`SimulationKind`]) brings its step, starts, look-ahead and record:
//! switched systems ([`fesd_model::PssModel`], the default; [`SimulationResult`]) and
//! rigid bodies (`fesd_cls::ClsModel`, state x = (q, v); [`ClsSimulation`]). Options
//! ([`SimulatorOptions<M>`](SimulatorOptions)) are one struct: the kind's
//! discretization in `fesd`, the shared schedule, the kind's own settings in
//! `detection`.
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
//!
//! # A model of your own
//!
//! A planar system whose four quadrants (regions built from the basic sets {c_j > 0} of
//! the switching functions c = (x1, x2); a sign matrix `vec![vec![1, 1], vec![-1, 1], …]`
//! with `Subsystem::new` says the same for Stewart) each have their own constant
//! velocity; from (1, 2) it crosses x1 = 0 at t = 1, x2 = 0 at t = 2 and x1 = 0 again at
//! t = 3:
//!
//! ```
//! use casadi::SX;
//! use fesd_model::{PssModel, RegionSet::{self, Intersection, Positive}, Representation, Subsystem};
//! use fesd_sim::{Simulator, SimulatorOptions};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x = SX::sym("x", 2);
//! let quadrant = |right: bool, up: bool| {
//!     let side = |j: usize, pos: bool| if pos { Positive(j) } else { RegionSet::negative(j) };
//!     Intersection(vec![side(0, right), side(1, up)])
//! };
//! let regions = vec![quadrant(true, true), quadrant(false, true), quadrant(false, false), quadrant(true, false)];
//! let velocity = |a: f64, b: f64| SX::from_slice(&[a, b]);
//! let f = vec![velocity(-1.0, -0.5), velocity(-1.0, -1.5), velocity(1.0, -1.0), velocity(1.0, 1.0)];
//! let model = PssModel::new(x.clone()).with_subsystem(Subsystem::from_sets(x.clone(), regions, f));
//! let mut opts: SimulatorOptions = SimulatorOptions { step: 0.1, n_steps: 35, ..Default::default() };
//! opts.fesd.representation = Representation::Step; // region sets: the Step representation
//! let mut sim = Simulator::new(&model, opts)?;
//! let r = sim.simulate(&[1.0, 2.0], &[], &[])?;
//! assert_eq!(r.switch_times.len(), 3);
//! for (t, exact) in r.switch_times.iter().zip([1.0, 2.0, 3.0]) {
//!     assert!((t - exact).abs() < 1e-8, "switch at {t}");
//! }
//! // The region active in each element: 0 (x1 > 0, x2 > 0) until t = 1, then 1, 2, 3.
//! let regions = r.active_regions(1e-5);
//! assert_eq!(regions.first(), Some(&vec![0]));
//! assert_eq!(regions.last(), Some(&vec![3]));
//! # Ok(()) }
//! ```
//!
//! One setting for every homotopy the simulator may run (each tier and the fallback):
//! `opts.for_each_homotopy(|h| h.comp_tol = 1e-10)`; `opts.validate()` checks them all.
//!
//! # Closed loop
//!
//! A control of your choice every step (time, state, boundary duals and the previous
//! solution are carried from step to step):
//!
//! ```
//! # use fesd_sim::{models, Simulator, SimulatorOptions};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let mut sim = Simulator::new(&models::scalar_switch(3.0, 1.0), SimulatorOptions { step: 0.1, ..Default::default() })?;
//! # let (x0, u0, p, n): ([f64; 1], [f64; 0], [f64; 0], usize) = ([-1.0], [], [], 5);
//! # let controller = |_x: &[f64]| -> Vec<f64> { vec![] };
//! let mut state = sim.start(&x0, &u0, &p)?;
//! for _ in 0..n {
//!     let u = controller(&state.x);
//!     sim.step(&mut state, &u, &p)?;            // false if a piece of the step failed
//! }
//! let r = state.into_result();                  // the same SimulationResult as simulate()
//! # assert!(r.completed && (r.switch_times[0] - 1.0 / 3.0).abs() < 1e-8);
//! # Ok(()) }
//! ```
//!
//! # Rigid bodies
//!
//! ```
//! use fesd_cls::{models, ClsModel};
//! use fesd_sim::{Simulator, SimulatorOptions};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // An elastic ball dropped from 0.8: impacts at 0.403855 + k · 0.807710.
//! let opts = SimulatorOptions { step: 0.15, n_steps: 6, ..Default::default() };
//! let mut sim = Simulator::<ClsModel>::new(&models::bouncing_ball(1.0), opts)?;
//! let r = sim.simulate(&[0.8, 0.0], &[], &[])?; // x0 = (q0, v0)
//! let t = r.impact_times();
//! assert!((t[0] - (1.6f64 / 9.81).sqrt()).abs() < 1e-6);
//! assert!((r.impacts[0].v_after[0] + r.impacts[0].v_before[0]).abs() < 1e-6);
//! # Ok(()) }
//! ```
//!
//! A ball thrown onto a table with friction:
//!
//! ```
//! use casadi::SX;
//! use fesd_cls::{ClsModel, Contact};
//! use fesd_sim::{Simulator, SimulatorOptions};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let q = SX::sym("q", 2); // (x, y)
//! let v = SX::sym("v", 2);
//! let y = q.at(1)?;
//! let table = Contact::new(y).restitution(0.5).friction(0.3, SX::from_slice(&[1.0, 0.0]));
//! let model = ClsModel::new(q, v).with_forces(SX::from_slice(&[0.0, -9.81])).with_contact(table);
//! let mut sim = Simulator::new(&model, SimulatorOptions { step: 0.05, n_steps: 10, ..Default::default() })?;
//! let r = sim.simulate(&[0.0, 1.0, 3.0, 0.0], &[], &[])?;
//! // It lands at t = √(2/g); the impact reverses v_y (× ε) and takes μ Λ_n of v_x.
//! let hit = &r.impacts[0];
//! assert!((hit.time - (2.0f64 / 9.81).sqrt()).abs() < 1e-6);
//! assert!((hit.v_after[1] + 0.5 * hit.v_before[1]).abs() < 1e-6);
//! assert!((hit.v_after[0] - (3.0 - 0.3 * hit.impulse)).abs() < 1e-6);
//! # Ok(()) }
//! ```
//!
//! # The discretization
//!
//! [`FesdOptions`] (nosnoc's names, see `docs/nosnoc.md`): `rk_family` (`RadauIIA`; also
//! Radau IA/I, Gauss–Legendre, Lobatto IIIA/B/C, explicit), `n_s` (2),
//! `irk_representation` (`Integral` | `Differential`), `representation` (`Stewart` |
//! `Step`), `lift_products`, `lift_element_end`, `n_fe` (2), `use_fesd` (true; false =
//! standard fixed steps), `gamma_h` (0.9), `cross_complementarity` (`StageVsElementSum`;
//! `StagePairs`, `ElementSumVsStage`, `ElementSums`), `step_equilibration`
//! (`HeuristicMean`, ρ_h = 1; `HeuristicDiff`, `L2Relaxed`, `L2RelaxedScaled`,
//! `Direct`). The representation is one implementation of the trait
//! `fesd_model::SubsystemLowering` (`Stewart`, `Step`): a DCS of your own — its algebraic
//! unknowns, equations, complementarity pairs and θ, written into an `AlgebraBuilder` —
//! drives the same discretization through [`Simulator::with_lowering`] (and
//! `OcpSolver::with_lowering`; test `crates/sim/tests/custom_lowering.rs`).
//!
//! Each step is one control interval of the element grid optimal control uses
//! (`fesd-discretization`), with x0, u, p, the step length and the boundary duals as
//! parameters, expanded to SX (a step has few elements; inlined kernels evaluate
//! faster); its unknowns are named in `sim.interval().table` (`tau`, `k`, `z` of element
//! n, and `x` where the element end is not the last stage, see `lift_element_end`).
//!
//! # How a step is solved
//!
//! Each step's MPCC is solved by one NLP at σ = 1e-9 first (an NLP that creeps, six short
//! primal steps in a row, stops early), from the previous step's active set — its last
//! point's θ, λ, μ in every element, the states on the line along the last element's
//! slope (`extrapolate_states`) — and, if that fails, from a neutral guess at the
//! current state (`neutral_start_max_iter`). Where no switch is predicted, the active set
//! went on through the previous piece and no inactive dual would reach zero within two
//! piece lengths at its current rate, the first start also carries the previous solve's
//! multipliers, an Ipopt warm start (`warm_start_duals`). Before each piece the state is
//! extrapolated from the last element and the active Filippov multipliers from the last
//! two: the first change of the active set on that line (`predict_switches`, reported per
//! piece as `predicted_switch`) puts the neutral start first, and so does a nearly
//! biactive pair at the piece's start (`neutral_start_when_nearly_biactive`); a switch
//! too close to either end of the piece for its elements' step bounds gets the piece cut
//! so that the switch lies in the middle of one part (`align_switches`, reported as
//! `aligned_to_switch`). A converged piece whose switch sits next to an element stretched
//! beyond `max_switch_element_ratio` is solved again as two parts with the switch on an
//! element boundary (reported as `recut_at_switch`): FESD's order then holds in practice,
//! not only asymptotically. A piece where both starts fail is halved (up to 5 times); at
//! the last level a short homotopy (σ = 0.1 → 1e-9, κ = 1e-4) and then the full one
//! (σ_0 = 1, κ = 0.1) run. Every attempt is reported in the result's step list
//! ([`StepReport::attempts`]). The measurements behind these defaults are in
//! `docs/evidence/sim.md`.
//!

mod discretization;
mod engine;
mod error;
pub mod models;
mod options;
mod output;
mod report;
mod rigid;
mod switched;

pub use discretization::{FesdInterval, Layout};
pub use engine::{Dims, Io, LookAhead, Piece, Prepared, SimState, SimulationKind, Simulator, Split, Start};
pub use error::{Result, SimError};
pub use fesd_discretization::{
    complementarity_pairs, sliding_exit_pairs, CrossComplementarity, FesdOptions, IrkRepresentation, StepEquilibration,
    StepEquilibrationHessian,
};
pub use options::SimulatorOptions;
pub use report::{Attempt, OnStepFailure, Record, SimulationTiming, StepReport};
pub use rigid::{ClsSimulation, Impact, ImpactDetection, RigidPiece};
pub use switched::{PieceOutputs, SimulationResult, SwitchCarry, SwitchDetection};
