//! The FESD-J discretization of one interval `[0, T]` with fixed controls: an MPCC
//! in the parameters `(q0, v0, u, p, T)`, `v0` the velocity *before* any impulse at
//! t = 0.
//!
//! Per finite element n (start state `q_n`, pre-impact velocity `v_n`):
//! - impulse equations at its left boundary: `M(q_n)(v_n⁺ − v_n) = Σ_ℓ J_n^ℓ Λ_n^ℓ +
//!   t^ℓ (Λ_+^ℓ − Λ_−^ℓ)`, `0 ≤ Λ_n^ℓ ⊥ f_c^ℓ(q_n) ≥ 0`, Newton's law
//!   `Λ_n^ℓ · J_n^ℓᵀ(v_n⁺ + ε_r^ℓ v_n) = 0`, maximum dissipation of the tangential
//!   impulse, and the guard `f_c^ℓ(q_n) + ε_c h_n J_n^ℓᵀ v_n⁺ ≥ 0` (the FESD-J guard
//!   `f_c(q_n + ε_c h_n v_n⁺) ≥ 0` to first order);
//! - Runge–Kutta stages of `q̇ = v`, `M(q) v̇ = f + Σ_ℓ J_n^ℓ λ_n^ℓ + t^ℓ(λ_+^ℓ − λ_−^ℓ)`
//!   from `(q_n, v_n⁺)` (integral form: stage positions, velocities and, lifted,
//!   accelerations are unknowns);
//! - contact complementarity `0 ≤ λ_n ⊥ f_c ≥ 0` and planar Coulomb friction in
//!   polyhedral form `0 ≤ λ_± ⊥ γ ± tᵀv ≥ 0`, `0 ≤ γ ⊥ μλ_n − λ_+ − λ_− ≥ 0` (exact
//!   for planar contacts), crossed over the element's points (cross
//!   complementarity): a contact force anywhere in the element needs a zero gap at
//!   its left boundary and every stage, so contacts are made only at boundaries;
//!   slip, stick and slip reversal change only at boundaries.
//!
//! The element's end state `(q_{n+1}, v_{n+1})` (pre-impact) starts the next one.
//! Step equilibration uses the FESD-J switching indicators of neighbouring elements
//! (sums of normal forces, gaps, γ and cone slacks) and the gap at their common
//! boundary, which vanishes at an impact.

use crate::blocks::{hcat, vcat, Blocks};
use crate::element::{Boundary, Builder, Element, Indicators};
use crate::error::Result;
use crate::geometry::Geometry;
use crate::model::ClsModel;
use crate::options::ClsOptions;
use casadi::{Function, SX};
use fesd_mpcc::Mpcc;
use fesd_rk::ButcherTableau;
use fesd_sim::StepEquilibration;

/// Where the unknowns of each finite element sit in the MPCC's `w`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClsLayout {
    /// Coordinates.
    pub n_q: usize,
    /// Contacts.
    pub n_c: usize,
    /// Finite elements.
    pub n_fe: usize,
    /// Stages.
    pub n_s: usize,
    /// Index of τ_n = h_n / T (FESD only).
    pub tau: Option<Vec<usize>>,
    /// Offset of the post-impact velocity v_n⁺ (n_q).
    pub v_post: Vec<usize>,
    /// Offset of the normal impulses Λ_n (n_c).
    pub impulse: Vec<usize>,
    /// Offsets of the stage positions, velocities (n_q each) per element and stage.
    pub stage_q: Vec<Vec<usize>>,
    /// See `stage_q`.
    pub stage_v: Vec<Vec<usize>>,
    /// Offsets of the stage normal forces (n_c) per element and stage.
    pub stage_force: Vec<Vec<usize>>,
    /// Offsets of the end position and pre-impact end velocity (n_q each).
    pub q_end: Vec<usize>,
    /// See `q_end`.
    pub v_end: Vec<usize>,
    /// Length of w.
    pub n_w: usize,
}

/// One discretized interval of a rigid-body model.
pub struct ClsStep {
    /// The MPCC in w with parameters `(q0, v0, u, p, T)`.
    pub mpcc: Mpcc,
    /// Where the unknowns are.
    pub layout: ClsLayout,
    /// `outputs(w, params) -> (h, q_boundary, v_boundary, v_post, impulse, force, gap)`:
    /// step sizes (n_fe), positions and pre-impact velocities at the element
    /// boundaries (n_q × (n_fe + 1)), post-impact velocities at the left boundaries
    /// (n_q × n_fe), normal impulses (n_c × n_fe), stage normal forces
    /// (n_c × n_fe n_s), gaps at the boundaries (n_c × (n_fe + 1)).
    pub outputs: Function,
    /// `gaps(q, p)`: the gap of every contact (n_c).
    pub gaps: Function,
    /// `predict(params) -> w`: the initial guess of a contact-free motion with the
    /// acceleration frozen per element (contact forces and impulses zero, lifted
    /// quantities consistent with it).
    pub predict: Function,
    /// The tableau used.
    pub tableau: ButcherTableau,
}


