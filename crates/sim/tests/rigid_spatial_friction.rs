//! Spatial contacts: Coulomb friction with two tangent directions, on a polyhedral
//! or the circular (conic) cone, against analytic motions of a block on flat ground
//! (μ = 0.5).

use casadi::SX;
use fesd_cls::models::{point_in_space, G};
use fesd_cls::{ClsError, ClsModel, ClsOptions, Contact, FrictionModel};
use fesd_sim::{ClsSimulation, Simulator, SimulatorOptions};

const MU: f64 = 0.5;

/// The polyhedral cone with this many directions.
fn polyhedral(directions: usize) -> ClsOptions {
    ClsOptions { friction_directions: directions, ..Default::default() }
}

/// The circular cone.
fn conic() -> ClsOptions {
    ClsOptions { friction_model: FrictionModel::Conic, ..Default::default() }
}

fn simulate(force: [f64; 2], v0: [f64; 2], cls: ClsOptions) -> ClsSimulation {
    let opts = SimulatorOptions::<ClsModel> { step: 0.1, n_steps: 8, fesd: cls, ..Default::default() };
    let mut sim = Simulator::<ClsModel>::new(&point_in_space(0.0, MU, force).unwrap(), opts).unwrap();
    let r = sim.simulate_from(&[0.0, 0.0, 0.0], &[v0[0], v0[1], 0.0], &[], &[]).unwrap();
    assert!(r.failed_steps().is_empty(), "{:?}", r.failed_steps());
    r
}

/// Sliding at speed 2 at angle θ decelerates at μg along the path, stops at
/// t = 2/(μg) after 4/(2μg) on the line it started on, and stays there.
fn assert_stops_on_its_line(theta: f64, cls: ClsOptions) {
    let (c, s) = (theta.to_radians().cos(), theta.to_radians().sin());
    let r = simulate([0.0, 0.0], [2.0 * c, 2.0 * s], cls);
    let (t_stop, d_stop) = (2.0 / (MU * G), 4.0 / (2.0 * MU * G));
    let speed = |v: &[f64]| v[0].hypot(v[1]);
    let i = r.v.iter().position(|v| speed(v) < 1e-7).unwrap_or_else(|| panic!("θ = {theta}: the block does not stop"));
    assert!((r.t[i] - t_stop).abs() < 1e-6, "θ = {theta}: stopped at {}, expected {t_stop}", r.t[i]);
    for j in 0..r.t.len() {
        let t = r.t[j].min(t_stop);
        let d = 2.0 * t - 0.5 * MU * G * t * t;
        let q = &r.q[j];
        assert!(
            (q[0] - d * c).abs() < 1e-6 && (q[1] - d * s).abs() < 1e-6,
            "θ = {theta}, t = {}: q = {q:?}, expected distance {d}",
            r.t[j]
        );
        assert!(q[2].abs() < 1e-7, "left the ground: {q:?}");
        if j >= i {
            assert!(speed(&r.v[j]) < 1e-7 && (d - d_stop).abs() < 1e-9, "moved after the stop: {:?}", r.v[j]);
        }
    }
}

/// Along a direction of the polyhedral cone (θ = 0 and 45° with 8 directions, 90°
/// with 4) the polyhedral friction force opposes the motion exactly.
#[test]
fn a_block_sliding_along_a_cone_direction_stops_exactly_on_its_line() {
    for (theta, directions) in [(0.0f64, 8), (45.0f64, 8), (90.0f64, 4)] {
        assert_stops_on_its_line(theta, polyhedral(directions));
    }
}

/// On the circular cone friction opposes a slide in every direction (the polyhedron
/// of 8 directions stops the block at 30° after 0.4376 s instead of 0.4077 s).
#[test]
fn on_the_conic_cone_a_block_stops_exactly_on_its_line_in_any_direction() {
    for theta in [0.0f64, 30.0, 45.0, 110.0] {
        assert_stops_on_its_line(theta, conic());
    }
}

/// A diagonal force below static friction (|F| = 0.9 μmg) never moves the block; one
/// above it along a cone direction accelerates it at (|F| − μmg)/m along the force.
#[test]
fn static_friction_holds_a_diagonal_force_and_yields_above_it() {
    assert_holds_below_and_yields_above(45.0, polyhedral(8));
}

/// The same at 30°, off every direction of a polyhedron, on the circular cone.
#[test]
fn on_the_conic_cone_static_friction_holds_and_yields_in_any_direction() {
    assert_holds_below_and_yields_above(30.0, conic());
}

