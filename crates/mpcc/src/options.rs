//! Settings of the relaxation homotopy, validated once.

use crate::error::{MpccError, Result};
use ipopt::OptionValue;
use serde::{Deserialize, Serialize};

/// How an MPCC's functions (objective, constraints and their derivatives) are
/// evaluated during the solve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kernels {
    /// Generated C, compiled before the solve (or found in the cache): the fastest
    /// evaluations, paid for by one compiler run per new problem.
    Compiled,
    /// Compiled kernels if the cache has them; otherwise CasADi evaluates them and no
    /// compiler runs.
    Interpreted,
    /// Compiled kernels if the cache has them; otherwise CasADi evaluates them while
    /// their C compiles on another thread. Solves that start after the compiler is done
    /// evaluate the compiled kernels (see `MpccSolver::wait_for_compiled_kernels`), and
    /// so does the next run; the solver waits for the compiler when it is dropped.
    #[default]
    Auto,
}

/// How the complementarity `0 ≤ G ⊥ H ≥ 0` is relaxed with parameter τ ≥ 0
/// (τ = σ for direct steering, a slack otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Relaxation {
    /// Scholtes: `G_i H_i ≤ τ` (default).
    #[default]
    ScholtesInequality,
    /// Scholtes equality (smoothing): `G_i H_i = τ`.
    ScholtesEquality,
    /// Smoothed Fischer–Burmeister, `φ_τ(a, b) = a + b − √(a² + b² + 2τ) ≤ 0`
    /// (with G, H ≥ 0 equivalent to `G_i H_i ≤ τ`).
    FischerBurmeisterInequality,
    /// Smoothed Fischer–Burmeister equality `φ_τ(G_i, H_i) = 0` (⇔ `G_i H_i = τ`, G, H > 0).
    FischerBurmeisterEquality,
}

impl Relaxation {
    /// Every relaxation, for option parsing and test grids.
    pub const ALL: [Relaxation; 4] = [
        Relaxation::ScholtesInequality,
        Relaxation::ScholtesEquality,
        Relaxation::FischerBurmeisterInequality,
        Relaxation::FischerBurmeisterEquality,
    ];

    /// The option name (`scholtes_ineq`, `scholtes_eq`, `fischer_burmeister_ineq`, `fischer_burmeister_eq`).
    pub fn name(self) -> &'static str {
        match self {
            Relaxation::ScholtesInequality => "scholtes_ineq",
            Relaxation::ScholtesEquality => "scholtes_eq",
            Relaxation::FischerBurmeisterInequality => "fischer_burmeister_ineq",
            Relaxation::FischerBurmeisterEquality => "fischer_burmeister_eq",
        }
    }

    /// True for the equality variants.
    pub fn is_equality(self) -> bool {
        matches!(self, Relaxation::ScholtesEquality | Relaxation::FischerBurmeisterEquality)
    }
}

impl std::str::FromStr for Relaxation {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_name(&Relaxation::ALL, Relaxation::name, "relaxation", s)
    }
}

impl Kernels {
    /// Every mode, in the order of [`Kernels::name`].
    pub const ALL: [Kernels; 3] = [Kernels::Auto, Kernels::Compiled, Kernels::Interpreted];

    /// Name on the command line and in JSON: `auto`, `compiled`, `interpreted`.
    pub fn name(self) -> &'static str {
        match self {
            Kernels::Auto => "auto",
            Kernels::Compiled => "compiled",
            Kernels::Interpreted => "interpreted",
        }
    }
}

impl std::str::FromStr for Kernels {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_name(&Kernels::ALL, Kernels::name, "kernels", s)
    }
}

/// How σ drives the relaxation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Steering {
    /// τ = σ, a parameter of the NLP.
    Direct,
    /// ℓ∞ elastic mode: one slack s ≥ 0 with τ = s for every pair, `s/σ` added to the
    /// cost (default).
    #[default]
    ElasticInf,
    /// ℓ1 elastic mode: one slack s_i ≥ 0 per pair with τ_i = s_i, `Σ s_i/σ` added to the cost.
    ElasticL1,
}

impl Steering {
    /// Every steering strategy.
    pub const ALL: [Steering; 3] = [Steering::Direct, Steering::ElasticInf, Steering::ElasticL1];

