//! Lowering a PSS to a dynamic complementarity system (DCS) at one time point.
//!
//! - Stewart [FESD §2.2]: `ẋ = Σ F θ`, `0 = g(x) − λ − μ e`, `1 = eᵀθ`, `0 ≤ θ ⊥ λ ≥ 0`,
//!   with `g = −S c` unless indicator functions are given.
//! - Step (FESD with set-valued step functions): `c(x) = λp − λn`, `0 ≤ λn ⊥ α ≥ 0`, `0 ≤ λp ⊥ e − α ≥ 0`,
//!   `θ_i = Π_{S_ij=1} α_j Π_{S_ij=−1} (1 − α_j)` (or the region algebra of set regions).

use crate::model::{ModelError, PssModel, Subsystem};
use crate::regions::Regions;
use casadi::{Function, SX};
use serde::{Deserialize, Serialize};

/// Which DCS represents the Filippov convexification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Representation {
    /// Stewart's representation: θ, λ, μ per subsystem; n_f complementarity pairs.
    #[default]
    Stewart,
    /// Step (Heaviside) representation: α, λp, λn per subsystem; 2 n_c pairs.
    Step,
}

impl Representation {
    /// Snake-case name.
    pub fn name(self) -> &'static str {
        match self {
            Representation::Stewart => "stewart",
            Representation::Step => "step",
        }
    }
}

/// Options of the lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DcsOptions {
    /// Stewart (default) or Step.
    pub representation: Representation,
    /// Step only: introduce variables β for the partial products of θ_i with more
    /// than two factors, keeping every expression at most bilinear (nosnoc's `lift`).
    pub lift_products: bool,
}

/// A group of complementarity components whose forward/backward sums define the
/// step-equilibration indicator υ (FORMULATION §3): component `j` of the group is
/// `υ_j = Σ_parts π_j`, `π = σ^B ∘ σ^F`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EquilibrationGroup {
    /// Index lists into the stacked duals (summed over the boundary point and the stages).
    pub dual_parts: Vec<Vec<usize>>,
    /// Index lists into the stacked primals (summed over the stages only).
    pub primal_parts: Vec<Vec<usize>>,
}

/// The DCS at one time point, in the model's own symbols `x, u, p` and fresh
/// algebraic variables `z`. [`StageAlgebra::function`] wraps it for reuse at every
/// stage of a discretization.
#[derive(Clone, Debug)]
pub struct StageAlgebra {
    /// Algebraic variables (θ, λ, μ or α, λp, λn, β of every subsystem, stacked).
    pub z: SX,
    /// Lower bounds of z.
    pub z_lb: Vec<f64>,
    /// Upper bounds of z.
    pub z_ub: Vec<f64>,
    /// A neutral initial guess of z.
    pub z_guess: Vec<f64>,
    /// Algebraic equations `= 0`.
    pub equations: SX,
    /// `ẋ = f_0 + Σ F θ`.
    pub xdot: SX,
    /// θ of every subsystem, stacked.
    pub theta: SX,
    /// Complementarity primals P ≥ 0 (θ; or α and 1 − α), one per pair.
    pub primal: SX,
    /// Complementarity duals D ≥ 0 (λ; or λn and λp), matching `primal`.
    pub dual: SX,
    /// The duals at a state `x` with no algebraic unknowns (λ(x) = g − min g;
    /// λp = max(c, 0), λn = max(−c, 0)): the boundary values at an initial state.
    pub dual_at_state: SX,
    /// Step-equilibration groups.
    pub groups: Vec<EquilibrationGroup>,
    /// For each pair, the pairs whose primals form one convex combination with its
    /// primal (Stewart: the other θ of its subsystem; Step: the other channel of its
    /// α). A pair whose primal is positive together with a sibling's is sliding; it
    /// can leave the sliding mode only by its primal reaching zero continuously.
    pub siblings: Vec<Vec<usize>>,
    /// Number of regions of each subsystem.
    pub n_regions: Vec<usize>,
}

fn column(items: &[SX]) -> Result<SX, ModelError> {
    if items.is_empty() {
        return Ok(SX::zeros(0, 1));
    }
    let refs: Vec<&SX> = items.iter().collect();
    Ok(SX::vertcat(&refs)?)
}

