//! Order of accuracy of FESD on the oscillator (FORMULATION §7): the error of x(T) at
//! T = π/2 against the analytic solution, for step lengths h = T/N, with FESD and
//! Radau IIA (n_s = 1…4; expected slopes 2 n_s − 1), FESD and Gauss–Legendre (n_s =
//! 1…4; expected 2 n_s), and the standard fixed-step discretization with Radau IIA
//! (expected ≈ 1: the switch is not resolved). Prints the table and each fitted slope as
//! `slope <scheme> ns=<n> = <value>` (and, for FESD, whether the errors above the
//! round-off floor fall with every refinement, `monotone <scheme> ns=<n> = true`),
//! and saves `oscillator_order.png`. The test `crates/sim/tests/order.rs` asserts the
//! slopes on a reduced grid.
//!
//! Run: `cargo run --release --example oscillator_order [output.png]`

use fesd::rk::RkFamily;
use fesd::sim::{models, Simulator, SimulatorOptions};
use plotters::prelude::*;

/// Step counts per scheme: the errors must stay above the round-off floor.
fn step_counts(family: RkFamily, n_s: usize, fesd: bool) -> Vec<usize> {
    if !fesd {
        // The fixed grid's error depends on where t = 1 falls between grid points:
        // step counts without common factors average that out.
        return vec![97, 163, 271, 449, 751, 1249];
    }
    match family.order(n_s) {
        // Implicit Euler damps the ω = 2π rotation strongly: its asymptotic regime
        // starts near h = 1e-3.
        1 if family == RkFamily::RadauIIA => vec![400, 800, 1600, 3200],
        1 | 2 => vec![20, 40, 80, 160],
        3 | 4 => vec![15, 20, 30, 40, 60],
        5..=7 => vec![10, 15, 20, 30, 40],
        _ => vec![8, 10, 12, 15, 20],
    }
}

fn error_at_end(family: RkFamily, n_s: usize, fesd: bool, n: usize) -> Result<f64, Box<dyn std::error::Error>> {
    let t_end = std::f64::consts::FRAC_PI_2;
    let mut opts: SimulatorOptions = SimulatorOptions { step: t_end / n as f64, n_steps: n, ..Default::default() };
    opts.fesd.rk_family = family;
    opts.fesd.n_s = n_s;
    opts.fesd.use_fesd = fesd;
    for h in opts.homotopies.iter_mut().chain(opts.fallback_homotopy.iter_mut()) {
        // Tight tolerances so that the discretization error, not the solver's, is measured.
        h.comp_tol = 1e-13;
        h.sigma_n = Some(1e-14);
        if h.sigma_0 < 1e-3 {
            h.sigma_0 = 1e-13;
        }
        h.ipopt.push(("tol".into(), 1e-14.into()));
    }
    let mut sim = Simulator::new(&models::oscillator()?, opts)?;
    let r = sim.simulate(&models::oscillator_x0(), &[], &[])?;
    if !r.completed {
        return Err(format!("{family:?} n_s={n_s} fesd={fesd} N={n}: simulation did not complete").into());
    }
    let exact = models::oscillator_exact(t_end);
    Ok(((r.x_final()[0] - exact[0]).powi(2) + (r.x_final()[1] - exact[1]).powi(2)).sqrt())
}

/// Least-squares slope of log(err) against log(h).
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (sx, sy) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x.ln(), b + y.ln()));
    let (mx, my) = (sx / n, sy / n);
    let (num, den) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + (x.ln() - mx) * (y.ln() - my), b + (x.ln() - mx).powi(2)));
    num / den
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "-h" || a == "--help") {
        println!("usage: oscillator_order [output PNG, default oscillator_order.png]");
        return Ok(());
    }
    let out = std::env::args().nth(1).unwrap_or_else(|| "oscillator_order.png".into());
    let t_end = std::f64::consts::FRAC_PI_2;
    let floor = 1e-10;
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut schemes: Vec<(&str, RkFamily, usize, bool)> = Vec::new();
    for n_s in 1..=4 {
        schemes.push(("radau_iia", RkFamily::RadauIIA, n_s, true));
    }
    for n_s in 1..=4 {
        schemes.push(("gauss_legendre", RkFamily::GaussLegendre, n_s, true));
    }
    for n_s in 1..=3 {
        schemes.push(("standard_radau_iia", RkFamily::RadauIIA, n_s, false));
    }
    println!("{:<20} {:>3} {:>6} {:>12} {:>12}", "scheme", "n_s", "N", "h", "error");
    for (name, family, n_s, fesd) in schemes {
        let mut pts = Vec::new();
        for n in step_counts(family, n_s, fesd) {
            let e = error_at_end(family, n_s, fesd, n)?;
            println!("{name:<20} {n_s:>3} {n:>6} {:>12.4e} {e:>12.4e}", t_end / n as f64);
            pts.push((t_end / n as f64, e));
        }
        // Fit on the points above the round-off floor.
        let fit: Vec<(f64, f64)> = pts.iter().copied().filter(|&(_, e)| e > floor).collect();
        let s = if fit.len() >= 2 { slope(&fit) } else { f64::NAN };
        println!("slope {name} ns={n_s} = {s:.3}");
        if fesd {
            // Above the round-off floor, every refinement must lower the error.
            let monotone = fit.windows(2).all(|w| w[1].1 < w[0].1);
            println!("monotone {name} ns={n_s} = {monotone}");
        }
        series.push((format!("{name} n_s={n_s} (slope {s:.2})"), pts));
    }

    let root = BitMapBackend::new(&out, (1000, 760)).into_drawing_area();
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular()).map_err(|_| "font")?;
    root.fill(&WHITE)?;
    let all: Vec<(f64, f64)> = series.iter().flat_map(|(_, p)| p.iter().copied()).collect();
    let (hmin, hmax) = all.iter().fold((f64::INFINITY, 0f64), |(a, b), (h, _)| (a.min(*h), b.max(*h)));
    let (emin, emax) = all.iter().fold((f64::INFINITY, 0f64), |(a, b), (_, e)| (a.min(*e), b.max(*e)));
    let mut chart = ChartBuilder::on(&root)
        .caption("FESD on the oscillator: error of x(T) vs step length", ("sans-serif", 22))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((hmin * 0.8..hmax * 1.25).log_scale(), (emin.max(1e-16) * 0.3..emax * 3.0).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("h = T/N")
        .y_desc("|x(T) − x_exact(T)|")
        .x_label_formatter(&|v| format!("{v:.0e}"))
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()?;
    for (i, (label, pts)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.iter().map(|&(h, e)| (h, e.max(1e-16))), color.stroke_width(2)))?
            .label(label.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
        chart.draw_series(pts.iter().map(|&(h, e)| Circle::new((h, e.max(1e-16)), 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    println!("plot written to {out}");
    Ok(())
}
