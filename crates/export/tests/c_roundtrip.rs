//! The time-optimal car exported, built by plain `make` in an environment without
//! Rust, CasADi or fesd's cache, solves in C to the Rust solver's T with the same Ipopt
//! iterations, and re-solves from a new x0 (model predictive control) as Rust does; the
//! directory is self-contained (no libcasadi, run path `$ORIGIN/../lib`) and still runs
//! after it is moved.

use fesd_export::{export_ocp, ExportOptions};
use fesd_model::Representation;
use std::path::Path;
use std::process::{Command, Output};

mod common;

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

    let licenses = std::fs::read_to_string(dir.join("LICENSES/README")).unwrap();
    for library in ["libipopt.so.3", "libhighs.so.1", "libcoinmumps.so.3", "libgfortran"] {
        assert!(licenses.contains(library), "LICENSES/README misses {library}:\n{licenses}");
    }
    assert!(dir.join("LICENSES/ipopt/LICENSE").is_file() && dir.join("README.md").is_file());
    assert_manifest_matches(&dir);
    assert_no_machine_paths(&dir, &[tmp.path(), &casadi_sdk::cache_root(), Path::new(env!("CARGO_MANIFEST_DIR"))]);

    let home = tempfile::tempdir().unwrap();
    let out = make(&dir, home.path());
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(value(&stdout, "T_final"), "13.3333333");
    let t: f64 = value(&stdout, "T_final_exact").parse().unwrap();
    assert!((t - r.t_final).abs() <= 1e-8, "C {t} vs Rust {}", r.t_final);
    assert_eq!(value(&stdout, "ipopt_iterations").parse::<usize>().unwrap(), r.mpcc.total_iterations);
    assert_same_trajectory(&stdout, &r);
    // The finish's certificate, as fesd.h numbers it.
    let certified = ["unknown", "s_stationary", "b_stationary", "not_b_stationary", "locally_infeasible"];
    let rust = r.mpcc.finish.as_ref().map_or("unknown", |f| f.stationarity.name());
    assert_eq!(certified[value(&stdout, "stationarity").parse::<usize>().unwrap()], rust);

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

    // The closed loop of examples/mpc: ten warm re-solves, each from the previous
    // plan's state at the end of its first interval, as the same loop in Rust; each
    // needs fewer iterations than a cold solve from the same x0.
    let mpc = Command::new(dir.join("examples/mpc")).output().unwrap();
    let mpc = String::from_utf8_lossy(&mpc.stdout).into_owned();
    let compile = fesd_mpcc::CompileOptions::default();
    let (mut warm, mut cold) = (
        fesd_ocp::OcpSolver::with_module(&ocp, &compile, "car_turbo").unwrap(),
        fesd_ocp::OcpSolver::with_module(&ocp, &compile, "car_turbo").unwrap(),
    );
    assert!(warm.wait_for_compiled_kernels() && cold.wait_for_compiled_kernels());
    let mut plan = warm.solve().unwrap();
    let first_end = ocp.fe_counts().unwrap().iter().next().copied().unwrap();
    for k in 1..=10 {
        let x0 = plan.x[first_end].clone();
        warm.set_x0(&x0).unwrap();
        assert!(warm.warm_start_from_last_solve());
        plan = warm.solve().unwrap();
        cold.reset_guess().unwrap();
        cold.set_x0(&x0).unwrap();
        let from_scratch = cold.solve().unwrap();
        let t: f64 = value(&mpc, &format!("step{k}_T_final")).parse().unwrap();
        assert!((t - plan.t_final).abs() <= 1e-8, "step {k}: C {t} vs Rust {}", plan.t_final);
        let iterations: usize = value(&mpc, &format!("step{k}_ipopt_iterations")).parse().unwrap();
        assert_eq!(iterations, plan.mpcc.total_iterations, "step {k}");
        let cold_iterations: usize = value(&mpc, &format!("step{k}_cold_ipopt_iterations")).parse().unwrap();
        assert_eq!(cold_iterations, from_scratch.mpcc.total_iterations, "step {k} cold");
        assert!(iterations < cold_iterations, "step {k}: warm {iterations} vs cold {cold_iterations}");
    }

    // A state-trajectory guess from C (the states at the element boundaries) starts the
    // same solve as Rust's set_state_guess of the trajectory through them.
    let t_guess = ocp.horizon.guess();
    solver.set_x0(&[0.0, 0.0]).unwrap();
    solver.set_state_guess(&|t| vec![200.0 * t / t_guess, 10.0]).unwrap();
    let r4 = solver.solve().unwrap();
    let source = tmp.path().join("state_guess.c");
    std::fs::write(&source, STATE_GUESS).unwrap();
    let exe = tmp.path().join("state_guess");
    common::link_c_program(&source, &[(&dir, "car_turbo")], &exe, &[]);
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{stdout}{}", String::from_utf8_lossy(&run.stderr));
    let (iterations, t) = value(&stdout, "guess").split_once(' ').map(|(a, b)| (a.to_string(), b.to_string())).unwrap();
    assert_eq!(iterations.parse::<usize>().unwrap(), r4.mpcc.total_iterations);
    assert!((t.parse::<f64>().unwrap() - r4.t_final).abs() <= 1e-8, "C {t} vs Rust {}", r4.t_final);

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

