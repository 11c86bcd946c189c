//! Coulomb friction on a planar block against analytic motions.

use fesd_cls::models::{point_on_plane, G};
use fesd_cls::ClsModel;
use fesd_sim::{ClsSimulation, Simulator, SimulatorOptions};

const MU: f64 = 0.5;

/// A unit-mass block on flat ground with friction MU and a horizontal force.
fn block(force: f64) -> ClsModel {
    point_on_plane(0.0, MU, force).unwrap()
}

fn simulate(force: f64, vx0: f64, step: f64, n_steps: usize) -> ClsSimulation {
    let opts = SimulatorOptions::<ClsModel> { step, n_steps, ..Default::default() };
    let mut sim = Simulator::<ClsModel>::new(&block(force), opts).unwrap();
    let r = sim.simulate_from(&[0.0, 0.0], &[vx0, 0.0], &[], &[]).unwrap();
    assert!(r.failed_steps().is_empty(), "{:?}", r.failed_steps());
    r
}

#[test]
fn sliding_block_stops_exactly_and_stays_stuck() {
    let r = simulate(0.0, 2.0, 0.1, 8);
    let t_stop = 2.0 / (MU * G);
    let x_stop = 4.0 / (2.0 * MU * G);
    if std::env::var("DEBUG").is_ok() {
        for j in 0..r.t.len() {
            eprintln!("t = {:.7} q = {:?} v = {:?}", r.t[j], r.q[j], r.v[j]);
        }
        for s in &r.steps {
            eprintln!("{s:?}");
        }
    }
    let i = r.v.iter().position(|v| v[0].abs() < 1e-7).expect("the block stops");
    assert!((r.t[i] - t_stop).abs() < 1e-6, "stopped at {}, expected {t_stop}", r.t[i]);
    assert!((r.q[i][0] - x_stop).abs() < 1e-6, "stopped at x = {}, expected {x_stop}", r.q[i][0]);
    for j in i..r.t.len() {
        assert!(
            (r.q[j][0] - x_stop).abs() < 1e-6 && r.v[j][0].abs() < 1e-7,
            "moved after the stop: t = {}, q = {:?}, v = {:?}",
            r.t[j],
            r.q[j],
            r.v[j]
        );
        assert!(r.q[j][1].abs() < 1e-7, "left the ground: {:?}", r.q[j]);
    }
    // While sliding: x(t) = 2t − μg t²/2.
    for j in 0..i {
        let t = r.t[j];
        assert!((r.q[j][0] - (2.0 * t - 0.5 * MU * G * t * t)).abs() < 1e-6);
    }
}

#[test]
fn a_force_below_static_friction_never_moves_the_block() {
    let r = simulate(0.9 * MU * G, 0.0, 0.1, 5);
    assert!(r.q_final()[0].abs() < 1e-7 && r.v_final()[0].abs() < 1e-7, "{:?} {:?}", r.q_final(), r.v_final());
}

#[test]
fn a_force_above_static_friction_accelerates_at_the_net_force() {
    let force = 1.2 * MU * G;
    let r = simulate(force, 0.0, 0.1, 5);
    let a = force - MU * G;
    let t = 0.5;
    assert!((r.v_final()[0] - a * t).abs() < 1e-6, "v = {:?}", r.v_final());
    assert!((r.q_final()[0] - 0.5 * a * t * t).abs() < 1e-6, "q = {:?}", r.q_final());
}

/// The first impact of the planar ball dropped from height 0.5 with horizontal speed vx0.
fn first_impact(eps: f64, mu: f64, vx0: f64) -> fesd_sim::Impact {
    let opts = SimulatorOptions::<ClsModel> { step: 0.1, n_steps: 4, ..Default::default() };
    let mut sim = Simulator::<ClsModel>::new(&point_on_plane(eps, mu, 0.0).unwrap(), opts).unwrap();
    let r = sim.simulate_from(&[0.0, 0.5], &[vx0, 0.0], &[], &[]).unwrap();
    assert!(r.failed_steps().is_empty(), "{:?}", r.failed_steps());
    assert_eq!(r.impacts.len(), 1, "{:?}", r.impacts);
    r.impacts[0].clone()
}

#[test]
fn oblique_impacts_follow_the_impulse_friction_law() {
    let t_hit = (2.0 * 0.5 / G).sqrt();
    let vy = -G * t_hit;
    // Slipping impact: |vx⁻| > μ Λ_n, the tangential impulse is μ Λ_n against the slip.
    let (eps, mu, vx0) = (0.5, 0.2, 3.0);
    let imp = first_impact(eps, mu, vx0);
    let lambda_n = -(1.0 + eps) * vy;
    assert!((imp.time - t_hit).abs() < 1e-6, "{imp:?}");
    assert!((imp.impulse - lambda_n).abs() < 1e-6, "{imp:?}");
    assert!((imp.v_after[1] + eps * vy).abs() < 1e-6, "{imp:?}");
    assert!((imp.v_after[0] - (vx0 - mu * lambda_n)).abs() < 1e-6, "{imp:?}");
    // Sticking impact: |vx⁻| ≤ μ Λ_n, the tangential velocity is stopped.
    let (eps, mu, vx0) = (0.5, 0.8, 1.0);
    let imp = first_impact(eps, mu, vx0);
    assert!((imp.v_after[1] + eps * vy).abs() < 1e-6, "{imp:?}");
    assert!(imp.v_after[0].abs() < 1e-6, "{imp:?}");
}

/// The three boxes of the manipulation example, the middle one pushed left with
/// u = 5: it slides (a = u − μg) into box 1 at gap 1, the plastic impact halves its
/// speed, and both slide on with a = (u − 2μg)/2; closed form at t = 1.2.
#[test]
fn three_boxes_push_matches_the_closed_form() {
    let (u, mu_g) = (5.0, 0.2 * G);
    let mut opts = SimulatorOptions::<ClsModel> { step: 0.4, n_steps: 3, ..Default::default() };
    opts.fesd.n_fe = 3;
    let mut sim = Simulator::<ClsModel>::new(&fesd_cls::models::three_boxes().unwrap(), opts).unwrap();
    let r = sim.simulate_from(&[-2.0, 0.5, 0.0, 0.5, 2.0, 0.5], &[0.0; 6], &[-u], &[]).unwrap();
    assert!(r.failed_steps().is_empty());
    let a1 = u - mu_g;
    let t_hit = (2.0 / a1).sqrt();
    let v_after = a1 * t_hit / 2.0;
    let a2 = (u - 2.0 * mu_g) / 2.0;
    let dt = 1.2 - t_hit;
    let (v_end, x1_end) = (v_after + a2 * dt, -2.0 - (v_after * dt + 0.5 * a2 * dt * dt));
    let hit = r.impacts.iter().find(|i| i.contact == 0).expect("box 2 hits box 1");
    assert!((hit.time - t_hit).abs() < 1e-6, "impact at {} vs {t_hit}", hit.time);
    let (q, v) = (r.q_final(), r.v_final());
    assert!((q[0] - x1_end).abs() < 1e-6 && (q[2] - (x1_end + 1.0)).abs() < 1e-6, "{q:?} vs {x1_end}");
    assert!((v[0] + v_end).abs() < 1e-6 && (v[2] + v_end).abs() < 1e-6, "{v:?} vs {v_end}");
    assert!((q[4] - 2.0).abs() < 1e-7 && v[4].abs() < 1e-7, "box 3 stays: {q:?}");
}
