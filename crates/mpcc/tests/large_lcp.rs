//! A generated MPCC with 2 100 variables and 700 complementarity pairs converges to
//! its known solution.

use fesd_mpcc::problems::lcp_least_squares;
use fesd_mpcc::{HomotopyOptions, MpccSolver, MpccStatus};

#[test]
fn lcp_least_squares_700_pairs_converges_to_known_solution() {
    let known = lcp_least_squares(700).unwrap();
    assert_eq!(known.mpcc.n_w(), 2100);
    assert_eq!(known.mpcc.n_comp(), 700);
    let mut solver = MpccSolver::new(&known.mpcc, HomotopyOptions::default()).unwrap();
    // x ≥ 0 and y ≥ 0 are plain variables: imposed as bounds, not constraints.
    assert_eq!(solver.lower_bounds_as_variable_bounds(), 1400);
    let r = solver.solve();
    assert_eq!(r.status, MpccStatus::Converged, "{:?}", r.messages);
    assert!(r.comp_residual <= 1e-9, "residual {:e}", r.comp_residual);
    assert!((r.objective - known.f_star).abs() <= 1e-8, "f = {:e}", r.objective);
    let err = r.w.iter().zip(&known.w_star).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(err <= 1e-6, "max |w - w*| = {err:e}");
    // The Hessian is one of the kernels, evaluated once per Ipopt iteration.
    assert!(r.timing.kernels_hessian > 0.0 && r.timing.kernels_hessian < r.timing.kernels, "{:?}", r.timing);
    println!(
        "steps {}, iterations {}, total {:.3} s: Ipopt {:.3} s, kernels {:.3} s, own {:.3} s",
        r.steps.len(),
        r.total_iterations,
        r.timing.total,
        r.timing.ipopt,
        r.timing.kernels,
        r.timing.own
    );
}
