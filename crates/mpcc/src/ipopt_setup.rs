//! What the homotopy's NLPs and the active-set finish share: the Ipopt options both
//! set, and the max-norm their checks use.

use crate::options::HomotopyOptions;
use ipopt::IpoptSolver;

/// The Ipopt options every NLP of fesd's MPCC solver gets, the homotopy's and the
/// finish's: output by `verbosity`, `bound_relax_factor 0`, `mu_strategy adaptive`,
/// `warm_start_init_point yes`, the linear solver [`HomotopyOptions::linear_solver`]
/// names.
pub(crate) fn set_common_ipopt_options<'a>(ipopt: &'a mut IpoptSolver, opts: &HomotopyOptions) -> &'a mut IpoptSolver {
    ipopt
        .set_option("print_level", if opts.verbosity >= 2 { 5 } else { 0 })
        .set_option("sb", "yes")
        .set_option("bound_relax_factor", 0.0)
        .set_option("mu_strategy", "adaptive")
        .set_option("warm_start_init_point", "yes")
        // Unless the options name one: fesd's sparse LDLᵀ where the constraint block is
        // regularized (static pivots take most KKT matrices), MUMPS where it is not (the
        // optimal-control preset names the LDLᵀ). Evidence: `docs/evidence/kkt.md`.
        .set_option("linear_solver", opts.linear_solver())
}

/// max_i |v_i| (0 for an empty slice).
pub(crate) fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, a| m.max(a.abs()))
}
