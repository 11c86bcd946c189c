//! Independent graphs built in parallel threads: the SDK's libcasadi has thread-safe
//! symbolics, and the shim is compiled with the same definitions (a mismatch in
//! `CASADI_WITH_THREADSAFE_SYMBOLICS` changes class layouts and corrupts memory).

use casadi::{CodeGenerator, CodegenOptions, Function, MX, SX};

const ROUNDS: usize = 300;

fn work(seed: usize) -> f64 {
    let mut total = 0.0;
    for round in 0..ROUNDS {
        let x = SX::sym("x", 8);
        let mut e = SX::scalar(0.0);
        for i in 0..8 {
            let xi = x.at(i).unwrap();
            e = e + (xi.sin() * (seed + round) as f64 + 1.0).powf(2.0) - 0.5 * &xi;
        }
        let g = SX::gradient(&e, &x).unwrap();
        let h = SX::hessian(&e, &x).unwrap();
        let f = Function::new("f", &[("x", &x)], &[("g", &g), ("h", &h)]).unwrap();
        let out = f.eval_dense(&[&[0.1; 8]]).unwrap();
        total += out[0][0];
        let m = MX::sym("m", 3);
        let mf = Function::new("mf", &[("m", &m)], &[("y", &(m.sin() * 2.0))]).unwrap();
        total += mf.map(2).unwrap().eval_dense(&[&[0.0; 6]]).unwrap()[0][0];
        if round % 10 == 0 {
            let mut cg = CodeGenerator::new("par", &CodegenOptions::default()).unwrap();
            cg.add(&f, false).unwrap();
            assert!(cg.dump().unwrap().contains("casadi"));
        }
    }
    total
}

#[test]
fn parallel_graph_construction_is_safe() {
    let serial: Vec<f64> = (0..4).map(work).collect();
    let handles: Vec<_> = (0..4).map(|s| std::thread::spawn(move || work(s))).collect();
    let parallel: Vec<f64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(serial, parallel);
}