/// The trajectory and cost examples/solve printed are Rust's result (for the car, what
/// examples/car_turbo.rs writes to its JSON) to 1e-8.
fn assert_same_trajectory(stdout: &str, r: &fesd_ocp::OcpResult) {
    let rust_trajectory = [("states", r.x.concat()), ("controls", r.u.concat()), ("times", r.t.clone())];
    for (name, rust) in rust_trajectory {
        let c: Vec<f64> = value(stdout, name).split_whitespace().map(|v| v.parse().unwrap()).collect();
        assert_eq!(c.len(), rust.len(), "{name}");
        let gap = c.iter().zip(&rust).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(gap <= 1e-8, "{name}: C and Rust differ by {gap:e}");
    }
    let cost: f64 = value(stdout, "cost").parse().unwrap();
    assert!((cost - r.cost).abs() <= 1e-8 * r.cost.abs().max(1.0), "cost: C {cost} vs Rust {}", r.cost);
}

/// The rigid-body OCP of the front end's docs (a box pushed against Coulomb friction,
/// FESD-J) from C: cost 9.21404, Rust's iterations and trajectory.
#[test]
fn the_pushed_box_solves_in_c() {
    let ocp = fesd_ocp::problems::pushed_box(10).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("box");
    let mut solver = export_ocp(&ocp, &ExportOptions { name: "pushed_box".into(), out_dir: dir.clone() }).unwrap().solver;
    let r = solver.solve().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = make(&dir, home.path());
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let cost: f64 = value(&stdout, "cost").parse().unwrap();
    assert!((cost - 9.21404).abs() < 1e-4, "{cost}");
    assert_eq!(value(&stdout, "ipopt_iterations").parse::<usize>().unwrap(), r.mpcc.total_iterations);
    assert_same_trajectory(&stdout, &r);
}

/// manifest.json names the versions and sizes, and holds the SHA-256 of every file of
/// the directory (but itself), each matching the file.
fn assert_manifest_matches(dir: &Path) {
    use sha2::{Digest, Sha256};
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let header = std::fs::read_to_string(dir.join("include/fesd.h")).unwrap();
    let abi: u32 = header.lines().find_map(|l| l.strip_prefix("#define FESD_ABI_VERSION ")).unwrap().trim().parse().unwrap();
    assert_eq!(manifest["abi_version"], abi);
    assert_eq!(manifest["sizes"]["nx"], 2);
    assert_eq!(manifest["sizes"]["n_elements"], 30);
    let hashes = manifest["sha256"].as_object().unwrap();
    for file in ["include/fesd.h", "src/car_turbo_solver.c", "lib/libfesd_capi.a", "lib/libipopt.so.3", "Makefile", "CMakeLists.txt"] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let hash: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hashes[file], hash.as_str(), "{file}");
    }
    assert!(!hashes.contains_key("manifest.json"));
}

/// No file under `dir` names one of `paths` (or the user's home): the directory works
/// on another machine and tells nothing of this one.
fn assert_no_machine_paths(dir: &Path, paths: &[&Path]) {
    let home = std::env::var("HOME").unwrap_or_default();
    let mut needles: Vec<String> = paths.iter().map(|p| p.canonicalize().unwrap_or(p.to_path_buf()).display().to_string()).collect();
    needles.extend(paths.iter().map(|p| p.display().to_string()));
    needles.extend((home.len() > 1).then_some(home));
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
                continue;
            }
            // Binary files too: ASCII needles survive the lossy conversion.
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            for needle in &needles {
                assert!(!text.contains(needle.as_str()), "{} names {needle}", path.display());
            }
        }
    }
}

const STATE_GUESS: &str = r#"#include <stdio.h>
#include "car_turbo_solver.h"

