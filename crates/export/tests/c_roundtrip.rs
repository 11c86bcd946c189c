//! The time-optimal car exported, built by plain `make` in an environment without
//! Rust, CasADi or fesd's cache, solves in C to the Rust solver's T with the same Ipopt
//! iterations, and re-solves from a new x0 (model predictive control) as Rust does; the
//! directory is self-contained (no libcasadi, run path `$ORIGIN/../lib`) and still runs
//! after it is moved.

use fesd_export::{export_ocp, ExportOptions};
use fesd_model::Representation;
use std::path::Path;
use std::process::{Command, Output};

fn make(dir: &Path, home: &Path) -> Output {
    Command::new("make").arg("-C").arg(dir).arg("test").env_clear().env("PATH", "/usr/bin:/bin").env("HOME", home).output().unwrap()
}

fn value(stdout: &str, name: &str) -> String {
    let prefix = format!("{name} = ");
    stdout.lines().find_map(|l| l.strip_prefix(&prefix)).unwrap_or_else(|| panic!("no {name} in {stdout}")).to_string()
}

#[test]
fn the_exported_car_solves_in_c_as_in_rust() {
    let ocp = fesd_ocp::problems::car_turbo(10, 3, Representation::Stewart).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("car");
    let exported = export_ocp(&ocp, &ExportOptions { name: "car_turbo".into(), out_dir: dir.clone() }).unwrap();
    let mut solver = exported.solver;
    let r = solver.solve().unwrap();
    assert!(r.status.is_converged());

    let home = tempfile::tempdir().unwrap();
    let out = make(&dir, home.path());
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(value(&stdout, "T_final"), "13.3333333");
    let t: f64 = value(&stdout, "T_final_exact").parse().unwrap();
    assert!((t - r.t_final).abs() <= 1e-8, "C {t} vs Rust {}", r.t_final);
    assert_eq!(value(&stdout, "ipopt_iterations").parse::<usize>().unwrap(), r.mpcc.total_iterations);

    // Model predictive control: a new x0, 800/9 m ahead, re-solved from the solution's
    // primal point and then armed with its duals: as in Rust, T = 80/9.
    let x0 = [800.0 / 9.0, 0.0];
    solver.set_x0(&x0).unwrap();
    let r2 = solver.solve().unwrap();
    assert!(solver.warm_start_from_last_solve());
    let r3 = solver.solve().unwrap();
    let out = Command::new("make").arg("-C").arg(&dir).arg("examples").env_clear().env("PATH", "/usr/bin:/bin").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mpc = Command::new(dir.join("examples/mpc")).args(x0.map(|v| format!("{v:?}"))).output().unwrap();
    let mpc = String::from_utf8_lossy(&mpc.stdout).into_owned();
    for (what, rust) in [("resolve", &r2), ("warm", &r3)] {
        let t: f64 = value(&mpc, &format!("{what}_T_final")).parse().unwrap();
        assert!((t - rust.t_final).abs() <= 1e-8 && (t - 80.0 / 9.0).abs() <= 1e-4, "{what}: C {t} vs Rust {}", rust.t_final);
        let iterations: usize = value(&mpc, &format!("{what}_ipopt_iterations")).parse().unwrap();
        assert_eq!(iterations, rust.mpcc.total_iterations, "{what}");
    }

    let exe = dir.join("examples/solve");
    let dynamic = String::from_utf8_lossy(&Command::new("readelf").arg("-d").arg(&exe).output().unwrap().stdout).into_owned();
    assert!(!dynamic.contains("libcasadi"), "{dynamic}");
    assert!(dynamic.contains("$ORIGIN/../lib"), "{dynamic}");
    let moved = tmp.path().join("elsewhere");
    std::fs::rename(&dir, &moved).unwrap();
    let run = Command::new(moved.join("examples/solve")).env_clear().env("PATH", "/usr/bin:/bin").output().unwrap();
    assert!(run.status.success());
    assert_eq!(value(&String::from_utf8_lossy(&run.stdout), "T_final"), "13.3333333");
}
