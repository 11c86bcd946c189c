//! The NOSBENCH-layout problems in tests/data solve to their known solutions, and
//! every relaxation × steering combination finds the S-stationary point of
//! quadratic_cubic.

use fesd_mpcc::{nosbench, Formulation, HomotopyOptions, MpccSolver, MpccStatus, Relaxation, Steering};
use serde_json::Value;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(name)
}

fn known() -> Vec<Value> {
    let text = std::fs::read_to_string(data("known_solutions.json")).unwrap();
    serde_json::from_str::<Vec<Value>>(&text).unwrap()
}

/// Candidate solutions of an entry: `w_star` is one point or a list of points.
fn candidates(entry: &Value) -> Vec<Vec<f64>> {
    let w = entry["w_star"].as_array().unwrap();
    let as_vec = |v: &Value| v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect::<Vec<f64>>();
    if w[0].is_array() {
        w.iter().map(as_vec).collect()
    } else {
        vec![as_vec(&entry["w_star"])]
    }
}

#[test]
fn nosbench_problems_reach_known_solutions() {
    for entry in known() {
        let file = entry["file"].as_str().unwrap();
        let mpcc = nosbench::read_file(&data(file)).unwrap();
        if let Some(p0) = entry.get("p0") {
            let p0: Vec<f64> = p0.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            assert_eq!(mpcc.p0, p0, "{file}: p0 of the file");
        }
        let mut solver = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap();
        let r = solver.solve();
        assert_eq!(r.status, MpccStatus::Converged, "{file}: {:?}", r.messages);
        assert!(r.comp_residual <= 1e-9, "{file}: residual {}", r.comp_residual);
        let f_star = entry["f_star"].as_f64().unwrap();
        assert!((r.objective - f_star).abs() <= 1e-8, "{file}: f = {} vs {f_star}", r.objective);
        let best = candidates(&entry)
            .iter()
            .map(|c| c.iter().zip(&r.w).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max))
            .fold(f64::INFINITY, f64::min);
        assert!(best <= 1e-6, "{file}: w = {:?}, distance {best:e}", r.w);
        // The result serializes.
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("\"status\":\"Converged\""));
    }
}

#[test]
fn every_relaxation_and_steering_finds_the_s_stationary_point() {
    let mpcc = nosbench::read_file(&data("quadratic_cubic.json")).unwrap();
    let mut failures = Vec::new();
    for relaxation in Relaxation::ALL {
        for steering in Steering::ALL {
            let form = Formulation { relaxation, steering, ..Default::default() };
            let mut solver = MpccSolver::new(&mpcc.clone().with_formulation(form), HomotopyOptions::default()).unwrap();
            let r = solver.solve();
            let err = (r.w[0] - 1.0).abs().max(r.w[1].abs());
            if !(r.status.is_converged() && err <= 1e-3) {
                failures.push(format!("{} / {}: {:?} w = {:?}", relaxation.name(), steering.name(), r.status, r.w));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn a_start_with_the_last_multipliers_resumes_at_the_warm_sigma() {
    // The multipliers of the last solve with a new primal start (the simulator's next
    // piece): before any solve there are none; after one, the same solution again
    // in fewer Ipopt iterations than from the primal start alone.
    let mpcc = nosbench::read_file(&data("two_branches.json")).unwrap();
    let opts = HomotopyOptions { warm_sigma_0: 1e-9, ..fesd_mpcc::presets::scholtes_direct() };
    let mut solver = MpccSolver::new(&mpcc.clone().with_formulation(Formulation::direct()), opts).unwrap();
    assert!(solver.dual_start().is_none());
    let cold = solver.solve();
    assert!(cold.status.is_converged() && (cold.objective - 4.0).abs() < 1e-8, "{:?} {}", cold.status, cold.objective);
    let duals = solver.dual_start().expect("a solved NLP");
    solver.set_initial_guess_with_duals(&cold.w, &duals).unwrap();
    let warm = solver.solve();
    assert!(warm.status.is_converged() && (warm.objective - cold.objective).abs() < 1e-8);
    assert!(
        warm.steps[0].sigma <= 1e-9 && warm.total_iterations < cold.total_iterations,
        "{} vs {}",
        warm.total_iterations,
        cold.total_iterations
    );
    assert!(solver.set_initial_guess_with_duals(&[1.0], &duals).is_err(), "a start of the wrong length is refused");
    // Multipliers of another problem are refused by their size.
    let other = nosbench::read_file(&data("quadratic_cubic.json")).unwrap();
    let mut other_solver =
        MpccSolver::new(&other.clone().with_formulation(Formulation::direct()), fesd_mpcc::presets::scholtes_direct()).unwrap();
    assert!(other_solver.solve().status.is_converged());
    let foreign = other_solver.dual_start().unwrap();
    let size = |s: &MpccSolver| (s.nlp_structure().x_l.len(), s.nlp_structure().g_l.len());
    assert_ne!(size(&other_solver), size(&solver));
    assert!(solver.set_initial_guess_with_duals(&cold.w, &foreign).is_err());
}
