//! Recovery when an NLP fails mid-homotopy, and warm starts of the duals.

use casadi::SX;
use fesd_mpcc::problems::lcp_least_squares;
use fesd_mpcc::{Formulation, HomotopyOptions, Mpcc, MpccSolver, MpccStatus, Stationarity};

#[test]
fn an_nlp_out_of_iterations_is_resumed() {
    let known = lcp_least_squares(100).unwrap();
    let opts = HomotopyOptions { max_recoveries: 20, ..HomotopyOptions::default().with_ipopt("max_iter", 3) };
    let r = MpccSolver::new(&known.mpcc, opts).unwrap().solve();
    let retries = r.steps.iter().filter(|s| s.recovery).count();
    println!("{:?} {:?}", r.status, r.messages);
    assert!(retries >= 1, "expected at least one recovery: {:?}", r.steps);
    assert!(r.messages.iter().any(|m| m.contains("recovery 1")));
    assert_eq!(r.status, MpccStatus::Converged, "{:?}", r.messages);
    let err = r.w.iter().zip(&known.w_star).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(err <= 1e-6);
}

#[test]
fn an_infeasible_step_steps_back_then_gives_up_with_the_last_iterate() {
    // w0 w1 ≥ 0.5 contradicts w0 w1 ≤ σ for σ < 0.5: the relaxed NLPs turn infeasible
    // once σ drops below 0.5. Recovery backs off (σ = 0.316 fails, σ = 0.562 solves),
    // then runs out of recoveries.
    let w = SX::sym("w", 2);
    let (a, b) = (w.at(0).unwrap(), w.at(1).unwrap());
    let f = (&a - 1.0).powf(2.0) + (&b - 1.0).powf(2.0);
    let mut mpcc = Mpcc::new(w.clone(), f, a.clone(), b.clone());
    mpcc.g = &a * &b;
    mpcc.lbg = vec![0.5];
    mpcc.ubg = vec![f64::INFINITY];
    mpcc.lbw = vec![0.0, 0.0];
    mpcc.w0 = vec![1.0, 1.0];
    let r = MpccSolver::new(&mpcc.clone().with_formulation(Formulation::direct()), fesd_mpcc::presets::scholtes_direct()).unwrap().solve();
    println!("{:#?}", r.steps);
    assert!(matches!(r.status, MpccStatus::NlpFailed { step: 2, .. }), "{:?} {:?}", r.status, r.messages);
    let good_retry = r.steps.iter().find(|s| s.recovery && s.ipopt_status.is_success()).expect("a successful recovery");
    assert!((good_retry.sigma - 0.1f64.powf(0.25)).abs() < 1e-12);
    assert!(r.messages.iter().any(|m| m.contains("back to the iterate")));
    assert!(r.messages.iter().any(|m| m.contains("no recovery left")), "{:?}", r.messages);
    // No feasible point exists: phase I finds no feasible branch (the branches that are
    // feasible to first order at radius 1 are infeasible NLPs).
    assert_eq!(r.finish.as_ref().map(|f| f.stationarity), Some(Stationarity::LocallyInfeasible), "{:?}", r.finish);
    assert_eq!(r.w.len(), 2);
    assert!(r.w.iter().all(|v| v.is_finite()));
    // In elastic mode (the default) every NLP is feasible: the slack holds the
    // violation, the homotopy ends honestly short of comp_tol at the least violation
    // w0 w1 = 0.5 (w0 = w1 = √0.5).
    let r = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap().solve();
    assert_eq!(r.status, MpccStatus::CompTolNotReached, "{:?}", r.messages);
    assert!((r.comp_residual - 0.5).abs() < 1e-6, "{}", r.comp_residual);
    assert!(r.w.iter().all(|v| (v - 0.5f64.sqrt()).abs() < 1e-5), "{:?}", r.w);
    assert_eq!(r.finish.as_ref().map(|f| f.stationarity), Some(Stationarity::LocallyInfeasible), "{:?}", r.finish);
}

#[test]
fn dual_warm_start_converges_to_the_same_point() {
    let known = lcp_least_squares(200).unwrap();
    let cold = MpccSolver::new(&known.mpcc, HomotopyOptions::default()).unwrap().solve();
    let opts = HomotopyOptions { warm_start_duals: true, ..Default::default() };
    let warm = MpccSolver::new(&known.mpcc, opts).unwrap().solve();
    assert!(cold.status.is_converged() && warm.status.is_converged(), "{:?} {:?}", cold.messages, warm.messages);
    let d = cold.w.iter().zip(&warm.w).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(d <= 1e-6);
    println!("iterations: primal warm start {}, primal-dual {}", cold.total_iterations, warm.total_iterations);
}

/// min 0.01 (x − 2)² s.t. y = (x − 2)² + 0.1, 0 ≤ x ⊥ y ≥ 0, from x = 0.1: y > 0 always,
/// so x = 0 is the only feasible point (f = 0.04). `x y = x ((x − 2)² + 0.1)` has a
/// local minimum of 0.199 near x = 1.97, where the objective pulls: the elastic homotopy
/// (weak penalty first) ends there and phase I finds no feasible branch nearby. Direct
/// steering keeps `x y ≤ σ` from σ = 1 on (x ≤ 0.36 at σ = 1) and reaches x = 0.
fn pulled_past_a_local_minimum_of_the_products() -> Mpcc {
    let w = SX::sym("w", 2);
    let (x, y) = (w.at(0).unwrap(), w.at(1).unwrap());
    let h = (&x - 2.0).powf(2.0) + 0.1;
    let mut mpcc = Mpcc::new(w.clone(), 0.01 * (&x - 2.0).powf(2.0), x.clone(), y.clone());
    mpcc.g = &y - &h;
    mpcc.lbg = vec![0.0];
    mpcc.ubg = vec![0.0];
    mpcc.w0 = vec![0.1, 3.71];
    mpcc
}

#[test]
fn a_locally_infeasible_elastic_end_is_followed_by_direct_steering() {
    let mpcc = pulled_past_a_local_minimum_of_the_products();
    let without = HomotopyOptions { direct_fallback: false, ..HomotopyOptions::default() };
    let r = MpccSolver::new(&mpcc, without).unwrap().solve();
    assert!(!r.status.is_converged(), "{:?} {:?}", r.status, r.w);
    assert_eq!(r.finish.as_ref().map(|f| f.stationarity), Some(Stationarity::LocallyInfeasible), "{:?}", r.messages);
    assert!((r.w[0] - 1.97).abs() < 0.05, "stuck near the local minimum of x y: {:?}", r.w);
    let first_iterations = r.total_iterations;

    let r = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap().solve();
    assert_eq!(r.status, MpccStatus::Converged, "{:?}", r.messages);
    assert!(r.w[0].abs() < 1e-8 && (r.w[1] - 4.1).abs() < 1e-6, "{:?}", r.w);
    assert!((r.objective - 0.04).abs() < 1e-6, "{}", r.objective);
    assert!(r.messages.iter().any(|m| m.contains("direct_fallback")), "{:?}", r.messages);
    // Within the first run's iterations (its own and the fallback's, the finish's beside).
    let fallback: usize = r.steps.iter().filter(|s| s.recovery).map(|s| s.iterations).sum();
    assert!(fallback <= first_iterations, "{fallback} > {first_iterations}");
}
