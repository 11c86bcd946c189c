//! Symbolic layer: derivatives against hand-derived values, sparsity patterns,
//! and CasADi errors surfacing as `Err` without killing the process.

use casadi::{Function, Sparsity, SX};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

/// f(x) = (x0² x1, sin(x1) + x2³, exp(x0 x2), x3) over x ∈ R⁴.
fn model() -> (SX, SX) {
    let x = SX::sym("x", 4);
    let (x0, x1, x2, x3) = (x.at(0).unwrap(), x.at(1).unwrap(), x.at(2).unwrap(), x.at(3).unwrap());
    let f = SX::vertcat(&[&(&x0 * &x0 * &x1), &(x1.sin() + x2.powf(3.0)), &(&x0 * &x2).exp(), &x3]).unwrap();
    (x, f)
}

#[test]
fn jacobian_matches_hand_derivation() {
    let (x, f) = model();
    let j = SX::jacobian(&f, &x).unwrap();
    assert_eq!(j.shape(), (4, 4));
    let jf = Function::new("J", &[("x", &x)], &[("J", &j)]).unwrap();
    let v = [0.7, -1.3, 0.4, 2.0];
    let out = jf.eval_dense(&[&v]).unwrap();
    let (a, b, c) = (v[0], v[1], v[2]);
    let e = (a * c).exp();
    // Column-major 4x4 of hand-derived partials.
    let expected = [
        2.0 * a * b,
        0.0,
        c * e,
        0.0, // d/dx0
        a * a,
        b.cos(),
        0.0,
        0.0, // d/dx1
        0.0,
        3.0 * c * c,
        a * e,
        0.0, // d/dx2
        0.0,
        0.0,
        0.0,
        1.0, // d/dx3
    ];
    for (got, want) in out[0].iter().zip(expected) {
        assert!(close(*got, want, 1e-14), "{got} vs {want}");
    }
    // Sparsity: structural nonzeros exactly where the hand derivation is not identically zero.
    let sp = j.sparsity();
    let (rows, cols) = sp.triplets();
    let pairs: Vec<(usize, usize)> = rows.into_iter().zip(cols).collect();
    assert_eq!(pairs, vec![(0, 0), (2, 0), (0, 1), (1, 1), (1, 2), (2, 2), (3, 3)]);
}

#[test]
fn hessian_and_gradient_match_hand_derivation() {
    let x = SX::sym("x", 3);
    let (x0, x1, x2) = (x.at(0).unwrap(), x.at(1).unwrap(), x.at(2).unwrap());
    // φ = x0² x1 + sin(x1) x2 + x2⁴
    let phi = &x0 * &x0 * &x1 + x1.sin() * &x2 + x2.powf(4.0);
    let (h, g) = (SX::hessian(&phi, &x).unwrap(), SX::gradient(&phi, &x).unwrap());
    let hf = Function::new("H", &[("x", &x)], &[("H", &h), ("g", &g)]).unwrap();
    let v = [1.1, 0.3, -0.8];
    let out = hf.eval_dense(&[&v]).unwrap();
    let (a, b, c) = (v[0], v[1], v[2]);
    let hess = [2.0 * b, 2.0 * a, 0.0, 2.0 * a, -b.sin() * c, b.cos(), 0.0, b.cos(), 12.0 * c * c];
    for (got, want) in out[0].iter().zip(hess) {
        assert!(close(*got, want, 1e-14), "{got} vs {want}");
    }
    let grad = [2.0 * a * b, a * a + b.cos() * c, b.sin() + 4.0 * c.powi(3)];
    for (got, want) in out[1].iter().zip(grad) {
        assert!(close(*got, want, 1e-14), "{got} vs {want}");
    }
    // x0 and x2 never meet: (0,2) and (2,0) are structural zeros.
    let sp = h.sparsity();
    assert_eq!(sp.nnz(), 7);
    assert_eq!(sp.colind(), vec![0, 2, 5, 7]);
    assert_eq!(sp.row(), vec![0, 1, 0, 1, 2, 1, 2]);
}

