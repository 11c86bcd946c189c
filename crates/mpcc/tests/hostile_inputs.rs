//! Inputs that used to abort the process, run forever or be silently misread.

use casadi::{Function, SX};
use fesd_mpcc::{nosbench, HomotopyOptions, Mpcc, MpccError, MpccSolver, MpccStatus, MAX_HOMOTOPY_STEPS};
use ipopt::ApplicationReturnStatus;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(name)
}

/// min (w0 − 1)² + (w1 − 1)² + (w2 − 1)² s.t. g(w2) ≥ 0, 0 ≤ w0 ⊥ w1 ≥ 0, started at
/// w = 0 (w2 is free, so Ipopt evaluates g at w2 = 0 exactly).
fn mpcc_with_constraint(g: impl Fn(&SX) -> SX) -> Mpcc {
    let w = SX::sym("w", 3);
    let (a, b, c) = (w.at(0).unwrap() - 1.0, w.at(1).unwrap() - 1.0, w.at(2).unwrap() - 1.0);
    let mut m = Mpcc::new(w.clone(), &a * &a + &b * &b + &c * &c, w.at(0).unwrap(), w.at(1).unwrap());
    m.g = g(&w.at(2).unwrap());
    m.lbg = vec![0.0];
    m.ubg = vec![f64::INFINITY];
    m
}

#[test]
fn an_infinite_derivative_at_the_start_ends_with_invalid_number() {
    // d/dw √w = +∞ at w = 0 (regression: SIGSEGV inside the linear solver), and
    // d/dw √|w| = NaN there (regression: "double free or corruption").
    for g in [|w: &SX| w.sqrt(), |w: &SX| w.abs().sqrt()] {
        let mpcc = mpcc_with_constraint(g);
        let r = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap().solve();
        assert!(
            matches!(r.status, MpccStatus::NlpFailed { ipopt_status: ApplicationReturnStatus::InvalidNumberDetected, .. }),
            "{:?}",
            r.status
        );
        assert!(r.w.iter().all(|v| v.is_finite()), "last iterate {:?}", r.w);
        let what = r.steps[0].non_finite.as_deref().unwrap_or_default();
        assert!(what.contains("Jacobian"), "{what}");
        assert!(r.messages.iter().any(|m| m.contains("non-finite")), "{:?}", r.messages);
    }
}

#[test]
fn an_infinite_derivative_away_from_the_start_is_stepped_around() {
    // Started at w2 = 0.5 the same problem solves: Ipopt never evaluates at w2 = 0.
    let mut mpcc = mpcc_with_constraint(|w| w.sqrt());
    mpcc.w0 = vec![0.0, 0.0, 0.5];
    let r = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap().solve();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!((r.objective - 1.0).abs() < 1e-6, "{}", r.objective);
}

#[test]
fn a_kappa_near_one_is_rejected_not_run_forever() {
    let mpcc = mpcc_with_constraint(|w| w.clone());
    let opts = HomotopyOptions { kappa: 0.999_999_999, ..Default::default() };
    let err = MpccSolver::new(&mpcc, opts.clone()).err().unwrap();
    assert!(matches!(err, MpccError::InvalidOption { name: "kappa", .. }), "{err}");
    assert!(err.to_string().contains(&MAX_HOMOTOPY_STEPS.to_string()), "{err}");
    // Also through set_options on an existing solver, and for an explicit n_homotopy.
    let mut solver = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap();
    assert!(solver.set_options(opts).is_err());
    let many = HomotopyOptions { n_homotopy: Some(MAX_HOMOTOPY_STEPS + 1), ..Default::default() };
    assert!(matches!(solver.set_options(many), Err(MpccError::InvalidOption { name: "n_homotopy", .. })));
    // The longest plan that is allowed still validates.
    let ok = HomotopyOptions { kappa: 0.97, ..Default::default() };
    assert!(ok.homotopy_steps() <= MAX_HOMOTOPY_STEPS && ok.validate().is_ok());
    // Ipopt's integer options are 32-bit.
    let huge = HomotopyOptions { acceptable_iter: usize::MAX, ..Default::default() };
    assert!(matches!(huge.validate(), Err(MpccError::InvalidOption { name: "acceptable_iter", .. })));
    let huge = HomotopyOptions { max_iter: usize::MAX, ..Default::default() };
    assert!(matches!(huge.validate(), Err(MpccError::InvalidOption { name: "max_iter", .. })));
    // Phase I's radius: nonnegative and finite (0 turns phase I off).
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let o = HomotopyOptions { phase_one_radius: bad, ..Default::default() };
        assert!(matches!(o.validate(), Err(MpccError::InvalidOption { name: "phase_one_radius", .. })), "{bad}");
    }
    assert!(HomotopyOptions { phase_one_radius: 0.0, ..Default::default() }.validate().is_ok());
    // The stall rule's step threshold is a fraction of the Newton step.
    for bad in [0.0, -0.1, 1.5, f64::NAN] {
        let o = HomotopyOptions { stall_iterations: 6, stall_step: bad, ..Default::default() };
        assert!(matches!(o.validate(), Err(MpccError::InvalidOption { name: "stall_step", .. })), "{bad}");
    }
}