    /// The option name (`direct`, `elastic_inf`, `elastic_l1`).
    pub fn name(self) -> &'static str {
        match self {
            Steering::Direct => "direct",
            Steering::ElasticInf => "elastic_inf",
            Steering::ElasticL1 => "elastic_l1",
        }
    }
}

impl std::str::FromStr for Steering {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_name(&Steering::ALL, Steering::name, "steering", s)
    }
}

/// The entry of `all` whose `name` is `s`, or an error listing every name.
fn parse_name<T: Copy>(all: &[T], name: fn(T) -> &'static str, what: &str, s: &str) -> std::result::Result<T, String> {
    all.iter().copied().find(|&v| name(v) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&v| name(v)).collect();
        format!("unknown {what} '{s}'; one of {names:?}")
    })
}

/// How `G ≥ 0` and `H ≥ 0` enter the NLP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum LowerBounds {
    /// As variable bounds where `G_i` (or `H_i`) is exactly one variable `w_j`; not at
    /// all where the bounds already imply it (an affine entry with nonnegative
    /// interval lower bound, e.g. `1 − α` with `α ≤ 1`, or a sum of such variables);
    /// as constraints elsewhere (default).
    #[default]
    Bounds,
    /// Always as constraints `G ≥ 0`, `H ≥ 0`.
    Constraints,
}

/// The longest homotopy fesd plans: more NLPs than this means a κ so close to 1 (or
/// an `n_homotopy` so large) that the solve would effectively never end.
pub const MAX_HOMOTOPY_STEPS: usize = 1000;

/// The σ after `sigma`: `max(σ_N, min(κ σ, σ^θ))` with θ = `exponent` (θ = 1: κ σ).
pub(crate) fn next_sigma(sigma: f64, kappa: f64, exponent: f64, sigma_n: f64) -> f64 {
    let linear = sigma * kappa;
    let next = if exponent > 1.0 { linear.min(sigma.powf(exponent)) } else { linear };
    next.max(sigma_n)
}

/// NLPs from σ = `from` down to `to` by [`next_sigma`], both ends included; `to ≤ 0`
/// counts down to 1e-16.
pub(crate) fn steps_from_to(from: f64, to: f64, kappa: f64, exponent: f64) -> usize {
    let to = if to <= 0.0 { 1e-16 } else { to };
    if exponent <= 1.0 {
        return 1 + ((to / from).ln() / kappa.ln() - 1e-9).ceil().max(0.0) as usize;
    }
    // σ shrinks at least by κ per step; counting stops past the allowed maximum.
    let (mut sigma, mut steps) = (from, 1);
    while sigma > to * (1.0 + 1e-9) && steps <= MAX_HOMOTOPY_STEPS {
        sigma = next_sigma(sigma, kappa, exponent, to);
        steps += 1;
    }
    steps
}

/// What an MPCC solver compiles into its kernels: the relaxed NLP's form and whether
/// the active-set finish's NLP is built. It belongs to the problem
/// ([`Mpcc::formulation`](crate::Mpcc::formulation)) and is fixed when the solver is
/// built; the run-time schedule ([`HomotopyOptions`]) cannot change it. Defaults: Scholtes
/// relaxation, ℓ∞ elastic steering, G, H ≥ 0 as bounds where they are variables, the
/// finish on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Formulation {
    /// Relaxation of the complementarity constraints.
    pub relaxation: Relaxation,
    /// Steering strategy (default `ElasticInf`).
    pub steering: Steering,
    /// How G, H ≥ 0 are imposed.
    pub lower_bounds: LowerBounds,
    /// After the homotopy, fix the identified active set, solve that NLP (exact
    /// complementarity) and certify the point with an LPEC (see
    /// [`FinishReport`](crate::FinishReport)); its settings are the `finish_*`, `lpec_*`
    /// and `phase_one_radius` fields of [`HomotopyOptions`].
    pub active_set_finish: bool,
}

impl Default for Formulation {
    fn default() -> Self {
        Formulation {
            relaxation: Relaxation::default(),
            steering: Steering::default(),
            lower_bounds: LowerBounds::default(),
            active_set_finish: true,
        }
    }
}

