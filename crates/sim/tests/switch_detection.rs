//! Exact switch detection on systems with known solutions (FORMULATION §7).

mod common;

use common::{distance_to, grid, simulate, Scheme};
use fesd_model::Representation;
use fesd_rk::RkFamily;
use fesd_sim::{models, CrossComplementarity, IrkRepresentation, Simulator, SimulatorOptions, SwitchDetection};

#[test]
fn two_minus_sign_switches_at_one_third() {
    // ẋ ∈ 2 − sign(x), x(0) = −1, T = π/4: switch at 1/3, x(T) = π/4 − 1/3.
    let t_end = std::f64::consts::FRAC_PI_4;
    for representation in [Representation::Stewart, Representation::Step] {
        for family in [RkFamily::RadauIIA, RkFamily::GaussLegendre] {
            let scheme = Scheme { irk: IrkRepresentation::Integral, family, representation, cross: CrossComplementarity::default() };
            let r = simulate(&models::scalar_switch(3.0, 1.0), scheme, 2, 2, t_end / 3.0, 3, &[-1.0]);
            assert_eq!(r.switch_times.len(), 1, "{scheme:?}: {:?}", r.switch_times);
            assert!((r.switch_times[0] - 1.0 / 3.0).abs() <= 1e-9, "{scheme:?}: switch at {}", r.switch_times[0]);
            assert!((r.x_final()[0] - (t_end - 1.0 / 3.0)).abs() <= 1e-8, "{scheme:?}: x(T) = {}", r.x_final()[0]);
            assert!((r.t.last().unwrap() - t_end).abs() <= 1e-12);
        }
    }
}

#[test]
fn crossing_lands_on_an_element_boundary_for_every_scheme() {
    // ẋ = 2 for x < 0, 0.2 for x > 0, x(0) = −1: crossing at t = 0.5, which the
    // fixed grid (16 steps of 1.5/16, 2 elements each) misses.
    let model = models::scalar_switch(2.0, 0.2);
    for scheme in grid() {
        let r = simulate(&model, scheme, 2, 2, 1.5 / 16.0, 16, &[-1.0]);
        let d = distance_to(&r, 0.5, 0, 0.0);
        assert!(d <= 1e-5, "{scheme:?}: closest boundary point is {d:e} from (0.5, 0)");
    }
}

#[test]
fn sliding_mode_is_reached_and_kept_for_every_scheme() {
    // ẋ = 1 for x < 0, −1 for x > 0, x(0) = −√2: reaches x = 0 at t = √2 and slides.
    let model = models::scalar_switch(1.0, -1.0);
    let s2 = 2f64.sqrt();
    for scheme in grid() {
        let r = simulate(&model, scheme, 2, 2, 2.0 / 7.0, 7, &[-s2]);
        let d = distance_to(&r, s2, 0, 0.0);
        assert!(d <= 1e-5, "{scheme:?}: closest boundary point is {d:e} from (√2, 0)");
        for (t, x) in r.t.iter().zip(&r.x) {
            if *t > s2 + 1e-5 {
                assert!(x[0].abs() <= 1e-5, "{scheme:?}: x({t}) = {} left the sliding mode", x[0]);
            }
        }
    }
}

#[test]
fn leaving_the_sliding_mode_at_t_one() {
    // ẋ ∈ −sign(x) + t, x(0) = 0: slides until t = 1, then leaves into x > 0. After
    // leaving, the switching function grows like (t − 1)²/2, so the exit time is
    // only weakly determined by the equations: Ipopt's tol = 1e-12 pins it to 1e-6
    // (with the default 1e-8 it lands within 1e-5).
    for representation in [Representation::Stewart, Representation::Step] {
        let mut opts: SimulatorOptions = SimulatorOptions { step: 2.0 / 7.0, n_steps: 7, ..Default::default() };
        opts.fesd.representation = representation;
        for h in opts.homotopies.iter_mut().chain(opts.fallback_homotopy.iter_mut()) {
            h.ipopt.push(("tol".into(), 1e-12.into()));
        }
        let r = Simulator::new(&models::leaving_sliding_mode(), opts).unwrap().simulate(&[0.0, 0.0], &[], &[]).unwrap();
        assert!(r.completed);
        assert_eq!(r.switch_times.len(), 1, "{representation:?}: {:?}", r.switch_times);
        assert!((r.switch_times[0] - 1.0).abs() <= 1e-6, "{representation:?}: leaves at {}", r.switch_times[0]);
        // x(t) = (t − 1)²/2 after leaving: x(2) = 0.5.
        assert!((r.x_final()[0] - 0.5).abs() <= 1e-6, "{representation:?}: x(2) = {}", r.x_final()[0]);
    }
}

