//! Lowering an MPCC to one parametric NLP whose parameter σ drives the relaxation.

#[cfg(feature = "symbolic")]
use crate::error::Result;
use crate::options::Formulation;
#[cfg(feature = "symbolic")]
use crate::options::{LowerBounds, Relaxation, Steering};
#[cfg(feature = "symbolic")]
use crate::problem::Mpcc;
use crate::problem::MpccData;
#[cfg(feature = "symbolic")]
use casadi::{Function, Kind, Matrix};
#[cfg(feature = "symbolic")]
use fesd_nlp::SymbolicNlp;
use serde::{Deserialize, Serialize};

/// What building the relaxed NLP decided from the expressions (sizes, which G/H ≥ 0
/// conditions became bounds or rows): with the MPCC's numbers it gives the relaxed
/// NLP's bounds, so a prepared problem can be solved again without its expressions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct RelaxedLayout {
    /// Number of complementarity pairs.
    pub n_comp: usize,
    /// Number of slack variables appended to w.
    pub n_slack: usize,
    /// Variables that are some G_i or H_i: their lower bound becomes max(lb, 0).
    pub nonnegative: Vec<usize>,
    /// Number of `G_i ≥ 0`, `H_i ≥ 0` rows appended to the constraints.
    pub lower_bound_rows: usize,
    /// How many of the G, H ≥ 0 conditions became variable bounds.
    pub bounds_as_variable_bounds: usize,
    /// How many of them the variable bounds already imply (no constraint added).
    pub implied_by_bounds: usize,
    /// Per pair, `j` where `G_i` (first) or `H_i` (second) is exactly `w_j`.
    pub pair_variables: Vec<[Option<usize>; 2]>,
}

/// Bounds of an NLP's variables and constraints.
pub(crate) struct NlpBounds {
    pub x_l: Vec<f64>,
    pub x_u: Vec<f64>,
    pub g_l: Vec<f64>,
    pub g_u: Vec<f64>,
}

impl RelaxedLayout {
    /// The relaxed NLP's parameter vector `(p, σ)`: the MPCC's parameters, then the
    /// homotopy parameter; the one place that lays it out (the kernels are built from
    /// `vertcat(p, sigma)` below).
    pub fn parameters(p: &[f64], sigma: f64) -> Vec<f64> {
        p.iter().copied().chain([sigma]).collect()
    }

    /// Variable bounds of `x = (w, s)`: w's, raised to 0 where w_j is a side of a pair.
    fn variable_bounds(&self, data: &MpccData) -> (Vec<f64>, Vec<f64>) {
        let mut x_l: Vec<f64> = data.lbw.iter().copied().chain(std::iter::repeat_n(0.0, self.n_slack)).collect();
        let x_u: Vec<f64> = data.ubw.iter().copied().chain(std::iter::repeat_n(f64::INFINITY, self.n_slack)).collect();
        for &j in &self.nonnegative {
            x_l[j] = x_l[j].max(0.0);
        }
        (x_l, x_u)
    }

    /// The relaxed NLP's bounds: `g` as the MPCC has them, the relaxed products
    /// (`≤ 0`, or `= 0` for an equality relaxation), then the `G, H ≥ 0` rows.
    pub fn bounds(&self, data: &MpccData, form: &Formulation) -> NlpBounds {
        let (x_l, x_u) = self.variable_bounds(data);
        let r_lower = if form.relaxation.is_equality() { 0.0 } else { f64::NEG_INFINITY };
        let g_l = data
            .lbg
            .iter()
            .copied()
            .chain(std::iter::repeat_n(r_lower, self.n_comp))
            .chain(std::iter::repeat_n(0.0, self.lower_bound_rows))
            .collect();
        let g_u = data
            .ubg
            .iter()
            .copied()
            .chain(std::iter::repeat_n(0.0, self.n_comp))
            .chain(std::iter::repeat_n(f64::INFINITY, self.lower_bound_rows))
            .collect();
        NlpBounds { x_l, x_u, g_l, g_u }
    }
}

/// The relaxed NLP `min f + penalty(s)/σ s.t. g, r(G, H, τ), [G, H ≥ 0]` in
/// variables `x = (w, s)` and parameters `(p, σ)`, plus its bounds.
#[cfg(feature = "symbolic")]
pub(crate) struct RelaxedNlp<K: Kind> {
    pub nlp: SymbolicNlp<K>,
    /// `report(x, (p, σ)) -> (f, G∘H)`: the original objective and the complementarity products.
    pub report: Function,
    /// Sizes and bound decisions (with the MPCC's numbers: the bounds).
    pub layout: RelaxedLayout,
}

/// An entry of G or H as an affine function of w, if it is one (and free of p).
#[cfg(feature = "symbolic")]
#[derive(Clone, Debug, PartialEq)]
enum Entry {
    Affine { constant: f64, terms: Vec<(usize, f64)> },
    Other,
}

#[cfg(feature = "symbolic")]
impl Entry {
    /// `Some(j)` if the entry is exactly `w_j`.
    fn variable(&self) -> Option<usize> {
        match self {
            Entry::Affine { constant, terms } if *constant == 0.0 && terms.len() == 1 && terms[0].1 == 1.0 => Some(terms[0].0),
            _ => None,
        }
    }