fn entries(v: &SX) -> Result<Vec<SX>, ModelError> {
    (0..v.nrow()).map(|i| v.at(i).map_err(ModelError::from)).collect()
}

/// Minimum of the entries (a `fmin` chain).
fn min_entry(v: &[SX]) -> Result<SX, ModelError> {
    let mut m = v[0].clone();
    for e in &v[1..] {
        m = m.fmin(e)?;
    }
    Ok(m)
}

/// The accumulating stage algebra while a model's subsystems are lowered one by one:
/// what a [`SubsystemLowering`] adds its unknowns, equations and complementarity
/// pairs to.
#[derive(Default)]
pub struct AlgebraBuilder {
    z: Vec<SX>,
    z_lb: Vec<f64>,
    z_ub: Vec<f64>,
    z_guess: Vec<f64>,
    eqs: Vec<SX>,
    primal: Vec<SX>,
    dual: Vec<SX>,
    dual_at_state: Vec<SX>,
    groups: Vec<EquilibrationGroup>,
    siblings: Vec<Vec<usize>>,
}

impl AlgebraBuilder {
    /// Adds the algebraic unknowns `v` (a column of fresh symbols) with the same
    /// bounds and guess for each entry.
    pub fn unknowns(&mut self, v: &SX, lower: f64, upper: f64, guess: f64) {
        self.z.push(v.clone());
        self.z_lb.extend(std::iter::repeat_n(lower, v.nrow()));
        self.z_ub.extend(std::iter::repeat_n(upper, v.nrow()));
        self.z_guess.extend(std::iter::repeat_n(guess, v.nrow()));
    }

    /// Adds algebraic equations `e = 0`.
    pub fn equations(&mut self, e: SX) {
        self.eqs.push(e);
    }

    /// Number of complementarity pairs so far: the index the next pair gets.
    pub fn n_pairs(&self) -> usize {
        self.primal.len()
    }

    /// Adds complementarity pairs `0 ≤ primal_i ⊥ dual_i ≥ 0`.
    pub fn pairs(&mut self, primal: impl IntoIterator<Item = SX>, dual: impl IntoIterator<Item = SX>) {
        self.primal.extend(primal);
        self.dual.extend(dual);
    }

    /// Adds the values the duals of the pairs take at a state with no algebraic
    /// unknowns (the boundary duals at an initial state), in pair order.
    pub fn duals_at_state(&mut self, d: impl IntoIterator<Item = SX>) {
        self.dual_at_state.extend(d);
    }

    /// Adds, in pair order, each pair's siblings (see [`StageAlgebra::siblings`]).
    pub fn siblings(&mut self, s: impl IntoIterator<Item = Vec<usize>>) {
        self.siblings.extend(s);
    }

    /// Adds a step-equilibration group.
    pub fn group(&mut self, g: EquilibrationGroup) {
        self.groups.push(g);
    }
}

/// One way to write a subsystem's Filippov convexification as a dynamic
/// complementarity system: its algebraic unknowns, equations and complementarity
/// pairs, and the convex multipliers θ of its regions. [`Stewart`] and [`Step`] are
/// the two the field uses; a new DCS for switched systems is one more implementation,
/// and nothing downstream (stage kernels, cross complementarity, step equilibration)
/// depends on which one lowered the model.
pub trait SubsystemLowering {
    /// Snake-case name.
    fn name(&self) -> &'static str;

    /// Lowers subsystem `k` into `b` and returns θ, one expression per region.
    fn lower(&self, k: usize, sub: &Subsystem, b: &mut AlgebraBuilder) -> Result<Vec<SX>, ModelError>;
}

/// Stewart's representation [FESD §2.2]: `0 = g(x) − λ − μ e`, `1 = eᵀθ`,
/// `0 ≤ θ ⊥ λ ≥ 0`, with `g = −S c` unless the subsystem gives indicator functions.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stewart;