#[test]
fn options_from_json_reject_unknown_keys() {
    let err = serde_json::from_str::<HomotopyOptions>(r#"{"comp_tolerance": 1e-6}"#).unwrap_err().to_string();
    assert!(err.contains("comp_tolerance"), "{err}");
    let o: HomotopyOptions = serde_json::from_str(r#"{"comp_tol": 1e-6}"#).unwrap();
    assert_eq!(o.comp_tol, 1e-6);
    assert_eq!(o.kappa, HomotopyOptions::default().kappa);
    // Options set by name keep the other fields; unknown names and wrong types are named.
    let by_name = |text: &str| fesd_mpcc::presets::scholtes_direct().with_fields(serde_json::from_str(text).unwrap());
    let o = by_name(r#"{"kappa": 0.2, "sigma_n": 1e-12}"#).unwrap();
    assert_eq!(o, HomotopyOptions { kappa: 0.2, sigma_n: Some(1e-12), ..fesd_mpcc::presets::scholtes_direct() });
    // What is compiled in is not a schedule field: the problem's formulation.
    assert!(by_name(r#"{"steering": "ElasticL1"}"#).unwrap_err().to_string().contains("steering"));
    let err = by_name(r#"{"kapa": 0.2}"#).unwrap_err().to_string();
    assert!(err.contains("kapa"), "{err}");
    let err = by_name(r#"{"kappa": "small"}"#).unwrap_err().to_string();
    assert!(err.contains("small"), "{err}");
}

/// quadratic_cubic.json with one field replaced.
fn with_field(field: &str, value: &str) -> String {
    let text = std::fs::read_to_string(data("quadratic_cubic.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text.replace("-Infinity", "-1e300").replace("Infinity", "1e300")).unwrap();
    let mut obj = v.as_object().unwrap().clone();
    obj.insert(field.into(), serde_json::Value::String(value.into()));
    serde_json::Value::Object(obj).to_string()
}

#[test]
fn function_fields_holding_other_objects_are_format_errors() {
    let x = SX::sym("x", 2);
    let sx = x.serialize().unwrap();
    let f = Function::new("f", &[("x", &x)], &[("y", &x.sin())]).unwrap().serialize().unwrap();
    for field in ["G_fun", "g_fun", "augmented_objective_fun"] {
        for payload in [sx.as_str(), &f[..f.len() / 2], "not casadi"] {
            let err = nosbench::from_str(&with_field(field, payload)).unwrap_err();
            assert!(matches!(err, MpccError::Format(_)), "{field}: {err}");
            assert!(err.to_string().contains(field), "{field}: {err}");
        }
    }
}

#[test]
fn files_cannot_load_native_code() {
    let payloads: serde_json::Value = serde_json::from_str(include_str!("../../casadi/tests/data/payloads.json")).unwrap();
    for kind in ["external", "mx_calling_external", "jit_function"] {
        let err = nosbench::from_str(&with_field("G_fun", payloads[kind].as_str().unwrap())).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("G_fun") && msg.contains("native code") || msg.contains("C compiler"), "{kind}: {msg}");
    }
}

fn format_error(r: Result<MpccSolver, MpccError>) -> String {
    match r {
        Err(e @ MpccError::Format(_)) => e.to_string(),
        Err(e) => panic!("expected a format error, got {e}"),
        Ok(_) => panic!("expected a format error"),
    }
}

#[test]
fn messages_name_the_problem_in_the_users_terms() {
    let opts = HomotopyOptions::default;
    // No variables at all.
    let w = SX::sym("w", 0);
    let mpcc = Mpcc::new(w.clone(), SX::scalar(0.0), SX::zeros(0, 1), SX::zeros(0, 1));
    let msg = format_error(MpccSolver::new(&mpcc, opts()));
    assert!(msg.contains("no variables"), "{msg}");
    // A constant pair G = H = 1 that no point satisfies.
    let w = SX::sym("w", 2);
    let mpcc = Mpcc::new(w.clone(), w.dot(&w).unwrap(), SX::scalar(1.0), SX::scalar(1.0));
    let msg = format_error(MpccSolver::new(&mpcc, opts()));
    assert!(msg.contains("pair 0") && msg.contains("G = 1") && msg.contains("H = 1"), "{msg}");
    // A constant pair that holds (G = 0) is fine.
    let mpcc = Mpcc::new(w.clone(), w.dot(&w).unwrap(), SX::scalar(0.0), w.at(0).unwrap());
    assert!(MpccSolver::new(&mpcc, opts()).is_ok());
    // Symbols outside w and p.
    let stray = SX::sym("stray", 1);
    let mpcc = Mpcc::new(w.clone(), w.dot(&w).unwrap() + &stray, w.at(0).unwrap(), w.at(1).unwrap());
    let msg = format_error(MpccSolver::new(&mpcc, opts()));
    assert!(msg.contains("stray") && msg.contains("neither in w nor in p"), "{msg}");
    // The same symbol in w and p.
    let mut mpcc = Mpcc::new(w.clone(), w.dot(&w).unwrap(), w.at(0).unwrap(), w.at(1).unwrap());
    mpcc.p = w.at(0).unwrap();
    mpcc.p0 = vec![1.0];
    let msg = format_error(MpccSolver::new(&mpcc, opts()));
    assert!(msg.contains("distinct"), "{msg}");
    // A truncated function in a file names the field.
    let text = std::fs::read_to_string(data("quadratic_cubic.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text.replace("-Infinity", "-1e300").replace("Infinity", "1e300")).unwrap();
    let g_fun = v["g_fun"].as_str().unwrap();
    let cut = &g_fun[..(g_fun.len() / 2) & !1];
    let err = nosbench::from_str(&with_field("g_fun", cut)).unwrap_err().to_string();
    assert!(err.contains("'g_fun'"), "{err}");
}

#[test]
fn constant_constraints_reach_ipopt() {
    // g = 1 ∈ [0, 2] has an empty Jacobian; Ipopt refuses such a problem unless padded.
    let w = SX::sym("w", 2);
    let mut mpcc = Mpcc::new(w.clone(), w.dot(&w).unwrap(), w.at(0).unwrap(), w.at(1).unwrap());
    mpcc.g = SX::scalar(1.0);
    mpcc.lbg = vec![0.0];
    mpcc.ubg = vec![2.0];
    let r = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap().solve();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!(r.objective.abs() < 1e-8);
}

#[test]
fn an_early_stop_at_comp_tol_is_data_not_a_message() {
    // min (x − 1)² + (y + 1)², 0 ≤ x ⊥ y ≥ 0: y = 0 at its bound already at σ = 1.
    let w = SX::sym("w", 2);
    let (x, y) = (w.at(0).unwrap(), w.at(1).unwrap());
    let f = (&x - 1.0).powf(2.0) + (&y + 1.0).powf(2.0);
    let mpcc = Mpcc::new(w, f, x, y);
    let r = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap().solve();
    assert!(r.status.is_converged());
    assert!(r.steps.len() < r.planned_steps, "{} of {}", r.steps.len(), r.planned_steps);
    assert!(r.messages.is_empty(), "{:?}", r.messages);
}
