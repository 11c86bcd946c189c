//! The finite element of a piecewise smooth system: one SX function holding
//! everything inside one element, driven by the DCS-independent chain
//! ([`crate::chain`]) through a [`DcsElement`].
//!
//! `element(k, z, [x], b_in, h, u, p, yref) -> (g, G, H, quad, penalty, indicators,
//! link, theta, x_stage, path, primal, dual_end)`:
//! - `k` the stage unknowns (stage states in the integral form, stage derivatives in
//!   the differential form, `n_x · n_s`), `z` the algebraic variables of every point
//!   (`n_z · n_pts`: the stages, then the end point where the tableau is not stiffly
//!   accurate), `x` the end state (absent when it is the last stage,
//!   [`crate::ElementGrid::end_is_last_stage`]), `b_in = (x0, lam0)` the state and
//!   boundary duals at the element's start, `h` the step size, `u` the control, `p`
//!   the parameters, `yref` the tracking reference;
//! - `g = 0`: the DCS at every point, the RK stage equations and, with an `x` block,
//!   `x = x0 + h Σ b_m f_m`; `0 ≤ G ⊥ H ≥ 0` the complementarity pairs with cross
//!   complementarity (or, without FESD, the pointwise pairs); `quad` the Lagrange cost
//!   `h Σ b_m L(x_m, u, p)`; `penalty` zero; `indicators` the dual sums (over the left
//!   boundary and every point) and primal sums (over the stages) for step
//!   equilibration; `link` the primals at the element's end and first stage and the
//!   duals summed over the stages, for the sliding-exit condition; then `theta`,
//!   `x_stage`, `path`, `primal` (every point) and `dual_end` (the last point) for
//!   results.
//!
//! The right boundary `boundary(k, z, [x]) = (x_end, dual of the last point)` is
//! read from the element's own unknowns.

use crate::chain::DcsElement;
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

/// The stage cost, tracking and path constraints of [`ElementTerms`] as functions of
/// a DCS's state, control and parameter symbols, evaluated at an element's points.
/// Every DCS's element kernel uses it (a rigid body's state is `(q, v)`).
pub struct StageTerms {
    /// The Lagrange cost `L(x, u, p)`.
    cost: Option<Function>,
    /// The tracked outputs `y(x, u, p)` and the diagonal of their weight W.
    track: Option<(Function, SX)>,
    /// The path constraints `c(x, u, p)` and where each is imposed.
    path: Vec<(Function, PathPoints)>,
    /// Tracked outputs n_y.
    n_y: usize,
}

impl StageTerms {
    /// The terms' functions of `(x, u, p)`; a term using other symbols is CasADi's error.
    pub fn new(x: &SX, u: &SX, p: &SX, terms: &ElementTerms) -> Result<StageTerms> {
        let xup = [("x", x), ("u", u), ("p", p)];
        let cost = terms.lagrange.as_ref().map(|l| Function::new("fesd_lagrange", &xup, &[("l", l)])).transpose()?;
        let track = terms
            .tracking
            .as_ref()
            .map(|(y, w)| Ok::<_, casadi::Error>((Function::new("fesd_outputs_y", &xup, &[("y", y)])?, SX::from_slice(w))))
            .transpose()?;
        let path = terms
            .path
            .iter()
            .enumerate()
            .map(|(j, (c, at))| Ok((Function::new(&format!("fesd_path{j}"), &xup, &[("c", c)])?, *at)))
            .collect::<Result<Vec<_>>>()?;
        let n_y = terms.tracking.as_ref().map_or(0, |(y, _)| y.nrow());
        Ok(StageTerms { cost, track, path, n_y })
    }

    /// Number of tracked outputs (the rows of the element's `yref` input).
    pub fn n_y(&self) -> usize {
        self.n_y
    }

    /// The quadrature `Σ_m b_m (L(x_m) + |y(x_m) − y_ref|²_W)` over the stage states
    /// (without the factor h).
    pub fn quadrature(&self, b: &[f64], stage_x: &[SX], u: &SX, p: &SX, yref: &SX) -> Result<SX> {
        let mut quad = SX::scalar(0.0);
        for (m, xm) in stage_x.iter().enumerate() {
            if let Some(c) = &self.cost {
                quad = &quad + c.call(&[xm, u, p])?.remove(0) * b[m];
            }
            if let Some((y, w)) = &self.track {
                let d = y.call(&[xm, u, p])?.remove(0).try_sub(yref)?;
                quad = &quad + (&d * &d).dot(w)? * b[m];
            }
        }
        Ok(quad)
    }

    /// The path constraints' values at the stages or at the element's end, as each asks,
    /// in the order of [`ElementTerms::path`].
    pub fn path(&self, stage_x: &[SX], x_end: &SX, u: &SX, p: &SX) -> Result<Vec<SX>> {
        let mut values = Vec::new();
        for (f, at) in &self.path {
            let points: Vec<&SX> = match at {
                PathPoints::Stages => stage_x.iter().collect(),
                PathPoints::ElementEnds => vec![x_end],
            };
            for xm in points {
                values.push(f.call(&[xm, u, p])?.remove(0));
            }
        }
        Ok(values)
    }
}