    /// True if the bounds of w alone imply that the entry is ≥ 0 (interval arithmetic).
    fn implied_nonnegative(&self, lb: &[f64], ub: &[f64]) -> bool {
        match self {
            Entry::Affine { constant, terms } => {
                let low = terms.iter().fold(*constant, |acc, &(j, a)| acc + if a > 0.0 { a * lb[j] } else { a * ub[j] });
                low >= 0.0
            }
            Entry::Other => false,
        }
    }
}

/// Classifies every entry of `e`: affine in w with constant coefficients and no p
/// dependence (read off the Jacobian's sparsity and values), or anything else.
#[cfg(feature = "symbolic")]
fn classify<K: Kind>(e: &Matrix<K>, w: &Matrix<K>, p: &Matrix<K>) -> Result<Vec<Entry>> {
    let n = e.nrow();
    if n == 0 {
        return Ok(vec![]);
    }
    let jw = Matrix::jacobian(e, w)?;
    let jp = Matrix::jacobian(e, p)?;
    let wp = Matrix::vertcat(&[w, p])?;
    // Which Jacobian entries still depend on w or p (the entry is not affine).
    let dep_rows = Matrix::jacobian(&jw.nonzeros_at(..)?, &wp)?.sparsity().triplets().0;
    let f = Function::new("affine_probe", &[("w", w), ("p", p)], &[("jw", &jw), ("e", &e.densify())])?;
    let vals = f.eval_nonzeros(&[&vec![0.0; w.nrow()], &vec![0.0; p.nrow()]])?;
    let (rows, cols) = jw.sparsity().triplets();
    let mut affine = vec![true; n];
    for k in dep_rows {
        affine[rows[k]] = false;
    }
    for r in jp.sparsity().triplets().0 {
        affine[r] = false;
    }
    let mut terms: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for (k, (&r, &c)) in rows.iter().zip(&cols).enumerate() {
        terms[r].push((c, vals[0][k]));
    }
    Ok((0..n)
        .map(|i| if affine[i] { Entry::Affine { constant: vals[1][i], terms: std::mem::take(&mut terms[i]) } } else { Entry::Other })
        .collect())
}

#[cfg(feature = "symbolic")]
impl<K: Kind> RelaxedNlp<K> {
    pub(crate) fn build(mpcc: &Mpcc<K>, module: &str) -> Result<Self> {
        let form = &mpcc.formulation;
        let (w, p) = (&mpcc.w, &mpcc.p);
        let nc = mpcc.n_comp();
        let n_slack = match form.steering {
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
        let tau = match form.steering {
            Steering::Direct => sigma.clone(),
            Steering::ElasticInf | Steering::ElasticL1 => s.clone(),
        };
        let gh = gg.try_mul(hh)?;
        let relaxed = if nc == 0 {
            Matrix::zeros(0, 1)
        } else {
            match form.relaxation {
                Relaxation::ScholtesInequality | Relaxation::ScholtesEquality => gh.try_sub(&tau)?,
                Relaxation::FischerBurmeisterInequality | Relaxation::FischerBurmeisterEquality => {
                    let r = (gg.try_mul(gg)? + hh.try_mul(hh)?).try_add(&(2.0 * &tau))?.sqrt();
                    (gg + hh).try_sub(&r)?
                }
            }
        };
        let penalty = if n_slack == 0 { Matrix::scalar(0.0) } else { s.sum() / &sigma };
        let f = &mpcc.f + &penalty;

        let mut constraints: Vec<Matrix<K>> = vec![mpcc.g.clone(), relaxed];
        // G, H ≥ 0: as bounds where an entry is a variable, dropped where the bounds
        // already imply it, as constraints elsewhere.
        let entries = [classify(gg, w, p)?, classify(hh, w, p)?];
        let pair_variables = entries[0].iter().zip(&entries[1]).map(|(a, b)| [a.variable(), b.variable()]).collect();
        let classes = match form.lower_bounds {
            LowerBounds::Bounds => entries,
            LowerBounds::Constraints => [vec![Entry::Other; nc], vec![Entry::Other; nc]],
        };
        let nonnegative: Vec<usize> = classes.iter().flatten().filter_map(Entry::variable).collect();
        let mut layout = RelaxedLayout {
            n_comp: nc,
            n_slack,
            bounds_as_variable_bounds: nonnegative.len(),
            nonnegative,
            lower_bound_rows: 0,
            implied_by_bounds: 0,
            pair_variables,
        };
        let (x_l, x_u) = layout.variable_bounds(&MpccData::of(mpcc));
        for (e, class) in [gg, hh].into_iter().zip(&classes) {
            let mut rest = Vec::new();
            for (i, c) in class.iter().enumerate() {
                if c.variable().is_some() {
                    continue;
                }
                if c.implied_nonnegative(&x_l, &x_u) {
                    layout.implied_by_bounds += 1;
                } else {
                    rest.push(i);
                }
            }
            if !rest.is_empty() {
                layout.lower_bound_rows += rest.len();
                constraints.push(e.slice(rest)?);
            }
        }
        let refs: Vec<&Matrix<K>> = constraints.iter().collect();
        let g = Matrix::vertcat(&refs)?;
        let gh_out = if nc == 0 { Matrix::zeros(0, 1) } else { gh.densify() };
        let report =
            Function::new(&crate::solver::report_kernel(module), &[("x", &x), ("p", &params)], &[("f", &mpcc.f), ("gh", &gh_out)])?;
        let nlp = SymbolicNlp { x, p: params, f, g };
        Ok(RelaxedNlp { nlp, report, layout })
    }
}
