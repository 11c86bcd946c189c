//! The 1-D bouncing ball against its analytic impact times and final state.

use casadi::SX;
use fesd_cls::{ClsModel, ClsSimulator, ClsSimulatorOptions, Contact};

const G: f64 = 9.81;

fn ball(eps: f64) -> ClsModel {
    let q = SX::sym("q", 1);
    let v = SX::sym("v", 1);
    ClsModel::new(q.clone(), v).with_forces(SX::scalar(-G)).with_contact(Contact::new(q).restitution(eps))
}

/// Impact times of a ball dropped from rest at height q0 with restitution eps.
fn analytic_impacts(q0: f64, eps: f64, t_end: f64) -> Vec<f64> {
    let mut t = (2.0 * q0 / G).sqrt();
    let mut speed = G * t;
    let mut out = vec![];
    while t <= t_end {
        out.push(t);
        speed *= eps;
        t += 2.0 * speed / G;
    }
    out
}

#[test]
fn elastic_ball_impacts_and_final_state() {
    let opts = ClsSimulatorOptions { step: 0.15, n_steps: 20, ..Default::default() };
    let mut sim = ClsSimulator::new(&ball(1.0), opts).unwrap();
    let r = sim.simulate(&[0.8], &[0.0], &[], &[]).unwrap();
    assert!(r.failed_steps().is_empty(), "{:?}", r.failed_steps());
    let expected = analytic_impacts(0.8, 1.0, 3.0);
    let got = r.impact_times();
    assert_eq!(got.len(), expected.len(), "impacts {got:?}, expected {expected:?}");
    for (a, b) in got.iter().zip(&expected) {
        assert!((a - b).abs() < 1e-6, "impact at {a}, expected {b}");
    }
    assert!((expected[0] - 0.403855).abs() < 1e-6);
    assert!((r.q_final()[0] - 0.538626).abs() < 1e-6, "q(T) = {}", r.q_final()[0]);
    assert!((r.v_final()[0] - 2.264542).abs() < 1e-6, "v(T) = {}", r.v_final()[0]);
}