impl ClsStep {
    /// Discretizes one interval of `model` with `opts`.
    pub fn new(model: &ClsModel, opts: &ClsOptions) -> Result<ClsStep> {
        model.validate()?;
        let tableau = opts.validate()?;
        let geo = Geometry::new(model, opts.friction_directions, opts.friction_model)?;
        let (n_q, n_c, n_fe, n_s) = (model.n_q(), model.n_c(), opts.n_fe, tableau.n_s());
        let q0 = SX::sym("q0", n_q);
        let v0 = SX::sym("v0", n_q);
        let t_int = SX::sym("T", 1);
        let params = SX::vertcat(&[&q0, &v0, &model.u, &model.p, &t_int])?;
        let tau_nom = 1.0 / n_fe as f64;
        let h_nom = &t_int * tau_nom;
        let mut w = Blocks::default();
        let (h, tau_index): (Vec<SX>, Option<Vec<usize>>) = if opts.use_fesd {
            let (lo, hi) = ((1.0 - opts.gamma_h) * tau_nom, (1.0 + opts.gamma_h) * tau_nom);
            let (ts, off) = w.add("tau", n_fe, lo, hi, SX::from_slice(&vec![tau_nom; n_fe]));
            w.guess[off..off + n_fe].fill(tau_nom);
            ((0..n_fe).map(|n| Ok(&t_int * ts.at(n)?)).collect::<Result<_>>()?, Some((off..off + n_fe).collect()))
        } else {
            (vec![h_nom.clone(); n_fe], None)
        };
        let mut b = Builder::new(model, opts, &tableau, &geo, h_nom.clone(), w);
        // The gaps at q0 are given, clipped at zero: a resting contact may start a hair
        // inside, by the previous interval's constraint tolerance.
        let mut start = Boundary { q: q0.clone(), v: v0.clone(), gap: geo.gap(&q0, &model.p)?.fmax(&SX::zeros(n_c, 1))? };
        let mut elements: Vec<Element> = Vec::with_capacity(n_fe);
        for (n, h_n) in h.iter().enumerate() {
            let e = b.element(n, &start, h_n)?;
            start = e.end.clone();
            elements.push(e);
        }
        let mut f = b.tie_break_cost();
        if opts.use_fesd {
            b.con.eq(h.iter().fold(SX::scalar(0.0), |a, c| a + c) - &t_int);
            f = f + equilibration(opts, &h, &h_nom, &elements, &mut b.con)?;
        }
        let layout = layout(n_q, n_c, n_s, tau_index, &elements, b.w.len);
        let wv = b.w.vector()?;
        let predict = b.w.prediction(&params)?;
        let (big_g, big_h): (Vec<SX>, Vec<SX>) = b.pairs.into_iter().unzip();
        let mut mpcc = Mpcc::new(wv.clone(), f, vcat(&big_g)?, vcat(&big_h)?);
        mpcc.p = params.clone();
        mpcc.g = vcat(&b.con.g)?;
        mpcc.lbg = b.con.lb;
        mpcc.ubg = b.con.ub;
        mpcc.lbw = b.w.lb;
        mpcc.ubw = b.w.ub;
        mpcc.w0 = b.w.guess;
        mpcc.p0 = vec![0.0; params.nrow()];
        let outputs = outputs_function(&wv, &params, &h, &q0, &v0, &elements, geo.gap(&q0, &model.p)?, n_q, n_c)?;
        Ok(ClsStep { mpcc, layout, outputs, gaps: geo.gaps, predict, tableau })
    }

    /// The predicted initial guess for the parameters `(q0, v0, u, p, T)`.
    pub fn initial_guess(&self, params: &[f64]) -> Result<Vec<f64>> {
        Ok(self.predict.eval_dense(&[params])?.remove(0))
    }

