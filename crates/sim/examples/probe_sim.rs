use casadi::SX;
use fesd_model::*;
use fesd_sim::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let repr = if args.get(1).map(|s| s.as_str()) == Some("step") { Representation::Step } else { Representation::Stewart };
    let x = SX::sym("x", 1);
    let model = PssModel::new(x.clone()).with_subsystem(Subsystem::new(x.clone(), vec![vec![1], vec![-1]], vec![SX::scalar(1.0), SX::scalar(3.0)]));
    let t_end = std::f64::consts::FRAC_PI_4;
    let n_steps = 3;
    let mut opts = SimulatorOptions { step: t_end / n_steps as f64, n_steps, ..Default::default() };
    opts.fesd.representation = repr;
    opts.homotopy.verbosity = std::env::var("V").map(|v| v.parse().unwrap()).unwrap_or(0);
    if let Ok(kv) = std::env::var("IPOPT") { for item in kv.split(',') { let (k, v) = item.split_once('=').unwrap(); opts.homotopy.ipopt.push((k.into(), ipopt::OptionValue::parse_for(k, v))); } }
    opts.homotopy.warm_start_duals = std::env::var("WSD").is_ok();
    let mut sim = Simulator::new(&model, opts).unwrap();
    let r = sim.simulate(&[-1.0], &[], &[]).unwrap();
    println!("t = {:?}\nx = {:?}\nh = {:?}\nswitch = {:?}", r.t, r.x, r.h, r.switch_times);
    println!("x(T) err = {:e}", r.x_final()[0] - (t_end - 1.0/3.0));
    println!("timing {:?} iters {}", r.timing, r.total_iterations());
}
