//! Bad models, schemes and inputs are typed errors.

use casadi::SX;
use fesd_model::{ModelError, PssModel, Subsystem};
use fesd_rk::RkFamily;
use fesd_sim::{models, SimError, Simulator, SimulatorOptions};

fn new(model: &PssModel, opts: SimulatorOptions) -> SimError {
    match Simulator::new(model, opts) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[test]
fn bad_models() {
    let x = SX::sym("x", 2);
    let f = || vec![SX::zeros(2, 1), SX::zeros(2, 1)];
    let zero_row = PssModel::new(x.clone()).with_subsystem(Subsystem::new(x.at(0).unwrap(), vec![vec![1], vec![0]], f()));
    assert!(matches!(new(&zero_row, SimulatorOptions::default()), SimError::Model(ModelError::ZeroRow { row: 1, .. })));
    let wrong_count = PssModel::new(x.clone()).with_subsystem(Subsystem::new(x.at(0).unwrap(), vec![vec![1], vec![-1], vec![1]], f()));
    assert!(matches!(new(&wrong_count, SimulatorOptions::default()), SimError::Model(ModelError::RegionCount { .. })));
    // F as a matrix whose columns disagree with the rows of S.
    let big_f = SX::zeros(2, 3);
    let f_matrix =
        PssModel::new(x.clone()).with_subsystem(Subsystem::from_matrix(x.at(0).unwrap(), vec![vec![1], vec![-1]], &big_f).unwrap());
    assert!(matches!(
        new(&f_matrix, SimulatorOptions::default()),
        SimError::Model(ModelError::RegionCount { regions: 2, dynamics: 3, .. })
    ));
    // A switching function of the wrong size: a 2 × 2 matrix, or one that does not match S's columns.
    let matrix_c =
        PssModel::new(x.clone()).with_subsystem(Subsystem::new(SX::sym_matrix("c", 2, 2), vec![vec![1, 1]], vec![SX::zeros(2, 1)]));
    assert!(matches!(new(&matrix_c, SimulatorOptions::default()), SimError::Model(ModelError::SwitchingFunctionShape { .. })));
    let wrong_c = PssModel::new(x.clone()).with_subsystem(Subsystem::new(x.clone(), vec![vec![1], vec![-1]], f()));
    assert!(matches!(new(&wrong_c, SimulatorOptions::default()), SimError::Model(ModelError::SignMatrixColumns { n_c: 2, .. })));
}

#[test]
fn bad_schemes_and_inputs() {
    let model = models::scalar_switch(3.0, 1.0);
    let with = |f: &dyn Fn(&mut SimulatorOptions)| {
        let mut o: SimulatorOptions = SimulatorOptions::default();
        f(&mut o);
        o
    };
    let e = new(&model, with(&|o| o.fesd.n_s = 0));
    assert!(matches!(e, SimError::Stages(_)), "{e}");
    assert!(e.to_string().contains("n_s = 0"));
    assert!(matches!(new(&model, with(&|o| o.fesd.n_s = 10)), SimError::Stages(_)));
    assert!(matches!(
        new(
            &model,
            with(&|o| {
                o.fesd.rk_family = RkFamily::LobattoIIIA;
                o.fesd.n_s = 1
            })
        ),
        SimError::Stages(_)
    ));
    assert!(matches!(new(&model, with(&|o| o.fesd.n_fe = 0)), SimError::InvalidOption { name: "n_fe", .. }));
    assert!(matches!(new(&model, with(&|o| o.step = 0.0)), SimError::InvalidOption { name: "step", .. }));
    assert!(matches!(new(&model, with(&|o| o.step = -1.0)), SimError::InvalidOption { name: "step", .. }));
    assert!(matches!(new(&model, with(&|o| o.n_steps = 0)), SimError::InvalidOption { name: "n_steps", .. }));
    assert!(matches!(new(&model, with(&|o| o.fesd.gamma_h = 1.5)), SimError::InvalidOption { name: "gamma_h", .. }));
    let mut sim = Simulator::new(&model, SimulatorOptions { n_steps: 2, ..Default::default() }).unwrap();
    let e = sim.simulate(&[f64::NAN], &[], &[]).unwrap_err();
    assert!(matches!(e, SimError::BadInput { what: "x0", .. }), "{e}");
    assert!(matches!(sim.simulate(&[1.0, 2.0], &[], &[]), Err(SimError::BadInput { what: "x0", .. })));
    assert!(matches!(sim.simulate(&[1.0], &[1.0], &[]), Err(SimError::BadInput { what: "u", .. })));
    assert!(matches!(sim.simulate_steps(&[1.0], &[], &[], f64::INFINITY, 2), Err(SimError::InvalidOption { name: "step", .. })));
    // The same simulator still works after the errors.
    let r = sim.simulate(&[-1.0], &[], &[]).unwrap();
    assert!(r.completed);
}

#[test]
fn infinite_dynamics_end_in_an_honest_failure() {
    // Regression: +inf in the dynamics reached Ipopt's linear solver ("double free",
    // SIGBUS). Now every evaluation with NaN/inf is reported to Ipopt as failed.
    use fesd_mpcc::MpccStatus;
    let x = SX::sym("x", 1);
    let model = PssModel::new(x.clone()).with_subsystem(Subsystem::new(
        x.clone(),
        vec![vec![1], vec![-1]],
        vec![&x * f64::INFINITY, SX::scalar(1.0)],
    ));
    let mut sim = Simulator::new(&model, SimulatorOptions { n_steps: 2, max_step_halvings: 1, ..Default::default() }).unwrap();
    let r = sim.simulate(&[-1.0], &[], &[]).unwrap();
    assert!(!r.completed);
    let failed = r.failed_steps();
    assert!(!failed.is_empty());
    assert!(
        failed.iter().all(|s| matches!(s.status, MpccStatus::NlpFailed { .. })),
        "{:?}",
        failed.iter().map(|s| s.status).collect::<Vec<_>>()
    );
    assert!(r.steps.iter().any(|s| s.messages.iter().any(|m| m.contains("non-finite"))));
    assert!(r.x.iter().flatten().all(|v| v.is_finite()), "{:?}", r.x);
}

#[test]
fn non_finite_switching_functions_name_x0() {
    // Regression: a NaN in c surfaced as "p0[2] is NaN" (an internal parameter).
    let x = SX::sym("x", 1);
    let c = &x * f64::NAN;
    let model = PssModel::new(x.clone()).with_subsystem(Subsystem::new(c, vec![vec![1], vec![-1]], vec![SX::scalar(1.0), SX::scalar(3.0)]));
    let mut sim = Simulator::new(&model, SimulatorOptions { n_steps: 1, ..Default::default() }).unwrap();
    let e = sim.simulate(&[-1.0], &[], &[]).unwrap_err();
    assert!(matches!(e, SimError::BadInput { what: "x0", .. }), "{e}");
    assert!(e.to_string().contains("switching functions"), "{e}");
}
