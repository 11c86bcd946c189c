//! Several independent Filippov subsystems in one model, and the failure policy.

use casadi::SX;
use fesd_model::{PssModel, Representation, Subsystem};
use fesd_mpcc::HomotopyOptions;
use fesd_sim::{models, OnStepFailure, Simulator, SimulatorOptions};

/// x1: ẋ1 ∈ 2 − sign(x1) from −1 (crosses at 1/3); x2: ẋ2 ∈ −sign(x2) from 0.5
/// (reaches 0 at 0.5 and slides). Each state has its own subsystem.
fn two_subsystems() -> PssModel {
    let x = SX::sym("x", 2);
    let v = |a: f64, b: f64| SX::from_slice(&[a, b]);
    PssModel::new(x.clone())
        .with_subsystem(Subsystem::new(x.at(0).unwrap(), vec![vec![1], vec![-1]], vec![v(1.0, 0.0), v(3.0, 0.0)]))
        .with_subsystem(Subsystem::new(x.at(1).unwrap(), vec![vec![1], vec![-1]], vec![v(0.0, -1.0), v(0.0, 1.0)]))
}

#[test]
fn independent_subsystems_switch_independently() {
    for representation in [Representation::Stewart, Representation::Step] {
        let mut opts: SimulatorOptions = SimulatorOptions { step: 0.1, n_steps: 9, ..Default::default() };
        opts.fesd.representation = representation;
        let r = Simulator::new(&two_subsystems(), opts).unwrap().simulate(&[-1.0, 0.5], &[], &[]).unwrap();
        assert!(r.completed, "{representation:?}");
        let near = |t: f64| r.switch_times.iter().any(|s| (s - t).abs() < 1e-8);
        assert!(near(1.0 / 3.0) && near(0.5), "{representation:?}: {:?}", r.switch_times);
        // x1(0.9) = 0.9 − 1/3 (slope 1 after the crossing); x2 slides at 0.
        assert!((r.x_final()[0] - (0.9 - 1.0 / 3.0)).abs() < 1e-8, "{:?}", r.x_final());
        assert!(r.x_final()[1].abs() < 1e-8);
        // θ of both subsystems is reported: 2 + 2 entries per stage.
        assert_eq!(r.theta_stage[0].len(), 4);
    }
}

fn failing_options(on_failure: OnStepFailure) -> SimulatorOptions {
    // One Ipopt iteration per NLP cannot solve the step with the switch; no halving, no fallback.
    let h = HomotopyOptions { max_recoveries: 0, ..HomotopyOptions::default() }.with_ipopt("max_iter", 1);
    SimulatorOptions {
        step: 0.25,
        n_steps: 4,
        homotopies: vec![h],
        fallback_homotopy: None,
        max_step_halvings: 0,
        on_failure,
        ..Default::default()
    }
}

#[test]
fn a_failed_step_stops_or_continues_as_asked() {
    let model = models::scalar_switch(3.0, 1.0);
    let r = Simulator::new(&model, failing_options(OnStepFailure::Stop)).unwrap().simulate(&[-1.0], &[], &[]).unwrap();
    assert!(!r.completed);
    assert_eq!(r.steps.len(), 1, "stops after the first failed step");
    let failed = &r.failed_steps()[0];
    assert_eq!(failed.step, 0);
    assert!(!failed.status.is_converged());
    assert!(!failed.messages.is_empty());

    let r = Simulator::new(&model, failing_options(OnStepFailure::Continue)).unwrap().simulate(&[-1.0], &[], &[]).unwrap();
    assert!(!r.completed);
    assert_eq!(r.steps.len(), 4, "goes on through every step");
    assert_eq!(r.t.len(), 1 + 4 * 2);
    assert!(r.x.iter().all(|x| x[0].is_finite()));
}
