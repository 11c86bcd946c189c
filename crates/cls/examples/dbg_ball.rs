use casadi::SX;
use fesd_cls::*;
use fesd_mpcc::{HomotopyOptions, MpccSolver};
fn main() {
    let args: Vec<f64> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let q = SX::sym("q", 1);
    let v = SX::sym("v", 1);
    let m = ClsModel::new(q.clone(), v).with_forces(SX::scalar(-9.81)).with_contact(Contact::new(q).restitution(args[3]));
    let mut o = ClsOptions::default();
    o.rho_impulse = args[4];
    let step = ClsStep::new(&m, &o).unwrap();
    let mut h = if std::env::var("SINGLE").is_ok() { fesd_sim::SimulatorOptions::single_nlp_homotopy() } else { HomotopyOptions::default() };
    h.verbosity = std::env::var("VERB").map(|v| v.parse().unwrap()).unwrap_or(1);
    let mut s = MpccSolver::new(&step.mpcc, h).unwrap();
    s.set_parameters(&[args[0], args[1], args[2]]).unwrap();
    s.set_initial_guess(&step.initial_guess(&[args[0]], &[args[1]])).unwrap();
    let r = s.solve();
    println!("{:?}", r.status);
    let out = step.outputs.eval_dense(&[&r.w, &[args[0], args[1], args[2]]]).unwrap();
    for o in out { println!("{:?}", o); }
}
