//! Order of accuracy on the oscillator (a reduced grid of the example
//! `oscillator_order`): with tolerances tight enough that the discretization error is
//! what is measured, FESD with Radau IIA n_s = 1…4 converges with order 2 n_s − 1 and
//! with Gauss–Legendre n_s = 1…3 with order 2 n_s, the errors falling monotonically;
//! the standard fixed-step discretization stays near order 1 (the switch is not
//! resolved). Every accepted step meets the user's comp_tol.

use fesd_rk::RkFamily;
use fesd_sim::{models, SimulationResult, Simulator, SimulatorOptions, SwitchDetection};

/// The tolerances of the order study: comp_tol 1e-13, σ_N 1e-14, Ipopt's `tol`
/// 1e-14, on every homotopy the simulator may run.
const COMP_TOL: f64 = 1e-13;

/// Sets the order study's tolerances on every homotopy of `opts`.
fn tighten(opts: &mut SimulatorOptions) {
    opts.for_each_homotopy(|h| {
        h.comp_tol = COMP_TOL;
        h.sigma_n = Some(1e-14);
        if h.sigma_0 < 1e-3 {
            h.sigma_0 = 1e-13;
        }
        h.ipopt.push(("tol".into(), 1e-14.into()));
    });
}

fn simulate(family: RkFamily, n_s: usize, fesd: bool, n: usize, tight: bool) -> SimulationResult {
    let t_end = std::f64::consts::FRAC_PI_2;
    let mut opts: SimulatorOptions = SimulatorOptions { step: t_end / n as f64, n_steps: n, ..Default::default() };
    opts.fesd.rk_family = family;
    opts.fesd.n_s = n_s;
    opts.fesd.use_fesd = fesd;
    if tight {
        tighten(&mut opts);
    }
    let mut sim = Simulator::new(&models::oscillator().unwrap(), opts).unwrap();
    let r = sim.simulate(&models::oscillator_x0(), &[], &[]).unwrap();
    assert!(r.completed, "{family:?} n_s = {n_s}, N = {n}: did not complete");
    if tight {
        for s in r.steps.iter().filter(|s| s.status.is_converged()) {
            assert!(s.comp_residual <= COMP_TOL, "step {} at t = {}: comp_residual {:e}", s.step, s.t_start, s.comp_residual);
        }
    }
    r
}

fn error(r: &SimulationResult) -> f64 {
    let e = models::oscillator_exact(std::f64::consts::FRAC_PI_2);
    ((r.x_final()[0] - e[0]).powi(2) + (r.x_final()[1] - e[1]).powi(2)).sqrt()
}

/// Least-squares slope of log(error) against log(h) over the step counts `ns`; asserts
/// that the error falls with every refinement.
fn slope(family: RkFamily, n_s: usize, fesd: bool, ns: &[usize], tight: bool) -> f64 {
    let errors: Vec<f64> = ns.iter().map(|&n| error(&simulate(family, n_s, fesd, n, tight))).collect();
    if fesd {
        assert!(errors.windows(2).all(|w| w[1] < w[0]), "{family:?} n_s = {n_s}: errors {errors:?} over N = {ns:?}");
    }
    let pts: Vec<(f64, f64)> = ns.iter().zip(&errors).map(|(&n, e)| ((1.0 / n as f64).ln(), e.ln())).collect();
    let m = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / m, pts.iter().map(|p| p.1).sum::<f64>() / m);
    pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>()
}

fn assert_order(family: RkFamily, n_s: usize, ns: &[usize]) {
    let s = slope(family, n_s, true, ns, true);
    let expected = family.order(n_s) as f64;
    assert!((s - expected).abs() <= 0.3, "{family:?} n_s = {n_s}: slope {s}, expected {expected}");
}

#[test]
fn fesd_radau_iia_has_order_2s_minus_1() {
    // (The grids of n_s = 3 and 4 are ones where a switch accepted next to a
    // stretched element broke the slope or the monotone fall.)
    // Implicit Euler damps the ω = 2π rotation strongly: its asymptotic regime starts
    // near h = 1e-3.
    assert_order(RkFamily::RadauIIA, 1, &[400, 800]);
    assert_order(RkFamily::RadauIIA, 2, &[15, 30, 60]);
    assert_order(RkFamily::RadauIIA, 3, &[10, 15, 25]);
    assert_order(RkFamily::RadauIIA, 4, &[10, 14, 20]);
}

#[test]
fn fesd_gauss_legendre_has_order_2s() {
    assert_order(RkFamily::GaussLegendre, 1, &[20, 40, 80]);
    assert_order(RkFamily::GaussLegendre, 2, &[15, 30, 60]);
    assert_order(RkFamily::GaussLegendre, 3, &[10, 15, 25]);
}

#[test]
fn default_tolerances_keep_the_low_orders() {
    let s = slope(RkFamily::RadauIIA, 2, true, &[15, 20, 30], false);
    assert!((s - 3.0).abs() <= 0.3, "Radau IIA n_s = 2: slope {s}");
    let s = slope(RkFamily::GaussLegendre, 1, true, &[20, 40, 80], false);
    assert!((s - 2.0).abs() <= 0.3, "Gauss–Legendre n_s = 1: slope {s}");
}

#[test]
fn standard_discretization_stays_near_order_one() {
    let s = slope(RkFamily::RadauIIA, 1, false, &[97, 163, 271], false);
    assert!((0.5..=1.5).contains(&s), "slope {s}");
}

/// Without the re-cut a switch may land next to an element stretched up to 1 + γ_h
/// times, and the error then depends on where it falls: Radau IIA n_s = 4 with 14
/// steps ended 10 times less accurate than with 12.
#[test]
fn switch_elements_are_not_stretched() {
    let r = simulate(RkFamily::RadauIIA, 4, true, 14, true);
    let step = std::f64::consts::FRAC_PI_2 / 14.0;
    let ratio =
        SimulatorOptions { fesd: fesd_sim::FesdOptions { n_s: 4, ..Default::default() }, ..Default::default() }.switch_element_ratio();
    assert!((ratio - 16f64.powf(1.0 / 8.0)).abs() < 1e-12);
    // Every element is at most `ratio` times its piece's nominal element, and no longer
    // than the nominal element of a whole step by more than that.
    assert!(r.h.iter().all(|&h| h <= ratio * step / 2.0 + 1e-12), "{:?}", r.h);
    assert!(r.steps.iter().any(|s| s.recut_at_switch), "the switch piece was not re-cut");
    let never = {
        let t_end = std::f64::consts::FRAC_PI_2;
        let mut opts: SimulatorOptions = SimulatorOptions {
            step: t_end / 14.0,
            n_steps: 14,
            detection: SwitchDetection { max_switch_element_ratio: Some(f64::INFINITY), ..Default::default() },
            ..Default::default()
        };
        opts.fesd.n_s = 4;
        tighten(&mut opts);
        Simulator::new(&models::oscillator().unwrap(), opts).unwrap().simulate(&models::oscillator_x0(), &[], &[]).unwrap()
    };
    assert!(never.steps.iter().all(|s| !s.recut_at_switch));
    assert!(error(&r) < 0.5 * error(&never), "{:e} vs {:e}", error(&r), error(&never));
}

#[test]
fn a_switch_element_ratio_of_one_or_less_is_rejected() {
    for bad in [1.0, 0.5, f64::NAN] {
        let opts: SimulatorOptions = SimulatorOptions {
            detection: SwitchDetection { max_switch_element_ratio: Some(bad), ..Default::default() },
            ..Default::default()
        };
        assert!(opts.validate().is_err(), "{bad}");
    }
}
