//! Bad inputs give typed errors naming the problem, never a crash.

use casadi::{Function, SX};
use fesd_mpcc::{nosbench, HomotopyOptions, Mpcc, MpccError, MpccSolver};
use serde_json::json;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(name)
}

/// A NOSBENCH-layout file written from Rust: w ∈ R², no parameters, with the given
/// G and H (as functions of w) and bounds.
fn file_text(big_g: &SX, big_h: &SX, w: &SX, lbw: &str, ubw: &str) -> String {
    let p = SX::sym("p", 0);
    // f = (w0 − 2)² + (w1 + 1)²: minimum over 0 ≤ w0 ⊥ w1 ≥ 0 at (2, 0), f* = 1.
    let (a, b) = (w.at(0).unwrap() - 2.0, w.at(1).unwrap() + 1.0);
    let f = Function::new("f", &[("w", w), ("p", &p)], &[("f", &(&a * &a + &b * &b))]).unwrap();
    let g = Function::new("g", &[("w", w), ("p", &p)], &[("g", &SX::zeros(0, 1))]).unwrap();
    let gf = Function::new("G", &[("w", w), ("p", &p)], &[("G", big_g)]).unwrap();
    let hf = Function::new("H", &[("w", w), ("p", &p)], &[("H", big_h)]).unwrap();
    let v = json!({
        "w": w.serialize().unwrap(), "p": p.serialize().unwrap(),
        "w0": [0.5, 0.5], "ubw": "UBW", "lbw": "LBW", "p0": [], "lbg": [], "ubg": [],
        "g_fun": g.serialize().unwrap(), "G_fun": gf.serialize().unwrap(), "H_fun": hf.serialize().unwrap(),
        "augmented_objective_fun": f.serialize().unwrap(),
    });
    v.to_string().replace("\"UBW\"", ubw).replace("\"LBW\"", lbw)
}

#[test]
fn a_file_written_from_rust_reads_back_and_solves() {
    let w = SX::sym("w", 2);
    let text = file_text(&w.at(0).unwrap(), &w.at(1).unwrap(), &w, "[0, 0]", "[Infinity, Infinity]");
    let mpcc = nosbench::from_str(&text).unwrap();
    let r = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap().solve();
    assert!(r.status.is_converged());
    assert!((r.w[0] - 2.0).abs() < 1e-6 && r.w[1].abs() < 1e-6, "{:?}", r.w);
    assert!((r.objective - 1.0).abs() < 1e-8);
}

#[test]
fn missing_and_malformed_files() {
    let err = nosbench::read_file(&data("no_such_file.json")).unwrap_err();
    assert!(matches!(err, MpccError::Io { .. }), "{err}");
    assert!(err.to_string().contains("no_such_file.json"));
    let err = nosbench::from_str("{\"w\": [1, 2").unwrap_err();
    assert!(matches!(err, MpccError::Format(_)), "{err}");
    let err = nosbench::from_str("[1, 2]").unwrap_err();
    assert!(err.to_string().contains("object"), "{err}");
    let err = nosbench::from_str("{\"w\": \"garbage\"}").unwrap_err();
    assert!(err.to_string().contains("'w'"), "{err}");
    let text = std::fs::read_to_string(data("quadratic_cubic.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text.replace("Infinity", "1e300")).unwrap();
    let mut obj = v.as_object().unwrap().clone();
    obj.remove("G_fun");
    let err = nosbench::from_str(&serde_json::Value::Object(obj).to_string()).unwrap_err();
    assert!(err.to_string().contains("missing field 'G_fun'"), "{err}");
}

#[test]
fn function_inputs_that_do_not_match_w() {
    // g_fun of lcp_selection takes w ∈ R³; quadratic_cubic has w ∈ R².
    let qc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("quadratic_cubic.json")).unwrap().replace("Infinity", "1e300")).unwrap();
    let lcp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("lcp_selection.json")).unwrap().replace("Infinity", "1e300")).unwrap();
    let mut obj = qc.as_object().unwrap().clone();
    obj.insert("g_fun".into(), lcp["g_fun"].clone());
    let err = nosbench::from_str(&serde_json::Value::Object(obj).to_string()).unwrap_err();
    assert!(matches!(err, MpccError::Dimension { .. }), "{err}");
    assert!(err.to_string().contains("g_fun"), "{err}");
}

#[test]
fn complementarity_vectors_of_different_lengths() {
    let w = SX::sym("w", 2);
    let text = file_text(&w, &w.at(1).unwrap(), &w, "[0, 0]", "[Infinity, Infinity]");
    let err = nosbench::from_str(&text).unwrap_err();
    assert!(matches!(err, MpccError::Dimension { .. }), "{err}");
    assert!(err.to_string().contains("H"), "{err}");
}

#[test]
fn reversed_bounds_and_bad_options() {
    let w = SX::sym("w", 2);
    let text = file_text(&w.at(0).unwrap(), &w.at(1).unwrap(), &w, "[0, 2]", "[Infinity, 1]");
    let err = nosbench::from_str(&text).unwrap_err();
    assert!(matches!(err, MpccError::Bounds { what: "w", index: 1, .. }), "{err}");

    let mpcc = Mpcc::new(w.clone(), w.dot(&w).unwrap(), w.at(0).unwrap(), w.at(1).unwrap());
    for opts in [
        HomotopyOptions { kappa: 1.5, ..Default::default() },
        HomotopyOptions { sigma_0: -1.0, ..Default::default() },
        HomotopyOptions { comp_tol: 0.0, ..Default::default() },
        HomotopyOptions { n_homotopy: Some(0), ..Default::default() },
    ] {
        assert!(matches!(MpccSolver::new(&mpcc, opts), Err(MpccError::InvalidOption { .. })));
    }
    let mut bad = mpcc.clone();
    bad.w0 = vec![f64::NAN, 0.0];
    assert!(matches!(MpccSolver::new(&bad, HomotopyOptions::default()), Err(MpccError::NotFinite { .. })));
    let mut solver = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap();
    assert!(solver.set_initial_guess(&[1.0]).is_err());
    assert!(solver.set_parameters(&[1.0]).is_err());
}

