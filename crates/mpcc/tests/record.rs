//! A solver rebuilt from its record and its module alone (no CasADi, no compiler)
//! solves exactly as the solver built from the expressions; damaged or mismatched
//! records are typed errors.

use casadi::SX;
use fesd_codegen::KernelLibrary;
use fesd_mpcc::{CompileOptions, HomotopyOptions, Kernels, Mpcc, MpccError, MpccRecord, MpccSolver};

#[test]
fn a_solver_from_its_record_and_module_solves_identically() {
    let cache = tempfile::tempdir().unwrap();
    let compile = CompileOptions { cache_dir: Some(cache.path().to_path_buf()), ..Default::default() };
    let (known, out) = fesd_mpcc::problems::parametric_with_output("recorded_mpcc").unwrap();
    let mpcc = known.mpcc;
    let mut built = MpccSolver::with_outputs(&mpcc, HomotopyOptions::default(), &compile, Kernels::Compiled, &[out]).unwrap();
    let want = built.solve();
    assert!(want.status.is_converged() && (want.objective - 1.0).abs() < 1e-8, "{:?} {}", want.status, want.objective);

    let json = built.record().to_json();
    assert!(json.contains("\"-inf\"") && json.contains("\"inf\""), "{json}");
    let record = MpccRecord::from_json(&json).unwrap();
    assert_eq!(record, built.record());
    let library = KernelLibrary::load_verified(built.library_path().unwrap(), record.module(), &record.kernel_names()).unwrap().unwrap();
    let mut rebuilt = MpccSolver::from_record(&record, &library, HomotopyOptions::default()).unwrap();
    let got = rebuilt.solve();
    assert_eq!(got.w, want.w, "bitwise the same solution");
    assert_eq!(got.total_iterations, want.total_iterations);
    assert_eq!(got.objective, want.objective);
    assert_eq!(got.status, want.status);
    assert_eq!(rebuilt.eval_output("recorded_mpcc_sum", &got.w, &[2.0]).unwrap(), vec![vec![got.w.iter().sum::<f64>()]]);

    // A record of another MPCC (other sizes) against this module.
    let other = MpccSolver::new(&Mpcc { module: "recorded_mpcc".into(), ..two_variables() }, HomotopyOptions::default()).unwrap();
    let err = MpccSolver::from_record(&other.record(), &library, HomotopyOptions::default()).err().expect("refused");
    assert!(matches!(err, MpccError::Nlp(_)), "{err}");
    // Damaged records.
    for damaged in [
        json.replace("fesd-mpcc-record-v1", "fesd-mpcc-record-v0"),
        json.replace("\"module\":\"recorded_mpcc\"", "\"module\":\"9x\""),
        json.replace("\"branch\"", "\"brunch\""),
        json.replace("\"-inf\"", "\"minus infinity\""),
        "{}".to_string(),
        "[".to_string(),
    ] {
        let err = MpccRecord::from_json(&damaged).err().unwrap_or_else(|| panic!("accepted {damaged}"));
        assert!(matches!(err, MpccError::Format(_) | MpccError::InvalidOption { name: "module", .. }), "{err}");
    }
    let bad_options = HomotopyOptions { kappa: 2.0, ..Default::default() };
    assert!(matches!(MpccSolver::from_record(&record, &library, bad_options), Err(MpccError::InvalidOption { name: "kappa", .. })));
}

fn two_variables() -> Mpcc {
    let w = SX::sym("w", 2);
    Mpcc::new(w.clone(), w.dot(&w).unwrap(), w.at(0).unwrap(), w.at(1).unwrap())
}
