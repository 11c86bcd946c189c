//! What a homotopy solve returns.

use ipopt::ApplicationReturnStatus;
use serde::{Deserialize, Serialize};

/// How the homotopy ended. `Converged` means the complementarity residual reached
/// `comp_tol` *and* the last NLP succeeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MpccStatus {
    /// max_i |G_i H_i| ≤ comp_tol and the last NLP solved.
    Converged,
    /// Every homotopy step ran and solved, but the residual stayed above comp_tol.
    CompTolNotReached,
    /// The NLP of homotopy step `step` failed and could not be recovered.
    NlpFailed {
        /// Homotopy step (0-based).
        step: usize,
        /// Ipopt's status there.
        ipopt_status: ApplicationReturnStatus,
    },
}

impl MpccStatus {
    /// True only for [`MpccStatus::Converged`].
    pub fn is_converged(self) -> bool {
        matches!(self, MpccStatus::Converged)
    }

    /// A short name for summaries.
    pub fn name(self) -> &'static str {
        match self {
            MpccStatus::Converged => "converged",
            MpccStatus::CompTolNotReached => "comp_tol_not_reached",
            MpccStatus::NlpFailed { .. } => "nlp_failed",
        }
    }
}

/// One row of the homotopy table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HomotopyStep {
    /// Step index k (recovery retries repeat k).
    pub k: usize,
    /// Relaxation σ_k.
    pub sigma: f64,
    /// Ipopt's status.
    pub ipopt_status: ApplicationReturnStatus,
    /// Ipopt iterations.
    pub iterations: usize,
    /// How many of them Ipopt spent in its restoration phase (minimizing the constraint
    /// violation instead of the objective).
    #[serde(default)]
    pub restoration_iterations: usize,
    /// Original objective f(w) at the step's solution.
    pub objective: f64,
    /// max_i |G_i H_i| at the step's solution.
    pub comp_residual: f64,
    /// Wall time of the step in seconds.
    pub wall_time: f64,
    /// True if this step was a recovery retry.
    pub recovery: bool,
    /// The first NaN/∞ met while evaluating this NLP, if any (see
    /// [`ipopt::Solution::non_finite`]).
    #[serde(default)]
    pub non_finite: Option<String>,
    /// True if CasADi evaluated this NLP's functions (its compiled kernels were not
    /// ready yet; see `Kernels::Auto`).
    #[serde(default)]
    pub interpreted: bool,
}

/// What the active-set finish certified about the returned point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stationarity {
    /// Strongly stationary: the tightened NLP's multipliers of every biactive pair are
    /// nonnegative (implies B-stationarity).
    SStationary,
    /// B-stationary: the LPEC at the point has optimal value 0 (no feasible descent
    /// direction to first order), though some biactive multiplier is negative.
    BStationary,
    /// The LPEC found a descent direction but its branch NLP did not improve.
    NotBStationary,
    /// Not checked, or the check could not decide (pairs not identified, an NLP or
    /// the LPEC failed).
    Unknown,
    /// The homotopy stopped above comp_tol and no branch of the linearized MPCC is
    /// feasible near its point: the phase-I LPEC (the pairs' sides free, the
    /// linearized constraints softened by slacks, `‖d‖∞` up to
    /// `HomotopyOptions::phase_one_radius`) has a positive optimal violation, or the
    /// branch NLPs it proposed are infeasible. A diagnosis, not a proof: another
    /// region may hold feasible points.
    LocallyInfeasible,
}

impl Stationarity {
    /// Snake-case name (`s_stationary`, `b_stationary`, `not_b_stationary`, `unknown`,
    /// `locally_infeasible`).
    pub fn name(self) -> &'static str {
        match self {
            Stationarity::SStationary => "s_stationary",
            Stationarity::BStationary => "b_stationary",
            Stationarity::NotBStationary => "not_b_stationary",
            Stationarity::Unknown => "unknown",
            Stationarity::LocallyInfeasible => "locally_infeasible",
        }
    }

    /// True for the certificates of stationarity (S- or B-stationary).
    pub fn is_certified(self) -> bool {
        matches!(self, Stationarity::SStationary | Stationarity::BStationary)
    }
}

/// The active-set finish of a solve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FinishReport {
    /// The certificate.
    pub stationarity: Stationarity,
    /// Biactive pairs (G_i = H_i = 0) at the returned point.
    pub biactive: usize,
    /// NLPs solved (tightened and branch NLPs).
    pub nlps: usize,
    /// Their Ipopt iterations.
    pub iterations: usize,
    /// The last LPEC's optimal value, if one was solved.
    pub lpec_value: Option<f64>,
    /// How often the LPEC moved the point to another branch.
    pub branch_changes: usize,
    /// Phase I, run when the homotopy stopped above comp_tol: per trust-region radius
    /// tried, the optimal ℓ1 violation of the linearized constraints over the branches
    /// its LPEC considers (`None`: HiGHS gave no answer within `lpec_time_limit`).
    #[serde(default)]
    pub phase_one: Vec<(f64, Option<f64>)>,
}

/// Multipliers at the final iterate (Ipopt's sign convention: `∇f + Jᵀλ + z_U − z_L = 0`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Multipliers {
    /// Of the general constraints g.
    pub lambda_g: Vec<f64>,
    /// Of the relaxed complementarity constraints.
    pub lambda_comp: Vec<f64>,
    /// Of the bounds of w: z_U − z_L.
    pub lambda_w: Vec<f64>,
}

/// Wall-time split of a solve, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Whole homotopy.
    pub total: f64,
    /// Inside Ipopt, excluding kernel evaluations.
    pub ipopt: f64,
    /// Evaluating compiled kernels.
    pub kernels: f64,
    /// Of `kernels`, the Lagrangian Hessian.
    #[serde(default)]
    pub kernels_hessian: f64,
    /// Our own code: everything outside Ipopt (set-up, residuals, warm starts, table).
    pub own: f64,
    /// From the start of the solve to the end of Ipopt's first iteration (iteration 0,
    /// the initial point), in seconds.
    #[serde(default)]
    pub first_iteration: f64,
}

/// The outcome of [`MpccSolver::solve`](crate::MpccSolver::solve): always the last iterate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MpccResult {
    /// How the homotopy ended.
    pub status: MpccStatus,
    /// Final w.
    pub w: Vec<f64>,
    /// Original objective f(w).
    pub objective: f64,
    /// max_i |G_i H_i| at w.
    pub comp_residual: f64,
    /// Multipliers of the last NLP.
    pub multipliers: Multipliers,
    /// The homotopy table.
    pub steps: Vec<HomotopyStep>,
    /// Sum of Ipopt iterations over all steps.
    pub total_iterations: usize,
    /// Wall-time split.
    pub timing: Timing,
    /// The number of homotopy NLPs planned (σ_0 … σ_N, extended when a recovery
    /// makes κ gentler); fewer in `steps` when comp_tol was reached early (a normal
    /// end, not a message).
    #[serde(default)]
    pub planned_steps: usize,
    /// What went differently from the plan (recoveries, failures, a hand-over to the
    /// active-set finish), in words.
    pub messages: Vec<String>,
    /// The active-set finish, if it ran.
    #[serde(default)]
    pub finish: Option<FinishReport>,
}

/// A primal-dual point of an [`MpccSolver`](crate::MpccSolver)'s relaxed NLP, kept to
/// start a later solve of the same problem with its multipliers
/// ([`MpccSolver::set_initial_guess_with_duals`](crate::MpccSolver::set_initial_guess_with_duals)).
#[derive(Clone, Debug)]
pub struct DualStart(pub(crate) ipopt::Solution);