/// What an element's points give: equations, ẋ and θ of the stages, complementarity
/// primals and duals of every point.
struct Points {
    eq: Vec<SX>,
    xdots: Vec<SX>,
    thetas: Vec<SX>,
    primals: Vec<Vec<SX>>,
    duals: Vec<Vec<SX>>,
}

/// The DCS at every stage state `stage_x[m]` with algebraic variables `zs[m]`
/// (`stage(x, u, p, z) -> (ẋ, algebraic equations, θ, primals, duals)`).
fn stages(stage: &Function, stage_x: &[SX], zs: &[SX], u: &SX, p: &SX) -> Result<Points> {
    let mut pts = Points { eq: vec![], xdots: vec![], thetas: vec![], primals: vec![], duals: vec![] };
    for (m, xm) in stage_x.iter().enumerate() {
        let out = stage.call(&[xm, u, p, &zs[m]])?;
        pts.xdots.push(out[0].clone());
        pts.eq.push(out[1].clone());
        pts.thetas.push(out[2].clone());
        pts.primals.push(out[3].entries()?);
        pts.duals.push(out[4].entries()?);
    }
    Ok(pts)
}

/// The element's `indicators` output (step equilibration: the duals summed over the
/// left boundary `left` and every point, the primals over the stages) and its `link`
/// output (the sliding-exit condition between neighbours: the primals at the
/// element's end, i.e. its last point, and at its first stage, the duals summed over
/// the stages).
fn indicators_and_link(left: &[SX], primals: &[Vec<SX>], duals: &[Vec<SX>], n_s: usize, n_comp: usize) -> Result<(SX, SX)> {
    let boundary_and_points: Vec<Vec<SX>> = std::iter::once(left.to_vec()).chain(duals.iter().cloned()).collect();
    let dual_sum = component_sums(&boundary_and_points, n_comp);
    let primal_sum = component_sums(&primals[..n_s], n_comp);
    let dual_stages = component_sums(&duals[..n_s], n_comp);
    let (primal_end, primal_first) = (primals[primals.len() - 1].clone(), primals[0].clone());
    Ok((SX::column(&[dual_sum, primal_sum].concat())?, SX::column(&[primal_end, primal_first, dual_stages].concat())?))
}

