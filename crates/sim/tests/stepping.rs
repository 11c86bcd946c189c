//! Step-by-step simulation with a different control each step (closed loop).

use casadi::SX;
use fesd_model::{PssModel, Subsystem};
use fesd_sim::{models, Simulator, SimulatorOptions, SwitchDetection};

#[test]
fn stepping_with_a_control_schedule_has_the_exact_switches() {
    // ẋ = u − sign(x), x(0) = −1, u = 3 on [0, 0.5), −3 on [0.5, 1]: x reaches 0 at
    // t = 0.25 (ẋ = 4), x(0.5) = 0.5 (ẋ = 2), back to 0 at t = 0.625 (ẋ = −4), and
    // x(1) = −0.75 (ẋ = −2).
    let x = SX::sym("x", 1);
    let u = SX::sym("u", 1);
    let model = PssModel::new(x.clone()).with_controls(u.clone()).with_drift(u).with_subsystem(Subsystem::new(
        x,
        vec![vec![1], vec![-1]],
        vec![SX::scalar(-1.0), SX::scalar(1.0)],
    ));
    let mut sim = Simulator::new(&model, SimulatorOptions { step: 0.1, ..Default::default() }).unwrap();
    let mut state = sim.start(&[-1.0], &[3.0], &[]).unwrap();
    for k in 0..10 {
        let u = if k < 5 { 3.0 } else { -3.0 };
        assert!(sim.step(&mut state, &[u], &[]).unwrap(), "step {k}");
        if k == 4 {
            assert!((state.t - 0.5).abs() < 1e-12 && (state.x[0] - 0.5).abs() < 1e-8, "t = {}, x = {:?}", state.t, state.x);
        }
    }
    let r = state.into_result();
    assert!(r.completed);
    assert_eq!(r.switch_times.len(), 2, "{:?}", r.switch_times);
    assert!((r.switch_times[0] - 0.25).abs() < 1e-8 && (r.switch_times[1] - 0.625).abs() < 1e-8, "{:?}", r.switch_times);
    assert!((r.x_final()[0] + 0.75).abs() < 1e-8, "{:?}", r.x_final());
    assert!((r.t.last().unwrap() - 1.0).abs() < 1e-12);
}

