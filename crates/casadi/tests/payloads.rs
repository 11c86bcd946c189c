//! Serialized data of the wrong kind, or data that would load native code, is refused
//! with an error and the process goes on (regression: a serialized SX read as a
//! Function gave a null Function whose first use called `std::terminate`).

use casadi::{Error, Function, SX};

fn payloads() -> serde_json::Value {
    serde_json::from_str(include_str!("data/payloads.json")).unwrap()
}

fn payload(name: &str) -> String {
    payloads()[name].as_str().unwrap().to_string()
}

#[test]
fn a_function_payload_reads_and_evaluates() {
    let f = Function::deserialize(&payload("sx_function")).unwrap();
    assert_eq!(f.n_in(), 1);
    let y = f.eval_dense(&[&[4.0, 9.0]]).unwrap();
    assert_eq!(y, vec![vec![2.0, 3.0]]);
}

#[test]
fn other_kinds_are_not_functions() {
    for kind in ["sx", "dm", "sparsity"] {
        let err = Function::deserialize(&payload(kind)).err().unwrap_or_else(|| panic!("{kind} accepted"));
        assert!(matches!(err, Error::Casadi(_)), "{kind}: {err}");
        assert!(err.to_string().contains("not a serialized Function"), "{kind}: {err}");
    }
}

#[test]
fn truncated_and_garbled_text_is_an_error() {
    let text = payload("sx_function");
    for cut in [1, 7, text.len() / 2, text.len() - 2] {
        assert!(Function::deserialize(&text[..cut]).is_err(), "cut at {cut}");
    }
    assert!(matches!(Function::deserialize("hello world"), Err(Error::Refused(_))));
    assert!(SX::deserialize(&text[..text.len() / 2 + 1]).is_err());
}

#[test]
fn native_code_is_refused_before_casadi_reads_it() {
    for (kind, class) in
        [("external", "External"), ("mx_calling_external", "External"), ("interpolant", "Interpolant"), ("jit_function", "jit")]
    {
        let err = Function::deserialize(&payload(kind)).err().unwrap_or_else(|| panic!("{kind} accepted"));
        assert!(matches!(err, Error::Refused(_)), "{kind}: {err}");
        assert!(err.to_string().contains(class), "{kind}: {err}");
    }
}

#[test]
fn a_serialized_sx_reads_back() {
    let x = SX::deserialize(&payload("sx")).unwrap();
    assert_eq!((x.nrow(), x.ncol()), (2, 1));
}