#[test]
fn the_sliding_exit_condition_pins_the_exit_without_a_tight_tolerance() {
    // As above, with Ipopt's default tolerance: the exit condition (θ of the region
    // left behind is zero at the exit boundary) fixes the exit where the Filippov
    // multiplier reaches zero, instead of where the switching function (quadratic in
    // t − 1) first changes sign at a stage.
    for representation in [Representation::Stewart, Representation::Step] {
        let mut opts: SimulatorOptions = SimulatorOptions { step: 2.0 / 7.0, n_steps: 7, ..Default::default() };
        opts.fesd.representation = representation;
        opts.fesd.sliding_exit_continuity = true;
        let r = Simulator::new(&models::leaving_sliding_mode(), opts).unwrap().simulate(&[0.0, 0.0], &[], &[]).unwrap();
        assert!(r.completed);
        println!("{representation:?}: leaves at {:?}, x(2) = {}", r.switch_times, r.x_final()[0]);
        assert_eq!(r.switch_times.len(), 1, "{representation:?}: {:?}", r.switch_times);
        assert!((r.switch_times[0] - 1.0).abs() <= 1e-6, "{representation:?}: leaves at {}", r.switch_times[0]);
        assert!((r.x_final()[0] - 0.5).abs() <= 1e-6, "{representation:?}: x(2) = {}", r.x_final()[0]);
    }
}

#[test]
fn oscillator_switch_time_state_and_end_state() {
    // Radau IIA, n_s = 3, N_FE = 2, 29 steps over T = π/2.
    let t_end = std::f64::consts::FRAC_PI_2;
    let scheme = Scheme {
        irk: IrkRepresentation::Integral,
        family: RkFamily::RadauIIA,
        representation: Representation::Stewart,
        cross: CrossComplementarity::default(),
    };
    let r = simulate(&models::oscillator().unwrap(), scheme, 3, 2, t_end / 29.0, 29, &models::oscillator_x0());
    assert_eq!(r.switch_times.len(), 1, "{:?}", r.switch_times);
    assert!((r.switch_times[0] - 1.0).abs() <= 1e-5, "switch at {}", r.switch_times[0]);
    let k = r.t.iter().position(|t| (t - r.switch_times[0]).abs() < 1e-14).unwrap();
    assert!((r.x[k][0] - 1.0).abs() <= 1e-5 && r.x[k][1].abs() <= 1e-5, "switch state {:?}", r.x[k]);
    let exact = models::oscillator_exact(t_end);
    for i in 0..2 {
        assert!((r.x_final()[i] - exact[i]).abs() <= 1e-5, "x(T) = {:?}, exact {exact:?}", r.x_final());
    }
}

#[test]
fn stewart_and_step_give_the_same_trajectory() {
    let t_end = std::f64::consts::FRAC_PI_2;
    let run = |model: &fesd_model::PssModel, representation, step, n, x0: &[f64]| {
        let scheme =
            Scheme { irk: IrkRepresentation::Integral, family: RkFamily::RadauIIA, representation, cross: CrossComplementarity::default() };
        simulate(model, scheme, 3, 2, step, n, x0)
    };
    // Two regions: the oscillator.
    let osc = models::oscillator().unwrap();
    let a = run(&osc, Representation::Stewart, t_end / 29.0, 29, &models::oscillator_x0());
    let b = run(&osc, Representation::Step, t_end / 29.0, 29, &models::oscillator_x0());
    assert_eq!(a.t.len(), b.t.len());
    for (xa, xb) in a.x.iter().zip(&b.x) {
        for i in 0..2 {
            assert!((xa[i] - xb[i]).abs() <= 1e-6, "{xa:?} vs {xb:?}");
        }
    }
    assert!((a.switch_times[0] - b.switch_times[0]).abs() <= 1e-7);
    // Four regions: constant dynamics in each quadrant, switches at 1 and 1.2.
    let quad = models::four_quadrants();
    let a = run(&quad, Representation::Stewart, 0.07, 21, &[-1.0, -0.7]);
    let b = run(&quad, Representation::Step, 0.07, 21, &[-1.0, -0.7]);
    let exact = models::four_quadrants_exact(1.47);
    for r in [&a, &b] {
        assert_eq!(r.switch_times.len(), 2, "{:?}", r.switch_times);
        assert!((r.switch_times[0] - 1.0).abs() <= 1e-8 && (r.switch_times[1] - 1.2).abs() <= 1e-8, "{:?}", r.switch_times);
        for i in 0..2 {
            assert!((r.x_final()[i] - exact[i]).abs() <= 1e-8, "{:?} vs {exact:?}", r.x_final());
        }
    }
    for (xa, xb) in a.x.iter().zip(&b.x) {
        assert!((xa[0] - xb[0]).abs() <= 1e-7 && (xa[1] - xb[1]).abs() <= 1e-7);
    }
}

