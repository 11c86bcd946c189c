//! Lowering an MPCC to one parametric NLP whose parameter σ drives the relaxation.

use crate::error::Result;
use crate::options::{HomotopyOptions, LowerBounds, Relaxation, Steering};
use crate::problem::Mpcc;
use casadi::{Function, Kind, Matrix};
use fesd_nlp::SymbolicNlp;

/// The relaxed NLP `min f + penalty(s)/σ s.t. g, r(G, H, τ), [G, H ≥ 0]` in
/// variables `x = (w, s)` and parameters `(p, σ)`, plus its bounds.
pub(crate) struct RelaxedNlp<K: Kind> {
    pub nlp: SymbolicNlp<K>,
    /// `report(x, (p, σ)) -> (f, G∘H)`: the original objective and the complementarity products.
    pub report: Function,
    pub x_l: Vec<f64>,
    pub x_u: Vec<f64>,
    pub g_l: Vec<f64>,
    pub g_u: Vec<f64>,
    /// Number of slack variables appended to w.
    pub n_slack: usize,
    /// How many of G, H lower bounds became variable bounds.
    pub bounds_as_variable_bounds: usize,
}

/// Indices i where `e_i` is exactly the variable `w_j` (affine with unit Jacobian row,
/// no parameter dependence, zero at the origin): `Some(j)`.
fn plain_variables<K: Kind>(e: &Matrix<K>, w: &Matrix<K>, p: &Matrix<K>) -> Result<Vec<Option<usize>>> {
    let n = e.nrow();
    if n == 0 {
        return Ok(vec![]);
    }
    let jw = Matrix::jacobian(e, w)?;
    let jp = Matrix::jacobian(e, p)?;
    let jw_nz = jw.nonzeros_at(..)?;
    let wp = Matrix::vertcat(&[w, p])?;
    // Which Jacobian entries still depend on w or p (non-affine rows).
    let dep = Matrix::jacobian(&jw_nz, &wp)?.sparsity();
    let dep_rows = dep.triplets().0;
    let f = Function::new("plain_probe", &[("w", w), ("p", p)], &[("jw", &jw), ("e", &e.densify())])?;
    let zeros_w = vec![0.0; w.nrow()];
    let zeros_p = vec![0.0; p.nrow()];
    let vals = f.eval_nonzeros(&[&zeros_w, &zeros_p])?;
    let (rows, cols) = jw.sparsity().triplets();
    let mut count = vec![0usize; n];
    let mut candidate: Vec<Option<usize>> = vec![None; n];
    for (k, (&r, &c)) in rows.iter().zip(&cols).enumerate() {
        count[r] += 1;
        if vals[0][k] == 1.0 {
            candidate[r] = Some(c);
        }
    }
    let mut nonaffine = vec![false; n];
    for k in dep_rows {
        nonaffine[rows[k]] = true;
    }
    let mut has_p = vec![false; n];
    for r in jp.sparsity().triplets().0 {
        has_p[r] = true;
    }
    Ok((0..n)
        .map(|i| {
            if count[i] == 1 && !nonaffine[i] && !has_p[i] && vals[1][i] == 0.0 {
                candidate[i]
            } else {
                None
            }
        })
        .collect())
}

impl<K: Kind> RelaxedNlp<K> {
    pub(crate) fn build(mpcc: &Mpcc<K>, opts: &HomotopyOptions, module: &str) -> Result<Self> {
        let (w, p) = (&mpcc.w, &mpcc.p);
        let nc = mpcc.n_comp();
        let n_slack = match opts.steering {
            Steering::Direct => 0,
            Steering::ElasticInf => usize::from(nc > 0),
            Steering::ElasticL1 => nc,
        };
        let s = Matrix::<K>::sym("s", n_slack);
        let sigma = Matrix::<K>::sym("sigma", 1);
        let x = Matrix::vertcat(&[w, &s])?;
        let params = Matrix::vertcat(&[p, &sigma])?;
        let (gg, hh) = (&mpcc.big_g, &mpcc.big_h);
        // τ: the quantity each product is relaxed to.
        let tau = match opts.steering {
            Steering::Direct => sigma.clone(),
            Steering::ElasticInf | Steering::ElasticL1 => s.clone(),
        };
        let gh = gg.try_mul(hh)?;
        let relaxed = if nc == 0 {
            Matrix::zeros(0, 1)
        } else {
            match opts.relaxation {
                Relaxation::ScholtesInequality | Relaxation::ScholtesEquality => gh.try_sub(&tau)?,
                Relaxation::FischerBurmeisterInequality | Relaxation::FischerBurmeisterEquality => {
                    let r = (gg.try_mul(gg)? + hh.try_mul(hh)?).try_add(&(2.0 * &tau))?.sqrt();
                    (gg + hh).try_sub(&r)?
                }
            }
        };
        let penalty = if n_slack == 0 { Matrix::scalar(0.0) } else { s.sum() / &sigma };
        let f = &mpcc.f + &penalty;

        let mut x_l: Vec<f64> = mpcc.lbw.iter().copied().chain(std::iter::repeat_n(0.0, n_slack)).collect();
        let x_u: Vec<f64> = mpcc.ubw.iter().copied().chain(std::iter::repeat_n(f64::INFINITY, n_slack)).collect();
        let mut constraints: Vec<Matrix<K>> = vec![mpcc.g.clone(), relaxed];
        let mut g_l = mpcc.lbg.clone();
        let mut g_u = mpcc.ubg.clone();
        let r_lower = if opts.relaxation.is_equality() { 0.0 } else { f64::NEG_INFINITY };
        g_l.extend(std::iter::repeat_n(r_lower, nc));
        g_u.extend(std::iter::repeat_n(0.0, nc));
        let mut bounds_as_variable_bounds = 0;
        for e in [gg, hh] {
            let plain = match opts.lower_bounds {
                LowerBounds::Bounds => plain_variables(e, w, p)?,
                LowerBounds::Constraints => vec![None; nc],
            };
            let mut rest = Vec::new();
            for (i, j) in plain.iter().enumerate() {
                match j {
                    Some(j) => {
                        x_l[*j] = x_l[*j].max(0.0);
                        bounds_as_variable_bounds += 1;
                    }
                    None => rest.push(i),
                }
            }
            if !rest.is_empty() {
                constraints.push(e.slice(rest.clone())?);
                g_l.extend(std::iter::repeat_n(0.0, rest.len()));
                g_u.extend(std::iter::repeat_n(f64::INFINITY, rest.len()));
            }
        }
        let refs: Vec<&Matrix<K>> = constraints.iter().collect();
        let g = Matrix::vertcat(&refs)?;
        let gh_out = if nc == 0 { Matrix::zeros(0, 1) } else { gh.densify() };
        let report = Function::new(
            &format!("{module}_report"),
            &[("x", &x), ("p", &params)],
            &[("f", &mpcc.f), ("gh", &gh_out)],
        )?;
        let nlp = SymbolicNlp { x, p: params, f, g };
        Ok(RelaxedNlp { nlp, report, x_l, x_u, g_l, g_u, n_slack, bounds_as_variable_bounds })
    }
}