    /// A resting guess at `(q0, v0)`: every position and velocity unknown at the
    /// initial values, everything else zero, τ = 1/N_FE.
    pub fn resting_guess(&self, q0: &[f64], v0: &[f64]) -> Vec<f64> {
        let mut w = self.mpcc.w0.clone();
        let l = &self.layout;
        let mut put = |off: usize, val: &[f64]| w[off..off + val.len()].copy_from_slice(val);
        for n in 0..l.n_fe {
            put(l.v_post[n], v0);
            for m in 0..l.n_s {
                put(l.stage_q[n][m], q0);
                put(l.stage_v[n][m], v0);
            }
            put(l.q_end[n], q0);
            put(l.v_end[n], v0);
        }
        w
    }
}

fn layout(n_q: usize, n_c: usize, n_s: usize, tau: Option<Vec<usize>>, elements: &[Element], n_w: usize) -> ClsLayout {
    ClsLayout {
        n_q,
        n_c,
        n_fe: elements.len(),
        n_s,
        tau,
        v_post: elements.iter().map(|e| e.off_v_post).collect(),
        impulse: elements.iter().map(|e| e.off_impulse).collect(),
        stage_q: elements.iter().map(|e| e.off_q.clone()).collect(),
        stage_v: elements.iter().map(|e| e.off_v.clone()).collect(),
        stage_force: elements.iter().map(|e| e.off_force.clone()).collect(),
        q_end: elements.iter().map(|e| e.off_q_end).collect(),
        v_end: elements.iter().map(|e| e.off_v_end).collect(),
        n_w,
    }
}

#[allow(clippy::too_many_arguments)]
fn outputs_function(w: &SX, params: &SX, h: &[SX], q0: &SX, v0: &SX, elements: &[Element], gap0: SX, n_q: usize, n_c: usize) -> Result<Function> {
    let q: Vec<SX> = std::iter::once(q0.clone()).chain(elements.iter().map(|e| e.end.q.clone())).collect();
    let v: Vec<SX> = std::iter::once(v0.clone()).chain(elements.iter().map(|e| e.end.v.clone())).collect();
    let gap: Vec<SX> = std::iter::once(gap0).chain(elements.iter().map(|e| e.end.gap.clone())).collect();
    let v_post: Vec<SX> = elements.iter().map(|e| e.v_post.clone()).collect();
    let impulse: Vec<SX> = elements.iter().map(|e| e.impulse.clone()).collect();
    let force: Vec<SX> = elements.iter().flat_map(|e| e.forces.iter().cloned()).collect();
    Ok(Function::new(
        "cls_outputs",
        &[("w", w), ("params", params)],
        &[
            ("h", &vcat(h)?),
            ("q_boundary", &hcat(&q, n_q)?),
            ("v_boundary", &hcat(&v, n_q)?),
            ("v_post", &hcat(&v_post, n_q)?),
            ("impulse", &hcat(&impulse, n_c)?),
            ("force", &hcat(&force, n_c)?),
            ("gap", &hcat(&gap, n_c)?),
        ],
    )?)
}

/// The switch indicator η_n of the boundary between two elements: zero iff a contact
/// is made or broken (normal forces or gaps vanish on one side), an impact happens
/// (zero gap at the boundary without contact forces on both sides) or a slide
/// starts or stops (γ or the cone slack vanishes on one side).
pub(crate) fn switch_indicator(prev: &Indicators, next: &Indicators) -> Result<SX> {
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

/// Step equilibration: the heuristic costs, or with the switch indicators η_n the
/// cost `ρ_h Σ (η_n (h_n − h_{n−1}))²` (`tanh(η_n)` when scaled) or the constraints
/// `η_n (h_n − h_{n−1}) = 0` (direct).
fn equilibration(opts: &ClsOptions, h: &[SX], h_nom: &SX, elements: &[Element], con: &mut crate::blocks::Constraints) -> Result<SX> {
    let mut f = SX::scalar(0.0);
    for n in 1..h.len() {
        let d = &h[n] - &h[n - 1];
        match opts.step_equilibration {
            StepEquilibration::HeuristicMean => {}
            StepEquilibration::HeuristicDiff => f = f + opts.rho_h * &d * &d,
            mode => {
                let mut eta = switch_indicator(&elements[n - 1].indicators, &elements[n].indicators)?;
                if mode == StepEquilibration::L2RelaxedScaled {
                    eta = eta.tanh();
                }
                let r = eta * d;
                if mode == StepEquilibration::Direct {
                    con.eq(r);
                } else {
                    f = f + opts.rho_h * &r * &r;
                }
            }
        }
    }
    if opts.step_equilibration == StepEquilibration::HeuristicMean && h.len() > 1 {
        for hn in h {
            let d = hn - h_nom;
            f = f + opts.rho_h * &d * &d;
        }
    }
    Ok(f)
}