impl SubsystemLowering for Stewart {
    fn name(&self) -> &'static str {
        "stewart"
    }

    fn lower(&self, k: usize, sub: &Subsystem, b: &mut AlgebraBuilder) -> Result<Vec<SX>, ModelError> {
        let n_f = sub.n_f();
        let c = entries(&sub.c)?;
        let g = match (&sub.indicators, &sub.regions) {
            (Some(g), _) => entries(g)?,
            (None, Regions::SignMatrix(s)) => s
                .iter()
                .map(|row| {
                    row.iter().zip(&c).fold(SX::scalar(0.0), |acc, (&sij, cj)| match sij {
                        1 => acc - cj,
                        -1 => acc + cj,
                        _ => acc,
                    })
                })
                .collect(),
            (None, Regions::Sets(_)) => return Err(ModelError::StewartNeedsIndicators { subsystem: k }),
        };
        let th = SX::sym(&format!("theta{k}"), n_f);
        let la = SX::sym(&format!("lambda{k}"), n_f);
        let mu = SX::sym(&format!("mu{k}"), 1);
        b.unknowns(&th, 0.0, f64::INFINITY, 1.0 / n_f as f64);
        b.unknowns(&la, 0.0, f64::INFINITY, 0.0);
        b.unknowns(&mu, f64::NEG_INFINITY, f64::INFINITY, 0.0);
        let gv = column(&g)?;
        b.equations(gv.try_sub(&la)?.try_sub(&(&SX::ones(n_f, 1) * &mu))?);
        b.equations(th.sum() - 1.0);
        let base = b.n_pairs();
        let ths = entries(&th)?;
        b.pairs(ths.iter().cloned(), entries(&la)?);
        let gmin = min_entry(&g)?;
        b.duals_at_state(g.iter().map(|gi| gi - &gmin));
        let idx: Vec<usize> = (base..base + n_f).collect();
        b.siblings(idx.iter().map(|&i| idx.iter().copied().filter(|&j| j != i).collect::<Vec<_>>()));
        b.group(EquilibrationGroup { dual_parts: vec![idx.clone()], primal_parts: vec![idx] });
        Ok(ths)
    }
}

/// The Step (Heaviside) representation (FESD with set-valued step functions): `c(x) = λp − λn`,
/// `0 ≤ λn ⊥ α ≥ 0`, `0 ≤ λp ⊥ e − α ≥ 0`, and θ as products of α and 1 − α over
/// each region's signs (or the region algebra of set regions).
#[derive(Clone, Copy, Debug, Default)]
pub struct Step {
    /// Introduce variables β for the partial products of θ_i with more than two
    /// factors, keeping every expression at most bilinear (nosnoc's `lift`).
    pub lift_products: bool,
}

impl SubsystemLowering for Step {
    fn name(&self) -> &'static str {
        "step"
    }

    fn lower(&self, k: usize, sub: &Subsystem, b: &mut AlgebraBuilder) -> Result<Vec<SX>, ModelError> {
        let (n_c, n_f) = (sub.n_c(), sub.n_f());
        let c = entries(&sub.c)?;
        let al = SX::sym(&format!("alpha{k}"), n_c);
        let lp = SX::sym(&format!("lambda_p{k}"), n_c);
        let ln = SX::sym(&format!("lambda_n{k}"), n_c);
        b.unknowns(&al, 0.0, 1.0, 0.5);
        b.unknowns(&lp, 0.0, f64::INFINITY, 0.0);
        b.unknowns(&ln, 0.0, f64::INFINITY, 0.0);
        b.equations(column(&c)?.try_sub(&lp)?.try_add(&ln)?);
        let a = entries(&al)?;
        let base = b.n_pairs();
        // Channels (α ⊥ λn) then (1 − α ⊥ λp).
        b.pairs(a.iter().cloned(), entries(&ln)?);
        b.pairs(a.iter().map(|aj| 1.0 - aj), entries(&lp)?);
        b.siblings((0..n_c).map(|j| vec![base + n_c + j]));
        b.siblings((0..n_c).map(|j| vec![base + j]));
        b.duals_at_state(c.iter().map(|cj| (-cj).fmax(&SX::scalar(0.0))).collect::<Result<Vec<_>, _>>()?);
        b.duals_at_state(c.iter().map(|cj| cj.fmax(&SX::scalar(0.0))).collect::<Result<Vec<_>, _>>()?);
        b.group(EquilibrationGroup {
            dual_parts: vec![(base..base + n_c).collect(), (base + n_c..base + 2 * n_c).collect()],
            primal_parts: vec![],
        });
        match &sub.regions {
            Regions::Sets(sets) => Ok(sets.iter().map(|r| r.theta(&a)).collect()),
            Regions::SignMatrix(s) => {
                let mut out = Vec::with_capacity(n_f);
                for (i, row) in s.iter().enumerate() {
                    let factors: Vec<SX> = row
                        .iter()
                        .zip(&a)
                        .filter_map(|(&sij, aj)| match sij {
                            1 => Some(aj.clone()),
                            -1 => Some(1.0 - aj),
                            _ => None,
                        })
                        .collect();
                    if self.lift_products && factors.len() > 2 {
                        let beta = SX::sym(&format!("beta{k}_{i}"), factors.len() - 1);
                        b.unknowns(&beta, 0.0, 1.0, 0.5f64.powi(2));
                        let bs = entries(&beta)?;
                        let mut prev = factors[0].clone();
                        for (m, f) in factors[1..].iter().enumerate() {
                            b.equations(&bs[m] - &prev * f);
                            prev = bs[m].clone();
                        }
                        out.push(prev);
                    } else {
                        out.push(factors.iter().fold(SX::scalar(1.0), |acc, f| acc * f));
                    }
                }
                Ok(out)
            }
        }
    }
}

