//! Every named homotopy of the project in one place: nosnoc's classic homotopy, the
//! optimal-control homotopies of both model kinds and the simulators' tiers. The
//! measurements behind each are cited at its function; a front end's default points
//! here instead of writing its own.
//!
//! Each schedule is meant for a [`Formulation`] (compiled into the kernels, fixed when
//! the solver is built): [`Formulation::direct`] for nosnoc's classic homotopy and
//! optimal control, [`simulation_formulation`] for the simulators' tiers, the default
//! (ℓ∞ elastic steering) for [`HomotopyOptions::default`].
//!
//! The simulators' tiers keep Ipopt's `warm_start_init_point no` and a σ-independent
//! `tol` (not the MPCC defaults), and their active-set finish is off: a simulation step
//! is certified by its own accuracy checks, and the finish would compile a second NLP
//! per model. Evidence: `docs/evidence/sim.md`, "The tiers".

use crate::options::{Formulation, HomotopyOptions};

/// nosnoc's classic homotopy, with [`Formulation::direct`] (`G_i H_i ≤ σ`): from
/// σ_0 = 1, with Ipopt's plain inertia correction (`perturb_always_cd` off), the other
/// fields at their defaults.
pub fn scholtes_direct() -> HomotopyOptions {
    HomotopyOptions { sigma_0: 1.0, perturb_always_cd: false, ..HomotopyOptions::default() }
}

/// The simulators' formulation: direct steering without the active-set finish.
pub fn simulation_formulation() -> Formulation {
    Formulation { active_set_finish: false, ..Formulation::direct() }
}

/// Optimal control of switched systems: [`scholtes_direct`] (κ = 0.1) with the
/// superlinear update σ_{k+1} = min(κ σ_k, σ_k²) (`sigma_exponent = 2`): 1, 0.1, 0.01,
/// 1e-4, 1e-8, …, fewer Ipopt iterations than the linear update at the same costs. Not
/// the MPCC default (ℓ∞ elastic mode from σ_0 = 100): that one is faster but ends
/// several optimal-control test problems in spurious local minima.
/// Evidence: `docs/evidence/ocp.md`, "The optimal-control homotopy".
///
/// Its KKT systems go to fesd's LDLᵀ (`linear_solver ldl`) with the pivot threshold
/// `ldl_pivtol 1e-4`, never raised (`ldl_pivtolmax 1e-4`: where Ipopt asks for a more
/// accurate solve it regularizes instead): a quarter less time per Ipopt iteration
/// than MUMPS on the optimal-control benchmarks at the same costs. A raised threshold
/// made some warm MPC re-solves of the car take more iterations than cold ones; with
/// u = 1e-8 (the MPCC default) the motor at N = 240 ends at another local minimum.
/// Evidence: `docs/evidence/kkt.md`, "The LDLᵀ as the optimal-control default".
pub fn optimal_control() -> HomotopyOptions {
    optimal_control_schedule().with_ipopt("linear_solver", "ldl").with_ipopt("ldl_pivtol", 1e-4).with_ipopt("ldl_pivtolmax", 1e-4)
}

/// The schedule of [`optimal_control`], with the linear solver fesd's Ipopt set-up
/// picks (MUMPS, as `perturb_always_cd` is off).
fn optimal_control_schedule() -> HomotopyOptions {
    HomotopyOptions { sigma_exponent: 2.0, ..scholtes_direct() }
}

/// Optimal control of rigid bodies: [`optimal_control`]'s schedule with each NLP
/// stopped after 500 Ipopt iterations and resumed from its last iterate, up to 10
/// recoveries: resting frictional contacts stall Ipopt and a resume frees it.
/// Evidence: `docs/evidence/cls.md`, "The rigid-body OCP homotopy".
///
/// Its KKT systems go to MUMPS: with the LDLᵀ two rigid-body tests end at other local
/// solutions, and with a raised threshold the three-box manipulation took twice the time.
/// Evidence: `docs/evidence/kkt.md`, "The LDLᵀ as the optimal-control default".
pub fn rigid_body_optimal_control() -> HomotopyOptions {
    HomotopyOptions { max_iter: 500, max_recoveries: 10, ..optimal_control_schedule() }
}

/// What the simulators' two first tiers share: direct steering, and an NLP stops once
/// Ipopt has taken 6 primal steps in a row shorter than 5 % of its Newton step
/// ([`HomotopyOptions::stall_iterations`]): such an attempt was creeping toward a
/// degenerate point, and the next start or a halved piece is cheaper.
/// Evidence: `docs/evidence/sim.md`, "The tiers".
fn tier_base() -> HomotopyOptions {
    HomotopyOptions { stall_iterations: 6, stall_step: 0.05, ..scholtes_direct() }
}

/// A simulator's first tier: one NLP at σ = 1e-9 (a second at σ_N = 1e-10 if needed)
/// from the previous step's solution (with its multipliers where the simulator warm
/// starts the duals: also at σ = 1e-9), at most 30 Ipopt iterations, no recovery.
/// Steps without a switch, the large majority, need nothing more.
pub fn simulation_single_nlp() -> HomotopyOptions {
    HomotopyOptions {
        sigma_0: 1e-9,
        warm_sigma_0: 1e-9,
        kappa: 0.1,
        max_recoveries: 0,
        max_iter: 30,
        tol_follows_sigma: false,
        ..tier_base()
    }
    .with_ipopt("mu_strategy", "adaptive")
    .with_ipopt("warm_start_init_point", "no")
    // Starts with multipliers are warm starts.
    .with_ipopt("warm_start_bound_push", 1e-6)
    .with_ipopt("warm_start_mult_bound_push", 1e-6)
}

/// A simulator's second tier: σ = 0.1, 1e-5, 1e-9 (κ = 1e-4), at most 30 Ipopt
/// iterations per NLP, no recovery: steps with a switch.
pub fn simulation_short() -> HomotopyOptions {
    HomotopyOptions { sigma_0: 0.1, kappa: 1e-4, max_recoveries: 0, tol_follows_sigma: false, ..tier_base() }
        .with_ipopt("mu_strategy", "adaptive")
        .with_ipopt("warm_start_init_point", "no")
        .with_ipopt("max_iter", 30)
}

/// A simulator's fallback, for steps that cannot be halved any more: nosnoc's
/// σ_0 = 1, κ = 0.1, comp_tol = 1e-9, with Ipopt's adaptive barrier update, the usual
/// recovery and at most 500 Ipopt iterations per NLP.
pub fn simulation_robust() -> HomotopyOptions {
    HomotopyOptions { tol_follows_sigma: false, ..scholtes_direct() }
        .with_ipopt("mu_strategy", "adaptive")
        .with_ipopt("warm_start_init_point", "no")
        .with_ipopt("max_iter", 500)
}

/// The simulators' default tiers, tried in turn on each step: [`simulation_single_nlp`],
/// [`simulation_short`], [`simulation_robust`].
/// Evidence: `docs/evidence/sim.md`, "The tiers".
pub fn simulation_tiers() -> Vec<HomotopyOptions> {
    vec![simulation_single_nlp(), simulation_short(), simulation_robust()]
}

/// The stall rule of a simulator's start with the previous piece's multipliers: (short
/// steps, counted from this Ipopt iteration); such a start converges quickly or not at
/// all.
pub const DUAL_START_STALL: (usize, usize) = (3, 4);

/// A simulator's piece whose successful attempt took more Ipopt iterations than this
/// was near a change of its active set: the next piece starts without its multipliers.
/// Evidence: `docs/evidence/sim.md`, "DUAL_START_AFTER".
pub const DUAL_START_AFTER: usize = 20;
