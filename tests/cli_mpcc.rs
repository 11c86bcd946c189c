//! The `fesd mpcc` command: known solutions through `--json`, and bad inputs that
//! end with a message and exit status 2.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn fesd(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fesd")).args(args).output().expect("run fesd");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn known_solutions_through_the_command() {
    let known: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(data("known_solutions.json")).unwrap()).unwrap();
    // MUMPS (Ipopt's default) and fesd's sparse LDLᵀ reach the same solutions.
    for (entry, linear_solver) in known.iter().flat_map(|e| [(e, "linear_solver=mumps"), (e, "linear_solver=ldl")]) {
        let file = data(entry["file"].as_str().unwrap());
        let (code, stdout, stderr) = fesd(&["mpcc", path_str(&file), "--json", "--ipopt", linear_solver]);
        assert_eq!(code, 0, "{stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(report["status"], "converged");
        assert!(report["comp_residual"].as_f64().unwrap() <= 1e-9);
        assert!((report["objective"].as_f64().unwrap() - entry["f_star"].as_f64().unwrap()).abs() <= 1e-8);
        let w: Vec<f64> = report["w"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        let stars: Vec<Vec<f64>> = if entry["w_star"][0].is_array() {
            entry["w_star"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect())
                .collect()
        } else {
            vec![entry["w_star"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect()]
        };
        let best = stars.iter().map(|s| s.iter().zip(&w).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max)).fold(f64::INFINITY, f64::min);
        assert!(best <= 1e-6, "{} ({linear_solver}): w = {w:?}", file.display());
        for key in ["homotopy_steps", "total_iterations", "wall_time", "ipopt_time", "own_time"] {
            assert!(report[key].is_number(), "{key} missing");
        }
    }
    // The summary line.
    let (code, stdout, _) = fesd(&["mpcc", path_str(&data("quadratic_cubic.json")), "--steering", "elastic_l1"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("quadratic_cubic.json: converged"), "{stdout}");
}

fn modified(name: &str, edit: impl FnOnce(&mut serde_json::Map<String, Value>)) -> tempfile::NamedTempFile {
    let text = std::fs::read_to_string(data(name)).unwrap().replace("-Infinity", "-1e308").replace("Infinity", "1e308");
    let mut v: Value = serde_json::from_str(&text).unwrap();
    edit(v.as_object_mut().unwrap());
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), v.to_string()).unwrap();
    f
}

