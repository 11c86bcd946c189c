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

use crate::error::Result;
use crate::model::ClsModel;
use crate::options::{ClsOptions, MassMatrixForm};
use crate::pairs::{at, cross_pairs, AtPoint};
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

struct Blocks {
    items: Vec<SX>,
    lb: Vec<f64>,
    ub: Vec<f64>,
    guess: Vec<f64>,
    /// The predicted value of every block: an expression in the parameters and in
    /// other blocks (resolved by substitution at the end).
    predicted: Vec<SX>,
    len: usize,
}

impl Blocks {
    /// A new block of `n` unknowns in `[lo, hi]` with the predicted value `predicted`
    /// (n × 1); returns its symbol and offset.
    fn new_block(&mut self, name: &str, n: usize, lo: f64, hi: f64, predicted: SX) -> (SX, usize) {
        let v = SX::sym(name, n);
        self.predicted.push(predicted);
        let off = self.len;
        self.len += n;
        self.lb.extend(std::iter::repeat_n(lo, n));
        self.ub.extend(std::iter::repeat_n(hi, n));
        self.guess.extend(std::iter::repeat_n(0.0, n));
        self.items.push(v.clone());
        (v, off)
    }
}

/// Equality and inequality constraints collected with their bounds.
#[derive(Default)]
struct Constraints {
    g: Vec<SX>,
    lb: Vec<f64>,
    ub: Vec<f64>,
}

impl Constraints {
    fn eq(&mut self, e: SX) {
        self.lb.extend(std::iter::repeat_n(0.0, e.nrow()));
        self.ub.extend(std::iter::repeat_n(0.0, e.nrow()));
        self.g.push(e);
    }

    fn nonneg(&mut self, e: SX) {
        self.lb.extend(std::iter::repeat_n(0.0, e.nrow()));
        self.ub.extend(std::iter::repeat_n(f64::INFINITY, e.nrow()));
        self.g.push(e);
    }
}

pub(crate) fn vcat(items: &[SX]) -> Result<SX> {
    if items.is_empty() {
        return Ok(SX::zeros(0, 1));
    }
    Ok(SX::vertcat(&items.iter().collect::<Vec<_>>())?)
}

fn hcat(items: &[SX], rows: usize) -> Result<SX> {
    if items.is_empty() {
        return Ok(SX::zeros(rows, 0));
    }
    Ok(SX::horzcat(&items.iter().collect::<Vec<_>>())?)
}

/// `predict(params)`: the predicted values resolved into the parameters alone by
/// substituting the blocks' predictions into each other (chains are short: a lifted
/// gap depends on a stage state, which depends on the previous element's end).
fn prediction_function(w: &SX, predicted: &SX, params: &SX) -> Result<Function> {
    let mut g = predicted.clone();
    for _ in 0..16 {
        if SX::jacobian(&g, w)?.nnz() == 0 {
            break;
        }
        g = SX::substitute(&g, w, &g)?;
    }
    Ok(Function::new("cls_predict", &[("params", params)], &[("w", &g)])?)
}

/// A new nonnegative unknown `y` with the constraint `y = e`.
fn lift(w: &mut Blocks, con: &mut Constraints, name: &str, e: SX) -> SX {
    let (y, _) = w.new_block(name, e.nrow(), 0.0, f64::INFINITY, e.clone());
    con.eq(&y - e);
    y
}

fn weighted_sum(coeffs: &[f64], vectors: &[SX], n: usize) -> SX {
    coeffs.iter().zip(vectors).fold(SX::zeros(n, 1), |acc, (c, v)| acc + *c * v)
}

/// The model's contact geometry as functions of (q, p).
struct Geometry {
    /// gaps(q, p) -> n_c × 1.
    gaps: Function,
    /// normals(q, p) -> n_q × n_c.
    normals: Function,
    /// tangents(q, p) -> n_q × n_c (zero columns for frictionless contacts).
    tangents: Function,
    /// mass(q, p).
    mass: Function,
    /// forces(q, v, u, p).
    forces: Function,
}

