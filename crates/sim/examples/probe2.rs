use fesd_sim::*;
use fesd_model::Representation;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map(|s| s.as_str()).unwrap_or("cross");
    let mut opts = SimulatorOptions::default();
    if std::env::var("GL").is_ok() { opts.fesd.rk_family = fesd_rk::RkFamily::GaussLegendre; }
    if std::env::var("STEP").is_ok() { opts.fesd.representation = Representation::Step; }
    if std::env::var("DIFF").is_ok() { opts.fesd.irk_representation = IrkRepresentation::Differential; }
    if let Ok(m) = std::env::var("XCC") { opts.fesd.cross_complementarity = CrossComplementarity::ALL[m.parse::<usize>().unwrap()]; }

    if let Ok(k) = std::env::var("NFE") { opts.fesd.n_fe = k.parse().unwrap(); }


    for h in opts.homotopies.iter_mut() { h.verbosity = std::env::var("V").map(|v| v.parse().unwrap()).unwrap_or(0); }
    let (model, x0, step, n) = match which {
        "cross" => (models::scalar_switch(2.0, 0.2), vec![-1.0], 1.5 / 16.0, 16),
        "slide" => (models::scalar_switch(1.0, -1.0), vec![-2f64.sqrt()], 2.0 / 7.0, 7),
        "leave" => (models::leaving_sliding_mode(), vec![0.0, 0.0], 0.25, 8),
        "quad" => (models::four_quadrants(), vec![-1.0, -0.7], 0.1, 15),
        "relay" => (models::relay_feedback(25.0, 0.05, 1.0).unwrap(), vec![0.0, -0.001, -0.02], 0.05, 200),
        _ => (models::scalar_switch(3.0, 1.0), vec![-1.0], std::f64::consts::FRAC_PI_4 / 3.0, 3),
    };
    opts.step = step; opts.n_steps = n;
    if let Ok(g) = std::env::var("GAMMA") { opts.fesd.gamma_h = g.parse().unwrap(); }
    if std::env::var("ROBUST").is_ok() { opts.homotopies = vec![SimulatorOptions::robust_homotopy()]; opts.fallback_homotopy = None; }
    if let Ok(v) = std::env::var("DT") { opts.step = v.parse().unwrap(); opts.n_steps = (1.5 / opts.step).round() as usize; }
    if which == "relay" { opts.fesd.n_s = 2; }
    let mut sim = Simulator::new(&model, opts).unwrap();
    let r = sim.simulate(&x0, &[], &[]).unwrap();
    println!("switch {:?}", r.switch_times);
    let best = r.t.iter().zip(&r.x).map(|(t, x)| ((t - 0.5).abs().max(x[0].abs()), *t)).fold((f64::INFINITY, 0.0), |a, b| if b.0 < a.0 { b } else { a });
    println!("x_final {:?} completed {} iters {} ({:.1}/step) total {:.4}s; best(0.5,0) {:?}", r.x_final(), r.completed, r.total_iterations(), r.total_iterations() as f64 / r.steps.len() as f64, r.timing.total, best);
    for s in r.failed_steps() { println!("failed step {} t={:.4} len={} it={} nlps={} {:?} {:?}", s.step, s.t_start, s.length, s.iterations, s.homotopy_steps, s.status, s.messages.last()); }
    let fail_it: usize = r.failed_steps().iter().map(|s| s.iterations).sum();
    let mut its: Vec<(usize, usize, f64)> = r.steps.iter().filter(|s| s.status.is_converged()).map(|s| (s.iterations, s.step, s.length)).collect(); its.sort_by(|a, b| b.0.cmp(&a.0)); println!("top: {:?}", &its[..its.len().min(12)]);
    println!("iterations in failed attempts: {fail_it}; max per ok step: {:?}", r.steps.iter().filter(|s| s.status.is_converged()).map(|s| s.iterations).max());
    if false { for (k, (t, x)) in r.t.iter().zip(&r.x).enumerate() { if *t > 5.6 && *t < 6.0 { println!("t={t:.6} x={:?} h={:?} act={:?}", x, r.h.get(k), r.active_sets.get(k)); } } }
    if which == "slide" { println!("x after: {:?}", r.x.iter().zip(&r.t).filter(|(_, t)| **t > 1.5).map(|(x, _)| x[0]).collect::<Vec<_>>()); }
}