fn assert_holds_below_and_yields_above(theta: f64, cls: ClsOptions) {
    let (c, s) = (theta.to_radians().cos(), theta.to_radians().sin());
    let along = |f: f64| [f * c, f * s];
    let r = simulate(along(0.9 * MU * G), [0.0, 0.0], cls.clone());
    assert!(
        r.q_final().iter().all(|x| x.abs() < 1e-7) && r.v_final().iter().all(|x| x.abs() < 1e-7),
        "{:?} {:?}",
        r.q_final(),
        r.v_final()
    );
    let r = simulate(along(1.2 * MU * G), [0.0, 0.0], cls);
    let (a, t) = (0.2 * MU * G, 0.8);
    let v = r.v_final();
    assert!((v[0].hypot(v[1]) - a * t).abs() < 1e-6 && (v[0] * s - v[1] * c).abs() < 1e-9, "θ = {theta}: v = {v:?}");
}

#[test]
fn spatial_contacts_are_validated() {
    let q = SX::sym("q", 3);
    let v = SX::sym("v", 3);
    let e = |i: usize| {
        let mut d = [0.0; 3];
        d[i] = 1.0;
        SX::from_slice(&d)
    };
    let base = || ClsModel::new(q.clone(), v.clone()).with_forces(SX::from_slice(&[0.0, 0.0, -G]));
    // Three tangent columns.
    let three = SX::horzcat(&[&e(0), &e(1), &e(2)]).unwrap();
    let m = base().with_contact(Contact::new(q.at(2).unwrap()).friction(MU, three));
    assert!(matches!(m.validate(), Err(ClsError::Model { .. })), "{:?}", m.validate());
    // Tangents of different lengths.
    let m = base().with_contact(Contact::new(q.at(2).unwrap()).spatial_friction(MU, e(0), SX::from_slice(&[1.0, 0.0])));
    let err = m.validate().unwrap_err().to_string();
    assert!(err.contains("tangent"), "{err}");
    // Planar and spatial friction mixed.
    let m = base()
        .with_contact(Contact::new(q.at(2).unwrap()).spatial_friction(MU, e(0), e(1)))
        .with_contact(Contact::new(q.at(0).unwrap()).friction(MU, e(1)));
    let err = m.validate().unwrap_err().to_string();
    assert!(err.contains("all planar"), "{err}");
    // An odd number of cone directions.
    let opts = ClsOptions { friction_directions: 5, ..Default::default() };
    assert!(matches!(opts.validate(), Err(ClsError::InvalidOption { name: "friction_directions", .. })));
}

/// A ball dropped from height 0.5 with horizontal speed `speed` at angle θ onto a
/// spatial contact (restitution 0.5): its first impact.
fn first_spatial_impact(mu: f64, speed: f64, theta: f64, cls: ClsOptions) -> fesd_sim::Impact {
    let (c, s) = (theta.to_radians().cos(), theta.to_radians().sin());
    let opts = SimulatorOptions::<ClsModel> { step: 0.1, n_steps: 4, fesd: cls, ..Default::default() };
    let mut sim = Simulator::<ClsModel>::new(&point_in_space(0.5, mu, [0.0, 0.0]).unwrap(), opts).unwrap();
    let r = sim.simulate_from(&[0.0, 0.0, 0.5], &[speed * c, speed * s, 0.0], &[], &[]).unwrap();
    assert!(r.failed_steps().is_empty(), "{:?}", r.failed_steps());
    assert_eq!(r.impacts.len(), 1, "{:?}", r.impacts);
    r.impacts[0].clone()
}

/// Oblique impacts at 30° on the conic cone follow the impulse friction law in the
/// plane: a slipping impact (|v_t⁻| > μΛ_n) loses μΛ_n of tangential speed along its
/// direction, a sticking one (|v_t⁻| ≤ μΛ_n) stops the tangential motion.
#[test]
fn oblique_impacts_on_the_conic_cone_follow_the_impulse_friction_law() {
    let (eps, theta) = (0.5, 30.0f64);
    let (c, s) = (theta.to_radians().cos(), theta.to_radians().sin());
    let t_hit = (2.0 * 0.5 / G).sqrt();
    let vz = -G * t_hit;
    let lambda_n = -(1.0 + eps) * vz;
    let (mu, speed) = (0.2, 3.0);
    let imp = first_spatial_impact(mu, speed, theta, conic());
    assert!((imp.time - t_hit).abs() < 1e-6, "{imp:?}");
    assert!((imp.impulse - lambda_n).abs() < 1e-6, "{imp:?}");
    assert!((imp.v_after[2] + eps * vz).abs() < 1e-6, "{imp:?}");
    let after = speed - mu * lambda_n;
    assert!(
        (imp.v_after[0] - after * c).abs() < 1e-6 && (imp.v_after[1] - after * s).abs() < 1e-6,
        "{imp:?}: expected speed {after} along 30°"
    );
    let imp = first_spatial_impact(0.8, 1.0, theta, conic());
    assert!((imp.v_after[2] + eps * vz).abs() < 1e-6, "{imp:?}");
    assert!(imp.v_after[0].hypot(imp.v_after[1]) < 1e-6, "{imp:?}");
}
