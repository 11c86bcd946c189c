//! Solver for mathematical programs with complementarity constraints (MPCCs)
//!
//! ```text
//! min f(w, p)  s.t.  lbw ≤ w ≤ ubw,  lbg ≤ g(w, p) ≤ ubg,  0 ≤ G(w, p) ⊥ H(w, p) ≥ 0
//! ```
//!
//! by a relaxation homotopy over Ipopt: a sequence of NLPs with relaxation parameter
//! σ_k = κ^k σ_0, each warm-started from the previous solution, until the
//! complementarity residual max_i |G_i H_i| reaches `comp_tol`. The relaxed NLP is
//! built once with σ as a parameter and compiled once into C kernels, so the whole
//! homotopy, and every later solve with new parameters, reuses one compiled object.
//!
//! - [`Mpcc`]: the problem, from expressions or from a NOSBENCH JSON file ([`nosbench`]).
//! - [`HomotopyOptions`]: σ_0, κ, comp_tol, σ_N, [`Relaxation`] (Scholtes or
//!   Fischer–Burmeister, inequality or equality), [`Steering`] (direct, ℓ∞ or ℓ1
//!   elastic), [`LowerBounds`], warm start of duals, recovery, verbosity, Ipopt options.
//! - [`MpccSolver`]: compile once, [`MpccSolver::solve`] many times;
//!   [`MpccSolver::from_file`] reads a NOSBENCH file and prepares it, so the next run
//!   of the same file skips its expressions (see [`MpccSolver::prepared_from_cache`]).
//! - [`MpccResult`]: status ([`MpccStatus::Converged`] only when the residual reached
//!   comp_tol *and* the last NLP succeeded), iterate, multipliers, homotopy table,
//!   timing split — serializable as JSON.
//!
//! ```
//! use casadi::SX;
//! use fesd_mpcc::{HomotopyOptions, Mpcc, MpccSolver};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // min (x − 1)² + (y − 2)²  s.t.  0 ≤ x ⊥ y ≥ 0: the optimum is (0, 2), f = 1.
//! let w = SX::sym("w", 2);
//! let (x, y) = (w.at(0)?, w.at(1)?);
//! let f = (&x - 1.0).powf(2.0) + (&y - 2.0).powf(2.0);
//! let mut mpcc = Mpcc::new(w, f, x, y);
//! mpcc.w0 = vec![1.0, 1.0];
//! let r = MpccSolver::new(&mpcc, HomotopyOptions::default())?.solve();
//! assert!(r.status.is_converged());
//! assert!((r.w[0]).abs() < 1e-6 && (r.w[1] - 2.0).abs() < 1e-6 && (r.objective - 1.0).abs() < 1e-6);
//! # Ok(()) }
//! ```
//!
//! # The command line: `fesd mpcc`
//!
//! ```sh
//! cargo run --release --bin fesd -- mpcc tests/data/quadratic_cubic.json -v
//! cargo run --release --bin fesd -- mpcc problem.json --relaxation scholtes_eq --steering elastic_l1 \
//!     --sigma0 1 --kappa 0.1 --comp-tol 1e-9 --ipopt max_iter=500 --json
//! ```
//!
//! reads an MPCC in the NOSBENCH JSON layout (CasADi-serialized `w`, `p`, `g_fun`,
//! `G_fun`, `H_fun`, `augmented_objective_fun`; bounds with `Infinity` tokens) and solves
//! it with [`MpccSolver`]. `fesd mpcc --help` lists the options; they map onto
//! [`HomotopyOptions`]:
//!
//! | option | default | meaning |
//! |---|---|---|
//! | `--sigma0` | 100 | σ_0 (elastic: the penalty starts at 1/σ_0; with `--steering direct` 1 is customary) |
//! | `--kappa` | 0.1 | σ_{k+1} = κ σ_k |
//! | `--sigma-exponent` | 1 | θ of the superlinear update σ_{k+1} = max(σ_N, min(κ σ_k, σ_k^θ)) (nosnoc's `homotopy_update_rule = 'superlinear'`); optimal control uses 2 |
//! | `--comp-tol` | 1e-9 | stop when max_i \|G_i H_i\| ≤ comp_tol |
//! | `--sigma-n`, `--n-homotopy` | min(1e-10, 0.1 comp_tol), derived | final σ and number of NLPs |
//! | `--relaxation` | `scholtes_ineq` | also `scholtes_eq`, `fischer_burmeister_ineq`, `fischer_burmeister_eq` |
//! | `--steering` | `elastic_inf` | ℓ∞ elastic mode (one slack s, G_i H_i ≤ s, cost s/σ); also `direct` (G_i H_i ≤ σ, nosnoc's classic), `elastic_l1` (a slack per pair) |
//! | `--lower-bounds-as-constraints` | off | G, H ≥ 0 as bounds where G_i/H_i is a variable, else constraints |
//! | `--warm-start-duals` | off | warm-start λ, z_L, z_U too (primal always) |
//! | `--max-recoveries` | 3 | resume NLPs out of iterations; step back with κ ← √κ after infeasibility; a first NLP that fails retries from the initial guess with σ ← 10 σ (direct) or, if its iterates diverged (went a millionfold beyond the start), σ ← σ/1000 (elastic: a stronger penalty) |
//! | `--stagnation-window` | 40 | an early NLP (one with an acceptable level) also stops once its objective has varied by at most that level · (1 + \|f\|) over this many iterations at an acceptable point; 0: off |
//! | `--no-active-set-finish` | finish on | skip the active-set finish (below) |
//! | `--phase-one-radius` | 1 | largest radius of the finish's phase I (below); 0 turns it off |
//! | `--kernels` | `auto` | `auto`: compiled kernels if cached, otherwise CasADi evaluates this run while the C compiles beside it for the next run (the process waits for that compiler after printing); `compiled`: compile first; `interpreted`: never compile |
//! | `--opt-level` | 0 | the C compiler's `-O` level for the kernels |
//! | `--ipopt key=value` | `print_level=0 sb=yes bound_relax_factor=0 mu_strategy=adaptive mumps_pivtol=1e-8 warm_start_init_point=yes perturb_always_cd=yes linear_solver=ldl` | any Ipopt option (`linear_solver=ldl`: fesd's sparse LDLᵀ, static pivots where they hold, else a multifrontal factor with threshold and delayed pivots, `ldl_pivtol` its threshold u (1e-8), `ldl_pivtolmax` the most `IncreaseQuality` raises it to (0.1); `mumps`: MUMPS; `ldl` is the default where `perturb_always_cd` is on); Ipopt's `tol` follows σ: min(1e-8, 0.1 σ), and early NLPs may stop at the acceptable level min(1e-3, 1e-2 σ) (`HomotopyOptions::acceptable_tol_factor`, `acceptable_tol_max`) |
//!
//! "converged" means the residual reached comp_tol **and** the last NLP succeeded. The
//! summary line (or `--json`) gives status, objective, residual, homotopy steps, Ipopt
//! iterations, and the time split Ipopt / kernels / fesd's own code (`--json` also: the
//! start-up phases, whether the file was prepared, how the kernels ran). Exit status: 0
//! converged, 1 not converged, 2 bad input.
//!
//! Files never load native code: serialized functions that name an `external`, a plugin
//! (`nlpsol`, `interpolant`, …) or set `jit` are refused before CasADi reads them.
//! Evaluations that give NaN or ∞ are reported to Ipopt as failed (it shortens the step,
//! or ends with `InvalidNumberDetected` and the last finite iterate).
//!
//! # Prepared files and first runs
//!
//! `fesd mpcc` (and [`MpccSolver::from_file`]) remembers in the kernel cache, keyed by the
//! file's bytes and the options compiled into the kernels (relaxation, steering, lower
//! bounds, finish), what it derived from the expressions: the module and the relaxed
//! NLP's layout. The next run of the same file reads only its numbers and loads the
//! verified module, without calling CasADi; `-v` prints the start-up phase by phase. A
//! missing, garbled or inconsistent record, or a damaged module, only means the full
//! build runs again (`crates/mpcc/tests/prepared_files.rs`). A new file's kernels are not
//! compiled before its solve ([`Kernels::Auto`]): CasADi evaluates them while the C
//! compiler runs on the other core, and the next run finds the module and the record. The
//! kernels are compiled at `-O0` (`--opt-level`). Ipopt runs MUMPS with one OpenBLAS
//! thread (unless `OPENBLAS_NUM_THREADS` or `OMP_NUM_THREADS` is set), so that its
//! spinning second thread does not take the other core from the compiler.
//!
//! # The active-set finish
//!
//! Once max |G_i H_i| ≤ `finish_handover` (1e-7) the homotopy hands over: the identified
//! active set is fixed (the tightened NLP), which makes complementarity exact; its
//! multipliers certify S-stationarity, or an LPEC (a MILP solved by HiGHS) certifies
//! B-stationarity or finds a descent direction into another branch, whose NLP is solved
//! next. The result carries `finish.stationarity` (`s_stationary`, `b_stationary`,
//! `not_b_stationary`, `unknown`, `locally_infeasible`) and the number of biactive pairs.
//! If the finish cannot certify, the homotopy goes on from where it handed over. Each NLP
//! of the finish is limited to `finish_max_iter` Ipopt iterations, warm-started (bound
//! pushes 1e-9, the start stays where the homotopy left it) and stopped once its
//! objective climbs more than max(0.1 %, 10 √r) above the start's, r the start's
//! complementarity residual: the finish polishes and certifies; it does not trade the
//! homotopy's point for a much worse one. Where both sides of a pair are small, the side
//! at most 1/100 of the other is taken as the zero one; only comparable sides make a
//! biactive pair. A side that is a variable (G_i = w_j, as for most multipliers) is held
//! at zero by the bound w_j = 0 rather than by an equality row, so pairs that share a
//! variable (cross complementarity) do not repeat rows. Where the tightened NLP fails and
//! the LPEC gives no answer within its time limit, the branch NLP that keeps the smaller
//! side of each biactive pair at zero still makes complementarity exact (`unknown`
//! stationarity). A point handed over with more than one apparently biactive pair and a
//! residual above comp_tol goes to that rounded branch NLP first (as MPECopt does), and
//! the active set is read again at its exact solution.
//!
//! **Phase I** (`phase_one_radius`, default 1; 0 turns it off). When the homotopy stops
//! above comp_tol, the finish looks for a feasible branch near the last iterate: an LPEC
//! with one binary per pair minimizes the ℓ1 violation of the linearized constraints
//! within `‖d‖∞ ≤ ρ` for ρ = 1e-3, 1e-2, 0.1, 1. The first branch feasible to first order
//! is solved as an NLP from `w + d`; its solution goes on to the certificate above. If
//! every radius leaves a violation, or the branches it proposes are infeasible NLPs,
//! `finish.stationarity` is `locally_infeasible` and a message lists the violation per
//! radius — a diagnosis of the region, not a proof that no feasible point exists
//! elsewhere. The measurements behind these defaults are in `docs/evidence/mpcc.md`.
//!

mod error;
mod finish;
mod ipopt_setup;
#[cfg(feature = "symbolic")]
pub mod nosbench;
mod options;
#[cfg(feature = "symbolic")]
mod prepared;
pub mod presets;
mod problem;
#[cfg(feature = "symbolic")]
pub mod problems;
mod record;
mod relax;
mod result;
mod solver;

pub use error::{MpccError, Result};
/// Compiler settings and build timings of the kernels, as the solvers take and report them.
pub use fesd_codegen::CompileOptions;
pub use fesd_nlp::BuildReport;
pub use ipopt::OptionValue;
pub use options::{Formulation, HomotopyOptions, Kernels, LowerBounds, Relaxation, Steering, MAX_HOMOTOPY_STEPS};
#[cfg(feature = "symbolic")]
pub use problem::Mpcc;
pub use problem::{check_module_name, DEFAULT_MODULE};
pub use record::MpccRecord;
pub use result::{DualStart, FinishReport, HomotopyStep, MpccResult, MpccStatus, Multipliers, Stationarity, Timing};
pub use solver::MpccSolver;
