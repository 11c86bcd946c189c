use fesd_cls::*;
fn main() {
    let a: Vec<f64> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let m = models::point_on_plane(0.5, a[5], 0.0).unwrap();
    let mut opts = ClsSimulatorOptions { step: a[4], n_steps: 1, max_step_halvings: 0, ..Default::default() };
    if std::env::var("VERB").is_ok() { for h in &mut opts.homotopies { h.verbosity = std::env::var("VERB").unwrap().parse().unwrap(); } }
    let mut sim = ClsSimulator::new(&m, opts).unwrap();
    let r = sim.simulate(&[a[0], a[1]], &[a[2], a[3]], &[], &[]).unwrap();
    println!("{:?}", r.steps);
    println!("{:?}", r.impacts);
}
