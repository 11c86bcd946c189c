//! The finite-element kernel: one SX function holding everything inside one element,
//! evaluated for every element of the horizon through one CasADi `map`, so that the
//! generated C does not grow with the number of elements.
//!
//! `element(x0, k, z, h, u, p, lam0, yref) -> (eq, x_end, G, H, quad, theta, x_stage,
//! dual_sum, primal_sum)`:
//! - `x0` the state at the element's start, `k` the stage unknowns (stage states in
//!   the integral form, stage derivatives in the differential form, `n_x · n_s`),
//!   `z` the algebraic variables of every point (`n_z · n_pts`: the stages, then the
//!   end point where the tableau is not stiffly accurate), `h` the step size, `u` the
//!   control, `p` the parameters, `lam0` the boundary duals at the element's start;
//! - `eq = 0`: RK stage equations, the DCS at every point; `x_end` the end state;
//!   `0 ≤ G ⊥ H ≥ 0` the complementarity pairs with cross complementarity (or, without
//!   FESD, the pointwise pairs); `quad` the Lagrange cost `h Σ b_m L(x_m, u, p)`;
//!   `theta` and `x_stage` for the results; `dual_sum` (over the left boundary and
//!   every point) and `primal_sum` (over the stages) for step equilibration;
//!   `primal_end`, `primal_first` and `dual_stages` for the sliding-exit condition;
//!   `primal` (every point) and `dual_end` (the last point) for simulation results and
//!   the boundary duals carried to the next step.

use crate::error::Result;
use crate::options::{FesdOptions, IrkRepresentation};
use crate::pairs::{complementarity_pairs, sum};
use casadi::{Function, SX};
use fesd_model::{PssModel, StageAlgebra};
use fesd_rk::ButcherTableau;

/// Sizes of one element's blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementSizes {
    /// States.
    pub n_x: usize,
    /// RK stages.
    pub n_s: usize,
    /// Algebraic variables per point.
    pub n_z: usize,
    /// Points carrying z: the stages, plus the end point when the tableau is not
    /// stiffly accurate.
    pub n_pts: usize,
    /// Complementarity components per point.
    pub n_comp: usize,
    /// θ entries per point.
    pub n_theta: usize,
}

/// Where a path constraint is imposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PathPoints {
    /// At every RK stage of every element (default).
    #[default]
    Stages,
    /// At the end of every element.
    ElementEnds,
}

/// What an element integrates or constrains besides its dynamics, in the model's
/// symbols `x`, `u`, `p`.
#[derive(Clone, Debug, Default)]
pub struct ElementTerms {
    /// Stage cost `L(x, u, p)` (scalar), integrated with the RK quadrature.
    pub lagrange: Option<SX>,
    /// Path constraints `c(x, u, p)` (column vectors) and where each is imposed.
    pub path: Vec<(SX, PathPoints)>,
    /// Least-squares tracking: outputs `y(x, u, p)` and the diagonal of W; adds
    /// `h Σ_m b_m |y(x_m) − y_ref|²_W` to the quadrature.
    pub tracking: Option<(SX, Vec<f64>)>,
}

/// For each of `n` components, its sum over `points` (each a list of components).
fn component_sums(points: &[Vec<SX>], n: usize) -> Vec<SX> {
    (0..n).map(|i| sum(&points.iter().map(|p| p[i].clone()).collect::<Vec<_>>())).collect()
}

