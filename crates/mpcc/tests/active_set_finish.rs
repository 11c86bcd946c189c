//! The active-set finish: it moves a spurious C-stationary limit of the homotopy to the
//! B-stationary solution, and certifies stationarity where the homotopy's point is
//! right.

use casadi::SX;
use fesd_mpcc::{HomotopyOptions, Mpcc, MpccSolver, Stationarity};

/// min (x − 1)² + (y − 2)² s.t. x ≥ y, 0 ≤ x ⊥ y ≥ 0, from (0.5, 0.5). For every σ the
/// vertex x = y = √σ of the relaxed NLP (x y ≤ σ) is a strict local minimizer (both
/// multipliers positive), so the homotopy follows it to the origin: f = 5, where
/// MPCC-LICQ fails and the point is not B-stationary (d = (1, 0) descends). The branch
/// y = 0 has the solution (1, 0) with f = 4.
fn pinned_to_the_origin() -> Mpcc {
    let w = SX::sym("w", 2);
    let (x, y) = (w.at(0).unwrap(), w.at(1).unwrap());
    let f = (&x - 1.0).powf(2.0) + (&y - 2.0).powf(2.0);
    let mut m = Mpcc::new(w, f, x.clone(), y.clone());
    m.g = &x - &y;
    m.lbg = vec![0.0];
    m.ubg = vec![f64::INFINITY];
    m.w0 = vec![0.5, 0.5];
    m
}

#[test]
fn the_homotopy_alone_stops_at_a_c_stationary_point() {
    // Direct steering: the relaxed NLPs' vertex is followed to the origin.
    let opts = HomotopyOptions { active_set_finish: false, ..HomotopyOptions::scholtes_direct() };
    let r = MpccSolver::new(&pinned_to_the_origin(), opts).unwrap().solve();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!(r.w[0].abs() < 1e-4 && r.w[1].abs() < 1e-4, "{:?}", r.w);
    assert!((r.objective - 5.0).abs() < 1e-3);
    assert!(r.finish.is_none());
}

#[test]
fn the_finish_moves_it_to_a_b_stationary_solution() {
    let r = MpccSolver::new(&pinned_to_the_origin(), HomotopyOptions::scholtes_direct()).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    println!("{finish:?} {:?}", r.w);
    assert!(r.status.is_converged());
    assert!((r.objective - 4.0).abs() < 1e-8, "f = {}", r.objective);
    assert!((r.w[0] - 1.0).abs() < 1e-8 && r.w[1].abs() < 1e-8, "{:?}", r.w);
    assert!(r.comp_residual <= 1e-12, "{}", r.comp_residual);
    assert_eq!(finish.branch_changes, 1);
    assert!(finish.lpec_value.unwrap() < 0.0);
    assert_eq!(finish.stationarity, Stationarity::SStationary);
    assert_eq!(finish.biactive, 0);
}

#[test]
fn b_stationarity_without_s_stationarity_is_certified_by_the_lpec() {
    // min −x − y + (z − 1)² s.t. x − y = 0, 0 ≤ x ⊥ y ≥ 0: the origin (in x, y) is the
    // only feasible point, hence B-stationary, but the tightened NLP's multipliers
    // satisfy ν_x + ν_y = −2 (MPCC-LICQ fails), so it is not S-stationary.
    let w = SX::sym("w", 3);
    let (x, y, z) = (w.at(0).unwrap(), w.at(1).unwrap(), w.at(2).unwrap());
    let f = -&x - &y + (&z - 1.0).powf(2.0);
    let mut m = Mpcc::new(w, f, x.clone(), y.clone());
    m.g = &x - &y;
    m.lbg = vec![0.0];
    m.ubg = vec![0.0];
    m.w0 = vec![0.5, 0.5, 0.0];
    let r = MpccSolver::new(&m, HomotopyOptions::default()).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    println!("{finish:?} {:?}", r.w);
    assert!(r.status.is_converged());
    assert_eq!(finish.stationarity, Stationarity::BStationary);
    assert_eq!(finish.biactive, 1);
    assert!(finish.lpec_value.unwrap().abs() <= 1e-9);
    assert!(r.w[0].abs() < 1e-8 && r.w[1].abs() < 1e-8 && (r.w[2] - 1.0).abs() < 1e-8, "{:?}", r.w);
}
