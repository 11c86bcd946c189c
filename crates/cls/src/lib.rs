//! FESD-J: rigid bodies with impacts and Coulomb friction.
//!
//! A [`ClsModel`] (complementarity Lagrangian system: coordinates q, velocities v,
//! mass matrix, forces, unilateral [`Contact`]s with restitution and friction) is
//! discretized by [`ClsStep`] with Runge–Kutta finite elements whose step sizes are
//! unknowns; velocity jumps happen only at element boundaries through impulse
//! equations in complementarity form, and cross complementarity puts every impact,
//! contact change and stick–slip transition on a boundary. The one simulation engine
//! (`fesd_sim::Simulator<ClsModel>`) solves it step after step with the MPCC homotopy
//! of `fesd-mpcc` and reports the impacts; the one optimal-control front end
//! (`fesd_ocp::Ocp<ClsModel>`) puts it on a horizon ([`ClsGrid`]).
//!
//! # Models
//!
//! A complementarity Lagrangian system: coordinates q, velocities v, mass matrix M(q),
//! forces f(q, v, u), and unilateral contacts, each with a gap f_c(q) ≥ 0, restitution
//! ε_r ∈ [0, 1] and Coulomb friction μ: along one tangent direction (planar contacts,
//! [`Contact::friction`], exact) or two (spatial contacts, [`Contact::spatial_friction`]).
//! A spatial contact's friction cone is, by [`ClsOptions::friction_model`], a polyhedron
//! (`Polyhedral`, default) of `friction_directions` directions cos θ_k t₁ + sin θ_k t₂
//! (default 8; exact for slides along one of them) or the circular cone itself (`Conic`:
//! force μλ_n w with w in the unit disk, `γ w + J_tᵀv = 0`, `0 ≤ γ ⊥ 1 − ‖w‖² ≥ 0`; exact
//! in every direction, slower to solve in optimal control). Velocities jump only at
//! finite-element boundaries, through impulse equations in complementarity form (Newton's
//! law, maximum dissipation of the tangential impulse); cross complementarity puts every
//! impact, contact change and stick–slip transition on a boundary. A ball thrown onto a
//! table with friction:
//!
//! ```
//! use casadi::SX;
//! use fesd_cls::{ClsModel, ClsOptions, ClsStep, Contact};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let q = SX::sym("q", 2); // (x, y)
//! let v = SX::sym("v", 2);
//! let y = q.at(1)?;
//! let table = Contact::new(y).restitution(0.5).friction(0.3, SX::from_slice(&[1.0, 0.0]));
//! let model = ClsModel::new(q, v).with_forces(SX::from_slice(&[0.0, -9.81])).with_contact(table);
//! // One interval of N_FE = 2 elements: an MPCC in (q0, v0, u, p, T).
//! let step = ClsStep::new(&model, &ClsOptions::default())?;
//! assert_eq!((step.layout.n_q, step.layout.n_c, step.layout.n_fe), (2, 1, 2));
//! # Ok(()) }
//! ```
//! (Simulated with `fesd_sim::Simulator::<ClsModel>`, it lands at t = √(2/g); the impact
//! reverses v_y (× ε) and takes μ Λ_n of v_x: the crate `fesd-sim` tests this.)
//!
//! # Simulation
//!
//! Options ([`ClsOptions`], in the simulator options' `fesd`): Radau IIA n_s = 2 and
//! N_FE = 2 per step by default, `use_fesd = false` for standard time stepping, the cross
//! complementarity modes of switched systems, step equilibration (heuristic, or with the
//! FESD-J switch indicators: contact made or broken, impact, slide start/stop), the
//! impact guard ε_c = 1e-3, `contact_tol` = 1e-7 (a contact closer than this at the start
//! of a step may take an impulse there; impacts slower than contact_tol/(ε_c h) may end
//! plastic), lifted accelerations or a symbolic M⁻¹ (`mass_matrix`), and
//! `rho_multipliers`, an ℓ1 tie-break that picks zero impulses at resting contacts. Each
//! step tries the simulation tiers, each from the previous step's solution, a resting
//! guess and a predicted contact-free motion, and halves the step if all fail (where the
//! previous piece went on without an impact, the first start carries its multipliers,
//! `warm_start_duals`). The result lists every impact with time, impulse and velocities
//! before and after, and the pieces given up and halved (reports marked `halved`, their
//! cost `halved_iterations()`). A contact that is
//! open at a step's start and, at the current velocity, would close before the shortest
//! first element can end ((1 − γ_h) h̄) cannot be held by that step — an element whose
//! start is open carries no contact force — so the simulator halves such a step before
//! trying it.
//!
//! # Optimal control
//!
//! Rigid bodies are a model kind of `fesd-ocp`'s one optimal-control front end
//! (`Ocp<ClsModel>`): [`ClsGrid`] puts N control intervals of N_FE FESD-J elements over
//! [0, T], the FESD-J element one CasADi function driven by the discretization layer's
//! element chain exactly as a switched system's element is; the state is x = (q, v).
//! Its defaults differ from simulation in two places (see `ElementOptions for
//! ClsOptions` there): no ℓ1 tie-break on the multipliers (in an OCP it is a cost on
//! sliding and approach speeds), and the slip pair (γ + tᵀv) ⊥ (γ − tᵀv), which keeps
//! γ = |tᵀv| where a contact is open. With resting contacts (boxes on the ground), set
//! `rho_impulses` (an ℓ1 cost on the normal impulses alone, e.g. 1): the relaxation
//! otherwise lets them hop by impulses of size √σ, and the homotopy can end infeasible
//! (the `manipulation` example sets it). The measurements behind the defaults are in
//! `docs/evidence/cls.md`.
//!

mod blocks;
mod element;
mod error;
mod geometry;
mod grid;
mod kernel;
mod model;
pub mod models;
mod options;
mod pairs;
mod step;

pub use error::{ClsError, Result};
pub use grid::ClsGrid;
pub use model::{ClsModel, Contact};
pub use options::{ClsOptions, FrictionModel, MassMatrixForm};
pub use step::{ClsLayout, ClsStep};
