use fesd::sim::{models, IrkRepresentation, Simulator, SimulatorOptions};
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let which = std::env::args().nth(1).unwrap_or("friction".into());
    let (model, x0, opts) = if which == "friction" {
        let mut opts = SimulatorOptions { step: 5.0 / 120.0, n_steps: 120, ..Default::default() };
        opts.fesd.n_s = 2; opts.fesd.n_fe = 3; opts.fesd.irk_representation = IrkRepresentation::Differential;
        (models::friction_blocks()?, models::friction_blocks_x0().to_vec(), opts)
    } else {
        let mut o = SimulatorOptions { step: 0.05, n_steps: 200, ..Default::default() };
        o.fesd.n_s = 2;
        (models::relay_feedback(25.0, 0.05, 1.0)?, vec![0.0, -0.001, -0.02], o)
    };
    let mut opts = opts;
    if std::env::var("ZZ_NB").is_ok() { opts.neutral_start_when_nearly_biactive = false; }
    if std::env::var("ZZ_ND").is_ok() { opts.warm_start_duals = false; }
    if let Some(m) = std::env::var("ZZ_NM").ok().and_then(|v| v.parse().ok()) { opts.neutral_start_max_iter = m; }
    let mut sim = Simulator::new(&model, opts)?;
    let r = sim.simulate(&x0, &[], &[])?;
    let mut hist = std::collections::BTreeMap::new();
    for (i, s) in r.steps.iter().enumerate() {
        for (j, a) in s.attempts.iter().enumerate() {
            let ok = a.status.is_converged();
            if ok { *hist.entry((j, a.neutral_start, a.iterations)).or_insert(0) += 1; }
            if true { println!("step {i} t={:.4} pred={} attempt {j}: tier {} neutral {} ok {} its {}", s.t_start, s.switch_predicted, a.tier, a.neutral_start, ok, a.iterations); }
        }
    }
    println!("{hist:?}");
    println!("total {} wasted {}", r.total_iterations(), r.wasted_iterations());
    Ok(())
}
