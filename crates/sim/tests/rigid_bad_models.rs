//! Bad rigid-body models and inputs end in typed errors naming the problem.

use casadi::SX;
use fesd_cls::{ClsError, ClsModel, ClsOptions, Contact};
use fesd_sim::{SimError, Simulator, SimulatorOptions};

fn ball() -> (SX, SX, ClsModel) {
    let q = SX::sym("q", 2);
    let v = SX::sym("v", 2);
    let m = ClsModel::new(q.clone(), v.clone()).with_forces(SX::from_slice(&[0.0, -9.81]));
    (q, v, m)
}

fn model_error(m: &ClsModel) -> String {
    match m.validate() {
        Err(e @ ClsError::Model { .. }) => e.to_string(),
        other => panic!("expected a model error, got {other:?}"),
    }
}

#[test]
fn bad_models_are_typed_errors() {
    let (q, v, m) = ball();
    let y = q.at(1).unwrap();
    let tangent = SX::from_slice(&[1.0, 0.0]);
    let msg = model_error(&m.clone().with_contact(Contact::new(y.clone()).friction(-0.1, tangent.clone())));
    assert!(msg.contains("friction") && msg.contains("-0.1"), "{msg}");
    let msg = model_error(&m.clone().with_contact(Contact::new(y.clone()).restitution(1.5)));
    assert!(msg.contains("restitution 1.5"), "{msg}");
    let msg = model_error(&m.clone().with_mass(SX::from_slice(&[1.0, 1.0, 1.0])).with_contact(Contact::new(y.clone())));
    assert!(msg.contains("mass matrix") && msg.contains("2 × 2"), "{msg}");
    // Not symmetric: [[1, q0], [0, 1]].
    let mut mass = SX::zeros(2, 2);
    mass.set(&SX::scalar(1.0), 0usize, 0usize).unwrap();
    mass.set(&SX::scalar(1.0), 1usize, 1usize).unwrap();
    mass.set(&(q.at(0).unwrap() + 0.5), 0usize, 1usize).unwrap();
    let msg = model_error(&m.clone().with_mass(mass).with_contact(Contact::new(y.clone())));
    assert!(msg.contains("not symmetric"), "{msg}");
    // Not positive definite: diag(1, −1).
    let mut mass = SX::zeros(2, 2);
    mass.set(&SX::scalar(1.0), 0usize, 0usize).unwrap();
    mass.set(&SX::scalar(-1.0), 1usize, 1usize).unwrap();
    let msg = model_error(&m.clone().with_mass(mass).with_contact(Contact::new(y.clone())));
    assert!(msg.contains("positive definite"), "{msg}");
    // A gap depending on the velocity.
    let msg = model_error(&m.clone().with_contact(Contact::new(&y + v.at(1).unwrap())));
    assert!(msg.contains("gap") && msg.contains("velocities"), "{msg}");
    // Friction without a tangent direction.
    let mut c = Contact::new(y.clone());
    c.friction = 0.3;
    let msg = model_error(&m.clone().with_contact(c));
    assert!(msg.contains("tangent"), "{msg}");
    // A symbol that is not the model's.
    let msg = model_error(&m.clone().with_contact(Contact::new(&y + SX::sym("stray", 1))));
    assert!(msg.contains("stray"), "{msg}");
    // No contact at all.
    let msg = model_error(&m);
    assert!(msg.contains("at least one contact"), "{msg}");
}

#[test]
fn bad_options_and_inputs_are_typed_errors() {
    let (q, _, m) = ball();
    let m = m.with_contact(Contact::new(q.at(1).unwrap()));
    let opts = SimulatorOptions::<ClsModel> { fesd: ClsOptions { gamma_h: 1.0, ..Default::default() }, ..Default::default() };
    assert!(matches!(Simulator::<ClsModel>::new(&m, opts), Err(SimError::InvalidOption { name: "gamma_h", .. })));
    let opts = SimulatorOptions::<ClsModel> { step: -1.0, ..Default::default() };
    assert!(matches!(Simulator::<ClsModel>::new(&m, opts), Err(SimError::InvalidOption { name: "step", .. })));
    let json = r#"{"step": 0.1, "n_stepz": 3}"#;
    assert!(serde_json::from_str::<SimulatorOptions<ClsModel>>(json).unwrap_err().to_string().contains("n_stepz"));
    let mut sim = Simulator::<ClsModel>::new(&m, SimulatorOptions::<ClsModel> { n_steps: 1, ..Default::default() }).unwrap();
    assert!(matches!(sim.simulate_from(&[0.0], &[0.0, 0.0], &[], &[]), Err(SimError::BadInput { what: "q0", .. })));
    match sim.simulate_from(&[0.0, -0.1], &[0.0, 0.0], &[], &[]) {
        Err(e @ SimError::BadInput { what: "x0", .. }) => assert!(e.to_string().contains("q0 penetrates contact 0"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(sim.simulate_from(&[0.0, f64::NAN], &[0.0, 0.0], &[], &[]), Err(SimError::BadInput { what: "x0", .. })));
}