/// The generated module's name is a C identifier outside CasADi's namespace; two MPCCs
/// of different names compile into two modules and solve side by side.
#[test]
fn module_names() {
    let w = SX::sym("w", 2);
    let (a, b) = (w.at(0).unwrap() - 2.0, w.at(1).unwrap() + 1.0);
    let mpcc = Mpcc::new(w.clone(), &a * &a + &b * &b, w.at(0).unwrap(), w.at(1).unwrap());
    for bad in ["", "9lives", "has space", "casadi_mine", "ü"] {
        let m = Mpcc { module: bad.into(), ..mpcc.clone() };
        let err = MpccSolver::new(&m, HomotopyOptions::default()).err().expect("refused");
        assert!(matches!(err, MpccError::InvalidOption { name: "module", .. }), "{bad:?}: {err}");
    }
    assert_eq!(mpcc.module, fesd_mpcc::DEFAULT_MODULE);
    let cache = tempfile::tempdir().unwrap();
    let compile = fesd_mpcc::CompileOptions { cache_dir: Some(cache.path().to_path_buf()), ..Default::default() };
    let mut solvers: Vec<MpccSolver> = ["first_mpcc", "second_mpcc"]
        .iter()
        .map(|name| {
            MpccSolver::with_compile_options(&Mpcc { module: (*name).into(), ..mpcc.clone() }, HomotopyOptions::default(), &compile)
        })
        .collect::<Result<_, _>>()
        .unwrap();
    for s in &mut solvers {
        let r = s.solve();
        assert!(r.status.is_converged() && (r.objective - 1.0).abs() < 1e-8, "{:?} {}", r.status, r.objective);
    }
    let mut modules: Vec<String> =
        std::fs::read_dir(cache.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    modules.retain(|m| m.contains("_mpcc-"));
    modules.sort();
    assert_eq!(modules.len(), 2, "{modules:?}");
    assert!(modules[0].starts_with("first_mpcc-") && modules[1].starts_with("second_mpcc-"), "{modules:?}");
    let object = cache.path().join(&modules[1]).join("libsecond_mpcc.so");
    let symbols = std::fs::read(object).unwrap();
    let has = |name: &[u8]| symbols.windows(name.len()).any(|w| w == name);
    assert!(has(b"second_mpcc_branch") && has(b"second_mpcc_kernel_table") && !has(b"fesd_mpcc"));
}

/// A caller's function of (w, p) built into the MPCC's module: evaluated compiled (and,
/// before its C is compiled, by CasADi) to the values CasADi gives, sparse outputs
/// filled in dense; a name the solver does not have is a typed error.
#[test]
fn outputs_built_into_the_module() {
    let w = SX::sym("w", 2);
    let p = SX::sym("p", 1);
    let (a, b) = (w.at(0).unwrap() - 2.0, w.at(1).unwrap() + 1.0);
    let mut mpcc = Mpcc::new(w.clone(), &a * &a + &b * &b, w.at(0).unwrap(), w.at(1).unwrap());
    mpcc.p = p.clone();
    mpcc.p0 = vec![3.0];
    mpcc.module = "outputs_mpcc".into();
    let gap = SX::sparse_zeros(1, 1).unwrap();
    let sparse = SX::vertcat(&[&(w.at(0).unwrap() * p.at(0).unwrap()), &gap, &w.at(1).unwrap().exp()]).unwrap();
    assert_eq!(sparse.nnz(), 2);
    let f = Function::new("outputs_mpcc_values", &[("w", &w), ("p", &p)], &[("d", &sparse), ("s", &(w.at(0).unwrap() + 1.0))]).unwrap();
    let want = f.eval_dense(&[&[2.0, 0.0], &[3.0]]).unwrap();
    assert_eq!(want[0], vec![6.0, 0.0, 1.0]);
    let cache = tempfile::tempdir().unwrap();
    let compile = fesd_mpcc::CompileOptions { cache_dir: Some(cache.path().to_path_buf()), ..Default::default() };
    for kernels in [fesd_mpcc::Kernels::Interpreted, fesd_mpcc::Kernels::Compiled] {
        let mut s = MpccSolver::with_outputs(&mpcc, HomotopyOptions::default(), &compile, kernels, std::slice::from_ref(&f)).unwrap();
        assert_eq!(s.build_report().interpreted, kernels == fesd_mpcc::Kernels::Interpreted);
        let r = s.solve();
        assert!(r.status.is_converged());
        let got = s.eval_output("outputs_mpcc_values", &r.w, &[3.0]).unwrap();
        let at_solution = f.eval_dense(&[&r.w, &[3.0]]).unwrap();
        assert_eq!(got, at_solution, "{kernels:?}");
        let err = s.eval_output("ocp_outputs", &r.w, &[3.0]).unwrap_err();
        assert!(matches!(err, MpccError::InvalidOption { name: "output", .. }), "{err}");
    }
}