#[test]
fn jtimes_and_substitute() {
    let (x, f) = model();
    let v = SX::from_slice(&[1.0, 0.0, 0.0, 0.0]);
    let jv = SX::jtimes(&f, &x, &v, false).unwrap();
    let fx = Function::new("jv", &[("x", &x)], &[("jv", &jv)]).unwrap();
    let p = [0.5, 2.0, 1.5, -1.0];
    let out = fx.eval_dense(&[&p]).unwrap();
    assert!(close(out[0][0], 2.0 * p[0] * p[1], 1e-14));
    assert!(close(out[0][2], p[2] * (p[0] * p[2]).exp(), 1e-14));
    let y = SX::sym("y", 4);
    let fy = SX::substitute(&f, &x, &(&y * 2.0)).unwrap();
    let g = Function::new("g", &[("y", &y)], &[("f", &fy)]).unwrap();
    let out = g.eval_dense(&[&[1.0, 1.0, 1.0, 1.0]]).unwrap();
    assert!(close(out[0][0], 8.0, 1e-15));
    assert!(close(out[0][3], 2.0, 1e-15));
}

#[test]
fn constants_concatenation_and_indexing() {
    let a = SX::from_rows(&[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]]).unwrap();
    assert_eq!(a.shape(), (2, 3));
    assert_eq!(a.t().evalf().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(a.get(1usize, 1..3).unwrap().evalf().unwrap(), vec![5.0, 6.0]);
    assert_eq!(a.reshape(3, 2).unwrap().evalf().unwrap(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    let b = SX::ones(3, 1);
    assert_eq!(a.mtimes(&b).unwrap().evalf().unwrap(), vec![6.0, 15.0]);
    assert_eq!(a.sum().evalf().unwrap(), vec![21.0]);
    let v = SX::from_slice(&[3.0, 4.0]);
    assert_eq!(v.norm_2().unwrap().evalf().unwrap(), vec![5.0]);
    assert_eq!(v.dot(&v).unwrap().evalf().unwrap(), vec![25.0]);
    assert_eq!((1.0 - &v).evalf().unwrap(), vec![-2.0, -3.0]);
    assert_eq!((&v / 2.0).evalf().unwrap(), vec![1.5, 2.0]);
    assert_eq!((-&v).abs().evalf().unwrap(), vec![3.0, 4.0]);
    let c = SX::if_else(&v.lt(&SX::scalar(3.5)).unwrap(), &SX::scalar(1.0), &SX::scalar(-1.0)).unwrap();
    assert_eq!(c.evalf().unwrap(), vec![1.0, -1.0]);
    assert_eq!(v.fmax(&SX::scalar(3.5)).unwrap().evalf().unwrap(), vec![3.5, 4.0]);
    let h = SX::horzcat(&[&v, &v]).unwrap();
    assert_eq!(h.shape(), (2, 2));
    let mut m = SX::zeros(2, 2);
    m.set(&SX::scalar(7.0), 0usize, 1usize).unwrap();
    assert_eq!(m.evalf().unwrap(), vec![0.0, 0.0, 7.0, 0.0]);
    assert!(a.get(2usize, 0usize).is_err(), "row out of range must be Err");
    assert!(format!("{}", SX::sym("z", 2)).contains("z_0"));
}

#[test]
fn casadi_errors_are_results_not_aborts() {
    let a = SX::sym("a", 2);
    let b = SX::sym("b", 3);
    let err = a.try_mul(&b).unwrap_err().to_string();
    assert!(err.contains("Dimension mismatch"), "{err}");
    assert!(a.mtimes(&b).is_err());
    assert!(SX::horzcat(&[&a, &b]).is_err());

    let f = Function::new("f", &[("a", &a)], &[("y", &(a.sin()))]).unwrap();
    let err = f.eval_dense(&[&[1.0, 2.0, 3.0]]).unwrap_err().to_string();
    assert!(err.contains("expected 2"), "{err}");
    assert!(f.eval_dense(&[]).is_err());

    let err = Function::deserialize("this is not a serialized function").unwrap_err().to_string();
    assert!(err.contains("refused serialized data"), "{err}");
    assert!(SX::deserialize("garbage").is_err());
    // Non-symbolic input to a Function.
    assert!(Function::new("bad", &[("x", &(&a * 2.0))], &[("y", &a)]).is_err());
    // Symbolic expression has no numeric value.
    assert!(a.evalf().is_err());
}

#[test]
fn serialize_roundtrip_and_map() {
    let x = SX::sym("x", 2);
    let y = x.sin() * &x;
    let f = Function::new("f", &[("x", &x)], &[("y", &y)]).unwrap();
    let g = Function::deserialize(&f.serialize().unwrap()).unwrap();
    let p = [0.3, -0.9];
    assert_eq!(f.eval_dense(&[&p]).unwrap(), g.eval_dense(&[&p]).unwrap());
    let e = SX::deserialize(&y.serialize().unwrap()).unwrap();
    assert_eq!(e.shape(), (2, 1));

    let fm = f.map(3).unwrap();
    assert_eq!(fm.sparsity_in(0).unwrap().shape(), (2, 3));
    let out = fm.eval_dense(&[&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]]).unwrap();
    assert!(close(out[0][5], 0.6f64.sin() * 0.6, 1e-15));

    let jf = f.jacobian().unwrap();
    assert_eq!(jf.n_in(), 2);
    let jout = jf.eval_dense(&[&p, &[0.0, 0.0]]).unwrap();
    assert!(close(jout[0][0], p[0].sin() + p[0] * p[0].cos(), 1e-15));
    assert_eq!(jf.sparsity_out(0).unwrap(), Sparsity::triplet(2, 2, &[0, 1], &[0, 1]).unwrap());

    let syms = f.call(&[&SX::from_slice(&[1.0, 2.0])]).unwrap();
    assert!(close(syms[0].evalf().unwrap()[1], 2.0f64.sin() * 2.0, 1e-15));
}

#[test]
fn sparse_evaluation_uses_nonzeros() {
    let sp = Sparsity::triplet(3, 3, &[0, 2, 1], &[0, 0, 2]).unwrap();
    let x = SX::from_nonzeros(&sp, &[1.0, 2.0, 3.0]).unwrap();
    assert_eq!(x.nnz(), 3);
    assert_eq!(sp.densify(&[1.0, 2.0, 3.0]).unwrap(), vec![1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0]);
    let a = SX::sym("a", 3);
    let m = SX::jacobian(&(a.at(0).unwrap() * a.at(2).unwrap()), &a).unwrap();
    let f = Function::new("f", &[("a", &a)], &[("m", &m)]).unwrap();
    let nz = f.eval_nonzeros(&[&[2.0, 5.0, 3.0]]).unwrap();
    assert_eq!(nz[0], vec![3.0, 2.0]);
}

#[test]
fn mx_map_keeps_structure_and_matches_sx() {
    use casadi::MX;
    let (a, b) = (SX::sym("a", 1), SX::sym("b", 1));
    let element = Function::new("el", &[("a", &a), ("b", &b)], &[("y", &(a.sin() * &b + b.powf(2.0)))]).unwrap();
    let n = 6;
    let x = MX::sym("x", n + 1);
    let y = element.map(n).unwrap().call(&[&x.slice(0..n).unwrap().t(), &x.slice(1..n + 1).unwrap().t()]).unwrap();
    let total = y[0].sum();
    let h = MX::hessian(&total, &x).unwrap();
    let hf = Function::new("h", &[("x", &x)], &[("H", &h), ("f", &total)]).unwrap();
    // Tridiagonal Hessian of Σ sin(x_i) x_{i+1} + x_{i+1}².
    assert_eq!(hf.sparsity_out(0).unwrap().nnz(), 3 * (n + 1) - 2);
    let v: Vec<f64> = (0..=n).map(|i| 0.3 * i as f64 - 0.7).collect();
    let out = hf.eval_dense(&[&v]).unwrap();
    let want: f64 = (0..n).map(|i| v[i].sin() * v[i + 1] + v[i + 1] * v[i + 1]).sum();
    assert!(close(out[1][0], want, 1e-14));
    // H[1][1] = -sin(x1) x2 + 2 and H[0][1] = cos(x0).
    assert!(close(out[0][(n + 1) + 1], -v[1].sin() * v[2] + 2.0, 1e-14));
    assert!(close(out[0][n + 1], v[0].cos(), 1e-14));
    // Expanded to SX, the same numbers.
    let hx = hf.expand().unwrap();
    assert_eq!(hx.eval_dense(&[&v]).unwrap(), out);
    // MX errors are Results too.
    assert!(x.try_mul(&MX::sym("z", 3)).is_err());
}

#[test]
fn entries_and_columns() {
    let x = SX::sym("x", 3);
    let e = x.entries().unwrap();
    assert_eq!(e.len(), 3);
    let back = SX::column(&[e[2].clone(), e[0].clone()]).unwrap();
    let f = Function::new("f", &[("x", &x)], &[("y", &back)]).unwrap();
    assert_eq!(f.eval_dense(&[&[1.0, 2.0, 3.0]]).unwrap()[0], vec![3.0, 1.0]);
    assert_eq!(SX::column(&[]).unwrap().shape(), (0, 1));
    assert!(SX::sym_matrix("m", 2, 2).entries().is_err());
    assert_eq!(x.t().entries().unwrap().len(), 3);
}

#[test]
fn free_and_repeated_symbols_are_read_from_casadi_errors() {
    let (x, y) = (SX::sym("x", 1), SX::sym("y_free", 1));
    let e = Function::new("f", &[("x", &x)], &[("out", &(&x + &y))]).unwrap_err();
    assert_eq!(e.free_symbols().as_deref(), Some("[y_free]"), "{e}");
    assert!(!e.is_repeated_input());
    let e = Function::new("f", &[("a", &x), ("b", &x)], &[("out", &x)]).unwrap_err();
    assert!(e.is_repeated_input() && e.free_symbols().is_none(), "{e}");
}

#[test]
fn linear_solve_and_inverse() {
    // A(q) = [[2 + q², 1], [1, 3]], b = [1, q]: x = A⁻¹ b, checked against Cramer's rule.
    let q = SX::sym("q", 1);
    let col0 = SX::vertcat(&[&(&q * &q + 2.0), &SX::scalar(1.0)]).unwrap();
    let a = SX::horzcat(&[&col0, &SX::from_slice(&[1.0, 3.0])]).unwrap();
    let b = SX::vertcat(&[&SX::scalar(1.0), &q]).unwrap();
    let x = SX::solve(&a, &b).unwrap();
    let a_inv = a.inv().unwrap();
    let f = Function::new("sol", &[("q", &q)], &[("x", &x), ("inv", &a_inv)]).unwrap();
    let qv = 0.7;
    let out = f.eval_dense(&[&[qv]]).unwrap();
    let det = (2.0 + qv * qv) * 3.0 - 1.0;
    assert!(close(out[0][0], (3.0 - qv) / det, 1e-14));
    assert!(close(out[0][1], ((2.0 + qv * qv) * qv - 1.0) / det, 1e-14));
    // Column-major inverse entries.
    assert!(close(out[1][0], 3.0 / det, 1e-14));
    assert!(close(out[1][1], -1.0 / det, 1e-14));
    assert!(close(out[1][3], (2.0 + qv * qv) / det, 1e-14));
    // Shape errors are errors, not aborts.
    assert!(SX::solve(&a, &SX::sym("c", 3)).is_err());
    assert!(SX::sym("r", 2).inv().is_err());
}
