//! Direct optimal control of nonsmooth systems with FESD: switched systems and rigid
//! bodies with impacts and friction, one front end for both.
//!
//! An [`Ocp`] states the problem on a model of either kind ([`ModelKind`]: a
//! [`fesd_model::PssModel`] or a `fesd_cls::ClsModel`): horizon (fixed or
//! free), N control intervals with piecewise-constant controls, N_FE finite elements
//! per interval, bounds, Lagrange and Mayer costs, terminal constraints.
//! [`OcpSolver::new`] transcribes it on the model kind's horizon (a
//! `fesd_discretization::Dcs`): one SX kernel holds a finite element's
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
//!
//! # A problem of your own
//!
//! The time-optimal car of `examples/car_turbo.rs`, written out:
//!
//! ```
//! use casadi::SX;
//! use fesd_model::{PssModel, Subsystem};
//! use fesd_ocp::{Horizon, Ocp, OcpSolver, TerminalConstraint};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (x, u) = (SX::sym("x", 2), SX::sym("u", 1));            // x = (q, v)
//! let v = x.at(1)?;
//! let f = |gain: f64| SX::vertcat(&[&v, &(&u * gain)]);        // q̇ = v, v̇ = gain · u
//! let model = PssModel::new(x.clone()).with_controls(u.clone())
//!     // c = v − 10: region v > 10 (turbo, gain 3) and v < 10 (gain 1)
//!     .with_subsystem(Subsystem::new(&v - 10.0, vec![vec![1], vec![-1]], vec![f(3.0)?, f(1.0)?]));
//! let mut ocp = Ocp::new(model, 15.0, 10, &[0.0, 0.0]);        // T guess, N = 10, x0
//! ocp.horizon = Horizon::Free { lower: 1.0, upper: 30.0, guess: 15.0 };
//! ocp.time_cost = 1.0;                                         // minimize T
//! ocp.u_lower = vec![-5.0];
//! ocp.u_upper = vec![5.0];
//! ocp.x_lower = vec![f64::NEG_INFINITY, -20.0];
//! ocp.x_upper = vec![f64::INFINITY, 20.0];
//! ocp.terminal = Some(TerminalConstraint { expr: x.clone(), lower: vec![200.0, 0.0], upper: vec![200.0, 0.0] });
//! ocp.options.fesd.n_fe = 3;
//! let mut solver = OcpSolver::new(&ocp)?;                      // transcribes and compiles once
//! let r = solver.solve()?;                                      // r.t_final = 13.3333333
//! let r1 = solver.solve()?;                                     // warm start from r: fewer iterations
//! solver.set_x0(&[800.0 / 9.0, 0.0])?;                          // a new x0, no recompilation
//! let r2 = solver.solve()?;                                     // warm-started (the MPC case): 80/9
//! // solver.reset_guess() starts over from the neutral guess instead (a local minimum
//! // may then be found: T = 10.1695 here); solver.warm_start_from_last_solve() makes
//! // the next solve start from the last one's primal-dual point at σ = warm_sigma_0
//! assert!((r.t_final - 40.0 / 3.0).abs() < 1e-4 && (r2.t_final - 80.0 / 9.0).abs() < 1e-4);
//! assert!(r1.mpcc.total_iterations < r.mpcc.total_iterations);
//! # Ok(()) }
//! ```
//!
//! # Rigid bodies
//!
//! The same front end takes a rigid-body model (`Ocp<ClsModel>`, FESD-J: impacts and
//! Coulomb friction in complementarity form at every element); its state is
//! x = (q, v), v the velocity before any impulse. A box pushed 1 m against friction,
//! rest to rest, with the least control effort:
//!
//! ```
//! use casadi::SX;
//! use fesd_cls::{ClsModel, Contact};
//! use fesd_ocp::{Ocp, OcpSolver};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (q, v, u) = (SX::sym("q", 2), SX::sym("v", 2), SX::sym("u", 1));
//! let ground = Contact::new(q.at(1)? - 0.5).friction(0.2, SX::from_slice(&[1.0, 0.0]));
//! let model = ClsModel::new(q.clone(), v.clone())
//!     .with_controls(u.clone())
//!     .with_forces(SX::vertcat(&[&u, &SX::scalar(-9.81)])?)
//!     .with_contact(ground);
//! let target = SX::vertcat(&[&q.at(0)?, &v])?;                  // q_x(T) = 1, v(T) = 0
//! let ocp = Ocp::new(model, 2.0, 10, &[0.0, 0.5, 0.0, 0.0])      // x0 = (q0, v0)
//!     .with_control_bounds(&[-30.0], &[30.0])
//!     .with_lagrange(&u * &u)
//!     .with_terminal(target, &[1.0, 0.0, 0.0], &[1.0, 0.0, 0.0]);
//! let r = OcpSolver::new(&ocp)?.solve()?;
//! // Sliding throughout, the optimum over piecewise-constant controls is 9.21404
//! // (the friction force μmg is paid while the box slides).
//! assert!(r.comp_residual <= 1e-9 && (r.cost - 9.21404).abs() < 1e-4);
//! assert!(r.impacts(1e-4).is_empty());                           // r.results["impulse"]
//! # Ok(()) }
//! ```
//!
//! # What a problem may state
//!
//! - A fixed or free horizon ([`Horizon`]; `time_cost` for time-optimal control), N
//!   control intervals with piecewise-constant controls and bounds, N_FE elements per
//!   interval (one count for all, or a list: `n_fe_per_interval`) with Σh = T/N in each.
//! - x0 fixed (an NLP parameter, [`OcpSolver::set_x0`]) or free with bounds; state bounds
//!   at element boundaries (and at the stages with `options.state_bounds_at_stages`).
//! - A Lagrange cost integrated with the Runge–Kutta quadrature, a Mayer cost,
//!   least-squares tracking with a reference per interval (`tracking`;
//!   [`OcpSolver::set_reference`] between solves).
//! - Nonlinear path constraints at the stages or the element ends (`path`), terminal
//!   constraints, hard or as ℓ1/ℓ2 penalties (`soft_terminal`).
//! - Model parameters as global decision variables (`free_parameters`; optimal values in
//!   `r.p`) or as values set between solves ([`OcpSolver::set_parameters`]).
//! - Every FESD option of the simulator (`options.fesd`): step equilibration between
//!   neighbouring elements in every mode (heuristic mean — the cost
//!   ρ_h Σ (h − T/(N N_FE))² on the numerical time grid —, heuristic diff, L2 relaxed
//!   (scaled) and direct with the switch indicators η; an L2 cost keeps its exact value
//!   and gradient but enters the Lagrangian Hessian as the Gauss–Newton term
//!   2ρ_h η² ∇Δh ∇Δhᵀ, `fesd.step_equilibration_hessian`), and the sliding-exit condition
//!   (`fesd.sliding_exit_continuity`, off by default: a pair leaving a sliding mode inside
//!   a control interval must do so with its Filippov multiplier at zero; without it the
//!   optimizer may place an exit up to about c₁h/2 early).
//! - Every homotopy option: the schedule (`options.homotopy`; default from σ_0 = 1 with
//!   the superlinear σ update, `fesd_mpcc::presets::optimal_control`) and what is compiled
//!   in (`options.formulation`; default nosnoc's direct steering with the active-set
//!   finish, `fesd_mpcc::Formulation::direct`).
//! - Evaluation by compiled element kernels (default) or, with `options.expand`, of the
//!   whole NLP expanded into one SX graph that CasADi evaluates (no compiler run; the
//!   graph grows with N).
//!
//! # Re-solves and initial guesses
//!
//! After a change of x0, parameters or references nothing is recompiled. By default a
//! re-solve starts from the previous solution's primal point and runs the whole homotopy
//! from σ_0 (the switching structure may change freely: the car above from 800/9 m);
//! armed by [`OcpSolver::warm_start_from_last_solve`] it starts from the previous solve's
//! last homotopy NLP, primal and dual, at σ = `homotopy.warm_sigma_0` — model predictive
//! control, where each re-solve starts from the plan's state one interval later.
//!
//! Initial guesses: the states at x0 (default), or on straight lines to the values the
//! terminal constraint pins them to, velocities at the lines' slopes
//! ([`OcpOptions::straight_line_guess`], [`OcpSolver::guess_straight_line`]: often far
//! fewer iterations, sometimes another local solution); simulated from the guessed x0
//! and controls with the OCP's own discretization ([`OcpSolver::guess_by_simulation`],
//! element lengths and switches consistent with the dynamics), a state trajectory of the
//! user's ([`OcpSolver::set_state_guess`]: end states, stage states or, in the
//! differential form, the elements' secants on the nominal grid), or any NLP vector
//! written by name
//! (`table().write(&mut w, "u", Some(k), None, &u_k)`, then
//! [`OcpSolver::set_initial_guess`]).
//!
//! # Results
//!
//! By name: `r.x`, `r.u`, `r.h`, `r.t`, `r.t_final`, the homotopy table in `r.mpcc`, and
//! the NLP vector with its [`VariableTable`] (`r.table.read(&r.w, "u", Some(k), None)`;
//! blocks `x`, `k`, `z`, `tau`, `u`, `x0`, `T`). [`OcpSolver::resimulate`] re-simulates
//! the optimal controls with the FESD simulator at high accuracy and returns the terminal
//! error. [`problems`] holds the reference OCPs (car with turbo, sliding mode, voice-coil
//! motor). One SX kernel holds a finite element's equations and pairs and is mapped over
//! all elements, and the patterns of the assembled problem are data beside the compiled
//! object, so the generated C and its compile time do not grow with N or N_FE. The
//! measurements behind the defaults are in `docs/evidence/ocp.md`.
//!

mod error;
mod kind;
mod output;
mod problem;
pub mod problems;
mod solver;
mod transcribe;

pub use error::{OcpError, Result};
pub use fesd_discretization::{interval_sums, Block, VariableTable};
pub use kind::{ElementOptions, ModelKind};
pub use problem::{
    FreeParameter, Horizon, InitialState, Ocp, OcpOptions, PathConstraint, PathPoints, SoftTerminalConstraint, TerminalConstraint,
    TerminalPenalty, Tracking,
};
pub use solver::{OcpImpact, OcpResult, OcpSolver};