#[test]
fn every_rk_family_and_stage_count_finds_the_switch_at_one_third() {
    // ẋ ∈ 2 − sign(x), x(0) = −1: constant dynamics on each side, which every
    // consistent RK scheme integrates exactly, so the switch must land at 1/3.
    // Regression: Lobatto IIIB (last stage at c = 1 but not the end state) put it at
    // 0.3927 (Stewart) / 0.4049 (Step) and reported success.
    let t_end = std::f64::consts::FRAC_PI_4;
    for family in RkFamily::ALL {
        let (lo, hi) = family.stage_range();
        for n_s in lo.max(1)..=hi.min(4) {
            for representation in [Representation::Stewart, Representation::Step] {
                let scheme = Scheme { irk: IrkRepresentation::Integral, family, representation, cross: CrossComplementarity::default() };
                let r = simulate(&models::scalar_switch(3.0, 1.0), scheme, n_s, 2, t_end / 3.0, 3, &[-1.0]);
                let what = format!("{} n_s = {n_s} {representation:?}", family.name());
                assert_eq!(r.switch_times.len(), 1, "{what}: {:?}", r.switch_times);
                assert!((r.switch_times[0] - 1.0 / 3.0).abs() <= 1e-8, "{what}: switch at {}", r.switch_times[0]);
                assert!((r.x_final()[0] - (t_end - 1.0 / 3.0)).abs() <= 1e-7, "{what}: x(T) = {}", r.x_final()[0]);
            }
        }
    }
}

/// ẋ = 2 for x < 0, 0.2 for x > 0, x(0) = −1.002: the switch at t = 0.501 comes 1e-3
/// after a step boundary, too early for the next step's first element (at least
/// 0.1 · 0.05 = 5e-3 long). The prediction cuts that step so that the switch lies in
/// the middle of a short piece; without the cut the step fails and is halved.
#[test]
fn a_switch_just_after_a_step_boundary_gets_a_piece_of_its_own() {
    let model = models::scalar_switch(2.0, 0.2);
    let run = |align: bool| {
        let opts = SimulatorOptions {
            step: 0.1,
            n_steps: 8,
            detection: SwitchDetection { align_switches: align, ..Default::default() },
            ..Default::default()
        };
        Simulator::new(&model, opts).unwrap().simulate(&[-1.002], &[], &[]).unwrap()
    };
    let (aligned, plain) = (run(true), run(false));
    for r in [&aligned, &plain] {
        assert!(r.completed);
        assert_eq!(r.switch_times.len(), 1, "{:?}", r.switch_times);
        assert!((r.switch_times[0] - 0.501).abs() <= 1e-8, "switch at {}", r.switch_times[0]);
        assert!((r.x_final()[0] - 0.2 * (0.8 - 0.501)).abs() <= 1e-8, "x(T) = {}", r.x_final()[0]);
    }
    let cut: Vec<_> = aligned.steps.iter().filter(|s| s.aligned_to_switch).collect();
    assert!(!cut.is_empty(), "no piece was cut");
    let predicted = cut[0].predicted_switch.expect("a predicted switch");
    assert!((cut[0].t_start + predicted - 0.501).abs() < 5e-4, "predicted at {} + {predicted}", cut[0].t_start);
    assert!(aligned.steps.iter().all(|s| !s.halved), "a piece was halved");
    assert!(plain.steps.iter().any(|s| s.halved), "without the cut no piece was halved");
    assert!(aligned.wasted_iterations() < plain.wasted_iterations(), "{} vs {}", aligned.wasted_iterations(), plain.wasted_iterations());
}