impl Formulation {
    /// nosnoc's classic form: Scholtes relaxation steered directly, `G_i H_i ≤ σ`, with
    /// the active-set finish (optimal control's; the schedule is
    /// [`presets::scholtes_direct`](crate::presets::scholtes_direct)).
    pub fn direct() -> Formulation {
        Formulation { steering: Steering::Direct, ..Formulation::default() }
    }
}

/// The run-time schedule of the relaxation homotopy (the compiled-in form is the
/// problem's [`Formulation`]). Defaults, for the default formulation (Scholtes
/// relaxation in ℓ∞ elastic mode: one slack s with `G_i H_i ≤ s`, `s/σ` added to the
/// cost): σ_0 = 100, κ = 0.1, comp_tol = 1e-9, σ_N = min(1e-10, 0.1 comp_tol), then the
/// active-set finish. nosnoc's classic homotopy (direct steering `G_i H_i ≤ σ` from
/// σ_0 = 1) is [`crate::presets::scholtes_direct`] with [`Formulation::direct`]. Elastic steering from σ_0 = 100 solves the
/// NOSBENCH development set in about two thirds of direct steering's Ipopt iterations:
/// the penalty is exact once 1/σ exceeds the complementarity multipliers, so the
/// homotopy stops after few NLPs. Evidence: `docs/evidence/mpcc.md`, "Elastic steering from σ_0 = 100".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HomotopyOptions {
    /// Initial homotopy parameter σ_0 (default 100): the relaxation bound itself with
    /// direct steering (1 is customary there), the reciprocal of the elastic penalty
    /// otherwise.
    pub sigma_0: f64,
    /// Reduction factor κ ∈ (0, 1): σ_{k+1} = κ σ_k (default 0.1).
    pub kappa: f64,
    /// Exponent θ ≥ 1 of the superlinear update σ_{k+1} = max(σ_N, min(κ σ_k, σ_k^θ))
    /// (nosnoc's `homotopy_update_rule = 'superlinear'` with `homotopy_update_exponent`);
    /// 1 (default) is the linear update κ σ_k. After a recovery softens κ the update stays
    /// linear. Optimal control sets 2 (`fesd_mpcc::presets::optimal_control`); on the
    /// MPCC benchmarks θ = 2 sent a problem to a worse minimum. Evidence: `docs/evidence/mpcc.md`, "sigma_exponent".
    pub sigma_exponent: f64,
    /// Complementarity tolerance on max_i |G_i H_i| (default 1e-9).
    pub comp_tol: f64,
    /// Final relaxation σ_N (default min(1e-10, 0.1 comp_tol)).
    pub sigma_n: Option<f64>,
    /// Number of homotopy NLPs; default derived: the steps from σ_0 down to σ_N (extended
    /// after a recovery makes κ gentler, so that σ_N is still reached).
    pub n_homotopy: Option<usize>,
    /// Warm-start the dual variables of each NLP too (primal always) (default false).
    pub warm_start_duals: bool,
    /// Ipopt's `tol` for the NLP at σ is `min(1e-8, 0.1 σ)` unless `tol` is among the
    /// Ipopt options (default true).
    pub tol_follows_sigma: bool,
    /// The early NLPs (large σ) only hand their point to the next one, so they may end at
    /// Ipopt's acceptable level: `acceptable_tol = min(acceptable_tol_max,
    /// acceptable_tol_factor σ)` where that is above Ipopt's own 1e-6 (with
    /// `tol_follows_sigma`, unless the Ipopt options set `acceptable_tol`; Ipopt stops once
    /// the error stays below it for `acceptable_iter` iterations; default 1e-2, 0 keeps
    /// Ipopt's 1e-6). A well-behaved NLP converges to `tol` before that and follows the
    /// same path; one that crawls stops early. Evidence: `docs/evidence/mpcc.md`, "acceptable_tol_factor".
    pub acceptable_tol_factor: f64,
    /// Upper limit of that acceptable level (default 1e-3).
    pub acceptable_tol_max: f64,
    /// Ipopt's `acceptable_iter` for the NLPs that get that acceptable level: how many
    /// consecutive iterations the error must stay below it (default 15, Ipopt's own).
    /// Smaller values stop crawling early NLPs sooner, but also ones still moving toward
    /// another basin (higher local minima on the benchmarks). Evidence: `docs/evidence/mpcc.md`, "acceptable_iter".
    pub acceptable_iter: usize,
    /// An early NLP (one that gets the acceptable level above) also stops, as acceptable,
    /// once its objective has varied by at most that level · (1 + |f|) over this many
    /// iterations and the current iterate's primal and dual infeasibilities are at most
    /// that level (0: off; default 40). Ipopt's own acceptable test needs
    /// `acceptable_iter` consecutive acceptable iterations, which an NLP crawling near its
    /// solution (dual infeasibility jumping) may not give. Evidence: `docs/evidence/mpcc.md`, "stagnation_window".
    pub stagnation_window: usize,
    /// Stop an NLP, as failed, once Ipopt's primal step size α_pr has stayed below
    /// [`HomotopyOptions::stall_step`] for this many iterations in a row, counted from
    /// [`HomotopyOptions::stall_warmup`] on (0: never, the default). Such an NLP is creeping
    /// toward a degenerate or infeasible point; a caller with a cheaper next move (the
    /// simulator: another start, a halved step) should take it at once. Not the default of
    /// the homotopy itself, whose NLPs have no cheaper next move than going on.
    /// Evidence: `docs/evidence/mpcc.md`, "stall_iterations".
    pub stall_iterations: usize,
    /// The primal step size below which an iteration counts toward
    /// [`HomotopyOptions::stall_iterations`] (default 0.05).
    pub stall_step: f64,
    /// Short steps count toward a stall from this Ipopt iteration on (default 10): a start
    /// far from feasibility takes short steps first, cut by the fraction-to-the-boundary
    /// rule. A start with the previous solution's multipliers, which converges in a few
    /// iterations or not at all, uses 4 (`fesd_sim::SimulatorOptions::warm_start_duals`).
    /// Evidence: `docs/evidence/mpcc.md`, "stall_iterations".
    pub stall_warmup: usize,
    /// The homotopy ends (status `CompTolNotReached`, the active-set finish's phase I
    /// takes over) after this many solved NLPs in a row at σ ≤ 1e-4 whose complementarity
    /// residual, above `finish_handover` and comp_tol, fell by less than 10 % against the
    /// previous NLP's (0: never; default 3).
    /// Past σ = 1e-4 the ℓ∞ penalty weighs 1/σ ≥ 10⁴: a residual that no longer moves sits
    /// at a local minimum of the penalty, and the remaining NLPs only repeat it (the
    /// hysteresis car of the larger NOSBENCH set: seven NLPs at 3.89e-2). Evidence:
    /// `docs/evidence/mpcc.md`, "stalled_steps".
    pub stalled_steps: usize,
    /// After a homotopy with elastic steering whose point the finish's phase I finds
    /// locally infeasible (the elastic slack stuck at a local minimum of the penalty), run
    /// nosnoc's direct Scholtes homotopy from the initial guess — `G_i H_i ≤ σ` with the
    /// same kernels (the slacks fixed at σ), σ_0 = 1, κ = 0.1 — within as many Ipopt
    /// iterations as the first run took, then the finish; its result is taken if it
    /// converges (default true). Direct steering keeps complementarity relaxed by σ only,
    /// from the first NLP on, and reaches feasible points the elastic path left behind.
    /// Evidence: `docs/evidence/mpcc.md`, "direct_fallback".
    pub direct_fallback: bool,
    /// The homotopy hands over to the active-set finish once `max_i |G_i H_i|` is at most
    /// this (default 1e-7); a value ≤ comp_tol runs the homotopy to the end first.
    /// Evidence: `docs/evidence/mpcc.md`, "The active-set finish".
    pub finish_handover: f64,
    /// A side of a pair counts as zero when it is at most `max(active_set_tol,
    /// 10 √(max_i |G_i H_i|))` at the homotopy's point (default 1e-6); where both sides are
    /// below that, the one at most 1/100 of the other is the zero side and only sides within
    /// a factor 100 of each other make a biactive pair. Evidence: `docs/evidence/mpcc.md`, "The active-set finish".
    pub active_set_tol: f64,
    /// Trust-region radius ρ of the LPEC, `‖d‖∞ ≤ ρ` (default 1e-3).
    pub lpec_radius: f64,
    /// An LPEC value above `−lpec_tol` certifies B-stationarity (default 1e-9).
    pub lpec_tol: f64,
    /// Time limit of one LPEC (MILP) in seconds (default 10).
    pub lpec_time_limit: f64,
    /// Largest trust-region radius of the finish's phase I (default 1; 0 turns phase I
    /// off). When the homotopy stops above comp_tol (an NLP failed for good, or the plan
    /// ended early), phase I looks for a branch near its point: an LPEC with the side of
    /// every pair free (except where one side is 100× smaller: it stays the zero side) and
    /// the linearized constraints softened by slacks, minimizing their ℓ1 violation within
    /// `‖d‖∞ ≤ ρ` for ρ = `lpec_radius`, 10 ρ, … up to this. The first branch that is
    /// feasible to first order is solved as an NLP from `w + d`; a solution (exact
    /// complementarity) goes on to the usual finish and its certificate. If every radius
    /// leaves a violation or an infeasible branch NLP, the finish reports
    /// [`Stationarity::LocallyInfeasible`](crate::Stationarity); if HiGHS gives no answer in
    /// time at some radius, the finish goes on from the homotopy's point with the sides it
    /// shows, as after a handover. Evidence: `docs/evidence/mpcc.md`, "The active-set finish".
    pub phase_one_radius: f64,
    /// How often the finish may move to another branch (default 5).
    pub max_branch_changes: usize,
    /// Ipopt's `max_iter` for each NLP of the finish (default 100). Its start satisfies
    /// complementarity to comp_tol, so a branch NLP that needs more is degenerate or
    /// infeasible. Evidence: `docs/evidence/mpcc.md`, "The active-set finish".
    pub finish_max_iter: usize,
    /// How often an NLP of the finish that reaches `finish_max_iter` is resumed from its
    /// last primal-dual iterate and barrier parameter (default 0: a branch NLP starts within
    /// comp_tol of its solution, so one that needs more is usually degenerate or
    /// infeasible). Evidence: `docs/evidence/mpcc.md`, "The active-set finish".
    pub finish_resumes: usize,
    /// Ipopt's `max_iter` for each homotopy NLP unless the Ipopt options set it (default
    /// 3 000, Ipopt's own). An NLP that reaches it is resumed from its last primal-dual
    /// iterate (a recovery), which often frees a stalled solve. Evidence: `docs/evidence/mpcc.md`, "max_iter".
    pub max_iter: usize,
    /// How many recoveries the homotopy may use before giving up (default 3). An NLP
    /// that ran out of iterations or time is resumed from its last iterate; any other
    /// failure (infeasible, restoration failed, …) steps back to the last good
    /// iterate and reduces σ more gently (κ ← √κ), or, before any NLP succeeded,
    /// retries with σ ← 10 σ.
    pub max_recoveries: usize,
    /// Ipopt's `perturb_always_cd`: regularize the constraint block of every KKT
    /// factorization by δ_c = 1e-8 μ^¼, not only after Ipopt has found the Jacobian singular
    /// (default true, off in [`crate::presets::scholtes_direct`], the default of optimal
    /// control and of the simulators, where it sent two test problems to other points).
    /// Evidence: `docs/evidence/mpcc.md`, "perturb_always_cd".
    pub perturb_always_cd: bool,
    /// Start every KKT factorization of the homotopy's NLPs with a Hessian perturbation
    /// (the last one reduced by Ipopt's `perturb_dec_fact`) instead of trying none first,
    /// see [`ipopt::IpoptSolver::set_reuse_hessian_perturbation`] (default false: cheaper
    /// iterations, but more of them where the perturbation lingers).
    /// Evidence: `docs/evidence/mpcc.md`, "reuse_hessian_perturbation".
    pub reuse_hessian_perturbation: bool,
    /// σ at which a re-solve armed by
    /// [`MpccSolver::warm_start_from_last_solve`](crate::MpccSolver::warm_start_from_last_solve)
    /// begins (default 0.1; never below σ_N): its first NLP starts from the previous solve's
    /// last homotopy NLP, primal and dual (Ipopt's warm-start pushes 1e-9), and the
    /// homotopy goes on from there with κ. The smaller σ, the more a re-solve keeps the
    /// previous solution's active set. Evidence: `docs/evidence/mpcc.md`, "warm_sigma_0".
    pub warm_sigma_0: f64,
    /// 0: silent (default); 1: homotopy table; 2: also Ipopt's own output.
    pub verbosity: u8,
    /// Ipopt options, applied after fesd's defaults (`print_level 0`, `sb yes`,
    /// `bound_relax_factor 0`, `mu_strategy adaptive`, `mumps_pivtol 1e-8`, `warm_start_init_point yes`,
    /// `perturb_always_cd` as above;
    /// for starts with duals also both warm-start pushes 1e-9; `linear_solver ldl`, fesd's
    /// sparse LDLᵀ, where `perturb_always_cd` is on, else `mumps`
    /// ([`HomotopyOptions::linear_solver`]); evidence:
    /// `docs/evidence/kkt.md`). A preset may hold its own here
    /// ([`presets::optimal_control`](crate::presets::optimal_control): the LDLᵀ).
    pub ipopt: Vec<(String, OptionValue)>,
}

