//! A plain C99 program solves an MPCC through fesd's C ABI: the module's shared object
//! (its kernel table and table binding) and the runtime `libfesd_capi.a` linked, the
//! record and constant tables read from files. Its solution is bitwise the Rust solver's; every bad input
//! gets its error code and a message, none aborts.

use fesd_mpcc::{CompileOptions, HomotopyOptions, Kernels, MpccSolver};
use std::path::PathBuf;
use std::process::Command;

const MAIN: &str = r#"#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fesd.h"
#include "capi_mpcc.h"

int capi_mpcc_bind_tables(const long long* ints, long long n_ints, const double* reals, long long n_reals);

static char* slurp(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  char* buf;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc(*len + 1);
  if (fread(buf, 1, *len, f) != *len) { fclose(f); free(buf); return NULL; }
  fclose(f);
  return buf;
}

#define EXPECT(call, code) do { int rc_ = (call); if (rc_ != (code)) { \
  printf("FAILED %s: %d, expected %d\n", #call, rc_, (code)); return 1; } } while (0)

int main(int argc, char** argv) {
  size_t record_len = 0, tables_len = 0, n_w = 0, n_p = 0, i;
  char* record;
  unsigned char* tables;
  char error[256];
  fesd_problem problem;
  fesd_solver* solver = NULL;
  fesd_solve_info info;
  double p = 2.0, nan_p = NAN, w[3], s, x0[3] = {0.5, 0.5, 0.0};
  if (argc != 3) return 2;
  record = slurp(argv[1], &record_len);
  tables = (unsigned char*)slurp(argv[2], &tables_len);
  if (!record || !tables) return 3;
  problem.abi_version = FESD_ABI_VERSION;
  problem.kernel_table = capi_mpcc_kernel_table();
  problem.bind_tables = capi_mpcc_bind_tables;
  problem.tables = tables;
  problem.tables_len = tables_len;
  problem.record = record;
  problem.record_len = record_len;

  /* Bad problems: an error code and a message, no solver. */
  EXPECT(fesd_solver_create(NULL, NULL, &solver, error, sizeof error), FESD_ERR_NULL);
  EXPECT(fesd_solver_create(&problem, NULL, NULL, NULL, 0), FESD_ERR_NULL);
  problem.abi_version = 99;
  EXPECT(fesd_solver_create(&problem, NULL, &solver, error, sizeof error), FESD_ERR_ABI);
  if (solver != NULL || strstr(error, "ABI") == NULL) { printf("FAILED abi message: %s\n", error); return 1; }
  problem.abi_version = FESD_ABI_VERSION;
  problem.record_len = 10;
  EXPECT(fesd_solver_create(&problem, NULL, &solver, error, sizeof error), FESD_ERR_ABI);
  problem.record_len = record_len;
  problem.tables = NULL;
  EXPECT(fesd_solver_create(&problem, NULL, &solver, error, sizeof error), FESD_ERR_NULL);
  problem.tables = tables;

  EXPECT(fesd_solver_create(&problem, NULL, &solver, error, sizeof error), FESD_OK);
  EXPECT(fesd_solver_sizes(solver, &n_w, &n_p), FESD_OK);
  if (n_w != 3 || n_p != 1) { printf("FAILED sizes %zu %zu\n", n_w, n_p); return 1; }

  /* Bad calls on a good solver. */
  EXPECT(fesd_solver_get_w(solver, w, 3), FESD_ERR_STATE);
  EXPECT(fesd_solver_warm_start_from_last_solve(solver), FESD_ERR_STATE);
  EXPECT(fesd_solver_set_parameters(solver, &p, 2), FESD_ERR_LENGTH);
  if (strstr(fesd_solver_last_error(solver), "1 expected") == NULL) { printf("FAILED message\n"); return 1; }
  EXPECT(fesd_solver_set_parameters(solver, &nan_p, 1), FESD_ERR_NOT_FINITE);
  EXPECT(fesd_solver_set_parameters(solver, NULL, 1), FESD_ERR_NULL);
  EXPECT(fesd_solver_set_option(solver, "kappa", "2"), FESD_ERR_OPTION);
  EXPECT(fesd_solver_set_option(solver, "no_such_option", "1"), FESD_ERR_OPTION);
  EXPECT(fesd_solver_set_option(solver, "kappa", "not json"), FESD_ERR_OPTION);
  EXPECT(fesd_solver_set_option(solver, NULL, "1"), FESD_ERR_NULL);
  EXPECT(fesd_solver_solve(NULL, &info), FESD_ERR_NULL);
  if (fesd_solver_last_error(NULL) != NULL) return 1;
  fesd_solver_free(NULL);

  EXPECT(fesd_solver_set_parameters(solver, &p, 1), FESD_OK);
  EXPECT(fesd_solver_solve(solver, &info), FESD_OK);
  EXPECT(fesd_solver_get_w(solver, w, 2), FESD_ERR_LENGTH);
  EXPECT(fesd_solver_get_w(solver, w, 3), FESD_OK);
  EXPECT(fesd_solver_get_output(solver, "capi_mpcc_sum", 0, &s, 1), FESD_OK);
  EXPECT(fesd_solver_get_output(solver, "capi_mpcc_sum", 1, &s, 1), FESD_ERR_OPTION);
  EXPECT(fesd_solver_get_output(solver, "missing", 0, &s, 1), FESD_ERR_OPTION);
  printf("cold %d %lld %lld %.17g %.17g", info.status, (long long)info.ipopt_iterations,
         (long long)info.homotopy_steps, info.objective, s);
  for (i = 0; i < 3; i++) printf(" %.17g", w[i]);
  printf("\n");

  /* A warm re-solve from the same start, and a cold one from x0 again. */
  EXPECT(fesd_solver_warm_start_from_last_solve(solver), FESD_OK);
  EXPECT(fesd_solver_solve(solver, &info), FESD_OK);
  printf("warm %lld\n", (long long)info.ipopt_iterations);
  EXPECT(fesd_solver_set_initial_guess(solver, x0, 3), FESD_OK);
  EXPECT(fesd_solver_set_option(solver, "comp_tol", "1e-10"), FESD_OK);
  EXPECT(fesd_solver_solve(solver, &info), FESD_OK);
  printf("tight %.3e\n", info.comp_residual);
  fesd_solver_free(solver);
  free(record);
  free(tables);
  return 0;
}
"#;

#[test]
fn a_c_program_solves_through_the_abi() {
    let cache = tempfile::tempdir().unwrap();
    // A low threshold moves the module's patterns out of its C: the program binds them.
    let compile = CompileOptions { cache_dir: Some(cache.path().to_path_buf()), tables_out_of_line: Some(4), ..Default::default() };
    let (known, out) = fesd_mpcc::problems::parametric_with_output("capi_mpcc").unwrap();
    let mpcc = known.mpcc;
    let mut rust = MpccSolver::with_outputs(&mpcc, HomotopyOptions::default(), &compile, Kernels::Compiled, &[out]).unwrap();
    let want = rust.solve();
    assert!(want.status.is_converged());
    let module = rust.library_path().unwrap().to_path_buf();
    let tables = module.with_extension("tables");
    assert!(std::fs::read_to_string(module.with_file_name("capi_mpcc.c")).unwrap().contains("capi_mpcc_bind_tables"));

    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.json");
    std::fs::write(&record, rust.record().to_json()).unwrap();
    let main_c = dir.path().join("main.c");
    std::fs::write(&main_c, MAIN).unwrap();
    let exe = dir.path().join("main");
    let (capi, native_libs) = fesd_export::runtime().unwrap();
    let sdk = casadi_sdk::Sdk::locate().unwrap();
    let status = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg("-I")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../capi/include"))
        .arg("-I")
        .arg(module.parent().unwrap())
        .arg(&main_c)
        .arg(&module)
        .arg(&capi)
        .arg("-L")
        .arg(&sdk.lib_dir)
        .arg(format!("-Wl,-rpath-link,{}", sdk.lib_dir.display()))
        .args(fesd_export::link_arguments(&native_libs, &sdk.lib_dir).0)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success());
    let paths = [module.parent().unwrap(), &sdk.lib_dir];
    let ld = std::env::join_paths(paths).unwrap();
    let run = Command::new(&exe).arg(&record).arg(&tables).env("LD_LIBRARY_PATH", ld).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    let cold: Vec<&str> = stdout.lines().find(|l| l.starts_with("cold")).unwrap().split_whitespace().collect();
    assert_eq!(cold[1], "0");
    assert_eq!(cold[2].parse::<usize>().unwrap(), want.total_iterations);
    assert_eq!(cold[3].parse::<usize>().unwrap(), want.steps.len());
    assert_eq!(cold[4].parse::<f64>().unwrap(), want.objective);
    let w: Vec<f64> = cold[6..9].iter().map(|v| v.parse().unwrap()).collect();
    assert_eq!(w, want.w, "bitwise the Rust solver's solution");
    assert_eq!(cold[5].parse::<f64>().unwrap(), want.w.iter().sum::<f64>());
    let warm: usize = stdout.lines().find_map(|l| l.strip_prefix("warm ")).unwrap().parse().unwrap();
    assert!(warm < want.total_iterations, "a warm re-solve needs fewer iterations: {warm} vs {}", want.total_iterations);
    let tight: f64 = stdout.lines().find_map(|l| l.strip_prefix("tight ")).unwrap().parse().unwrap();
    assert!(tight <= 1e-10, "{tight}");
}
