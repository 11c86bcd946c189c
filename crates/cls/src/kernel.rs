//! The FESD-J finite element as one SX function, driven (mapped over every element
//! of a horizon: a simulation step's or an optimal control problem's) by the
//! DCS-independent chain of the discretization layer.
//!
//! `element(w, b_in, h, u, p, data) -> (g, G, H, quad, penalty, indicators, link,
//! v_post, impulse)`: `w` the element's own unknowns (post-impact velocity, impulses,
//! stage unknowns, friction multipliers, lifted slacks, end state), `b_in = (q0, v0,
//! gap0)` its left boundary (position, pre-impact velocity, gaps), `h` its step size;
//! `lbg ≤ g ≤ ubg` its equations, `0 ≤ G ⊥ H ≥ 0` its complementarity pairs (crossed
//! over its points), `quad` the Lagrange term `h Σ b_m L(Q_m, V_m, u, p)`, `penalty`
//! the ℓ1 tie-break term, `indicators` the switching indicators for step
//! equilibration (normal forces, gaps, boundary gap, γ, cone slacks), `link` empty;
//! then `v_post`, `impulse` and the stage normal forces `force` (n_c × n_s) for
//! results, and the path constraints' values. `data` holds the tracking reference
//! (optimal control's stage terms are functions of the state x = (q, v), u and p).
//! The right boundary `boundary(w) = (q_end, v_end, gap_end)` is read from `w`.

use crate::blocks::vcat;
use crate::element::{stage_block, Boundary, Builder, Indicators};
use crate::error::Result;
use crate::geometry::Geometry;
use crate::model::ClsModel;
use crate::options::ClsOptions;
use casadi::{Function, SX};
use fesd_discretization::{DcsElement, StageTerms, VariableTable};
use fesd_rk::ButcherTableau;

/// One element kernel with the layout of its unknowns.
pub(crate) struct ElementKernel {
    pub f: Function,
    /// `guess(q0, v0, gap0, h, u, p) -> w`: the element's predicted unknowns (see
    /// [`element_kernel`]'s `rest_prediction`), lifted slacks consistent.
    pub guess: Function,
    pub n_w: usize,
    pub lbw: Vec<f64>,
    pub ubw: Vec<f64>,
    pub lbg: Vec<f64>,
    pub ubg: Vec<f64>,
    /// Source line (in the element builder) of every row of `g`.
    pub row_origin: Vec<u32>,
    /// The element's unknowns by name, with their bounds: `v_post`, `impulse`,
    /// `q_stage_m`, `v_stage_m`, `force_stage_m` (see [`stage_block`]), `q_end`, `v_end`,
    /// `gap_end`, and the lifted and friction blocks.
    pub table: VariableTable,
    /// Coordinates.
    pub n_q: usize,
    /// Rows of the indicator output: normal forces, gaps, boundary gap (n_c each),
    /// γ and cone slacks (n_f each).
    pub n_c: usize,
    pub n_f: usize,
}

