//! Generated MPCCs with known solutions, for tests and benchmarks.

use crate::problem::Mpcc;
use casadi::{Mx, Sparsity, MX};

/// An MPCC with its known solution.
#[derive(Clone, Debug)]
pub struct KnownMpcc {
    /// The problem.
    pub mpcc: Mpcc<Mx>,
    /// Its solution w*.
    pub w_star: Vec<f64>,
    /// Its optimal objective f*.
    pub f_star: f64,
}

/// LCP-constrained least squares with `3n` variables `w = (x, y, q)` and `n`
/// complementarity pairs:
///
/// ```text
/// min ‖q − q*‖²  s.t.  y = M x + q,  0 ≤ x ⊥ y ≥ 0,   M = tridiag(−1, 4, −1)
/// ```
///
/// M is a P-matrix, so the LCP(M, q*) has exactly one solution x*; with
/// `q* = y* − M x*` for a strictly complementary pair (x*, y*) (x* > 0 on even
/// indices, y* > 0 on odd ones), the unique solution is w* = (x*, y*, q*), f* = 0.
/// Built from sparse matrix expressions (MX), so the generated code stays small.
pub fn lcp_least_squares(n: usize) -> casadi::Result<KnownMpcc> {
    let x_star: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { 1.0 + 0.5 * (i as f64).sin() } else { 0.0 }).collect();
    let y_star: Vec<f64> = (0..n).map(|i| if i % 2 == 1 { 1.0 + 0.3 * (i as f64).cos() } else { 0.0 }).collect();
    // M in triplets, and M x* for q*.
    let (mut rows, mut cols, mut vals) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        for (j, v) in [(i.wrapping_sub(1), -1.0), (i, 4.0), (i + 1, -1.0)] {
            if j < n {
                rows.push(i);
                cols.push(j);
                vals.push(v);
            }
        }
    }
    let mut mx_star = vec![0.0; n];
    for k in 0..rows.len() {
        mx_star[rows[k]] += vals[k] * x_star[cols[k]];
    }
    let q_star: Vec<f64> = (0..n).map(|i| y_star[i] - mx_star[i]).collect();
    // Nonzeros of M in CCS order (column-major): sort the triplets by (col, row).
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&k| (cols[k], rows[k]));
    let sp = Sparsity::triplet(n, n, &rows, &cols)?;
    let m = MX::from_nonzeros(&sp, &order.iter().map(|&k| vals[k]).collect::<Vec<_>>())?;

    let w = MX::sym("w", 3 * n);
    let x = w.slice(0..n)?;
    let y = w.slice(n..2 * n)?;
    let q = w.slice(2 * n..3 * n)?;
    let dq = q.try_sub(&MX::from_slice(&q_star))?;
    let f = dq.dot(&dq)?;
    let g = y.try_sub(&m.mtimes(&x)?)?.try_sub(&q)?;
    let mut mpcc = Mpcc::new(w, f, x, y);
    mpcc.g = g;
    mpcc.lbg = vec![0.0; n];
    mpcc.ubg = vec![0.0; n];
    mpcc.w0 = [vec![0.5; 2 * n], vec![0.0; n]].concat();
    let w_star = [x_star, y_star, q_star].concat();
    Ok(KnownMpcc { mpcc, w_star, f_star: 0.0 })
}

/// A small MPCC with a parameter, unbounded sides and an output, in the module
/// `module`:
///
/// ```text
/// min (x − p)² + (y − 1)² + z²  s.t.  x + y + z ≥ 0.5,  0 ≤ x ⊥ y ≥ 0,  z ≥ −1
/// ```
///
/// with p = 2: the solution (2, 0, 0), f* = 1 (the branch y = 0; x = 0 gives 4). The
/// function `<module>_sum(w, p) = x + y + z` is an output to build into the module
/// ([`MpccSolver::with_outputs`](crate::MpccSolver::with_outputs)).
pub fn parametric_with_output(module: &str) -> casadi::Result<(KnownMpcc, casadi::Function)> {
    let w = MX::sym("w", 3);
    let p = MX::sym("p", 1);
    let (x, y, z) = (w.at(0)?, w.at(1)?, w.at(2)?);
    let f = (&x - p.at(0)?).powf(2.0) + (&y - 1.0).powf(2.0) + z.powf(2.0);
    let mut m = Mpcc::new(w.clone(), f, x.clone(), y.clone());
    m.p = p.clone();
    m.p0 = vec![2.0];
    m.g = &x + &y + &z;
    m.lbg = vec![0.5];
    m.ubg = vec![f64::INFINITY];
    m.lbw = vec![f64::NEG_INFINITY, f64::NEG_INFINITY, -1.0];
    m.w0 = vec![0.5, 0.5, 0.0];
    m.module = module.into();
    let out = casadi::Function::new(&format!("{module}_sum"), &[("w", &w), ("p", &p)], &[("s", &(&x + &y + &z))])?;
    Ok((KnownMpcc { mpcc: m, w_star: vec![2.0, 0.0, 0.0], f_star: 1.0 }, out))
}