#[test]
fn the_previous_multipliers_start_pieces_where_the_active_set_goes_on() {
    // The oscillator (switch at t = 1, exact solution known), with and without the
    // multiplier warm start: the same trajectory, fewer Ipopt iterations, and the
    // pieces started with multipliers converge in a few iterations each.
    let t_end = std::f64::consts::FRAC_PI_2;
    let run = |warm_start_duals: bool| {
        let mut o: SimulatorOptions = SimulatorOptions { step: t_end / 29.0, n_steps: 29, warm_start_duals, ..Default::default() };
        o.fesd.n_s = 3;
        Simulator::new(&models::oscillator().unwrap(), o).unwrap().simulate(&models::oscillator_x0(), &[], &[]).unwrap()
    };
    let (plain, warm) = (run(false), run(true));
    assert!(plain.completed && warm.completed);
    let exact = models::oscillator_exact(t_end);
    for r in [&plain, &warm] {
        let err = r.x_final().iter().zip(&exact).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(err < 1e-5, "x(T) error {err:e}");
        assert!((r.switch_times[0] - 1.0).abs() < 1e-6, "switch at {}", r.switch_times[0]);
    }
    let d = plain.x_final().iter().zip(warm.x_final()).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(d < 1e-8, "the two runs end {d:e} apart");
    assert!(plain.steps.iter().all(|s| s.attempts.iter().all(|a| !a.with_duals)));
    let with_duals: Vec<_> = warm.steps.iter().filter_map(|s| s.attempts.first().filter(|a| a.with_duals)).collect();
    assert!(with_duals.len() >= warm.steps.len() / 2, "{} of {} pieces", with_duals.len(), warm.steps.len());
    assert!(with_duals.iter().all(|a| a.status.is_converged()), "{with_duals:?}");
    let quick = with_duals.iter().filter(|a| a.iterations <= 4).count();
    assert!(5 * quick >= 4 * with_duals.len(), "{quick} of {} in at most 4 iterations", with_duals.len());
    assert!(20 * warm.total_iterations() < 17 * plain.total_iterations(), "{} vs {}", warm.total_iterations(), plain.total_iterations());
}

/// The README's four quadrants: constant velocities per quadrant, from (1, 2) the
/// state crosses x1 = 0 at t = 1, x2 = 0 at t = 2 and x1 = 0 at t = 3 — with steps
/// of 0.1 or 1/16, exactly on step boundaries.
fn readme_quadrants() -> fesd_model::PssModel {
    use casadi::SX;
    use fesd_model::{PssModel, RegionSet, Subsystem};
    let x = SX::sym("x", 2);
    let quadrant = |right: bool, up: bool| {
        let side = |j: usize, pos: bool| if pos { RegionSet::Positive(j) } else { RegionSet::negative(j) };
        RegionSet::Intersection(vec![side(0, right), side(1, up)])
    };
    let regions = vec![quadrant(true, true), quadrant(false, true), quadrant(false, false), quadrant(true, false)];
    let f = [(-1.0, -0.5), (-1.0, -1.5), (1.0, -1.0), (1.0, 1.0)].iter().map(|&(a, b)| SX::from_slice(&[a, b])).collect();
    PssModel::new(x.clone()).with_subsystem(Subsystem::from_sets(x, regions, f))
}

#[test]
fn a_switch_exactly_at_a_step_boundary_starts_the_next_piece_in_the_new_region() {
    // A state within the switch prediction's resolution of a switching surface at a
    // piece's start: its boundary duals are zeroed, so the first element may take the
    // new region. Before, these runs stopped (step 0.1 with multiplier warm starts:
    // at t = 2.003; step 1/16 without: in the last quadrant).
    for step in [0.1, 0.0625] {
        for warm_start_duals in [false, true] {
            let n_steps = (3.5f64 / step).round() as usize;
            let mut o: SimulatorOptions = SimulatorOptions { step, n_steps, warm_start_duals, ..Default::default() };
            o.fesd.representation = Representation::Step;
            let r = Simulator::new(&readme_quadrants(), o).unwrap().simulate(&[1.0, 2.0], &[], &[]).unwrap();
            assert!(r.completed, "step {step}, duals {warm_start_duals}");
            assert_eq!(r.switch_times.len(), 3, "step {step}, duals {warm_start_duals}: {:?}", r.switch_times);
            for (t, exact) in r.switch_times.iter().zip([1.0, 2.0, 3.0]) {
                assert!((t - exact).abs() < 1e-8, "step {step}, duals {warm_start_duals}: switch at {t}");
            }
            let xf = r.x_final();
            assert!((xf[0] - 0.5).abs() < 1e-7 && (xf[1] + 0.5).abs() < 1e-7, "x(3.5) = {xf:?}");
        }
    }
}