/// Builds the kernel of the first element of the horizon (`first`: the gaps at its
/// left boundary are data, an open contact takes no impulse) or of any later one
/// (the impulse is complementary to the lifted boundary gap). Its guess predicts the
/// element at rest on its closed contacts with `rest_prediction` (optimal control's
/// neutral guess), else in contact-free motion with the start acceleration frozen (a
/// simulation step's).
pub(crate) fn element_kernel(
    model: &ClsModel,
    opts: &ClsOptions,
    tableau: &ButcherTableau,
    geo: &Geometry,
    first: bool,
    rest_prediction: bool,
    terms: Option<&StageTerms>,
) -> Result<ElementKernel> {
    let (n_q, n_c) = (model.n_q(), model.n_c());
    let n_f = model.contacts.iter().filter(|c| c.has_friction()).count();
    let n_y = terms.map_or(0, StageTerms::n_y);
    let (b_in, h, data) = (SX::sym("b_in", 2 * n_q + n_c), SX::sym("h", 1), SX::sym("data", n_y));
    let (q0, v0, gap0) = (b_in.slice(0..n_q)?, b_in.slice(n_q..2 * n_q)?, b_in.slice(2 * n_q..2 * n_q + n_c)?);
    let (u, p) = (model.u.clone(), model.p.clone());
    let mut b = Builder::new(model, opts, tableau, geo, h.clone(), Default::default());
    b.rest_prediction = rest_prediction;
    let start = Boundary { q: q0.clone(), v: v0.clone(), gap: gap0.clone() };
    let e = b.element(usize::from(!first), &start, &h)?;
    let w = b.w.vector()?;
    let slice = |name: &str| -> Result<SX> { Ok(w.slice(block(&b.w.table, name)?)?) };
    // The state x = (q, v) at the stages and at the element's end.
    let stage_x = (0..tableau.n_s())
        .map(|m| Ok(SX::vertcat(&[&slice(&stage_block("q", m))?, &slice(&stage_block("v", m))?])?))
        .collect::<Result<Vec<SX>>>()?;
    let x_end = SX::vertcat(&[&slice("q_end")?, &slice("v_end")?])?;
    let (quad, path) = match terms {
        Some(t) => (t.quadrature(&tableau.b, &stage_x, &u, &p, &data)? * &h, t.path(&stage_x, &x_end, &u, &p)?),
        None => (SX::scalar(0.0), Vec::new()),
    };
    let indicators = e.indicators.stacked()?;
    let tie = b.tie_break_cost();
    let (big_g, big_h): (Vec<SX>, Vec<SX>) = b.pairs.iter().cloned().unzip();
    let inputs = [("w", &w), ("b_in", &b_in), ("h", &h), ("u", &u), ("p", &p), ("data", &data)];
    let f = Function::new(
        if first { "cls_ocp_first_element" } else { "cls_ocp_element" },
        &inputs,
        &[
            ("g", &vcat(&b.con.g)?),
            ("G", &vcat(&big_g)?),
            ("H", &vcat(&big_h)?),
            ("quad", &quad),
            ("penalty", &tie),
            ("indicators", &indicators),
            ("link", &SX::zeros(0, 1)),
            ("v_post", &e.v_post),
            ("impulse", &e.impulse),
            ("force", &crate::blocks::hcat(&e.forces, n_c)?),
            ("path", &vcat(&path)?),
        ],
    )?;
    // The guess's parameters (q0, v0, gap0, h, u, p) in one column: b_in is (q0, v0, gap0).
    let guess = b.w.prediction(&vcat(&[b_in.clone(), h, u, p])?)?;
    Ok(ElementKernel {
        f,
        guess,
        n_w: b.w.table.len(),
        lbw: b.w.table.lb.clone(),
        ubw: b.w.table.ub.clone(),
        lbg: b.con.lb,
        ubg: b.con.ub,
        row_origin: b.con.origin,
        table: b.w.table,
        n_q,
        n_c,
        n_f,
    })
}

/// The predicted unknowns of consecutive elements of steps `steps` from `(q0, v0)`
/// with controls `u` and parameters `p`: `first`'s guess on the first element, then
/// `inner`'s, each from its predecessor's predicted end (position, velocity, gaps);
/// the gaps at q0 (`gaps(q, p)`) clipped at zero, as the elements take them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn chained_guesses(
    first: &ElementKernel,
    inner: &ElementKernel,
    gaps: &Function,
    q0: &[f64],
    v0: &[f64],
    steps: &[f64],
    u: &[f64],
    p: &[f64],
) -> Result<Vec<Vec<f64>>> {
    let (mut q, mut v) = (q0.to_vec(), v0.to_vec());
    let mut gap: Vec<f64> = gaps.eval_dense(&[q0, p])?.remove(0).into_iter().map(|g| g.max(0.0)).collect();
    let mut out = Vec::with_capacity(steps.len());
    for (e, h) in steps.iter().enumerate() {
        let k = if e == 0 { first } else { inner };
        let input: Vec<f64> = q.iter().chain(&v).chain(&gap).chain(std::iter::once(h)).chain(u).chain(p).copied().collect();
        let guess = k.guess.eval_dense(&[&input])?.remove(0);
        q = guess[k.block("q_end")?].to_vec();
        v = guess[k.block("v_end")?].to_vec();
        gap = guess[k.block("gap_end")?].to_vec();
        out.push(guess);
    }
    Ok(out)
}

