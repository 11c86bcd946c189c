//! Reference NLPs with known solutions, shared by tests, examples and benchmarks.

use crate::SymbolicNlp;
use casadi::{Function, Mx, MX, SX};

/// Bounds and start point of a reference problem.
#[derive(Clone, Debug, PartialEq)]
pub struct ProblemData {
    /// Lower bounds of x.
    pub x_l: Vec<f64>,
    /// Upper bounds of x.
    pub x_u: Vec<f64>,
    /// Lower bounds of g.
    pub g_l: Vec<f64>,
    /// Upper bounds of g.
    pub g_u: Vec<f64>,
    /// Initial guess.
    pub x0: Vec<f64>,
}

/// Hock–Schittkowski problem 71:
/// `min x1 x4 (x1 + x2 + x3) + x3  s.t.  x1 x2 x3 x4 ≥ 25,  Σ xi² = 40,  1 ≤ x ≤ 5`,
/// from x0 = (1, 5, 5, 1); f* = 17.0140173.
pub fn hs071() -> (SymbolicNlp, ProblemData) {
    let x = SX::sym("x", 4);
    let e: Vec<SX> = (0..4).map(|i| x.at(i).expect("index in range")).collect();
    let f = &e[0] * &e[3] * (&e[0] + &e[1] + &e[2]) + &e[2];
    let g = SX::vertcat(&[&(&e[0] * &e[1] * &e[2] * &e[3]), &x.dot(&x).expect("same shape")]).expect("scalars");
    let data = ProblemData {
        x_l: vec![1.0; 4],
        x_u: vec![5.0; 4],
        g_l: vec![25.0, 40.0],
        g_u: vec![f64::INFINITY, 40.0],
        x0: vec![1.0, 5.0, 5.0, 1.0],
    };
    (SymbolicNlp::new(x, f, g), data)
}

/// Chained Rosenbrock in `n ≥ 2` variables with `n − 1` chained inequality constraints
/// `x_i² + x_{i+1}² ≤ 4` (inactive at the solution):
/// `min Σ 100 (x_{i+1} − x_i²)² + (1 − x_i)²`; solution x* = 1, f* = 0.
///
/// Built the structure-exploiting way: one SX element function of `(x_i, x_{i+1})`,
/// mapped `n − 1` times in an MX graph, so the generated code does not grow with `n`.
pub fn chained_rosenbrock(n: usize) -> casadi::Result<(SymbolicNlp<Mx>, ProblemData)> {
    let (a, b) = (SX::sym("a", 1), SX::sym("b", 1));
    let r = &b - a.powf(2.0);
    let term = 100.0 * &r * &r + (1.0 - &a).powf(2.0);
    let con = a.powf(2.0) + b.powf(2.0);
    let element = Function::new("rosenbrock_element", &[("a", &a), ("b", &b)], &[("term", &term), ("con", &con)])?;
    let mapped = element.map(n - 1)?;
    let x = MX::sym("x", n);
    let head = x.slice(0..n - 1)?.t();
    let tail = x.slice(1..n)?.t();
    let out = mapped.call(&[&head, &tail])?;
    let f = out[0].sum();
    let g = out[1].t();
    let data = ProblemData {
        x_l: vec![f64::NEG_INFINITY; n],
        x_u: vec![f64::INFINITY; n],
        g_l: vec![f64::NEG_INFINITY; n - 1],
        g_u: vec![4.0; n - 1],
        x0: vec![0.5; n],
    };
    Ok((SymbolicNlp::new(x, f, g), data))
}