/// The element of `model` with the extra `terms` as the chain drives it; with
/// `end_block` the element's end state is an `x` block of its own (else its last
/// stage state, see [`crate::ElementGrid::end_is_last_stage`]).
pub(crate) fn pss_element(
    model: &PssModel,
    alg: &StageAlgebra,
    tableau: &ButcherTableau,
    opts: &FesdOptions,
    terms: &ElementTerms,
    end_block: bool,
) -> Result<(DcsElement, ElementSizes)> {
    let (n_x, n_s, n_z, n_comp) = (model.n_x(), tableau.n_s(), alg.n_z(), alg.n_comp());
    let end_point = !tableau.is_stiffly_accurate();
    let n_pts = n_s + usize::from(end_point);
    let sizes = ElementSizes { n_x, n_s, n_z, n_pts, n_comp, n_theta: alg.theta.nrow() };
    let stage = alg.function(model, "fesd_stage")?;
    let stage_terms = StageTerms::new(&model.x, &model.u, &model.p, terms)?;
    let (k, z, x) = (SX::sym("k", n_x * n_s), SX::sym("z", n_z * n_pts), SX::sym("x", n_x));
    let b_in = SX::sym("b_in", n_x + n_comp);
    let (x0, lam0) = (b_in.slice(0..n_x)?, b_in.slice(n_x..n_x + n_comp)?);
    let (h, u, p) = (SX::sym("h", 1), model.u.clone(), model.p.clone());
    let yref = SX::sym("yref", stage_terms.n_y());
    let ks: Vec<SX> = (0..n_s).map(|m| k.slice(m * n_x..(m + 1) * n_x)).collect::<std::result::Result<_, _>>()?;
    let zs: Vec<SX> = (0..n_pts).map(|m| z.slice(m * n_z..(m + 1) * n_z)).collect::<std::result::Result<_, _>>()?;
    let stage_x: Vec<SX> = match opts.irk_representation {
        IrkRepresentation::Integral => ks.clone(),
        IrkRepresentation::Differential => (0..n_s).map(|m| &x0 + &h * SX::weighted_sum(&tableau.a[m], &ks, n_x)).collect(),
    };
    let mut pts = stages(&stage, &stage_x, &zs, &u, &p)?;
    let quad = stage_terms.quadrature(&tableau.b, &stage_x, &u, &p, &yref)? * &h;
    let (eq, xdots) = (&mut pts.eq, &pts.xdots);
    for m in 0..n_s {
        match opts.irk_representation {
            IrkRepresentation::Differential => eq.push(ks[m].try_sub(&xdots[m])?),
            IrkRepresentation::Integral => eq.push(ks[m].try_sub(&x0)? - &h * SX::weighted_sum(&tableau.a[m], xdots, n_x)),
        }
    }
    let x_end = &x0 + &h * SX::weighted_sum(&tableau.b, xdots, n_x);
    if end_block {
        eq.push(x.try_sub(&x_end)?);
    }
    if end_point {
        let out = stage.call(&[&x_end, &u, &p, &zs[n_s]])?;
        pts.eq.push(out[1].clone());
        pts.primals.push(out[3].entries()?);
        pts.duals.push(out[4].entries()?);
    }
    let path_values = stage_terms.path(&stage_x, &x_end, &u, &p)?;
    let Points { eq, thetas, primals, duals, .. } = pts;
    let left = lam0.entries()?;
    let (big_g, big_h) = complementarity_pairs(opts, &left, &primals, &duals);
    let (indicators, link) = indicators_and_link(&left, &primals, &duals, n_s, n_comp)?;
    let blocks_in: Vec<(&str, &SX)> = if end_block { vec![("k", &k), ("z", &z), ("x", &x)] } else { vec![("k", &k), ("z", &z)] };
    let mut inputs = blocks_in.clone();
    inputs.extend([("b_in", &b_in), ("h", &h), ("u", &u), ("p", &p), ("yref", &yref)]);
    let g = SX::column(&eq)?;
    let f = Function::new(
        "fesd_element",
        &inputs,
        &[
            ("g", &g),
            ("G", &SX::column(&big_g)?),
            ("H", &SX::column(&big_h)?),
            ("quad", &quad),
            ("penalty", &SX::scalar(0.0)),
            ("indicators", &indicators),
            ("link", &link),
            ("theta", &SX::column(&thetas)?),
            ("x_stage", &SX::column(&stage_x)?),
            ("path", &SX::column(&path_values)?),
            ("primal", &SX::column(&primals.concat())?),
            ("dual_end", &SX::column(&duals[n_pts - 1])?),
        ],
    )?;
    // The right boundary from the element's own unknowns: its end state and the
    // boundary duals of its last point.
    let end = if end_block { x.clone() } else { k.slice((n_s - 1) * n_x..n_s * n_x)? };
    let dual_of_z = Function::new("fesd_boundary_dual", &[("z", &alg.z)], &[("dual", &alg.dual)])?;
    let dual_end = dual_of_z.call(&[&z.slice((n_pts - 1) * n_z..n_pts * n_z)?])?.remove(0);
    let boundary = Function::new("fesd_boundary", &blocks_in, &[("b", &SX::vertcat(&[&end, &dual_end])?)])?;
    let n_rows = g.nrow();
    let mut blocks = vec![("k".to_string(), n_x * n_s), ("z".to_string(), n_z * n_pts)];
    if end_block {
        blocks.push(("x".to_string(), n_x));
    }
    let dcs = DcsElement {
        name: "fesd".into(),
        blocks,
        element: f,
        lbg: vec![0.0; n_rows],
        ubg: vec![0.0; n_rows],
        row_names: (0..n_rows).map(|i| format!("equation {i}")).collect(),
        first_element: None,
        boundary,
        switch_indicator: switch_indicator(alg, n_comp)?,
        neighbour_pairs: opts.sliding_exit_continuity.then(|| sliding_exit_kernel(alg)).transpose()?,
    };
    Ok((dcs, sizes))
}

/// The sliding-exit pairs between two neighbouring elements of one control interval
/// from their link outputs `(primal_end, primal_first, dual_stages)`:
/// `sliding_exit(link_prev, link_next) -> (G, H)`, the pairs of
/// [`crate::sliding_exit_pairs`].
fn sliding_exit_kernel(alg: &StageAlgebra) -> Result<Function> {
    let n = alg.n_comp();
    let (lp, ln) = (SX::sym("link_prev", 3 * n), SX::sym("link_next", 3 * n));
    let (pe, pf, ds) = (lp.slice(0..n)?, ln.slice(n..2 * n)?, ln.slice(2 * n..3 * n)?);
    let (g, h) = crate::pairs::sliding_exit_pairs(&alg.siblings, &pe.entries()?, &pf.entries()?, &ds.entries()?);
    Ok(Function::new("fesd_sliding_exit", &[("link_prev", &lp), ("link_next", &ln)], &[("G", &SX::column(&g)?), ("H", &SX::column(&h)?)])?)
}

/// The switch indicator between two neighbouring elements from their indicator
/// outputs `(dual_sum, primal_sum)`: `switch_indicator(ind_prev, ind_next) -> η`,
/// `η = Π_j υ_j` and `υ_j = Σ_parts σ^B σ^F` over the DCS's groups (FORMULATION §3).
fn switch_indicator(alg: &StageAlgebra, n_comp: usize) -> Result<Function> {
    let (ip, inx) = (SX::sym("ind_prev", 2 * n_comp), SX::sym("ind_next", 2 * n_comp));
    let (prev, next) = (ip.entries()?, inx.entries()?);
    let (dpe, ppe, dne, pne) = (&prev[..n_comp], &prev[n_comp..], &next[..n_comp], &next[n_comp..]);
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
    Ok(Function::new("fesd_switch_indicator", &[("ind_prev", &ip), ("ind_next", &inx)], &[("eta", &eta)])?)
}