impl Default for HomotopyOptions {
    fn default() -> Self {
        HomotopyOptions {
            sigma_0: 100.0,
            kappa: 0.1,
            sigma_exponent: 1.0,
            comp_tol: 1e-9,
            sigma_n: None,
            n_homotopy: None,
            warm_start_duals: false,
            tol_follows_sigma: true,
            acceptable_tol_factor: 1e-2,
            acceptable_tol_max: 1e-3,
            acceptable_iter: 15,
            stagnation_window: 40,
            stall_iterations: 0,
            stall_step: 0.05,
            stall_warmup: 10,
            stalled_steps: 3,
            direct_fallback: true,
            finish_handover: 1e-7,
            finish_resumes: 0,
            active_set_tol: 1e-6,
            lpec_radius: 1e-3,
            lpec_tol: 1e-9,
            lpec_time_limit: 10.0,
            phase_one_radius: 1.0,
            max_branch_changes: 5,
            finish_max_iter: 100,
            max_iter: 3000,
            max_recoveries: 3,
            perturb_always_cd: true,
            reuse_hessian_perturbation: false,
            warm_sigma_0: 0.1,
            verbosity: 0,
            ipopt: Vec::new(),
        }
    }
}

impl HomotopyOptions {
    /// Reads options whose missing fields take `defaults`' values (the body of a
    /// `#[serde(deserialize_with = …)]` function for a field with its own defaults);
    /// unknown keys are errors as usual.
    pub fn deserialize_onto<'de, D: serde::Deserializer<'de>>(defaults: Self, d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Object(given) => defaults.with_fields(given).map_err(D::Error::custom),
            other => Err(D::Error::custom(format!("homotopy options must be a map, not {other}"))),
        }
    }

    /// These options with the fields in `fields` (by their JSON names, e.g.
    /// `"kappa": 0.2`, `"sigma_n": 1e-12`) replaced: options set by name, as a
    /// command line or a configuration file gives them. The Ipopt options given, as
    /// a map (`"ipopt": {"max_iter": 3000, "linear_solver": "mumps"}`) or in the
    /// serialized form (`[["max_iter", {"Int": 3000}]]`), are added after those these
    /// options hold (Ipopt takes the last value of a name), so a preset's own Ipopt
    /// options stay unless named again. Unknown names and values of the wrong type are
    /// errors naming them (not checked against ranges: see
    /// [`HomotopyOptions::validate`]).
    pub fn with_fields(&self, mut fields: serde_json::Map<String, serde_json::Value>) -> Result<Self> {
        let invalid = |e: serde_json::Error| MpccError::InvalidOption { name: "homotopy", reason: e.to_string() };
        if let Some(given) = fields.remove("ipopt") {
            let bad = |reason: String| MpccError::InvalidOption { name: "ipopt", reason };
            let given: Vec<(String, OptionValue)> = match given {
                serde_json::Value::Object(map) => map
                    .into_iter()
                    .map(|(name, value)| match value {
                        serde_json::Value::String(text) => Ok((name, OptionValue::Str(text))),
                        serde_json::Value::Number(number) => {
                            let value = OptionValue::parse_for(&name, &number.to_string());
                            Ok((name, value))
                        }
                        other => Err(bad(format!("{name}: {other} is neither a string nor a number"))),
                    })
                    .collect::<Result<_>>()?,
                list => serde_json::from_value(list).map_err(|e| bad(e.to_string()))?,
            };
            let mut ipopt = self.ipopt.clone();
            ipopt.extend(given);
            fields.insert("ipopt".into(), serde_json::to_value(ipopt).map_err(invalid)?);
        }
        let mut all = match serde_json::to_value(self).map_err(invalid)? {
            serde_json::Value::Object(all) => all,
            other => {
                return Err(MpccError::InvalidOption { name: "homotopy", reason: format!("options serialized to {other}, not a map") })
            }
        };
        all.extend(fields);
        serde_json::from_value(serde_json::Value::Object(all)).map_err(invalid)
    }

    /// Checks ranges; see the field docs.
    pub fn validate(&self) -> Result<()> {
        let bad = |name: &'static str, reason: String| Err(MpccError::InvalidOption { name, reason });
        if !(self.sigma_0.is_finite() && self.sigma_0 > 0.0) {
            return bad("sigma_0", format!("{} must be positive and finite", self.sigma_0));
        }
        if !(self.warm_sigma_0.is_finite() && self.warm_sigma_0 > 0.0) {
            return bad("warm_sigma_0", format!("{} must be positive and finite", self.warm_sigma_0));
        }
        if !(self.kappa > 0.0 && self.kappa < 1.0) {
            return bad("kappa", format!("{} must lie in (0, 1)", self.kappa));
        }
        if !(self.sigma_exponent.is_finite() && self.sigma_exponent >= 1.0) {
            return bad("sigma_exponent", format!("{} must be finite and at least 1", self.sigma_exponent));
        }
        if !(self.comp_tol.is_finite() && self.comp_tol > 0.0) {
            return bad("comp_tol", format!("{} must be positive and finite", self.comp_tol));
        }
        if let Some(s) = self.sigma_n {
            if !(s.is_finite() && s >= 0.0 && s <= self.sigma_0) {
                return bad("sigma_n", format!("{s} must lie in [0, sigma_0]"));
            }
        }
        if self.n_homotopy == Some(0) {
            return bad("n_homotopy", "must be at least 1".into());
        }
        if !(self.stall_step > 0.0 && self.stall_step <= 1.0) {
            return bad("stall_step", format!("{} must lie in (0, 1]", self.stall_step));
        }
        for (name, v) in
            [("active_set_tol", self.active_set_tol), ("lpec_radius", self.lpec_radius), ("lpec_time_limit", self.lpec_time_limit)]
        {
            if !(v.is_finite() && v > 0.0) {
                return bad(name, format!("{v} must be positive and finite"));
            }
        }
        for (name, v) in [
            ("acceptable_tol_factor", self.acceptable_tol_factor),
            ("acceptable_tol_max", self.acceptable_tol_max),
            ("lpec_tol", self.lpec_tol),
            ("phase_one_radius", self.phase_one_radius),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(name, format!("{v} must be nonnegative and finite"));
            }
        }
        for (name, v) in [("acceptable_iter", self.acceptable_iter), ("max_iter", self.max_iter)] {
            if i32::try_from(v).is_err() {
                return bad(name, format!("{v} is beyond Ipopt's integer range"));
            }
        }
        let planned = self.homotopy_steps();
        if planned > MAX_HOMOTOPY_STEPS {
            let (name, why) = match self.n_homotopy {
                Some(_) => ("n_homotopy", format!("{planned} NLPs")),
                None => (
                    "kappa",
                    format!(
                        "kappa = {} takes {planned} NLPs from sigma_0 = {:e} to sigma_N = {:e}",
                        self.kappa,
                        self.sigma_0,
                        self.sigma_final()
                    ),
                ),
            };
            return bad(name, format!("{why}; at most {MAX_HOMOTOPY_STEPS} are allowed (choose a smaller kappa or a larger sigma_N)"));
        }
        Ok(())
    }

    /// σ_N as configured or by default.
    pub fn sigma_final(&self) -> f64 {
        self.sigma_n.unwrap_or_else(|| (1e-10f64).min(0.1 * self.comp_tol))
    }

    /// The number of homotopy NLPs: given, or the steps from σ_0 to σ_N
    /// (`1 + ⌈log(σ_N/σ_0)/log κ⌉` for the linear update).
    pub fn homotopy_steps(&self) -> usize {
        if let Some(n) = self.n_homotopy {
            return n;
        }
        steps_from_to(self.sigma_0, self.sigma_final(), self.kappa, self.sigma_exponent)
    }

    /// True if the Ipopt options set `name` (then fesd's per-NLP value of it gives way).
    pub fn sets_ipopt(&self, name: &str) -> bool {
        self.ipopt.iter().any(|(k, _)| k == name)
    }

    /// The linear solver Ipopt factors the KKT systems with: the last `linear_solver` of
    /// [`HomotopyOptions::ipopt`], else `ldl` (fesd's LDLᵀ) where `perturb_always_cd` is
    /// on and `mumps` where it is off.
    pub fn linear_solver(&self) -> String {
        match self.ipopt.iter().rev().find(|(name, _)| name == "linear_solver") {
            Some((_, value)) => value.to_string(),
            None if self.perturb_always_cd => "ldl".into(),
            None => "mumps".into(),
        }
    }

    /// Adds an Ipopt option (string, integer or number).
    pub fn with_ipopt(mut self, name: &str, value: impl Into<OptionValue>) -> Self {
        self.ipopt.push((name.to_string(), value.into()));
        self
    }
}