impl ElementKernel {
    /// The index range of the element's block `name` (see [`ElementKernel::table`]).
    pub fn block(&self, name: &str) -> Result<std::ops::Range<usize>> {
        block(&self.table, name)
    }

    /// What each row of `g` is: the element builder's line that wrote it.
    fn row_names(&self) -> Vec<String> {
        self.row_origin.iter().map(|l| format!("element.rs:{l}")).collect()
    }
}

/// The rigid body's element as the chain drives it: `first` on the horizon's first
/// element, `inner` on the others; the block of unknowns is `element`.
pub(crate) fn dcs_element(first: &ElementKernel, inner: &ElementKernel) -> Result<DcsElement> {
    let (n_c, n_f) = (inner.n_c, inner.n_f);
    let w = SX::sym("w", inner.n_w);
    let rows = |name: &str| -> Result<SX> { Ok(w.slice(inner.block(name)?)?) };
    let end = vcat(&[rows("q_end")?, rows("v_end")?, rows("gap_end")?])?;
    let boundary = Function::new("cls_boundary", &[("w", &w)], &[("b", &end)])?;
    let n_ind = 3 * n_c + 2 * n_f;
    let (ip, inx) = (SX::sym("ind_prev", n_ind), SX::sym("ind_next", n_ind));
    let eta = switch_indicator(&Indicators::split(&ip, n_c, n_f)?, &Indicators::split(&inx, n_c, n_f)?)?;
    let switch_indicator = Function::new("cls_switch_indicator", &[("ind_prev", &ip), ("ind_next", &inx)], &[("eta", &eta)])?;
    Ok(DcsElement {
        name: "cls".into(),
        blocks: vec![("element".into(), inner.n_w)],
        element: inner.f.clone(),
        lbg: inner.lbg.clone(),
        ubg: inner.ubg.clone(),
        row_names: inner.row_names(),
        first_element: Some((first.f.clone(), first.lbg.clone(), first.ubg.clone(), first.row_names())),
        boundary,
        switch_indicator,
        neighbour_pairs: None,
    })
}

/// The switch indicator η_n of the boundary between two elements: zero iff a contact
/// is made or broken (normal forces or gaps vanish on one side), an impact happens
/// (zero gap at the boundary without contact forces on both sides) or a slide
/// starts or stops (γ or the cone slack vanishes on one side).
fn switch_indicator(prev: &Indicators, next: &Indicators) -> Result<SX> {
    let contact = &prev.force * &next.force + &prev.gap * &next.gap;
    let impact = &next.left_gap + &prev.force * &next.force;
    let slide = &prev.gamma * &next.gamma + &prev.cone * &next.cone;
    let all = SX::vertcat(&[&contact, &impact, &slide])?;
    let mut eta = SX::scalar(1.0);
    for i in 0..all.nrow() {
        eta = eta * all.at(i)?;
    }
    Ok(eta)
}

/// The index range of block `name` (no interval, no element) of an element's table.
fn block(table: &VariableTable, name: &str) -> Result<std::ops::Range<usize>> {
    let b = table.block(name, None, None).ok_or_else(|| crate::error::ClsError::Model {
        what: "element layout".into(),
        reason: format!("no block {name} among the element's unknowns"),
    })?;
    Ok(b.offset..b.offset + b.len)
}