#[test]
fn stepping_equals_the_batch_simulation() {
    let model = models::oscillator().unwrap();
    let x0 = models::oscillator_x0();
    let opts = SimulatorOptions { step: std::f64::consts::FRAC_PI_2 / 29.0, n_steps: 29, ..Default::default() };
    let batch = Simulator::new(&model, opts.clone()).unwrap().simulate(&x0, &[], &[]).unwrap();
    let mut sim = Simulator::new(&model, opts).unwrap();
    let mut state = sim.start(&x0, &[], &[]).unwrap();
    for _ in 0..29 {
        sim.step(&mut state, &[], &[]).unwrap();
    }
    let stepped = state.into_result();
    assert_eq!(batch.t.len(), stepped.t.len());
    for (a, b) in batch.x.iter().zip(&stepped.x) {
        assert!((a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12);
    }
    assert_eq!(batch.switch_times, stepped.switch_times);
}

#[test]
fn one_comp_tol_setting_reaches_every_tier() {
    let mut opts: SimulatorOptions = SimulatorOptions { step: 0.1, n_steps: 4, ..Default::default() };
    opts.for_each_homotopy(|h| h.comp_tol = 1e-12);
    assert!(opts.homotopies.iter().chain(&opts.fallback_homotopy).all(|h| h.comp_tol == 1e-12));
    assert!(opts.validate().is_ok());
    let r = Simulator::new(&models::scalar_switch(3.0, 1.0), opts.clone()).unwrap().simulate(&[-0.2], &[], &[]).unwrap();
    assert!(r.completed);
    // Every piece that counts as converged reached 1e-12 (with the default 1e-9 some
    // stop near 1e-10).
    let converged: Vec<f64> = r.steps.iter().filter(|s| s.status.is_converged()).map(|s| s.comp_residual).collect();
    assert!(!converged.is_empty() && converged.iter().all(|&c| c <= 1e-12), "{converged:?}");
    // A bad value in any tier is caught before anything is built.
    opts.for_each_homotopy(|h| h.kappa = 2.0);
    assert!(opts.validate().is_err());
}

#[test]
fn a_switch_exactly_on_a_step_boundary_needs_no_halving() {
    // v̇ = u for v < 10, 3u for v > 10, from v = 20 with u = −5: v = 10 at t = 2/3,
    // exactly the end of step 5 of 2/15. The next step starts on the switching surface;
    // its first attempt from the previous (wrong) active set fails, the neutral start
    // solves it (before, every tier failed down to the fifth halving). The step that
    // ends on the switch may be halved once (both starts of the first tier fail there;
    // with `tiers_before_halving = 2` the second tier solves it whole).
    let x = SX::sym("x", 2);
    let u = SX::sym("u", 1);
    let v = x.at(1).unwrap();
    let f = |gain: f64| SX::vertcat(&[&v, &(&u * gain)]).unwrap();
    let model = PssModel::new(x.clone()).with_controls(u.clone()).with_subsystem(Subsystem::new(
        &v - 10.0,
        vec![vec![1], vec![-1]],
        vec![f(3.0), f(1.0)],
    ));
    let mut opts: SimulatorOptions = SimulatorOptions { step: 2.0 / 15.0, n_steps: 10, ..Default::default() };
    opts.fesd.n_s = 3;
    let r = Simulator::new(&model, opts).unwrap().simulate(&[180.0, 20.0], &[-5.0], &[]).unwrap();
    assert!(r.completed);
    assert_eq!(r.switch_times.len(), 1);
    assert!((r.switch_times[0] - 2.0 / 3.0).abs() < 1e-8, "{:?}", r.switch_times);
    let halvings: Vec<(usize, usize)> = r.steps.iter().map(|s| (s.step, s.halvings)).collect();
    assert!(r.steps.iter().all(|s| s.halvings <= usize::from(s.step == 4)), "{halvings:?}");
    assert!(r.steps.iter().flat_map(|s| &s.attempts).all(|a| a.tier == 0), "only the first tier runs");
    assert!(r.steps.iter().any(|s| s.attempts.iter().any(|a| a.neutral_start && a.status.is_converged())));
    // v(4/3) = 10 − 5 · 2/3.
    assert!((r.x_final()[1] - (10.0 - 10.0 / 3.0)).abs() < 1e-8, "{:?}", r.x_final());
}

#[test]
fn active_regions_mean_the_same_in_stewart_and_step() {
    use fesd_model::Representation;
    let mut regions = Vec::new();
    for representation in [Representation::Stewart, Representation::Step] {
        let mut opts: SimulatorOptions = SimulatorOptions { step: 0.1, n_steps: 6, ..Default::default() };
        opts.fesd.representation = representation;
        let mut sim = Simulator::new(&models::scalar_switch(3.0, 1.0), opts).unwrap();
        let r = sim.simulate(&[-1.0], &[], &[]).unwrap();
        regions.push(r.active_regions(1e-5));
    }
    assert_eq!(regions[0], regions[1]);
    // x < 0 (region 1, ẋ = 3) until t = 1/3, then x > 0 (region 0).
    assert_eq!(regions[0].first(), Some(&vec![1]));
    assert_eq!(regions[0].last(), Some(&vec![0]));
}

#[test]
fn step_reports_count_the_same_attempts() {
    let opts = SimulatorOptions { step: 0.1, n_steps: 6, ..Default::default() };
    let mut sim = Simulator::new(&models::scalar_switch(3.0, 1.0), opts).unwrap();
    let r = sim.simulate(&[-1.0], &[], &[]).unwrap();
    for s in &r.steps {
        assert!(!s.attempts.is_empty());
        assert_eq!(s.iterations, s.attempts.iter().map(|a| a.iterations).sum::<usize>());
        assert_eq!(s.homotopy_steps, s.attempts.iter().map(|a| a.nlps).sum::<usize>());
        assert!(s.attempts.iter().all(|a| a.nlps >= 1));
        assert_eq!(s.solved_by().is_some(), s.status.is_converged());
    }
}

#[test]
fn a_switch_ahead_is_predicted_and_tried_from_the_neutral_guess_first() {
    // ẋ ∈ 2 − sign(x) from x(0) = −1 (ẋ = 3): the switch at t = 1/3 is inside the step
    // [0.3, 0.4], the only one whose extrapolated state has another sign.
    let mut sim =
        Simulator::new(&models::scalar_switch(3.0, 1.0), SimulatorOptions { step: 0.1, n_steps: 6, ..Default::default() }).unwrap();
    let r = sim.simulate(&[-1.0], &[], &[]).unwrap();
    assert!((r.switch_times[0] - 1.0 / 3.0).abs() < 1e-8, "{:?}", r.switch_times);
    let predicted: Vec<usize> = r.steps.iter().filter(|s| s.switch_predicted).map(|s| s.step).collect();
    assert_eq!(predicted, vec![3]);
    let step = r.steps.iter().find(|s| s.switch_predicted).unwrap();
    assert!(step.attempts[0].neutral_start, "{:?}", step.attempts);
    // Without prediction, the same trajectory.
    let opts = SimulatorOptions {
        step: 0.1,
        n_steps: 6,
        detection: SwitchDetection { predict_switches: false, ..Default::default() },
        ..Default::default()
    };
    let plain = Simulator::new(&models::scalar_switch(3.0, 1.0), opts).unwrap().simulate(&[-1.0], &[], &[]).unwrap();
    assert!(plain.steps.iter().all(|s| !s.switch_predicted && !s.attempts[0].neutral_start));
    assert!((plain.x_final()[0] - r.x_final()[0]).abs() < 1e-8);
}

/// The active-set warm start: the neutral guess at the new state (every state unknown
/// at it, step sizes neutral) with the previous solution's last-point algebraic
/// variables at every point of every element; a guess of the wrong length leaves the
/// neutral guess as it is.
#[test]
fn the_active_set_guess_keeps_the_last_points_algebraic_variables() {
    let opts = SimulatorOptions { step: 0.1, n_steps: 1, ..Default::default() };
    let mut sim = Simulator::new(&models::scalar_switch(2.0, 0.2), opts).unwrap();
    let mut state = sim.start(&[0.05], &[], &[]).unwrap();
    assert!(sim.step(&mut state, &[], &[]).unwrap());
    let interval = sim.interval();
    let l = &interval.layout;
    let previous: Vec<f64> = (0..l.n_w).map(|i| i as f64).collect();
    let neutral = interval.initial_guess(&[0.3]);
    let guess = interval.active_set_guess(&neutral, &previous);
    let last = *l.z.last().unwrap().last().unwrap();
    for &o in l.z.iter().flatten() {
        assert_eq!(&guess[o..o + l.n_z], &previous[last..last + l.n_z]);
    }
    for n in 0..l.n_fe {
        assert_eq!(guess[l.x_end[n]], 0.3);
    }
    let z_entries: Vec<usize> = l.z.iter().flatten().flat_map(|&o| o..o + l.n_z).collect();
    for i in (0..l.n_w).filter(|i| !z_entries.contains(i)) {
        assert_eq!(guess[i], neutral[i], "entry {i}");
    }
    assert_eq!(interval.active_set_guess(&neutral, &previous[1..]), neutral);
}

/// The extrapolated warm start puts every stage state and end state on the line
/// x0 + t·slope at its time t in a piece of length T with neutral step sizes: read
/// back through the interval's own output function (stage states from the stage
/// derivatives in the differential form), in both forms and with an extra end point
/// (Gauss–Legendre).
#[test]
fn extrapolated_states_lie_on_the_line_through_the_state_along_the_slope() {
    use fesd_rk::RkFamily;
    use fesd_sim::IrkRepresentation;
    let model = models::friction_blocks().unwrap();
    let x0 = models::friction_blocks_x0();
    let slope = [0.5, -1.0, 2.0, 0.25, -0.75, 3.0, 1.0];
    let len = 0.2;
    for (irk, family) in [
        (IrkRepresentation::Integral, RkFamily::RadauIIA),
        (IrkRepresentation::Differential, RkFamily::RadauIIA),
        (IrkRepresentation::Integral, RkFamily::GaussLegendre),
    ] {
        let mut opts: SimulatorOptions = SimulatorOptions { step: len, n_steps: 1, ..Default::default() };
        (opts.fesd.n_s, opts.fesd.n_fe, opts.fesd.irk_representation, opts.fesd.rk_family) = (2, 3, irk, family);
        let sim = Simulator::new(&model, opts).unwrap();
        let interval = sim.interval();
        let (l, c) = (&interval.layout, &interval.tableau.c);
        let mut guess = interval.initial_guess(&x0);
        interval.extrapolate_states(&mut guess, &x0, &slope, len);
        let lambda0 = interval.dual_at_state.eval_dense(&[&x0, &[], &[]]).unwrap().remove(0);
        let params: Vec<f64> = x0.iter().chain([&len]).chain(&lambda0).copied().collect();
        let out = interval.outputs.eval_dense(&[&guess, &params]).unwrap();
        let (h, x_boundary, x_stage) = (&out[0], &out[1], &out[2]);
        let h_n = len / l.n_fe as f64;
        for n in 0..l.n_fe {
            assert!((h[n] - h_n).abs() < 1e-14, "{irk:?}: h = {h:?}");
            for i in 0..l.n_x {
                let at = |t: f64| x0[i] + t * slope[i];
                let end = x_boundary[(n + 1) * l.n_x + i];
                assert!((end - at((n + 1) as f64 * h_n)).abs() < 1e-12, "{irk:?} {family:?}: end of element {n}, entry {i}: {end}");
                for m in 0..l.n_s {
                    let s = x_stage[(n * l.n_s + m) * l.n_x + i];
                    assert!((s - at((n as f64 + c[m]) * h_n)).abs() < 1e-12, "{irk:?} {family:?}: element {n}, stage {m}, entry {i}: {s}");
                }
            }
        }
    }
}

/// The slope of the last recorded element: on ẋ = 2 − sign(x) from x = −1 (ẋ = 3
/// until the switch at t = 1/3, then ẋ = 1) it is 1 after the switch.
#[test]
fn the_last_slope_is_the_last_elements_secant() {
    let x = SX::sym("x", 1);
    let model = PssModel::new(x.clone()).with_drift(SX::scalar(2.0)).with_subsystem(Subsystem::new(
        x,
        vec![vec![1], vec![-1]],
        vec![SX::scalar(-1.0), SX::scalar(1.0)],
    ));
    let mut sim = Simulator::new(&model, SimulatorOptions { step: 0.25, ..Default::default() }).unwrap();
    let mut state = sim.start(&[-1.0], &[], &[]).unwrap();
    assert_eq!(state.result.last_slope(), None);
    assert!(sim.step(&mut state, &[], &[]).unwrap());
    assert!((state.result.last_slope().unwrap()[0] - 3.0).abs() < 1e-7);
    assert!(sim.step(&mut state, &[], &[]).unwrap());
    let s = state.result.last_slope().unwrap()[0];
    assert!((s - 1.0).abs() < 1e-7, "slope {s}, t {:?}, x {:?}", state.result.t, state.result.x);
}

#[test]
fn interleaved_simulations_on_one_simulator_keep_their_own_multipliers() {
    // Two oscillator runs from different starts, stepped alternately on one compiled
    // simulator: each piece starts with the multipliers of its own simulation's last
    // piece (kept in its SimState), so both end where separate runs end.
    let model = models::oscillator().unwrap();
    let opts = SimulatorOptions { step: std::f64::consts::FRAC_PI_2 / 29.0, n_steps: 29, ..Default::default() };
    let x0a = models::oscillator_x0();
    let x0b = [0.5 * x0a[0], 0.5 * x0a[1]];
    let alone = |x0: &[f64]| Simulator::new(&model, opts.clone()).unwrap().simulate(x0, &[], &[]).unwrap();
    let (ra, rb) = (alone(&x0a), alone(&x0b));
    let mut sim = Simulator::new(&model, opts.clone()).unwrap();
    let (mut a, mut b) = (sim.start(&x0a, &[], &[]).unwrap(), sim.start(&x0b, &[], &[]).unwrap());
    for _ in 0..29 {
        assert!(sim.step(&mut a, &[], &[]).unwrap() && sim.step(&mut b, &[], &[]).unwrap());
    }
    let (ia, ib) = (a.into_result(), b.into_result());
    for (inter, sep) in [(&ia, &ra), (&ib, &rb)] {
        let d = inter.x_final().iter().zip(sep.x_final()).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
        assert!(d < 1e-9, "interleaved and separate runs end {d:e} apart");
        assert_eq!(inter.total_iterations(), sep.total_iterations());
        assert!(inter.steps.iter().any(|s| s.attempts.iter().any(|t| t.with_duals)));
    }
}