#[cfg(test)]
mod sigma_update_tests {
    use super::{next_sigma, steps_from_to, HomotopyOptions};

    #[test]
    fn the_superlinear_update_squares_sigma_below_kappa() {
        // From σ_0 = 1 with κ = 0.1 and θ = 2: 1, 0.1, 0.01, 1e-4, 1e-8, then σ_N.
        let mut sigma = 1.0;
        let mut seen = vec![sigma];
        while sigma > 1e-10 {
            sigma = next_sigma(sigma, 0.1, 2.0, 1e-10);
            seen.push(sigma);
        }
        let expected = [1.0, 0.1, 0.01, 1e-4, 1e-8, 1e-10];
        assert_eq!(seen.len(), expected.len());
        for (s, e) in seen.iter().zip(expected) {
            assert!((s / e - 1.0).abs() < 1e-12, "{seen:?}");
        }
        assert_eq!(steps_from_to(1.0, 1e-10, 0.1, 2.0), 6);
        // Linear: every power of ten.
        assert_eq!(steps_from_to(1.0, 1e-10, 0.1, 1.0), 11);
        // Above 1 (elastic steering's σ_0 = 100) the linear step is the smaller one.
        assert!((next_sigma(100.0, 0.1, 2.0, 1e-10) - 10.0).abs() < 1e-12);
    }