/// Builds the element kernel of `model` with the extra `terms`.
pub(crate) fn element_kernel(model: &PssModel, alg: &StageAlgebra, tableau: &ButcherTableau, opts: &FesdOptions, terms: &ElementTerms) -> Result<(Function, ElementSizes)> {
    let (n_x, n_s, n_z, n_comp) = (model.n_x(), tableau.n_s(), alg.n_z(), alg.n_comp());
    let end_point = !tableau.is_stiffly_accurate();
    let n_pts = n_s + usize::from(end_point);
    let sizes = ElementSizes { n_x, n_s, n_z, n_pts, n_comp, n_theta: alg.theta.nrow() };
    let stage_fn = alg.function(model, "fesd_stage")?;
    let cost_fn = match &terms.lagrange {
        Some(l) => Some(Function::new("fesd_lagrange", &[("x", &model.x), ("u", &model.u), ("p", &model.p)], &[("l", l)])?),
        None => None,
    };
    let (x0, k, z) = (SX::sym("x0", n_x), SX::sym("k", n_x * n_s), SX::sym("z", n_z * n_pts));
    let (h, u, p, lam0) = (SX::sym("h", 1), model.u.clone(), model.p.clone(), SX::sym("lam0", n_comp));
    let n_y = terms.tracking.as_ref().map_or(0, |(y, _)| y.nrow());
    let yref = SX::sym("yref", n_y);
    let track_fn = match &terms.tracking {
        Some((y, _)) => Some(Function::new("fesd_outputs_y", &[("x", &model.x), ("u", &model.u), ("p", &model.p)], &[("y", y)])?),
        None => None,
    };
    let ks: Vec<SX> = (0..n_s).map(|m| k.slice(m * n_x..(m + 1) * n_x)).collect::<std::result::Result<_, _>>()?;
    let zs: Vec<SX> = (0..n_pts).map(|m| z.slice(m * n_z..(m + 1) * n_z)).collect::<std::result::Result<_, _>>()?;
    let stage_x: Vec<SX> = match opts.irk_representation {
        IrkRepresentation::Integral => ks.clone(),
        IrkRepresentation::Differential => (0..n_s).map(|m| &x0 + &h * SX::weighted_sum(&tableau.a[m], &ks, n_x)).collect(),
    };
    let (mut eq, mut xdots, mut thetas, mut primals, mut duals) = (vec![], vec![], vec![], vec![], vec![]);
    let mut quad = SX::scalar(0.0);
    for m in 0..n_s {
        let out = stage_fn.call(&[&stage_x[m], &u, &p, &zs[m]])?;
        xdots.push(out[0].clone());
        eq.push(out[1].clone());
        thetas.push(out[2].clone());
        primals.push(out[3].entries()?);
        duals.push(out[4].entries()?);
        if let Some(c) = &cost_fn {
            quad = quad + c.call(&[&stage_x[m], &u, &p])?.remove(0) * tableau.b[m];
        }
        if let (Some(y), Some((_, weight))) = (&track_fn, &terms.tracking) {
            let d = y.call(&[&stage_x[m], &u, &p])?.remove(0).try_sub(&yref)?;
            let w = SX::from_slice(weight);
            quad = quad + (&d * &d).dot(&w)? * tableau.b[m];
        }
    }
    quad = &quad * &h;
    for m in 0..n_s {
        match opts.irk_representation {
            IrkRepresentation::Differential => eq.push(ks[m].try_sub(&xdots[m])?),
            IrkRepresentation::Integral => eq.push(ks[m].try_sub(&x0)? - &h * SX::weighted_sum(&tableau.a[m], &xdots, n_x)),
        }
    }
    let x_end = &x0 + &h * SX::weighted_sum(&tableau.b, &xdots, n_x);
    if end_point {
        let out = stage_fn.call(&[&x_end, &u, &p, &zs[n_s]])?;
        eq.push(out[1].clone());
        primals.push(out[3].entries()?);
        duals.push(out[4].entries()?);
    }
    // Path constraints at the stages or at the element's end.
    let mut path_values = Vec::new();
    for (j, (c, at)) in terms.path.iter().enumerate() {
        let f = Function::new(&format!("fesd_path{j}"), &[("x", &model.x), ("u", &model.u), ("p", &model.p)], &[("c", c)])?;
        match at {
            PathPoints::Stages => {
                for xm in &stage_x {
                    path_values.push(f.call(&[xm, &u, &p])?.remove(0));
                }
            }
            PathPoints::ElementEnds => path_values.push(f.call(&[&x_end, &u, &p])?.remove(0)),
        }
    }
    let left = lam0.entries()?;
    let (big_g, big_h) = complementarity_pairs(opts, &left, &primals, &duals);
    // Sums for step equilibration: duals over the left boundary and every point,
    // primals over the stages.
    let boundary_and_points: Vec<Vec<SX>> = std::iter::once(left.clone()).chain(duals.iter().cloned()).collect();
    let dual_sum = component_sums(&boundary_and_points, n_comp);
    let primal_sum = component_sums(&primals[..n_s], n_comp);
    // For the sliding-exit condition between neighbours: primals at the element's end
    // (its last point) and first stage, duals summed over the stages.
    let dual_stages = component_sums(&duals[..n_s], n_comp);
    let (primal_end, primal_first) = (primals[n_pts - 1].clone(), primals[0].clone());
    let f = Function::new(
        "fesd_element",
        &[("x0", &x0), ("k", &k), ("z", &z), ("h", &h), ("u", &u), ("p", &p), ("lam0", &lam0), ("yref", &yref)],
        &[
            ("eq", &SX::column(&eq)?),
            ("x_end", &x_end),
            ("G", &SX::column(&big_g)?),
            ("H", &SX::column(&big_h)?),
            ("quad", &quad),
            ("theta", &SX::column(&thetas)?),
            ("x_stage", &SX::column(&stage_x)?),
            ("dual_sum", &SX::column(&dual_sum)?),
            ("primal_sum", &SX::column(&primal_sum)?),
            ("path", &SX::column(&path_values)?),
            ("primal_end", &SX::column(&primal_end)?),
            ("primal_first", &SX::column(&primal_first)?),
            ("dual_stages", &SX::column(&dual_stages)?),
            ("primal", &SX::column(&primals.concat())?),
            ("dual_end", &SX::column(&duals[n_pts - 1])?),
        ],
    )?;
    Ok((f, sizes))
}