impl Representation {
    /// The lowering this representation names.
    pub fn lowering(self, lift_products: bool) -> Box<dyn SubsystemLowering> {
        match self {
            Representation::Stewart => Box::new(Stewart),
            Representation::Step => Box::new(Step { lift_products }),
        }
    }
}

impl StageAlgebra {
    /// Lowers `model` with `opts` (the lowering its representation names).
    pub fn new(model: &PssModel, opts: &DcsOptions) -> Result<StageAlgebra, ModelError> {
        Self::with_lowering(model, opts.representation.lowering(opts.lift_products).as_ref())
    }

    /// Lowers every subsystem of `model` with `lowering`; `ẋ = f_0 + Σ_k Σ_i f_ki θ_ki`.
    pub fn with_lowering(model: &PssModel, lowering: &dyn SubsystemLowering) -> Result<StageAlgebra, ModelError> {
        model.validate()?;
        let mut b = AlgebraBuilder::default();
        let mut xdot = model.f0.clone().unwrap_or_else(|| SX::zeros(model.n_x(), 1));
        let mut theta_all = Vec::new();
        let mut n_regions = Vec::new();
        for (k, sub) in model.subsystems.iter().enumerate() {
            n_regions.push(sub.n_f());
            let theta = lowering.lower(k, sub, &mut b)?;
            for (fi, th) in sub.f.iter().zip(&theta) {
                xdot = xdot + fi * th;
            }
            theta_all.extend(theta);
        }
        Ok(StageAlgebra {
            z: column(&b.z)?,
            z_lb: b.z_lb,
            z_ub: b.z_ub,
            z_guess: b.z_guess,
            equations: column(&b.eqs)?,
            xdot,
            theta: column(&theta_all)?,
            primal: column(&b.primal)?,
            dual: column(&b.dual)?,
            dual_at_state: column(&b.dual_at_state)?,
            groups: b.groups,
            siblings: b.siblings,
            n_regions,
        })
    }

    /// Number of algebraic variables.
    pub fn n_z(&self) -> usize {
        self.z.nrow()
    }

    /// Number of complementarity pairs at one point.
    pub fn n_comp(&self) -> usize {
        self.primal.nrow()
    }

    /// `stage(x, u, p, z) -> (xdot, eqs, theta, primal, dual)` for evaluation at any point.
    pub fn function(&self, model: &PssModel, name: &str) -> Result<Function, ModelError> {
        Ok(Function::new(
            name,
            &[("x", &model.x), ("u", &model.u), ("p", &model.p), ("z", &self.z)],
            &[("xdot", &self.xdot), ("eqs", &self.equations), ("theta", &self.theta), ("primal", &self.primal), ("dual", &self.dual)],
        )?)
    }

    /// `boundary_dual(x, u, p) -> dual`: the duals determined by the state alone.
    pub fn dual_at_state_function(&self, model: &PssModel, name: &str) -> Result<Function, ModelError> {
        Ok(Function::new(name, &[("x", &model.x), ("u", &model.u), ("p", &model.p)], &[("dual", &self.dual_at_state)])?)
    }
}
