//! The FESD-J finite element as one SX function, mapped over every element of the
//! horizon (so the generated code does not grow with N · N_FE).
//!
//! `element(w, q0, v0, gap0, h, u, p) -> (g, G, H, tie, quad, indicators, v_post,
//! impulse)`: `w` the element's own unknowns (post-impact velocity, impulses, stage
//! unknowns, friction multipliers, lifted slacks, end state), `(q0, v0, gap0)` its
//! left boundary (position, pre-impact velocity, gaps), `h` its step size;
//! `lbg ≤ g ≤ ubg` its equations, `0 ≤ G ⊥ H ≥ 0` its complementarity pairs (crossed
//! over its points), `tie` the ℓ1 tie-break term, `quad` the Lagrange term
//! `h Σ b_m L(Q_m, V_m, u, p)`, `indicators` the switching indicators for step
//! equilibration (normal forces, gaps, boundary gap, γ, cone slacks).

use crate::blocks::vcat;
use crate::element::{Boundary, Builder, Indicators};
use crate::error::Result;
use crate::geometry::Geometry;
use crate::model::ClsModel;
use crate::options::ClsOptions;
use crate::step::switch_indicator;
use casadi::{Function, SX};
use fesd_rk::ButcherTableau;

/// One element kernel with the layout of its unknowns.
pub(crate) struct ElementKernel {
    pub f: Function,
    /// `guess(q0, v0, gap0, h, u, p) -> w`: the element at rest at `q0` (forces,
    /// impulses and accelerations zero, lifted slacks consistent).
    pub guess: Function,
    pub n_w: usize,
    pub lbw: Vec<f64>,
    pub ubw: Vec<f64>,
    pub lbg: Vec<f64>,
    pub ubg: Vec<f64>,
    /// Source line (in the element builder) of every row of `g`.
    pub row_origin: Vec<u32>,
    pub off_q_end: usize,
    pub off_v_end: usize,
    pub off_gap_end: usize,
    /// Rows of the indicator output: normal forces, gaps, boundary gap (n_c each),
    /// γ and cone slacks (n_f each).
    pub n_c: usize,
    pub n_f: usize,
}

/// Builds the kernel of the first element of the horizon (`first`: the gaps at its
/// left boundary are data, an open contact takes no impulse) or of any later one
/// (the impulse is complementary to the lifted boundary gap).
pub(crate) fn element_kernel(
    model: &ClsModel,
    opts: &ClsOptions,
    tableau: &ButcherTableau,
    geo: &Geometry,
    first: bool,
    lagrange: Option<&Function>,
) -> Result<ElementKernel> {
    let (n_q, n_c) = (model.n_q(), model.n_c());
    let n_f = model.contacts.iter().filter(|c| c.has_friction()).count();
    let (q0, v0, gap0, h) = (
        SX::sym("q0", n_q),
        SX::sym("v0", n_q),
        SX::sym("gap0", n_c),
        SX::sym("h", 1),
    );
    let (u, p) = (model.u.clone(), model.p.clone());
    let mut b = Builder::new(model, opts, tableau, geo, h.clone(), Default::default());
    b.rest_prediction = true;
    let start = Boundary {
        q: q0.clone(),
        v: v0.clone(),
        gap: gap0.clone(),
    };
    let e = b.element(usize::from(!first), &start, &h)?;
    let w = b.w.vector()?;
    let slice = |off: usize| w.slice(off..off + n_q);
    let mut quad = SX::scalar(0.0);
    if let Some(l) = lagrange {
        for m in 0..tableau.n_s() {
            let (qm, vm) = (slice(e.off_q[m])?, slice(e.off_v[m])?);
            quad = quad + l.call(&[&qm, &vm, &u, &p])?.remove(0) * tableau.b[m];
        }
        quad = quad * &h;
    }
    let ind = &e.indicators;
    let indicators = vcat(&[
        ind.force.clone(),
        ind.gap.clone(),
        ind.left_gap.clone(),
        ind.gamma.clone(),
        ind.cone.clone(),
    ])?;
    let tie = b.tie_break_cost();
    let (big_g, big_h): (Vec<SX>, Vec<SX>) = b.pairs.iter().cloned().unzip();
    let inputs = [
        ("w", &w),
        ("q0", &q0),
        ("v0", &v0),
        ("gap0", &gap0),
        ("h", &h),
        ("u", &u),
        ("p", &p),
    ];
    let f = Function::new(
        if first {
            "cls_ocp_first_element"
        } else {
            "cls_ocp_element"
        },
        &inputs,
        &[
            ("g", &vcat(&b.con.g)?),
            ("G", &vcat(&big_g)?),
            ("H", &vcat(&big_h)?),
            ("tie", &tie),
            ("quad", &quad),
            ("indicators", &indicators),
            ("v_post", &e.v_post),
            ("impulse", &e.impulse),
        ],
    )?;
    let params = vcat(&[q0, v0, gap0, h, u, p])?;
    let guess = b.w.prediction(&params)?;
    Ok(ElementKernel {
        f,
        guess,
        n_w: b.w.len,
        lbw: b.w.lb,
        ubw: b.w.ub,
        lbg: b.con.lb,
        ubg: b.con.ub,
        row_origin: b.con.origin,
        off_q_end: e.off_q_end,
        off_v_end: e.off_v_end,
        off_gap_end: e.off_gap_end,
        n_c,
        n_f,
    })
}

/// The switch indicator of the boundary between two elements from their indicator
/// columns, and the step-equilibration residual `η (h_next − h_prev)` (`tanh η`
/// when `scaled`): `equilibrate(ind_prev, ind_next, h_prev, h_next) -> r`.
pub(crate) fn equilibration_kernel(n_c: usize, n_f: usize, scaled: bool) -> Result<Function> {
    let n_ind = 3 * n_c + 2 * n_f;
    let (ip, inx, hp, hn) = (
        SX::sym("ind_prev", n_ind),
        SX::sym("ind_next", n_ind),
        SX::sym("h_prev", 1),
        SX::sym("h_next", 1),
    );
    let part = |m: &SX, k: usize, len: usize| m.slice(k..k + len);
    let split = |m: &SX| -> Result<Indicators> {
        Ok(Indicators {
            force: part(m, 0, n_c)?,
            gap: part(m, n_c, n_c)?,
            left_gap: part(m, 2 * n_c, n_c)?,
            gamma: part(m, 3 * n_c, n_f)?,
            cone: part(m, 3 * n_c + n_f, n_f)?,
        })
    };
    let mut eta = switch_indicator(&split(&ip)?, &split(&inx)?)?;
    if scaled {
        eta = eta.tanh();
    }
    let r = eta * (&hn - &hp);
    Ok(Function::new(
        "cls_ocp_equilibrate",
        &[
            ("ind_prev", &ip),
            ("ind_next", &inx),
            ("h_prev", &hp),
            ("h_next", &hn),
        ],
        &[("r", &r)],
    )?)
}