/// The sliding-exit kernel between two neighbouring elements of one control interval:
/// `sliding_exit(primal_end_prev, primal_first_next, dual_stages_next) -> (G, H)`, the
/// pairs of [`crate::sliding_exit_pairs`].
pub(crate) fn sliding_exit_kernel(alg: &StageAlgebra) -> Result<Function> {
    let n = alg.n_comp();
    let (pe, pf, ds) = (SX::sym("primal_end_prev", n), SX::sym("primal_first_next", n), SX::sym("dual_stages_next", n));
    let (g, h) = crate::pairs::sliding_exit_pairs(&alg.siblings, &pe.entries()?, &pf.entries()?, &ds.entries()?);
    Ok(Function::new(
        "fesd_sliding_exit",
        &[("primal_end_prev", &pe), ("primal_first_next", &pf), ("dual_stages_next", &ds)],
        &[("G", &SX::column(&g)?), ("H", &SX::column(&h)?)],
    )?)
}

/// The step-equilibration kernel between two neighbouring elements:
/// `equilibrate(d_prev, p_prev, d_next, p_next, h_prev, h_next) -> r` with
/// `r = η (h_next − h_prev)` (`tanh η` when `scaled`), `η = Π_j υ_j` and
/// `υ_j = Σ_parts σ^B σ^F` over the DCS's groups (FORMULATION §3).
pub(crate) fn equilibration_kernel(alg: &StageAlgebra, n_comp: usize, scaled: bool) -> Result<Function> {
    let (dp, pp, dn, pn) = (SX::sym("dual_prev", n_comp), SX::sym("primal_prev", n_comp), SX::sym("dual_next", n_comp), SX::sym("primal_next", n_comp));
    let (hp, hn) = (SX::sym("h_prev", 1), SX::sym("h_next", 1));
    let (dpe, ppe, dne, pne) = (dp.entries()?, pp.entries()?, dn.entries()?, pn.entries()?);
    let mut eta = SX::scalar(1.0);
    for grp in &alg.groups {
        let width = grp.dual_parts.first().or(grp.primal_parts.first()).map_or(0, |v| v.len());
        for j in 0..width {
            let mut upsilon = SX::scalar(0.0);
            for part in &grp.dual_parts {
                upsilon = upsilon + &dpe[part[j]] * &dne[part[j]];
            }
            for part in &grp.primal_parts {
                upsilon = upsilon + &ppe[part[j]] * &pne[part[j]];
            }
            eta = eta * upsilon;
        }
    }
    if scaled {
        eta = eta.tanh();
    }
    let r = eta * (&hn - &hp);
    Ok(Function::new(
        "fesd_equilibrate",
        &[("dual_prev", &dp), ("primal_prev", &pp), ("dual_next", &dn), ("primal_next", &pn), ("h_prev", &hp), ("h_next", &hn)],
        &[("r", &r)],
    )?)
}
