//! Small MPCCs from the literature with known solutions, solved with the default
//! homotopy and finish from several starts.

use casadi::SX;
use fesd_mpcc::{Formulation, HomotopyOptions, Mpcc, MpccSolver, MpccStatus, Stationarity};

/// Bard's bilevel example (Bard 1988), as the MPCC of its lower level's KKT
/// conditions: upper level min (x − 5)² + (2y + 1)² over x ≥ 0; lower level
/// min_y (y − 1)² − 1.5 x y s.t. 3x − y ≥ 3, −x + 0.5 y ≥ −4, −x − y ≥ −7, y ≥ 0.
/// The solution is (x, y) = (1, 0) with F = 17.
fn bard1() -> Mpcc {
    // w = (x, y, λ1, λ2, λ3, μ)
    let w = SX::sym("w", 6);
    let e = |i: usize| w.at(i).unwrap();
    let (x, y, l1, l2, l3, mu) = (e(0), e(1), e(2), e(3), e(4), e(5));
    let f = (&x - 5.0).powf(2.0) + (2.0 * &y + 1.0).powf(2.0);
    let stationarity = 2.0 * (&y - 1.0) - 1.5 * &x + &l1 - 0.5 * &l2 + &l3 - &mu;
    let c = SX::vertcat(&[&(3.0 * &x - &y - 3.0), &(-1.0 * &x + 0.5 * &y + 4.0), &(-1.0 * &x - &y + 7.0), &y]).unwrap();
    let multipliers = SX::vertcat(&[&l1, &l2, &l3, &mu]).unwrap();
    let mut mpcc = Mpcc::new(w, f, c, multipliers);
    mpcc.g = stationarity;
    mpcc.lbg = vec![0.0];
    mpcc.ubg = vec![0.0];
    mpcc.lbw = vec![0.0; 6];
    mpcc
}

/// The lower level's feasible set at x = 5 is the single point y = 2, and for x < 5
/// the bilevel objective (x − 5)² + (15 − 2x)² falls towards x = 5: (5, 2) with F = 25
/// is a second local minimizer.
fn bard1_local_minima() -> [(f64, f64, f64); 2] {
    [(1.0, 0.0, 17.0), (5.0, 2.0, 25.0)]
}

#[test]
fn bard_bilevel_direct_steering_reaches_f_17_and_the_default_a_certified_local_minimum() {
    let starts = [
        [0.0; 6],
        [3.0, 2.0, 0.0, 0.0, 0.0, 0.0],
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 0.0, 3.5, 0.0, 0.0, 0.0],
        [1.5, 0.5, 0.0, 0.0, 0.0, 0.0],
    ];
    for start in starts {
        let mut mpcc = bard1();
        mpcc.w0 = start.to_vec();
        // nosnoc's classic homotopy (direct steering from σ_0 = 1) finds the solution.
        let r =
            MpccSolver::new(&mpcc.clone().with_formulation(Formulation::direct()), fesd_mpcc::presets::scholtes_direct()).unwrap().solve();
        assert_eq!(r.status, MpccStatus::Converged, "from {start:?}: {:?}", r.messages);
        assert!((r.objective - 17.0).abs() < 1e-6, "from {start:?}: f = {}", r.objective);
        assert!((r.w[0] - 1.0).abs() < 1e-6 && r.w[1].abs() < 1e-6, "from {start:?}: {:?}", &r.w[..2]);
        // The default (ℓ∞ elastic from σ_0 = 100: a weak first penalty) ends at one of
        // the two local minimizers, certified.
        let r = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap().solve();
        assert_eq!(r.status, MpccStatus::Converged, "from {start:?}: {:?}", r.messages);
        let at_a_minimum = bard1_local_minima()
            .iter()
            .any(|&(x, y, f)| (r.w[0] - x).abs() < 1e-6 && (r.w[1] - y).abs() < 1e-6 && (r.objective - f).abs() < 1e-6);
        assert!(at_a_minimum, "from {start:?}: f = {}, (x, y) = {:?}", r.objective, &r.w[..2]);
        let finish = r.finish.expect("finish report");
        assert!(matches!(finish.stationarity, Stationarity::SStationary | Stationarity::BStationary), "{:?}", finish.stationarity);
    }
}

/// Ralph's example: min x² + y² − 4xy s.t. 0 ≤ x ⊥ y ≥ 0, whose only solution is the
/// origin (f = 0). Along x = y = t the objective is −2t²: the ℓ∞ elastic relaxation
/// (cost s/σ, x y ≤ s) is unbounded below while 1/σ < 2, so its first NLP (σ_0 = 100)
/// diverges and the homotopy must strengthen the penalty rather than relax further.
#[test]
fn ralph_example_ends_at_the_origin() {
    let w = SX::sym("w", 2);
    let (x, y) = (w.at(0).unwrap(), w.at(1).unwrap());
    let f = &x * &x + &y * &y - 4.0 * &x * &y;
    for start in [[1.0, 1.0], [2.0, 0.5], [0.0, 3.0]] {
        let mut mpcc = Mpcc::new(w.clone(), f.clone(), x.clone(), y.clone());
        mpcc.w0 = start.to_vec();
        let r = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap().solve();
        assert_eq!(r.status, MpccStatus::Converged, "from {start:?}: {:?}", r.messages);
        assert!(
            r.objective.abs() < 1e-8 && r.w[0].abs() < 1e-4 && r.w[1].abs() < 1e-4,
            "from {start:?}: f = {}, w = {:?}",
            r.objective,
            r.w
        );
        assert!(r.messages.iter().any(|m| m.contains("diverging iterates")), "{:?}", r.messages);
        // Direct steering bounds the products by σ: no divergence.
        let direct =
            MpccSolver::new(&mpcc.clone().with_formulation(Formulation::direct()), fesd_mpcc::presets::scholtes_direct()).unwrap().solve();
        assert_eq!(direct.status, MpccStatus::Converged, "from {start:?}: {:?}", direct.messages);
        assert!(direct.objective.abs() < 1e-8, "{}", direct.objective);
    }
}
