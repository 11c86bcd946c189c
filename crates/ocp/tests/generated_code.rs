//! The generated C of an OCP does not grow with the number of control intervals or
//! elements: the element kernel is mapped, and the patterns of the assembled problem
//! (which do grow) are stored beside the object as data. Sizes, not times, are
//! asserted; `cargo run --release --example ocp_scaling` prints the compile times.

use fesd_model::Representation;
use fesd_mpcc::{CompileOptions, Kernels};
use fesd_ocp::{problems, OcpSolver};

/// Bytes of the compiled C and of the constant tables of the car OCP with `n`
/// intervals of `n_fe` elements, built into a fresh cache (so it compiles).
fn generated_bytes(n: usize, n_fe: usize) -> (u64, u64) {
    let cache = tempfile::tempdir().unwrap();
    let compile = CompileOptions { cache_dir: Some(cache.path().to_path_buf()), ..Default::default() };
    let mut ocp = problems::car_turbo(n, n_fe, Representation::Stewart).unwrap();
    ocp.options.kernels = Kernels::Compiled;
    let solver = OcpSolver::with_compile_options(&ocp, &compile).unwrap();
    assert!(!solver.build_report().cache_hit);
    let (mut c, mut tables) = (0, 0);
    for entry in std::fs::read_dir(cache.path()).unwrap().flatten().filter(|e| e.path().is_dir()) {
        for file in std::fs::read_dir(entry.path()).unwrap().flatten() {
            let len = file.metadata().unwrap().len();
            match file.path().extension().and_then(|e| e.to_str()) {
                Some("c") => c += len,
                Some("tables") => tables += len,
                _ => {}
            }
        }
    }
    (c, tables)
}

#[test]
fn generated_c_is_flat_in_the_number_of_intervals_and_elements() {
    let (c10, t10) = generated_bytes(10, 2);
    let (c200, t200) = generated_bytes(200, 2);
    let (c10_fe6, _) = generated_bytes(10, 6);
    println!("C bytes: N = 10: {c10}, N = 200: {c200}, N = 10 with N_FE = 6: {c10_fe6}; tables {t10} -> {t200}");
    // The code is the same; only which small tables stay inline differs.
    assert!(c200 as f64 <= 1.1 * c10 as f64, "{c200} vs {c10}");
    assert!(c10_fe6 as f64 <= 1.1 * c10 as f64, "{c10_fe6} vs {c10}");
    // What grows is data: the patterns of the assembled Jacobian and Hessian.
    assert!(t200 > 10 * t10, "{t200} vs {t10}");
}