impl Geometry {
    fn new(m: &ClsModel) -> Result<Geometry> {
        let n_q = m.n_q();
        let gaps: Vec<SX> = m.contacts.iter().map(|c| c.gap.clone()).collect();
        let normals: Vec<SX> = (0..m.n_c()).map(|l| m.normal(l)).collect::<Result<_>>()?;
        let tangents: Vec<SX> = m.contacts.iter().map(|c| c.tangent.clone().unwrap_or_else(|| SX::zeros(n_q, 1))).collect();
        let qp = [("q", &m.q), ("p", &m.p)];
        Ok(Geometry {
            gaps: Function::new("cls_gaps", &qp, &[("gap", &vcat(&gaps)?)])?,
            normals: Function::new("cls_normals", &qp, &[("J_n", &hcat(&normals, n_q)?)])?,
            tangents: Function::new("cls_tangents", &qp, &[("J_t", &hcat(&tangents, n_q)?)])?,
            mass: Function::new("cls_mass", &qp, &[("M", &m.mass)])?,
            forces: Function::new("cls_forces", &[("q", &m.q), ("v", &m.v), ("u", &m.u), ("p", &m.p)], &[("f", &m.forces)])?,
        })
    }

    fn eval(f: &Function, args: &[&SX]) -> Result<SX> {
        Ok(f.call(args)?.remove(0))
    }
}

/// The friction multipliers `(λ_+, λ_−, γ)` of the frictional contacts at one point.
struct Friction {
    plus: SX,
    minus: SX,
    gamma: SX,
}

