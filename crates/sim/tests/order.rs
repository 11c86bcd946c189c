//! Order of accuracy on the oscillator (reduced set; the example `oscillator_order`
//! runs the full table): FESD with Radau IIA n_s = 2 converges with order 3, with
//! Gauss–Legendre n_s = 1 with order 2, and the standard fixed-step discretization
//! (implicit Euler, whose error is smooth in h) with order ≈ 1.

use fesd_rk::RkFamily;
use fesd_sim::{models, Simulator, SimulatorOptions};

fn error(family: RkFamily, n_s: usize, fesd: bool, n: usize) -> f64 {
    let t_end = std::f64::consts::FRAC_PI_2;
    let mut opts = SimulatorOptions { step: t_end / n as f64, n_steps: n, ..Default::default() };
    opts.fesd.rk_family = family;
    opts.fesd.n_s = n_s;
    opts.fesd.use_fesd = fesd;
    let mut sim = Simulator::new(&models::oscillator().unwrap(), opts).unwrap();
    let r = sim.simulate(&models::oscillator_x0(), &[], &[]).unwrap();
    assert!(r.completed);
    let e = models::oscillator_exact(t_end);
    ((r.x_final()[0] - e[0]).powi(2) + (r.x_final()[1] - e[1]).powi(2)).sqrt()
}

fn slope(family: RkFamily, n_s: usize, fesd: bool, ns: &[usize]) -> f64 {
    let pts: Vec<(f64, f64)> = ns.iter().map(|&n| ((1.0 / n as f64).ln(), error(family, n_s, fesd, n).ln())).collect();
    let m = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / m, pts.iter().map(|p| p.1).sum::<f64>() / m);
    pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>()
}

#[test]
fn fesd_radau_iia_two_stages_has_order_three() {
    let s = slope(RkFamily::RadauIIA, 2, true, &[15, 20, 30]);
    assert!((s - 3.0).abs() <= 0.3, "slope {s}");
}

#[test]
fn fesd_gauss_legendre_one_stage_has_order_two() {
    let s = slope(RkFamily::GaussLegendre, 1, true, &[20, 40, 80]);
    assert!((s - 2.0).abs() <= 0.3, "slope {s}");
}

#[test]
fn standard_discretization_stays_near_order_one() {
    let s = slope(RkFamily::RadauIIA, 1, false, &[97, 163, 271]);
    assert!((0.5..=1.5).contains(&s), "slope {s}");
}
