//! The equations of one FESD-J finite element, written into the step's blocks of
//! unknowns, constraints and complementarity pairs: impulse equations at its left
//! boundary, Runge–Kutta stages, contact and friction complementarity crossed over
//! its points, and the element's end state.

use crate::blocks::{lift, sum, vcat, Blocks, Constraints};
use crate::error::Result;
use crate::geometry::Geometry;
use crate::model::ClsModel;
use crate::options::{ClsOptions, MassMatrixForm};
use crate::pairs::{at, cross_pairs, AtPoint};
use casadi::SX;
use fesd_rk::ButcherTableau;

const INF: f64 = f64::INFINITY;

/// The diagonal matrix with the entries of the column `d`.
fn diag(d: &SX) -> Result<SX> {
    let n = d.nrow();
    let cols: Vec<SX> = (0..n)
        .map(|i| {
            let mut e = vec![0.0; n];
            e[i] = 1.0;
            Ok(SX::from_slice(&e) * d.at(i)?)
        })
        .collect::<Result<_>>()?;
    crate::blocks::hcat(&cols, n)
}

/// The friction multipliers of the frictional contacts at one point: β ≥ 0 along
/// each friction direction (n_d n_f, direction-major as the geometry's directions;
/// planar: λ_+, λ_− along ±t) and γ (n_f), the sliding speed.
pub(crate) struct Friction {
    pub beta: SX,
    pub gamma: SX,
}

/// An element boundary: position, velocity before any impulse there, gaps.
#[derive(Clone)]
pub(crate) struct Boundary {
    pub q: SX,
    pub v: SX,
    /// The gaps: given (clipped at zero) at the interval's start, lifted unknowns after.
    pub gap: SX,
}

/// The switching indicators of an element for step equilibration: sums over its
/// points of normal forces, gaps, friction multipliers γ and cone slacks.
pub(crate) struct Indicators {
    pub force: SX,
    pub gap: SX,
    pub left_gap: SX,
    pub gamma: SX,
    pub cone: SX,
}

impl Indicators {
    /// As one column: normal forces, gaps, boundary gap (n_c each), γ, cone slacks
    /// (n_f each).
    pub fn stacked(&self) -> Result<SX> {
        vcat(&[self.force.clone(), self.gap.clone(), self.left_gap.clone(), self.gamma.clone(), self.cone.clone()])
    }

    /// The parts of a column laid out as [`Indicators::stacked`].
    pub fn split(m: &SX, n_c: usize, n_f: usize) -> Result<Indicators> {
        let part = |k: usize, len: usize| m.slice(k..k + len);
        Ok(Indicators {
            force: part(0, n_c)?,
            gap: part(n_c, n_c)?,
            left_gap: part(2 * n_c, n_c)?,
            gamma: part(3 * n_c, n_f)?,
            cone: part(3 * n_c + n_f, n_f)?,
        })
    }
}

/// Where an element's unknowns are, and its outputs.
pub(crate) struct Element {
    pub v_post: SX,
    pub impulse: SX,
    pub forces: Vec<SX>,
    pub indicators: Indicators,
}

/// The stage unknowns of an element.
struct Stages {
    q: Vec<SX>,
    v: Vec<SX>,
    a: Vec<SX>,
    force: Vec<SX>,
    friction: Vec<Friction>,
}

/// Writes elements into the step's unknowns, constraints and pairs.
pub(crate) struct Builder<'a> {
    opts: &'a ClsOptions,
    tableau: &'a ButcherTableau,
    geo: &'a Geometry,
    u: SX,
    p: SX,
    n_q: usize,
    n_c: usize,
    frictional: Vec<usize>,
    mu: SX,
    eps_r: SX,
    h_nom: SX,
    /// Predict every element at rest on its closed contacts (zero acceleration,
    /// [`Builder::resting_forces`]) instead of in contact-free motion: the neutral
    /// guess of an optimal control problem.
    pub rest_prediction: bool,
    pub w: Blocks,
    pub con: Constraints,
    pub pairs: Vec<(SX, SX)>,
    /// Multipliers the relaxation leaves free, for the tie-break cost.
    pub tie_break: Vec<SX>,
    /// The normal impulses of every element (Σ over contacts), for an impulse-only
    /// tie-break.
    pub impulses: Vec<SX>,
}

