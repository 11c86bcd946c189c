//! The build-time path: generated kernels compiled into a static library (as a user's
//! build.rs would), linked into a plain C program that has no CasADi at run time, and
//! its output compared with CasADi's evaluation, called directly and through the
//! module's kernel table.

use casadi::{Function, SX};
use fesd_codegen::{build_support, CodegenContext};
use std::process::Command;

#[test]
fn static_library_links_into_a_plain_c_program() {
    let dir = tempfile::tempdir().unwrap();
    // What cargo sets for a build script.
    std::env::set_var("OUT_DIR", dir.path());
    std::env::set_var("TARGET", env!("FESD_CODEGEN_TARGET"));
    std::env::set_var("HOST", env!("FESD_CODEGEN_HOST"));
    std::env::set_var("OPT_LEVEL", "2");
    std::env::set_var("DEBUG", "false");

    let x = SX::sym("x", 3);
    let y = SX::vertcat(&[&(x.at(0).unwrap() * x.at(1).unwrap().exp()), &x.at(2).unwrap().sin()]).unwrap();
    let jac = SX::jacobian(&y, &x).unwrap();
    let f = Function::new("embedded_jac", &[("x", &x)], &[("y", &y), ("J", &jac)]).unwrap();
    let mut ctx = CodegenContext::new("embedded").unwrap();
    ctx.add(&f).unwrap();
    let out_dir = build_support::compile_static(&ctx.render().unwrap()).unwrap();
    assert!(out_dir.join("libembedded.a").is_file());
    assert!(out_dir.join("embedded.h").is_file());

    let main_c = dir.path().join("main.c");
    std::fs::write(
        &main_c,
        r#"#include <stdio.h>
#include <string.h>
#include "embedded.h"
int main(void) {
  casadi_real x[3] = {0.3, -1.2, 2.0};
  casadi_real y[2], J[3]; /* J: 3 structural nonzeros */
  const casadi_real* arg[embedded_jac_SZ_ARG] = {x};
  casadi_real* res[embedded_jac_SZ_RES] = {y, J};
  casadi_int iw[embedded_jac_SZ_IW + 1];
  casadi_real w[embedded_jac_SZ_W + 1];
  if (embedded_jac(arg, res, iw, w, 0)) return 1;
  printf("%.17g %.17g %.17g %.17g %.17g\n", y[0], y[1], J[0], J[1], J[2]);
  /* The same kernel found by name in the module's kernel table. */
  const fesd_kernel_table* table = embedded_kernel_table();
  if (table->abi_version != FESD_KERNEL_TABLE_ABI || table->n_kernels != 1) return 2;
  const fesd_kernel_entry* k = &table->kernels[0];
  if (strcmp(k->name, "embedded_jac") != 0 || strcmp(table->module, "embedded") != 0) return 3;
  long long int sz_arg, sz_res, sz_iw, sz_w;
  if (k->work(&sz_arg, &sz_res, &sz_iw, &sz_w) || sz_iw > embedded_jac_SZ_IW || sz_w > embedded_jac_SZ_W) return 4;
  if (k->n_in() != 1 || k->n_out() != 2 || k->sparsity_out(1)[0] != 2) return 5;
  casadi_real y2[2], J2[3];
  casadi_real* res2[embedded_jac_SZ_RES] = {y2, J2};
  k->incref();
  int mem = k->checkout();
  if (k->eval(arg, res2, iw, w, mem)) return 6;
  k->release(mem);
  k->decref();
  printf("%.17g %.17g %.17g %.17g %.17g\n", y2[0], y2[1], J2[0], J2[1], J2[2]);
  return 0;
}
"#,
    )
    .unwrap();
    let exe = dir.path().join("main");
    // The program (not the generated kernels) is held to strict C99.
    let status = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg("-I")
        .arg(&out_dir)
        .arg(&main_c)
        .arg(out_dir.join("libembedded.a"))
        .arg("-lm")
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success());
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success());
    let got: Vec<f64> = String::from_utf8(out.stdout).unwrap().split_whitespace().map(|s| s.parse().unwrap()).collect();
    assert_eq!(got.len(), 10);
    assert_eq!(got[..5], got[5..], "the kernel table's entry gives the direct call's values");
    let want = f.eval_nonzeros(&[&[0.3, -1.2, 2.0]]).unwrap();
    let want: Vec<f64> = want[0].iter().chain(&want[1][..3]).copied().collect();
    for (a, b) in got.iter().zip(&want) {
        assert!((a - b).abs() <= 1e-15 * (1.0 + b.abs()), "{a} vs {b}");
    }
}
