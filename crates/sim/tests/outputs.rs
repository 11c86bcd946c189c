//! CSV, JSON and plot outputs of a simulation.

use fesd_sim::{models, SimulationResult, Simulator, SimulatorOptions};

#[test]
fn csv_json_and_plots_are_written() {
    let opts = SimulatorOptions { step: std::f64::consts::FRAC_PI_4 / 3.0, n_steps: 3, ..Default::default() };
    let r = Simulator::new(&models::scalar_switch(3.0, 1.0), opts).unwrap().simulate(&[-1.0], &[], &[]).unwrap();
    // Algebraic variables at every stage: Stewart (θ1, θ2, λ1, λ2, μ); θ sums to one.
    assert_eq!(r.z_stage.len(), r.t_stage.len());
    for (z, th) in r.z_stage.iter().zip(&r.theta_stage) {
        assert_eq!(z.len(), 5);
        assert_eq!(&z[..2], &th[..]);
        assert!((z[0] + z[1] - 1.0).abs() < 1e-8);
    }
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("traj.csv");
    r.write_csv(&csv).unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "t,x_0,h");
    assert_eq!(lines.len(), 1 + r.t.len());
    let last: Vec<f64> = lines.last().unwrap().split(',').filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
    assert!((last[1] - r.x_final()[0]).abs() < 1e-15);

    let json = dir.path().join("traj.json");
    r.write_json(&json).unwrap();
    let back: SimulationResult = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(back.switch_times, r.switch_times);
    assert_eq!(back.x, r.x);

    for name in ["traj.png", "traj.svg"] {
        let p = dir.path().join(name);
        r.plot(&p, "ẋ ∈ 2 − sign(x)").unwrap();
        assert!(std::fs::metadata(&p).unwrap().len() > 1000, "{name} is too small");
    }
    let bad = dir.path().join("no_such_dir").join("x.csv");
    assert!(r.write_csv(&bad).is_err());
}