impl<'a> Builder<'a> {
    pub fn new(
        model: &ClsModel,
        opts: &'a ClsOptions,
        tableau: &'a ButcherTableau,
        geo: &'a Geometry,
        h_nom: SX,
        w: Blocks,
    ) -> Builder<'a> {
        let frictional: Vec<usize> = (0..model.n_c()).filter(|&l| model.contacts[l].has_friction()).collect();
        let mu = SX::from_slice(&frictional.iter().map(|&l| model.contacts[l].friction).collect::<Vec<_>>());
        let eps_r = SX::from_slice(&model.contacts.iter().map(|c| c.restitution).collect::<Vec<_>>());
        Builder {
            opts,
            tableau,
            geo,
            u: model.u.clone(),
            p: model.p.clone(),
            n_q: model.n_q(),
            n_c: model.n_c(),
            frictional,
            mu,
            eps_r,
            h_nom,
            rest_prediction: false,
            w,
            con: Constraints::default(),
            pairs: Vec::new(),
            tie_break: Vec::new(),
            impulses: Vec::new(),
        }
    }

    fn n_f(&self) -> usize {
        self.frictional.len()
    }

    /// The ℓ1 tie-break cost of what was built: `rho_multipliers` × the multipliers
    /// the relaxation leaves free, plus `rho_impulses` × the normal impulses.
    pub fn tie_break_cost(&self) -> SX {
        self.opts.rho_multipliers * sum(&self.tie_break, 1) + self.opts.rho_impulses * sum(&self.impulses, 1)
    }

    fn cross(&mut self, active: &[AtPoint], slack: &[AtPoint]) {
        self.pairs.extend(cross_pairs(self.opts.cross_complementarity, self.opts.use_fesd, active, slack));
    }

    /// Contact forces on the coordinates: `J_n λ_n + D β` (planar: `J_t (λ_+ − λ_−)`).
    /// Conic: the tangential force is `μ λ_n w`, w = w₊ − w₋ (the multipliers along
    /// t₁, t₂ and −t₁, −t₂) in the unit disk.
    fn generalized(&self, q: &SX, normal: &SX, fr: &Friction) -> Result<SX> {
        let mut out = self.geo.normal(q, &self.p)?.mtimes(normal)?;
        if self.n_f() > 0 {
            let tangential = if self.geo.conic {
                let bound = &self.mu * &normal.get(self.frictional.clone(), 0usize)?;
                &vcat(&vec![bound; self.geo.n_d])? * &fr.beta
            } else {
                fr.beta.clone()
            };
            out = out + self.geo.directions(q, &self.p)?.mtimes(&tangential)?;
        }
        Ok(out)
    }

    /// Velocities `d_kᵀv` along every friction direction (direction-major; planar:
    /// `(tᵀv, −tᵀv)`).
    fn direction_velocity(&self, q: &SX, v: &SX) -> Result<SX> {
        Ok(self.geo.directions(q, &self.p)?.t().mtimes(v)?)
    }

    /// Entries `k n_f .. (k + 1) n_f` of a direction-major column: direction k of
    /// every frictional contact.
    fn direction(&self, e: &SX, k: usize) -> Result<SX> {
        let n_f = self.n_f();
        Ok(e.slice((k * n_f..(k + 1) * n_f).collect::<Vec<usize>>())?)
    }

    /// The sliding speed `max_k (−d_kᵀv)` of each frictional contact (planar: |tᵀv|;
    /// conic: ‖J_tᵀv‖).
    fn sliding_speed(&self, dvel: &SX) -> Result<SX> {
        if self.geo.conic {
            let (a, b) = (self.direction(dvel, 0)?, self.direction(dvel, 1)?);
            return Ok((&a * &a + &b * &b).sqrt());
        }
        let mut speed = -self.direction(dvel, 0)?;
        for k in 1..self.geo.n_d {
            speed = speed.fmax(&-self.direction(dvel, k)?)?;
        }
        Ok(speed)
    }

    /// Friction multipliers at a point with (predicted) direction velocities `dvel`:
    /// predicted without force, γ the sliding speed; γ enters the tie-break cost.
    fn friction(&mut self, tag: &str, dvel: &SX) -> Result<Friction> {
        let (n_f, n_d) = (self.n_f(), self.geo.n_d);
        // Conic: the split w₊, w₋ of the friction direction, λ_t = μ λ_n (w₊ − w₋).
        let upper = if self.geo.conic { 1.0 } else { INF };
        let (beta, _) = self.w.add(&format!("{tag}_beta"), n_d * n_f, 0.0, upper, SX::zeros(n_d * n_f, 1));
        let (gamma, _) = self.w.add(&format!("{tag}_gamma"), n_f, 0.0, INF, self.sliding_speed(dvel)?);
        self.tie_break.push(gamma.sum());
        Ok(Friction { beta, gamma })
    }

    /// Maximum dissipation in polyhedral form at the points `fr` (point index,
    /// multipliers) with normal forces `normal` and direction velocities `dvel`: the
    /// slacks γ + d_kᵀv (planar: γ ± tᵀv) and μλ_n − Σ_k β_k are lifted into
    /// nonnegative unknowns and crossed with β_k, γ over the points. Returns the cone
    /// slacks.
    fn max_dissipation(&mut self, normal: &[SX], dvel: &[SX], fr: &[(usize, &Friction)]) -> Result<Vec<SX>> {
        if self.geo.conic {
            return self.conic_dissipation(normal, dvel, fr);
        }
        let (n_f, n_d) = (self.n_f(), self.geo.n_d);
        let mut slacks = Vec::with_capacity(fr.len());
        for ((k, f), (nrm, dv)) in fr.iter().zip(normal.iter().zip(dvel)) {
            let gammas = vcat(&vec![f.gamma.clone(); n_d])?;
            let slip = lift(&mut self.w, &mut self.con, &format!("slip_{k}"), &gammas + dv);
            let mut cone = &self.mu * nrm;
            for d in 0..n_d {
                cone = cone - self.direction(&f.beta, d)?;
            }
            let sg = lift(&mut self.w, &mut self.con, &format!("cone_{k}"), cone);
            if self.opts.slip_complementarity && n_d == 2 {
                for i in 0..n_f {
                    self.pairs.push((slip.at(i)?, slip.at(n_f + i)?));
                }
            }
            slacks.push((slip, sg));
        }
        for i in 0..n_f {
            let entry = |d: usize| d * n_f + i;
            let mut lists: Vec<(Vec<AtPoint>, Vec<AtPoint>)> = vec![Default::default(); n_d + 1];
            for ((k, f), (slip, sg)) in fr.iter().zip(&slacks) {
                for (d, (beta, slips)) in lists.iter_mut().enumerate().take(n_d) {
                    beta.push(at(*k, f.beta.at(entry(d))?));
                    slips.push(at(*k, slip.at(entry(d))?));
                }
                lists[n_d].0.push(at(*k, f.gamma.at(i)?));
                lists[n_d].1.push(at(*k, sg.at(i)?));
            }
            for (act, sl) in &lists {
                self.cross(act, sl);
            }
        }
        Ok(slacks.into_iter().map(|(_, sg)| sg).collect())
    }

    /// Maximum dissipation on the circular cone at the points `fr`, with the
    /// friction force `λ_t = μ λ_n w`: `γ w + J_tᵀv = 0` and
    /// `0 ≤ γ ⊥ 1 − ‖w‖² ≥ 0` (sliding: w = −J_tᵀv/‖J_tᵀv‖, γ the sliding speed;
    /// sticking: γ = 0, J_tᵀv = 0, w anywhere in the disk). Written on the unit disk
    /// rather than as (μλ_n)² − ‖λ_t‖² ≥ 0, whose apex λ_n = λ_t = 0 — every boundary
    /// without an impact, every open contact — is a degenerate point for the
    /// interior-point method (measured: Ipopt's step computation fails there at
    /// σ ≈ 3e-4). The disk slack is crossed with γ over the points. Returns the
    /// disk slacks.
    fn conic_dissipation(&mut self, normal: &[SX], dvel: &[SX], fr: &[(usize, &Friction)]) -> Result<Vec<SX>> {
        let n_f = self.n_f();
        let mut slacks = Vec::with_capacity(fr.len());
        for ((k, f), (nrm, dv)) in fr.iter().zip(normal.iter().zip(dvel)) {
            let split = |d: usize| -> Result<SX> { Ok(self.direction(&f.beta, d)? - self.direction(&f.beta, d + 2)?) };
            let (w1, w2) = (split(0)?, split(1)?);
            // The split w = w₊ − w₋ is made unique by the ℓ1 tie-break where there is
            // one (measured on a block sliding at 30° / 0°: the first attempt, from
            // the warm start, solves 4 / 5 of 8 steps instead of 2 / 4 of 8 with the
            // pairs w₊ ⊥ w₋), else by those pairs.
            if self.opts.rho_multipliers > 0.0 {
                self.tie_break.push(f.beta.sum());
            } else {
                for d in 0..2 {
                    for i in 0..n_f {
                        self.pairs.push((f.beta.at(d * n_f + i)?, f.beta.at((d + 2) * n_f + i)?));
                    }
                }
            }
            let residual = vcat(&[&f.gamma * &w1 + self.direction(dv, 0)?, &f.gamma * &w2 + self.direction(dv, 1)?])?;
            if *k == 0 {
                // The impulse: the law binds only where Λ_n > 0, like Newton's law —
                // residual y = y₊ − y₋ with Λ_n ⊥ y±. At a boundary without impulse
                // (Λ_n = 0, v⁺ tangential zero) the bare equation would repeat the
                // momentum balance's rows (γ = w = 0): a rank-deficient Jacobian.
                let zero = SX::zeros(2 * n_f, 1);
                let (y_plus, _) = self.w.add("impulse_friction_law_plus", 2 * n_f, 0.0, INF, residual.fmax(&zero)?);
                let (y_minus, _) = self.w.add("impulse_friction_law_minus", 2 * n_f, 0.0, INF, (-&residual).fmax(&zero)?);
                self.con.eq(&y_plus - &y_minus - residual);
                self.tie_break.extend([y_plus.sum(), y_minus.sum()]);
                for d in 0..2 {
                    for i in 0..n_f {
                        let (yp, ym, lam) = (y_plus.at(d * n_f + i)?, y_minus.at(d * n_f + i)?, nrm.at(i)?);
                        self.pairs.extend([(lam.clone(), yp.clone()), (lam, ym.clone()), (yp, ym)]);
                    }
                }
            } else {
                self.con.eq(residual);
            }
            let disk = SX::ones(n_f, 1) - &w1 * &w1 - &w2 * &w2;
            slacks.push(lift(&mut self.w, &mut self.con, &format!("cone_{k}"), disk));
        }
        for i in 0..n_f {
            let mut active = Vec::with_capacity(fr.len());
            let mut slack = Vec::with_capacity(fr.len());
            for ((k, f), sg) in fr.iter().zip(&slacks) {
                active.push(at(*k, f.gamma.at(i)?));
                slack.push(at(*k, sg.at(i)?));
            }
            self.cross(&active, &slack);
        }
        Ok(slacks)
    }

    /// The impulse equations at the left boundary `b` of element `n` with step `h`;
    /// returns `(v⁺, Λ_n, M(q_n), offsets)`.
    fn impulse(&mut self, n: usize, b: &Boundary, h: &SX) -> Result<(SX, SX, SX)> {
        let (n_q, n_c, p) = (self.n_q, self.n_c, self.p.clone());
        let (v_post, _) = self.w.add("v_post", n_q, -INF, INF, b.v.clone());
        let (lam, _) = self.w.add("impulse", n_c, 0.0, INF, SX::zeros(n_c, 1));
        let dvel = self.direction_velocity(&b.q, &v_post)?;
        let fr = self.friction(&format!("Lambda_t_{n}"), &dvel)?;
        let mass = self.geo.mass(&b.q, &p)?;
        let momentum = mass.mtimes(&v_post.try_sub(&b.v)?)? - self.generalized(&b.q, &lam, &fr)?;
        self.con.eq(momentum);
        // Newton's law J_nᵀ v⁺ + ε_r J_nᵀ v⁻ = 0 where Λ_n > 0, with the split
        // z = z₊ − z₋ and the pairs Λ_n ⊥ z₊, Λ_n ⊥ z₋, z₊ ⊥ z₋ instead of the
        // bilinear equality Λ_n z = 0, whose gradient vanishes at Λ_n = z = 0 (at
        // rest, at an apex, at a neutral guess).
        let jn = self.geo.normal(&b.q, &p)?;
        let newton = jn.t().mtimes(&v_post)? + &self.eps_r * &jn.t().mtimes(&b.v)?;
        let zero = SX::zeros(n_c, 1);
        let (z_plus, _) = self.w.add(&format!("newton_plus_{n}"), n_c, 0.0, INF, newton.fmax(&zero)?);
        let (z_minus, _) = self.w.add(&format!("newton_minus_{n}"), n_c, 0.0, INF, (-&newton).fmax(&zero)?);
        self.con.eq(&z_plus - &z_minus - newton);
        self.tie_break.extend([lam.sum(), z_plus.sum(), z_minus.sum()]);
        self.impulses.push(lam.sum());
        for l in 0..n_c {
            let (lam_l, zp, zm) = (lam.at(l)?, z_plus.at(l)?, z_minus.at(l)?);
            self.pairs.extend([(lam_l.clone(), zp.clone()), (lam_l, zm.clone()), (zp, zm)]);
        }
        // The guard, linearized about q_n on the lifted gap (a bounded unknown, so
        // ≥ 0 exactly): f_c(q_n) + ε_c h_n J_nᵀ v⁺ ≥ −contact_tol. The unlinearized
        // f_c(q_n + ε_c h_n v⁺) turns a position error δ of a resting contact into a
        // demanded velocity δ / (ε_c h_n); without the tolerance, an active guard at a
        // resting contact is linearly dependent on Newton's law and the gap bound (a
        // degenerate NLP). Only impacts slower than contact_tol / (ε_c h_n) may thus
        // end without an impulse (plastic, by stage forces).
        self.con.nonneg(&b.gap + self.opts.eps_c * h * jn.t().mtimes(&v_post)? + self.opts.contact_tol);
        if n == 0 {
            // The gap at the interval's start is given: a contact open by more than
            // `contact_tol` takes no impulse (Λ_0 ≤ 0), a closed one may take any. As a
            // relaxed pair Λ_0 · f_c(q0) ≤ σ the homotopy would start with a wrong
            // impulse at t = 0 whenever the gap is small.
            let open = SX::scalar(1.0) - b.gap.lt(&SX::scalar(self.opts.contact_tol))?;
            self.con.nonneg(-(&open * &lam));
        } else {
            for l in 0..n_c {
                self.pairs.push((lam.at(l)?, b.gap.at(l)?));
            }
        }
        if self.n_f() > 0 {
            let normal = lam.get(self.frictional.clone(), 0usize)?;
            self.max_dissipation(&[normal], &[dvel], &[(0, &fr)])?;
        }
        Ok((v_post, lam, mass))
    }

    /// The Runge–Kutta stages of element `n` from `(q_n, v⁺)`, predicted by
    /// [`Builder::ahead`] with the start acceleration `acc0`.
    fn stages(&mut self, n: usize, q_n: &SX, v_post: &SX, (acc0, force0): (&SX, &SX), h: &SX) -> Result<Stages> {
        let (n_q, n_c, n_s, p, u) = (self.n_q, self.n_c, self.tableau.n_s(), self.p.clone(), self.u.clone());
        let mut st = Stages { q: vec![], v: vec![], a: vec![], force: vec![], friction: vec![] };
        for m in 0..n_s {
            let (q_pred, v_pred) = self.ahead(q_n, v_post, acc0, self.tableau.c[m]);
            let (qs, _) = self.w.add(&stage_block("q", m), n_q, -INF, INF, q_pred);
            let (vs, _) = self.w.add(&stage_block("v", m), n_q, -INF, INF, v_pred);
            let (fs, _) = self.w.add(&stage_block("force", m), n_c, 0.0, INF, force0.clone());
            let dvel = self.direction_velocity(&qs, &vs)?;
            let fr = self.friction(&format!("lambda_t_{n}_{m}"), &dvel)?;
            let rhs = self.geo.force(&qs, &vs, &u, &p)? + self.generalized(&qs, &fs, &fr)?;
            let mass = self.geo.mass(&qs, &p)?;
            let acc = match self.opts.mass_matrix {
                MassMatrixForm::Lifted => {
                    let (a, _) = self.w.add(&format!("A_{n}_{m}"), n_q, -INF, INF, acc0.clone());
                    self.con.eq(mass.mtimes(&a)? - rhs);
                    a
                }
                MassMatrixForm::Inverse => SX::solve(&mass, &rhs)?,
            };
            st.q.push(qs);
            st.v.push(vs);
            st.a.push(acc);
            st.force.push(fs);
            st.friction.push(fr);
        }
        for m in 0..n_s {
            self.con.eq(st.q[m].try_sub(q_n)? - h * SX::weighted_sum(&self.tableau.a[m], &st.v, n_q));
            self.con.eq(st.v[m].try_sub(v_post)? - h * SX::weighted_sum(&self.tableau.a[m], &st.a, n_q));
        }
        Ok(st)
    }

    /// Friction at the stages and the slip at the left boundary, split along each
    /// opposite pair of directions, ξ₊ − ξ₋ = d_kᵀv⁺ (planar: tᵀv⁺): sticking (a cone
    /// slack > 0) or a friction force along d_k (sliding against it) anywhere in the
    /// element needs zero slip, respectively no slip along d_k, at the boundary; so a
    /// slide stops or reverses only at a boundary. Returns the cone slacks of the
    /// stages.
    fn stage_friction(&mut self, n: usize, q_n: &SX, v_post: &SX, st: &Stages) -> Result<Vec<SX>> {
        let (n_f, half) = (self.n_f(), self.geo.n_d / 2);
        let normal: Vec<SX> = st.force.iter().map(|f| f.get(self.frictional.clone(), 0usize)).collect::<std::result::Result<_, _>>()?;
        let dvel: Vec<SX> = st.q.iter().zip(&st.v).map(|(q, v)| self.direction_velocity(q, v)).collect::<Result<_>>()?;
        let fr: Vec<(usize, &Friction)> = st.friction.iter().enumerate().map(|(m, f)| (m + 1, f)).collect();
        let cone = self.max_dissipation(&normal, &dvel, &fr)?;
        let dvel0 = self.direction_velocity(q_n, v_post)?;
        let along: Vec<SX> = (0..half).map(|k| self.direction(&dvel0, k)).collect::<Result<_>>()?;
        let along = vcat(&along)?;
        let zero = SX::zeros(half * n_f, 1);
        let (xi_p, _) = self.w.add(&format!("xi_plus_{n}"), half * n_f, 0.0, INF, along.fmax(&zero)?);
        let (xi_m, _) = self.w.add(&format!("xi_minus_{n}"), half * n_f, 0.0, INF, (-&along).fmax(&zero)?);
        self.con.eq(&xi_p - &xi_m - along);
        let at_stages =
            |e: &[SX], i: usize| -> Result<Vec<AtPoint>> { e.iter().enumerate().map(|(m, x)| Ok(at(m + 1, x.at(i)?))).collect() };
        let betas: Vec<SX> = st.friction.iter().map(|f| f.beta.clone()).collect();
        for i in 0..n_f {
            let cone_i = at_stages(&cone, i)?;
            for k in 0..half {
                let (p0, m0) = (xi_p.at(k * n_f + i)?, xi_m.at(k * n_f + i)?);
                self.pairs.push((p0.clone(), m0.clone()));
                // β along d_k acts when sliding against d_k: no slip along d_k at the
                // boundary then (and none against it for β along −d_k).
                for (xi, d) in [(p0, k), (m0, k + half)] {
                    let left = [at(0, xi)];
                    self.cross(&left, &cone_i);
                    self.cross(&left, &at_stages(&betas, d * n_f + i)?);
                }
            }
        }
        Ok(cone)
    }

    /// The predicted state at `c` of a nominal element from `(q, v)`: no contact
    /// forces, the acceleration `acc0` frozen (exact under constant forces such as
    /// gravity).
    fn ahead(&self, q: &SX, v: &SX, acc0: &SX, c: f64) -> (SX, SX) {
        let dt = &self.h_nom * c;
        (q + &(&dt * v) + &(0.5 * &dt * &dt * acc0), v + &(&dt * acc0))
    }

    /// The normal forces that hold the body at rest at `q` on its closed contacts
    /// (gap ≤ contact_tol), for a resting prediction: the solution of
    /// `(J_cᵀ M⁻¹ J_c) λ = −J_cᵀ M⁻¹ f(q, 0, u)` over the closed contacts (regularized,
    /// open contacts zero), clipped at zero. Friction is left at zero.
    fn resting_forces(&self, q: &SX, gap: &SX, mass: &SX) -> Result<SX> {
        let n_c = self.n_c;
        let closed = gap.lt(&SX::scalar(self.opts.contact_tol))?;
        let jn = self.geo.normal(q, &self.p)?.mtimes(&diag(&closed)?)?;
        let f = self.geo.force(q, &SX::zeros(self.n_q, 1), &self.u, &self.p)?;
        let minv_j = SX::solve(mass, &jn)?;
        let open = SX::ones(n_c, 1) - &closed;
        let delassus = jn.t().mtimes(&minv_j)? + diag(&(open + 1e-9))?;
        let rhs = -minv_j.t().mtimes(&f)?;
        Ok(SX::solve(&delassus, &rhs)?.fmax(&SX::zeros(n_c, 1))?)
    }

    /// Element `n` from the boundary `b` with step size `h`.
    pub fn element(&mut self, n: usize, b: &Boundary, h: &SX) -> Result<Element> {
        let (n_q, n_c, n_s, p) = (self.n_q, self.n_c, self.tableau.n_s(), self.p.clone());
        let (v_post, impulse, mass_n) = self.impulse(n, b, h)?;
        let (acc0, force0) = if self.rest_prediction {
            (SX::zeros(n_q, 1), self.resting_forces(&b.q, &b.gap, &mass_n)?)
        } else {
            (SX::solve(&mass_n, &self.geo.force(&b.q, &v_post, &self.u, &p)?)?, SX::zeros(n_c, 1))
        };
        let st = self.stages(n, &b.q, &v_post, (&acc0, &force0), h)?;
        let (q_pred, v_pred) = self.ahead(&b.q, &v_post, &acc0, 1.0);
        let (q_next, _) = self.w.add("q_end", n_q, -INF, INF, q_pred);
        let (v_next, _) = self.w.add("v_end", n_q, -INF, INF, v_pred);
        self.con.eq(q_next.try_sub(&b.q)? - h * SX::weighted_sum(&self.tableau.b, &st.v, n_q));
        self.con.eq(v_next.try_sub(&v_post)? - h * SX::weighted_sum(&self.tableau.b, &st.a, n_q));
        // Contact complementarity crossed over the element: the gaps at the stages
        // are lifted into nonnegative unknowns (H ≥ 0 by bounds).
        let gaps: Vec<SX> = (0..n_s)
            .map(|m| {
                let g = self.geo.gap(&st.q[m], &p)?;
                Ok(lift(&mut self.w, &mut self.con, &format!("gap_{n}_{m}"), g))
            })
            .collect::<Result<_>>()?;
        for l in 0..n_c {
            let active: Vec<AtPoint> = (0..n_s).map(|m| Ok(at(m + 1, st.force[m].at(l)?))).collect::<Result<_>>()?;
            let slack: Vec<AtPoint> =
                std::iter::once(Ok(at(0, b.gap.at(l)?))).chain((0..n_s).map(|m| Ok(at(m + 1, gaps[m].at(l)?)))).collect::<Result<_>>()?;
            self.cross(&active, &slack);
        }
        let n_f = self.n_f();
        let cone = if n_f > 0 { self.stage_friction(n, &b.q, &v_post, &st)? } else { vec![] };
        let end_gap = self.geo.gap(&q_next, &p)?;
        let (gap_next, _) = self.w.add("gap_end", n_c, 0.0, INF, end_gap.clone());
        self.con.eq(&gap_next - end_gap);
        let gammas: Vec<SX> = st.friction.iter().map(|f| f.gamma.clone()).collect();
        let indicators = Indicators {
            force: sum(&st.force, n_c),
            gap: &b.gap + &sum(&gaps, n_c),
            left_gap: b.gap.clone(),
            gamma: sum(&gammas, n_f),
            cone: sum(&cone, n_f),
        };
        Ok(Element { v_post, impulse, forces: st.force, indicators })
    }
}

/// The name of an element's block `what` (`q`, `v`, `force`) at stage m: `q_stage_0`, ….
pub(crate) fn stage_block(what: &str, m: usize) -> String {
    format!("{what}_stage_{m}")
}
