//! A one-state model exported: its rendered header, glue and Makefile are compared
//! with the committed snapshots (`FESD_BLESS=1` rewrites them), and a C program
//! (`tests/c/bad_input.c`) feeds the solver every kind of bad input, built once plainly
//! and once under AddressSanitizer and UBSan with 100 rounds of create, solve and free.

use casadi::SX;
use fesd_export::{export_ocp, ExportOptions};
use fesd_model::{PssModel, Subsystem};
use fesd_ocp::Ocp;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

/// x' = (u − 1)/p where x > 0 and (u + 1)/p where x < 0 (a sliding mode at x = 0 for
/// |u| < 1), from x0 = 1 over T = 2 in N = 4 intervals, minimizing ∫x² + u².
fn one_state() -> Ocp {
    let (x, u, p) = (SX::sym("x", 1), SX::sym("u", 1), SX::sym("p", 1));
    let up = (&u - 1.0) / &p;
    let down = (&u + 1.0) / &p;
    let model = PssModel::new(x.clone()).with_controls(u.clone()).with_parameters(p).with_subsystem(Subsystem::new(
        x.clone(),
        vec![vec![1], vec![-1]],
        vec![up, down],
    ));
    let mut ocp = Ocp::new(model, 2.0, 4, &[1.0]).with_control_bounds(&[-2.0], &[2.0]).with_lagrange(&x * &x + &u * &u);
    ocp.p = vec![1.0];
    ocp
}

fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// `text` with the bodies and lengths of the record and table arrays left out: they
/// change with every option and kernel; the snapshot keeps the code around them.
fn without_array_bodies(text: &str) -> String {
    let mut out = String::new();
    let mut in_array = false;
    for line in text.lines() {
        if in_array {
            if line == "};" {
                out.push_str("  /* … */\n};\n");
                in_array = false;
            }
            continue;
        }
        in_array = line.starts_with("static const") && line.ends_with("= {");
        if in_array || line.contains(" bytes") {
            out.extend(line.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[test]
fn one_state_export_snapshots_and_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("one_state");
    let exported = export_ocp(&one_state(), &ExportOptions { name: "one_state".into(), out_dir: dir.clone() }).unwrap();
    let record = exported.solver.mpcc_solver().record().to_json();

    // Snapshots of the rendered files.
    let bless = std::env::var_os("FESD_BLESS").is_some();
    for file in ["include/one_state_solver.h", "src/one_state_solver.c", "Makefile", "CMakeLists.txt"] {
        let rendered = without_array_bodies(&std::fs::read_to_string(dir.join(file)).unwrap());
        let snapshot = snapshot_dir().join(Path::new(file).file_name().unwrap());
        if bless {
            std::fs::write(&snapshot, &rendered).unwrap();
        }
        let want = std::fs::read_to_string(&snapshot).unwrap_or_default();
        assert!(rendered == want, "{file} differs from {} (FESD_BLESS=1 rewrites it):\n{rendered}", snapshot.display());
    }
    // The record array holds the solver's record, byte for byte.
    let glue = std::fs::read_to_string(dir.join("src/one_state_solver.c")).unwrap();
    let body = glue.split("one_state_record[").nth(1).and_then(|s| s.split("= {").nth(1)).and_then(|s| s.split("};").next()).unwrap();
    let bytes: Vec<u8> = body.split(',').map(|b| b.trim().parse().unwrap()).collect();
    assert_eq!(String::from_utf8(bytes).unwrap(), record);

    // The header also compiles as C++.
    let cxx = Command::new("c++")
        .args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-x", "c++"])
        .arg("-I")
        .arg(dir.join("include"))
        .arg(dir.join("include/one_state_solver.h"))
        .output()
        .unwrap();
    assert!(cxx.status.success(), "{}", String::from_utf8_lossy(&cxx.stderr));

    let make = Command::new("make").arg("-C").arg(&dir).env_clear().env("PATH", "/usr/bin:/bin").output().unwrap();
    assert!(make.status.success(), "{}", String::from_utf8_lossy(&make.stderr));
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/bad_input.c");
    let plain = tmp.path().join("bad_input");
    let kernels_header = format!("-I{}", dir.join("src").display());
    common::link_c_program(&source, &[(&dir, "one_state")], &plain, &[&kernels_header]);
    let run = Command::new(&plain).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success() && stdout.contains("bad_input = ok"), "{stdout}{}", String::from_utf8_lossy(&run.stderr));

    // Under the sanitizers (fesd's runtime and the SDK's libraries are not
    // instrumented; the leak checker sees every allocation).
    let sanitized = tmp.path().join("bad_input_asan");
    let sanitizers = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", &kernels_header];
    common::link_c_program(&source, &[(&dir, "one_state")], &sanitized, &sanitizers);
    let run = Command::new(&sanitized).arg("100").env("ASAN_OPTIONS", "detect_leaks=1").output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success() && stdout.contains("bad_input = ok"), "{stdout}{}", String::from_utf8_lossy(&run.stderr));
}