impl ClsStep {
    /// Discretizes one interval of `model` with `opts`.
    pub fn new(model: &ClsModel, opts: &ClsOptions) -> Result<ClsStep> {
        model.validate()?;
        let tableau = opts.validate()?;
        let geo = Geometry::new(model)?;
        let (n_q, n_c) = (model.n_q(), model.n_c());
        let (n_fe, n_s) = (opts.n_fe, tableau.n_s());
        let frictional: Vec<usize> = (0..n_c).filter(|&l| model.contacts[l].has_friction()).collect();
        let n_f = frictional.len();
        let mu = SX::from_slice(&frictional.iter().map(|&l| model.contacts[l].friction).collect::<Vec<_>>());
        let eps_r = SX::from_slice(&model.contacts.iter().map(|c| c.restitution).collect::<Vec<_>>());
        let (u, p) = (&model.u, &model.p);

        let q0 = SX::sym("q0", n_q);
        let v0 = SX::sym("v0", n_q);
        let t_int = SX::sym("T", 1);
        let params = SX::vertcat(&[&q0, &v0, u, p, &t_int])?;
        let tau_nom = 1.0 / n_fe as f64;
        let h_nom = &t_int * tau_nom;
        let inf = f64::INFINITY;
        let mut w = Blocks { items: vec![], lb: vec![], ub: vec![], guess: vec![], predicted: vec![], len: 0 };
        let (h, tau_index): (Vec<SX>, Option<Vec<usize>>) = if opts.use_fesd {
            let (lo, hi) = ((1.0 - opts.gamma_h) * tau_nom, (1.0 + opts.gamma_h) * tau_nom);
            let (ts, off) = w.new_block("tau", n_fe, lo, hi, SX::from_slice(&vec![tau_nom; n_fe]));
            w.guess[off..off + n_fe].fill(tau_nom);
            ((0..n_fe).map(|n| Ok(&t_int * ts.at(n)?)).collect::<Result<_>>()?, Some((off..off + n_fe).collect()))
        } else {
            (vec![h_nom.clone(); n_fe], None)
        };
        let mut layout = ClsLayout {
            n_q,
            n_c,
            n_fe,
            n_s,
            tau: tau_index,
            v_post: vec![],
            impulse: vec![],
            stage_q: vec![],
            stage_v: vec![],
            stage_force: vec![],
            q_end: vec![],
            v_end: vec![],
            n_w: 0,
        };
        let mut con = Constraints::default();
        // Impulse-side unknowns whose smallest value is wanted where the relaxation
        // leaves them free (see `ClsOptions::rho_multipliers`).
        let mut tie_break: Vec<SX> = Vec::new();
        let mut pairs: Vec<(SX, SX)> = Vec::new();
        // Contact forces on the coordinates: J_n λ_n + J_t (λ_+ − λ_−).
        let generalized = |q: &SX, normal: &SX, fr: &Friction| -> Result<SX> {
            let jn = Geometry::eval(&geo.normals, &[q, p])?;
            let mut out = jn.mtimes(normal)?;
            if n_f > 0 {
                let jt = Geometry::eval(&geo.tangents, &[q, p])?.get(.., frictional.clone())?;
                out = out + jt.mtimes(&(&fr.plus - &fr.minus))?;
            }
            Ok(out)
        };
        let tangential_velocity = |q: &SX, v: &SX| -> Result<SX> {
            let jt = Geometry::eval(&geo.tangents, &[q, p])?.get(.., frictional.clone())?;
            Ok(jt.t().mtimes(v)?)
        };
        // Friction multipliers at a point with (predicted) tangential velocity `vt`:
        // no force, γ = |tᵀv|.
        let friction_block = |w: &mut Blocks, tag: &str, vt: SX| -> Result<Friction> {
            let (plus, _) = w.new_block(&format!("{tag}_plus"), n_f, 0.0, inf, SX::zeros(n_f, 1));
            let (minus, _) = w.new_block(&format!("{tag}_minus"), n_f, 0.0, inf, SX::zeros(n_f, 1));
            let (gamma, _) = w.new_block(&format!("{tag}_gamma"), n_f, 0.0, inf, vt.abs());
            Ok(Friction { plus, minus, gamma })
        };
        // Maximum dissipation in polyhedral form at the points of `fr`: the slacks
        // γ ± tᵀv and μλ_n − λ_+ − λ_− are lifted into nonnegative unknowns, crossed
        // with λ_±, γ over the points.
        let friction_pairs = |w: &mut Blocks, con: &mut Constraints, normal: &[SX], vt: &[SX], fr: &[(usize, &Friction)], pairs: &mut Vec<(SX, SX)>| -> Result<Vec<SX>> {
            let mut slacks = Vec::with_capacity(fr.len());
            for ((k, f), (nrm, v)) in fr.iter().zip(normal.iter().zip(vt)) {
                let sp = lift(w, con, &format!("slip_plus_{k}"), &f.gamma + v);
                let sm = lift(w, con, &format!("slip_minus_{k}"), &f.gamma - v);
                let sg = lift(w, con, &format!("cone_{k}"), &mu * nrm - &f.plus - &f.minus);
                slacks.push((sp, sm, sg));
            }
            for i in 0..n_f {
                let mut lists: [(Vec<AtPoint>, Vec<AtPoint>); 3] = Default::default();
                for ((k, f), (sp, sm, sg)) in fr.iter().zip(&slacks) {
                    for (j, (act, sl)) in [(&f.plus, sp), (&f.minus, sm), (&f.gamma, sg)].into_iter().enumerate() {
                        lists[j].0.push(at(*k, act.at(i)?));
                        lists[j].1.push(at(*k, sl.at(i)?));
                    }
                }
                for (act, sl) in &lists {
                    pairs.extend(cross_pairs(opts.cross_complementarity, opts.use_fesd, act, sl));
                }
            }
            Ok(slacks.into_iter().map(|(_, _, sg)| sg).collect())
        };

        let (mut out_q, mut out_v) = (vec![q0.clone()], vec![v0.clone()]);
        let (mut out_vpost, mut out_impulse, mut out_force, mut out_gap) = (vec![], vec![], vec![], vec![Geometry::eval(&geo.gaps, &[&q0, p])?]);
        let (mut q_n, mut v_n) = (q0.clone(), v0.clone());
        // Gaps at the current element's left boundary: given at q0, then the previous
        // element's lifted end gaps.
        // (At q0 clipped at zero: a resting contact may start a hair inside, by the
        // previous interval's constraint tolerance.)
        let mut gap_n = Geometry::eval(&geo.gaps, &[&q0, p])?.fmax(&SX::zeros(n_c, 1))?;
        for n in 0..n_fe {
            // Impulse at the left boundary.
            let (v_post, off) = w.new_block(&format!("v_post_{n}"), n_q, -inf, inf, v_n.clone());
            layout.v_post.push(off);
            let (lam_imp, off) = w.new_block(&format!("Lambda_{n}"), n_c, 0.0, inf, SX::zeros(n_c, 1));
            layout.impulse.push(off);
            let fr_imp = friction_block(&mut w, &format!("Lambda_t_{n}"), tangential_velocity(&q_n, &v_post)?)?;
            tie_break.push(fr_imp.gamma.sum());
            let mass_n = Geometry::eval(&geo.mass, &[&q_n, p])?;
            con.eq(mass_n.mtimes(&v_post.try_sub(&v_n)?)? - generalized(&q_n, &lam_imp, &fr_imp)?);
            // Newton's law J_nᵀ v⁺ + ε_r J_nᵀ v⁻ = 0 where Λ_n > 0, written with the split
            // z = z₊ − z₋ and the pairs Λ_n ⊥ z₊, Λ_n ⊥ z₋, z₊ ⊥ z₋ instead of the
            // bilinear equality Λ_n z = 0, whose gradient vanishes at Λ_n = z = 0 (at
            // rest, at an apex, at the neutral guess).
            let jn = Geometry::eval(&geo.normals, &[&q_n, p])?;
            let newton = jn.t().mtimes(&v_post)? + &eps_r * &jn.t().mtimes(&v_n)?;
            let zero_c = SX::zeros(n_c, 1);
            let (z_plus, _) = w.new_block(&format!("newton_plus_{n}"), n_c, 0.0, inf, newton.fmax(&zero_c)?);
            let (z_minus, _) = w.new_block(&format!("newton_minus_{n}"), n_c, 0.0, inf, (-&newton).fmax(&zero_c)?);
            con.eq(&z_plus - &z_minus - newton);
            tie_break.extend([lam_imp.sum(), z_plus.sum(), z_minus.sum()]);
            for l in 0..n_c {
                let (lam, zp, zm) = (lam_imp.at(l)?, z_plus.at(l)?, z_minus.at(l)?);
                pairs.extend([(lam.clone(), zp.clone()), (lam, zm.clone()), (zp, zm)]);
            }
            // The guard, linearized about q_n on the lifted gap (a bounded unknown, so
            // ≥ 0 exactly): f_c(q_n) + ε_c h_n J_nᵀ v⁺ ≥ 0. The unlinearized
            // f_c(q_n + ε_c h_n v⁺) turns a position error δ of the resting contact
            // into a demanded velocity δ / (ε_c h_n) and makes rest infeasible.
            // It tolerates `contact_tol`: at a resting contact (gap and normal velocity
            // zero) an exactly active guard would be linearly dependent on Newton's
            // law and the gap bound, a degenerate NLP; with the tolerance only impacts
            // slower than contact_tol / (ε_c h_n) may end without an impulse (plastic).
            con.nonneg(&gap_n + opts.eps_c * &h[n] * jn.t().mtimes(&v_post)? + opts.contact_tol);
            if n == 0 {
                // The gap at the interval's start is given: a contact open by more than
                // `contact_tol` takes no impulse (Λ_0 ≤ 0), a closed one may take any.
                // As a relaxed pair Λ_0 · f_c(q0) ≤ σ the homotopy would start with a
                // wrong impulse at t = 0 whenever the gap is small.
                let open = gap_n.lt(&SX::scalar(opts.contact_tol))?;
                let open = SX::scalar(1.0) - open;
                con.nonneg(-(&open * &lam_imp));
            } else {
                for l in 0..n_c {
                    pairs.push((lam_imp.at(l)?, gap_n.at(l)?));
                }
            }
            if n_f > 0 {
                let vt = tangential_velocity(&q_n, &v_post)?;
                let normal_f = lam_imp.get(frictional.clone(), 0usize)?;
                friction_pairs(&mut w, &mut con, &[normal_f], &[vt], &[(0, &fr_imp)], &mut pairs)?;
            }
            out_vpost.push(v_post.clone());
            out_impulse.push(lam_imp.clone());

            // Stages.
            let (mut sq, mut sv, mut sa, mut sf) = (vec![], vec![], vec![], vec![]);
            let (mut off_q, mut off_v, mut off_f) = (vec![], vec![], vec![]);
            let mut stage_fr = Vec::with_capacity(n_s);
            // Predicted motion without contact forces, with the acceleration frozen at
            // the element's start (exact under constant forces such as gravity).
            let acc0 = SX::solve(&mass_n, &Geometry::eval(&geo.forces, &[&q_n, &v_post, u, p])?)?;
            let ahead = |c: f64| -> (SX, SX) {
                let dt = &h_nom * c;
                (&q_n + &(&dt * &v_post) + &(0.5 * &dt * &dt * &acc0), &v_post + &(&dt * &acc0))
            };
            for m in 0..n_s {
                let (q_pred, v_pred) = ahead(tableau.c[m]);
                let (qs, oq) = w.new_block(&format!("Q_{n}_{m}"), n_q, -inf, inf, q_pred);
                let (vs, ov) = w.new_block(&format!("V_{n}_{m}"), n_q, -inf, inf, v_pred);
                let (fs, of) = w.new_block(&format!("lambda_n_{n}_{m}"), n_c, 0.0, inf, SX::zeros(n_c, 1));
                let fr = friction_block(&mut w, &format!("lambda_t_{n}_{m}"), tangential_velocity(&qs, &vs)?)?;
                tie_break.push(fr.gamma.sum());
                let rhs = Geometry::eval(&geo.forces, &[&qs, &vs, u, p])? + generalized(&qs, &fs, &fr)?;
                let mass_s = Geometry::eval(&geo.mass, &[&qs, p])?;
                let acc = match opts.mass_matrix {
                    MassMatrixForm::Lifted => {
                        let (a, _) = w.new_block(&format!("A_{n}_{m}"), n_q, -inf, inf, acc0.clone());
                        con.eq(mass_s.mtimes(&a)? - rhs);
                        a
                    }
                    MassMatrixForm::Inverse => SX::solve(&mass_s, &rhs)?,
                };
                sq.push(qs);
                sv.push(vs);
                sa.push(acc);
                sf.push(fs);
                stage_fr.push(fr);
                off_q.push(oq);
                off_v.push(ov);
                off_f.push(of);
            }
            for m in 0..n_s {
                con.eq(sq[m].try_sub(&q_n)? - &h[n] * weighted_sum(&tableau.a[m], &sv, n_q));
                con.eq(sv[m].try_sub(&v_post)? - &h[n] * weighted_sum(&tableau.a[m], &sa, n_q));
            }
            let (q_pred, v_pred) = ahead(1.0);
            let (q_next, oq) = w.new_block(&format!("q_{}", n + 1), n_q, -inf, inf, q_pred);
            let (v_next, ov) = w.new_block(&format!("v_{}", n + 1), n_q, -inf, inf, v_pred);
            con.eq(q_next.try_sub(&q_n)? - &h[n] * weighted_sum(&tableau.b, &sv, n_q));
            con.eq(v_next.try_sub(&v_post)? - &h[n] * weighted_sum(&tableau.b, &sa, n_q));

            // Contact and friction complementarity, crossed over the element.
            // Gaps at the stages, lifted into nonnegative unknowns (H ≥ 0 by bounds).
            let gaps: Vec<SX> = sq.iter().enumerate().map(|(m, qs)| Ok(lift(&mut w, &mut con, &format!("gap_{n}_{m}"), Geometry::eval(&geo.gaps, &[qs, p])?))).collect::<Result<_>>()?;
            for l in 0..n_c {
                let active: Vec<AtPoint> = (0..n_s).map(|m| Ok(at(m + 1, sf[m].at(l)?))).collect::<Result<_>>()?;
                let slack: Vec<AtPoint> = std::iter::once(Ok(at(0, gap_n.at(l)?)))
                    .chain((0..n_s).map(|m| Ok(at(m + 1, gaps[m].at(l)?))))
                    .collect::<Result<_>>()?;
                pairs.extend(cross_pairs(opts.cross_complementarity, opts.use_fesd, &active, &slack));
            }
            if n_f > 0 {
                let normal: Vec<SX> = sf.iter().map(|f| f.get(frictional.clone(), 0usize)).collect::<std::result::Result<_, _>>()?;
                let vt: Vec<SX> = (0..n_s).map(|m| tangential_velocity(&sq[m], &sv[m])).collect::<Result<_>>()?;
                let fr: Vec<(usize, &Friction)> = stage_fr.iter().enumerate().map(|(m, f)| (m + 1, f)).collect();
                let cone = friction_pairs(&mut w, &mut con, &normal, &vt, &fr, &mut pairs)?;
                // The slip at the element's left boundary, split ξ₊ − ξ₋ = tᵀv_n⁺:
                // sticking (a cone slack > 0) or a friction force along the slip
                // anywhere in the element needs zero slip, respectively slip the other
                // way, at the boundary; so a slide stops or reverses only at a boundary.
                let vt0 = tangential_velocity(&q_n, &v_post)?;
                let zero_f = SX::zeros(n_f, 1);
                let (xi_p, _) = w.new_block(&format!("xi_plus_{n}"), n_f, 0.0, inf, vt0.fmax(&zero_f)?);
                let (xi_m, _) = w.new_block(&format!("xi_minus_{n}"), n_f, 0.0, inf, (-&vt0).fmax(&zero_f)?);
                con.eq(&xi_p - &xi_m - vt0);
                for i in 0..n_f {
                    let (p0, m0) = (xi_p.at(i)?, xi_m.at(i)?);
                    pairs.push((p0.clone(), m0.clone()));
                    let stage = |e: &[SX]| -> Result<Vec<AtPoint>> { e.iter().enumerate().map(|(m, x)| Ok(at(m + 1, x.at(i)?))).collect() };
                    let cone_i = stage(&cone)?;
                    let plus_i = stage(&stage_fr.iter().map(|f| f.plus.clone()).collect::<Vec<_>>())?;
                    let minus_i = stage(&stage_fr.iter().map(|f| f.minus.clone()).collect::<Vec<_>>())?;
                    for (xi, same_way) in [(&p0, &plus_i), (&m0, &minus_i)] {
                        let left = [at(0, xi.clone())];
                        pairs.extend(cross_pairs(opts.cross_complementarity, opts.use_fesd, &left, &cone_i));
                        pairs.extend(cross_pairs(opts.cross_complementarity, opts.use_fesd, &left, same_way));
                    }
                }
            }
            layout.stage_q.push(off_q);
            layout.stage_v.push(off_v);
            layout.stage_force.push(off_f);
            layout.q_end.push(oq);
            layout.v_end.push(ov);
            out_force.extend(sf);
            gap_n = lift(&mut w, &mut con, &format!("gap_end_{n}"), Geometry::eval(&geo.gaps, &[&q_next, p])?);
            out_gap.push(gap_n.clone());
            out_q.push(q_next.clone());
            out_v.push(v_next.clone());
            q_n = q_next;
            v_n = v_next;
        }
        if opts.use_fesd {
            con.eq(h.iter().fold(SX::scalar(0.0), |a, b| a + b) - &t_int);
        }
        let mut f = SX::scalar(0.0);
        if opts.use_fesd && n_fe > 1 {
            for n in 0..n_fe {
                let d = match opts.step_equilibration {
                    StepEquilibration::HeuristicDiff if n > 0 => &h[n] - &h[n - 1],
                    StepEquilibration::HeuristicDiff => continue,
                    _ => &h[n] - &h_nom,
                };
                f = f + opts.rho_h * &d * &d;
            }
        }
        f = f + opts.rho_multipliers * tie_break.iter().fold(SX::scalar(0.0), |a, b| a + b);
        layout.n_w = w.len;
        let wv = vcat(&w.items)?;
        let predict = prediction_function(&wv, &vcat(&w.predicted)?, &params)?;
        let (big_g, big_h): (Vec<SX>, Vec<SX>) = pairs.into_iter().unzip();
        let mut mpcc = Mpcc::new(wv.clone(), f, vcat(&big_g)?, vcat(&big_h)?);
        mpcc.p = params.clone();
        mpcc.g = vcat(&con.g)?;
        mpcc.lbg = con.lb;
        mpcc.ubg = con.ub;
        mpcc.lbw = w.lb;
        mpcc.ubw = w.ub;
        mpcc.w0 = w.guess;
        mpcc.p0 = vec![0.0; params.nrow()];
        let outputs = Function::new(
            "cls_outputs",
            &[("w", &wv), ("params", &params)],
            &[
                ("h", &vcat(&h)?),
                ("q_boundary", &hcat(&out_q, n_q)?),
                ("v_boundary", &hcat(&out_v, n_q)?),
                ("v_post", &hcat(&out_vpost, n_q)?),
                ("impulse", &hcat(&out_impulse, n_c)?),
                ("force", &hcat(&out_force, n_c)?),
                ("gap", &hcat(&out_gap, n_c)?),
            ],
        )?;
        Ok(ClsStep { mpcc, layout, outputs, gaps: geo.gaps, predict, tableau })
    }

    /// The predicted initial guess for the parameters `(q0, v0, u, p, T)`.
    pub fn initial_guess(&self, params: &[f64]) -> Result<Vec<f64>> {
        Ok(self.predict.eval_dense(&[params])?.remove(0))
    }
}