int main(void) {
  car_turbo_solver* s = 0;
  fesd_solve_info info;
  double x[CAR_TURBO_STATES_LEN], t = 0.0;
  int i;
  /* From (0, 10) to (200, 10) at constant speed over the nominal grid. */
  for (i = 0; i <= CAR_TURBO_N_ELEMENTS; i++) {
    x[CAR_TURBO_NX * i] = 200.0 * i / CAR_TURBO_N_ELEMENTS;
    x[CAR_TURBO_NX * i + 1] = 10.0;
  }
  if (car_turbo_create(0, &s, 0, 0) != FESD_OK) return 1;
  if (car_turbo_set_state_guess(s, x, CAR_TURBO_STATES_LEN - 1) != FESD_ERR_LENGTH) return 2;
  if (car_turbo_set_state_guess(s, x, CAR_TURBO_STATES_LEN) != FESD_OK) return 3;
  if (car_turbo_solve(s, &info) != FESD_OK || car_turbo_get_t_final(s, &t) != FESD_OK) return 4;
  printf("guess = %lld %.17g\n", (long long)info.ipopt_iterations, t);
  car_turbo_free(s);
  return 0;
}
"#;

const TWO: &str = r#"#include <stdio.h>
#include "car_turbo_solver.h"
#include "sliding_mode_solver.h"

static fesd_solver* create(void (*fill)(fesd_problem*)) {
  fesd_problem problem;
  fesd_solver* solver = 0;
  char error[256];
  fill(&problem);
  if (fesd_solver_create(&problem, 0, &solver, error, sizeof error) != FESD_OK) fprintf(stderr, "%s\n", error);
  return solver;
}

int main(void) {
  fesd_solver* car1 = create(car_turbo_problem);
  fesd_solver* car2 = create(car_turbo_problem);
  fesd_solver* sliding = create(sliding_mode_problem);
  fesd_solve_info a, b, c;
  double t1 = 0.0, t2 = 0.0;
  if (!car1 || !car2 || !sliding) return 1;
  /* Interleaved: each solve only touches its own solver. */
  if (fesd_solver_solve(car1, &a) != FESD_OK || fesd_solver_solve(sliding, &c) != FESD_OK) return 1;
  if (fesd_solver_solve(car2, &b) != FESD_OK) return 1;
  fesd_solver_get_output(car1, CAR_TURBO_OUTPUTS, CAR_TURBO_OUTPUT_T, &t1, 1);
  fesd_solver_get_output(car2, CAR_TURBO_OUTPUTS, CAR_TURBO_OUTPUT_T, &t2, 1);
  printf("car1 = %lld %.17g\ncar2 = %lld %.17g\nsliding = %lld %.10g\n", (long long)a.ipopt_iterations, t1,
         (long long)b.ipopt_iterations, t2, (long long)c.ipopt_iterations, c.objective);
  fesd_solver_free(car1);
  fesd_solver_free(car2);
  fesd_solver_free(sliding);
  return 0;
}
"#;

/// Two exports (the car and the sliding-mode OCP) link into one C program against one
/// runtime without clashing symbols; two instances of the car, interleaved with the
/// other problem in one thread, each give the separate run's result.
#[test]
fn two_exports_and_two_instances_in_one_program() {
    let tmp = tempfile::tempdir().unwrap();
    let car = tmp.path().join("car");
    let sliding = tmp.path().join("sliding");
    let car_ocp = fesd_ocp::problems::car_turbo(10, 3, Representation::Stewart).unwrap();
    let mut car_rust = export_ocp(&car_ocp, &ExportOptions { name: "car_turbo".into(), out_dir: car.clone() }).unwrap().solver;
    let sliding_ocp = fesd_ocp::problems::sliding_mode().unwrap();
    let mut sliding_rust =
        export_ocp(&sliding_ocp, &ExportOptions { name: "sliding_mode".into(), out_dir: sliding.clone() }).unwrap().solver;
    let (rc, rs) = (car_rust.solve().unwrap(), sliding_rust.solve().unwrap());
    for dir in [&car, &sliding] {
        let out = Command::new("make").arg("-C").arg(dir).env_clear().env("PATH", "/usr/bin:/bin").output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let main_c = tmp.path().join("two.c");
    std::fs::write(&main_c, TWO).unwrap();
    let exe = tmp.path().join("two");
    common::link_c_program(&main_c, &[(&car, "car_turbo"), (&sliding, "sliding_mode")], &exe, &[]);
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{stdout}{}", String::from_utf8_lossy(&run.stderr));
    for instance in ["car1", "car2"] {
        let v = value(&stdout, instance);
        let (iterations, t) = v.split_once(' ').unwrap();
        assert_eq!(iterations.parse::<usize>().unwrap(), rc.mpcc.total_iterations, "{instance}");
        assert!((t.parse::<f64>().unwrap() - rc.t_final).abs() <= 1e-8, "{instance}: {t}");
    }
    let v = value(&stdout, "sliding");
    let (iterations, objective) = v.split_once(' ').unwrap();
    assert_eq!(iterations.parse::<usize>().unwrap(), rs.mpcc.total_iterations);
    assert!((objective.parse::<f64>().unwrap() - rs.objective).abs() <= 1e-8 * rs.objective.abs());
}