    #[test]
    fn an_exponent_below_one_is_rejected() {
        let bad = HomotopyOptions { sigma_exponent: 0.5, ..HomotopyOptions::default() };
        assert!(bad.validate().is_err());
        let nan = HomotopyOptions { sigma_exponent: f64::NAN, ..HomotopyOptions::default() };
        assert!(nan.validate().is_err());
        let ok = HomotopyOptions { sigma_exponent: 2.0, ..HomotopyOptions::default() };
        assert_eq!(ok.homotopy_steps(), 8, "100, 10, 1, 0.1, 0.01, 1e-4, 1e-8, σ_N = 1e-10");
    }
}

#[cfg(test)]
mod linear_solver_tests {
    use super::HomotopyOptions;
    use crate::presets;

    #[test]
    fn the_linear_solver_is_the_last_named_else_follows_perturb_always_cd() {
        assert_eq!(HomotopyOptions::default().linear_solver(), "ldl");
        assert_eq!(presets::scholtes_direct().linear_solver(), "mumps");
        assert_eq!(presets::optimal_control().linear_solver(), "ldl");
        assert_eq!(presets::rigid_body_optimal_control().linear_solver(), "mumps");
        assert_eq!(presets::optimal_control().with_ipopt("linear_solver", "mumps").linear_solver(), "mumps");
    }
}