#[test]
fn bad_inputs_exit_with_status_2_and_a_message() {
    let (code, _, stderr) = fesd(&["mpcc", "/nonexistent/problem.json"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot read /nonexistent/problem.json"), "{stderr}");

    let garbage = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(garbage.path(), "{ not json").unwrap();
    let (code, _, stderr) = fesd(&["mpcc", path_str(garbage.path())]);
    assert_eq!(code, 2);
    assert!(stderr.contains("malformed MPCC file"), "{stderr}");

    let lcp: Value =
        serde_json::from_str(&std::fs::read_to_string(data("lcp_selection.json")).unwrap().replace("Infinity", "1e308")).unwrap();
    let wrong_g = modified("quadratic_cubic.json", |o| {
        o.insert("g_fun".into(), lcp["g_fun"].clone());
    });
    let (code, _, stderr) = fesd(&["mpcc", path_str(wrong_g.path())]);
    assert_eq!(code, 2);
    assert!(stderr.contains("g_fun"), "{stderr}");

    // H of lcp_selection has one entry per pair as well, but of a 3-vector w: a size error.
    let wrong_h = modified("quadratic_cubic.json", |o| {
        o.insert("H_fun".into(), lcp["H_fun"].clone());
    });
    let (code, _, stderr) = fesd(&["mpcc", path_str(wrong_h.path())]);
    assert_eq!(code, 2);
    assert!(stderr.contains("H_fun"), "{stderr}");

    // G with two entries, H with one: built with the bindings, stored in the file.
    let qc: Value =
        serde_json::from_str(&std::fs::read_to_string(data("quadratic_cubic.json")).unwrap().replace("Infinity", "1e308")).unwrap();
    let w = casadi::SX::deserialize(qc["w"].as_str().unwrap()).unwrap();
    let p = casadi::SX::deserialize(qc["p"].as_str().unwrap()).unwrap();
    let two = casadi::Function::new("G", &[("w", &w), ("p", &p)], &[("G", &w)]).unwrap();
    let long_g = modified("quadratic_cubic.json", |o| {
        o.insert("G_fun".into(), Value::String(two.serialize().unwrap()));
    });
    let (code, _, stderr) = fesd(&["mpcc", path_str(long_g.path())]);
    assert_eq!(code, 2);
    assert!(stderr.contains("H (must have as many entries as G): expected 2, got 1"), "{stderr}");

    let reversed = modified("quadratic_cubic.json", |o| {
        o.insert("lbw".into(), serde_json::json!([0.0, 2.0]));
        o.insert("ubw".into(), serde_json::json!([1e308, 1.0]));
    });
    let (code, _, stderr) = fesd(&["mpcc", path_str(reversed.path())]);
    assert_eq!(code, 2);
    assert!(stderr.contains("w[1]"), "{stderr}");

    let (code, _, stderr) = fesd(&["mpcc", path_str(&data("quadratic_cubic.json")), "--kappa", "2"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("kappa"), "{stderr}");
    let (code, _, stderr) = fesd(&["mpcc", path_str(&data("quadratic_cubic.json")), "--ipopt", "no_such_option=1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no_such_option"), "{stderr}");
    let (code, _, stderr) = fesd(&["mpcc", path_str(&data("quadratic_cubic.json")), "--phase-one-radius=-1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("phase_one_radius"), "{stderr}");
}

#[test]
fn json_output_is_only_json_even_with_solver_output() {
    let file = data("quadratic_cubic.json");
    // -vv: the homotopy table and Ipopt's iteration log; both must go to stderr.
    let (code, stdout, stderr) = fesd(&["mpcc", path_str(&file), "--json", "-vv"]);
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{stdout}"));
    assert_eq!(report["status"], "converged");
    assert!(stderr.contains("Ipopt"), "Ipopt's log should be on stderr:\n{stderr}");
    // How the solver started: its phases (reading the file first) and its kernels.
    let phases = report["start_up"].as_array().expect("start_up phases");
    assert_eq!(phases[0]["phase"], "read the file");
    assert!(phases.iter().all(|p| p["seconds"].as_f64().is_some_and(|t| t >= 0.0)));
    assert!(report["kernels"] == "compiled" || report["kernels"] == "interpreted", "{}", report["kernels"]);
    assert!(report["prepared_from_cache"].is_boolean());
    // An option Ipopt rejects: nothing on stdout, the message on stderr, exit 2.
    let (code, stdout, stderr) = fesd(&["mpcc", path_str(&file), "--json", "--ipopt", "no_such_option=3"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty(), "stdout: {stdout}");
    assert!(stderr.contains("no_such_option"), "{stderr}");
}

#[test]
fn a_closed_stdout_ends_quietly() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_fesd"))
        .args(["mpcc", path_str(&data("quadratic_cubic.json")), "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end at once, like `| head -c0`.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn a_nosbench_car_solves_with_either_linear_solver() {
    let file = data("CARTIM_001_010_003_2_RIIA_STEWART_7_FIL_0.json");
    for linear_solver in ["linear_solver=mumps", "linear_solver=ldl"] {
        let (code, stdout, stderr) = fesd(&["mpcc", path_str(&file), "--json", "--ipopt", linear_solver]);
        assert_eq!(code, 0, "{stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(report["status"], "converged", "{linear_solver}");
        assert!((report["objective"].as_f64().unwrap() - 13.3341666667).abs() < 1e-6, "{linear_solver}: {}", report["objective"]);
    }
}
