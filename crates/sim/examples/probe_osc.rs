use casadi::SX;
use fesd_model::*;
use fesd_sim::*;
fn main() {
    let w = 2.0 * std::f64::consts::PI;
    let x = SX::sym("x", 2);
    let a1 = SX::from_rows(&[&[1.0, w], &[-w, 1.0]]).unwrap();
    let a2 = SX::from_rows(&[&[1.0, -w], &[w, 1.0]]).unwrap();
    let c = x.dot(&x).unwrap() - 1.0;
    let model = PssModel::new(x.clone()).with_subsystem(Subsystem::new(c, vec![vec![1], vec![-1]], vec![a1.mtimes(&x).unwrap(), a2.mtimes(&x).unwrap()]));
    let t_end = std::f64::consts::FRAC_PI_2;
    let n_steps: usize = std::env::var("N").map(|v| v.parse().unwrap()).unwrap_or(29);
    let mut opts = SimulatorOptions { step: t_end / n_steps as f64, n_steps, ..Default::default() };
    opts.fesd.n_s = 3;
    if std::env::var("STEP").is_ok() { opts.fesd.representation = Representation::Step; }
    let mut sim = Simulator::new(&model, opts).unwrap();
    let r = sim.simulate(&[(-1f64).exp(), 0.0], &[], &[]).unwrap();
    let xe = [(t_end - 1.0).exp() * (w * (t_end - 1.0)).cos(), -(t_end - 1.0).exp() * (w * (t_end - 1.0)).sin()];
    let err = (r.x_final()[0] - xe[0]).abs().max((r.x_final()[1] - xe[1]).abs());
    println!("switch {:?} err {:.3e} completed {} iters {} ({:.1}/step) total {:.4}s ipopt {:.4} kernels {:.4} own {:.4}", r.switch_times, err, r.completed, r.total_iterations(), r.total_iterations() as f64 / r.steps.len() as f64, r.timing.total, r.timing.ipopt, r.timing.kernels, r.timing.own);
    for s in r.failed_steps() { println!("failed {:?}", s); }
}
