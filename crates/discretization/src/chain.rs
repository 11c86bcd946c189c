//! A horizon of finite elements assembled from the element kernels of any dynamic
//! complementarity system (DCS), without knowing which one it drives.
//!
//! A DCS hands the discretization a [`DcsElement`]: its element kernel (one SX
//! function holding everything inside one finite element: stage equations, the DCS's
//! stage algebra and complementarity pairs crossed over the element, its boundary
//! equations — plain continuity for a switched system, impulse equations for a rigid
//! body), how the element's right boundary is read from its own unknowns, and its
//! switch indicators. [`assemble_chain`] maps the kernel over the N · N_FE elements
//! of the horizon (CasADi `map`, so the generated code does not grow with N or
//! N_FE), feeds each element the right boundary of its predecessor, and adds what is
//! the same for every DCS: step sizes h = τ T / N with Σ_n τ_{k,n} = 1 per control
//! interval, step equilibration between neighbours, and the DCS's own pairs between
//! neighbours (if any).

use crate::error::{DiscretizationError, Result};
use crate::options::{StepEquilibration, StepEquilibrationHessian};
use crate::scheme::ElementCounts;
use crate::table::VariableTable;
use casadi::{Function, Parallelization, MX, SX};

/// A kernel with the lower and upper bounds of its output rows and their names.
pub type BoundedKernel = (Function, Vec<f64>, Vec<f64>, Vec<String>);

/// Positions of the element kernel's fixed outputs; further outputs are the DCS's
/// own results ([`Chain::extras`]).
pub mod output {
    /// Constraint rows `lbg ≤ g ≤ ubg` (stage equations, boundary equations, …).
    pub const G_ROWS: usize = 0;
    /// First components of the complementarity pairs `0 ≤ G ⊥ H ≥ 0`.
    pub const PAIRS_G: usize = 1;
    /// Second components of the pairs.
    pub const PAIRS_H: usize = 2;
    /// The Lagrange cost integrated over the element (scalar).
    pub const QUAD: usize = 3;
    /// A regularizing cost that is not part of the problem's cost (scalar, e.g. an
    /// ℓ1 tie-break on multipliers).
    pub const PENALTY: usize = 4;
    /// The switch indicators read by [`super::DcsElement::switch_indicator`].
    pub const INDICATORS: usize = 5;
    /// What [`super::DcsElement::neighbour_pairs`] reads of an element.
    pub const LINK: usize = 6;
    /// Number of fixed outputs.
    pub const FIXED: usize = 7;
}

/// One finite element of a dynamic complementarity system, as the discretization
/// layer drives it.
///
/// Every kernel's inputs are `(blocks…, b_in, h, u, p, data)`: the element's unknown
/// blocks (as [`DcsElement::blocks`] names them, each one column), its left boundary
/// `b_in` (the previous element's right boundary, or [`ChainInputs::boundary0`] for
/// the first), its step size, the control and data of its interval and the
/// parameters. Its outputs start with the fixed ones of [`output`].
pub struct DcsElement {
    /// Name of the DCS (for messages).
    pub name: String,
    /// The element's blocks of unknowns in the variable table, in the kernels' input
    /// order: (block name, entries per element).
    pub blocks: Vec<(String, usize)>,
    /// The element kernel.
    pub element: Function,
    /// Bounds of the kernel's constraint rows.
    pub lbg: Vec<f64>,
    /// See `lbg`.
    pub ubg: Vec<f64>,
    /// What each constraint row is (for diagnostics; as long as `lbg`).
    pub row_names: Vec<String>,
    /// The kernel of the horizon's first element where it differs (e.g. FESD-J: the
    /// gaps at t = 0 are data), with its bounds and row names.
    pub first_element: Option<BoundedKernel>,
    /// `boundary(blocks…) -> b`: the element's right boundary, the next element's
    /// `b_in` (a switched system: end state and boundary duals; a rigid body:
    /// position, pre-impact velocity, gaps).
    pub boundary: Function,
    /// `switch_indicator(ind_prev, ind_next) -> η` (SX): zero exactly where the
    /// active set changes at the boundary between two elements, from their
    /// indicator outputs.
    pub switch_indicator: Function,
    /// `neighbour_pairs(link_prev, link_next) -> (G, H)`: complementarity pairs
    /// between neighbouring elements of one control interval, from their link
    /// outputs (e.g. the sliding-exit condition of a switched system).
    pub neighbour_pairs: Option<Function>,
}

/// What the chain is fed, as expressions in the caller's unknowns and parameters.
#[derive(Clone, Debug)]
pub struct ChainInputs {
    /// The left boundary of the horizon's first element (`b_in`).
    pub boundary0: MX,
    /// Control of every interval (`n_u × N`).
    pub u: MX,
    /// Parameters (a column).
    pub p: MX,
    /// Per-interval data passed to the element kernel (`n_d × N`, e.g. tracking
    /// references; `0 × N` without).
    pub data: MX,
    /// Horizon length T: element n of interval k is `h = τ_{k,n} T / N` long.
    pub t_final: MX,
    /// The horizon the heuristic step equilibration's nominal steps refer to.
    pub t_grid: MX,
}

/// How the step sizes are treated.
#[derive(Clone, Copy, Debug)]
pub struct ChainOptions {
    /// FESD: Σ_n τ_{k,n} = 1 per interval and step equilibration. The step sizes are
    /// the table's `tau` blocks; without them every element of interval k is
    /// `T / (N · fe[k])` long.
    pub use_fesd: bool,
    /// Step equilibration between neighbouring elements of one interval.
    pub step_equilibration: StepEquilibration,
    /// Its weight ρ_h (costs only).
    pub rho_h: f64,
    /// How an L2 equilibration cost enters the Lagrangian Hessian.
    pub equilibration_hessian: StepEquilibrationHessian,
    /// Write the sum of each interval's steps as Σ_n h_{k,n} − T/N = 0 (in time
    /// units) instead of Σ_n τ_{k,n} − 1 = 0: the same constraint scaled by T/N, but
    /// Ipopt's path differs (measured on a block yielding from rest: 1.7e-6 instead of
    /// 1e-11 speed error after a homotopy ending at a worse point). The rigid-body
    /// DCS uses time units, the switched systems the normalized form.
    pub sum_in_time_units: bool,
}

/// What [`assemble_chain`] builds.
#[derive(Clone, Debug)]
pub struct Chain {
    /// Constraint rows: every element's, then the sum of the steps per interval
    /// (FESD; see [`ChainOptions::sum_in_time_units`]).
    pub g: MX,
    /// Bounds of `g`.
    pub lbg: Vec<f64>,
    /// See `lbg`.
    pub ubg: Vec<f64>,
    /// What each row of `g` is.
    pub row_labels: Vec<String>,
    /// `η (h_n − h_{n−1}) = 0` for direct step equilibration (empty otherwise).
    pub equilibration_constraints: MX,
    /// Step equilibration's cost term (zero when it is a constraint or unused).
    pub equilibration_cost: MX,
    /// The complementarity pairs of every element, then those between neighbours.
    pub pairs_g: MX,
    /// Second components of the pairs.
    pub pairs_h: MX,
    /// Normalized step sizes τ (`1 × E`).
    pub tau: MX,
    /// Step sizes h (`1 × E`).
    pub h: MX,
    /// Right boundary of every element (`n_b × E`).
    pub boundary: MX,
    /// The Lagrange cost per element (`1 × E`).
    pub quad: MX,
    /// The regularizing cost per element (`1 × E`).
    pub penalty: MX,
    /// The kernel's further outputs, element by element as columns.
    pub extras: Vec<MX>,
}

/// `m` as one column.
pub(crate) fn column(m: &MX) -> casadi::Result<MX> {
    m.reshape(m.numel(), 1)
}

/// The columns `cols` of `m`.
pub(crate) fn pick(m: &MX, cols: &[usize]) -> casadi::Result<MX> {
    m.get(.., cols.to_vec())
}

/// Neighbour pairs (e − 1, e) of elements inside each control interval: `(prev, next)`.
pub(crate) fn neighbours(fe: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let start: Vec<usize> = fe
        .iter()
        .scan(0, |acc, &c| {
            let s = *acc;
            *acc += c;
            Some(s)
        })
        .collect();
    let next: Vec<usize> = fe.iter().zip(&start).flat_map(|(&c, &s)| (1..c).map(move |m| s + m)).collect();
    let prev = next.iter().map(|e| e - 1).collect();
    (prev, next)
}

/// The sums over the elements of each interval of a row of element values (`1 × E`,
/// element `e` in interval `interval_of[e]` of `n`), as a `1 × n` row: one product
/// with the sparse element-to-interval incidence matrix, so the generated code has one
/// operation whatever N (a sum per interval would be N operations, and N times the
/// code in its derivatives).
pub fn interval_sums(row: &MX, interval_of: &[usize], n: usize) -> casadi::Result<MX> {
    let e_count = interval_of.len();
    let elements: Vec<usize> = (0..e_count).collect();
    let incidence = MX::from_nonzeros(&casadi::Sparsity::triplet(e_count, n, &elements, interval_of)?, &vec![1.0; e_count])?;
    row.mtimes(&incidence)
}

/// The interval of every element of a horizon with `fe[k]` elements in interval k.
pub fn element_intervals(fe: &[usize]) -> Vec<usize> {
    fe.iter().enumerate().flat_map(|(k, &c)| std::iter::repeat_n(k, c)).collect()
}

impl DcsElement {
    /// Checks that the kernels have the fixed signature.
    fn validate(&self) -> Result<()> {
        let bad =
            |reason: String| Err(DiscretizationError::InvalidOption { name: "element kernel", reason: format!("{}: {reason}", self.name) });
        let n_in = self.blocks.len() + 5;
        let kernels = std::iter::once((&self.element, &self.lbg, &self.row_names))
            .chain(self.first_element.as_ref().map(|(f, lb, _, names)| (f, lb, names)));
        for (f, lbg, names) in kernels {
            if f.n_in() != n_in || f.n_out() < output::FIXED {
                return bad(format!("{} inputs and {} outputs, expected {n_in} and at least {}", f.n_in(), f.n_out(), output::FIXED));
            }
            if f.sparsity_out(output::G_ROWS)?.nrow() != lbg.len() || names.len() != lbg.len() {
                return bad(format!(
                    "{} constraint rows, {} bounds, {} row names",
                    f.sparsity_out(output::G_ROWS)?.nrow(),
                    lbg.len(),
                    names.len()
                ));
            }
        }
        if self.boundary.n_in() != self.blocks.len() {
            return bad(format!(
                "the boundary function takes {} inputs, the element has {} blocks",
                self.boundary.n_in(),
                self.blocks.len()
            ));
        }
        Ok(())
    }

    /// `equilibrate(ind_prev, ind_next, h_prev, h_next) -> (r, η)`: the residual
    /// `r = η (h_next − h_prev)` and its weight η (`tanh η` when `scaled`), from the
    /// switch indicator.
    fn equilibration_kernel(&self, scaled: bool) -> Result<Function> {
        let n_ind = self.element.sparsity_out(output::INDICATORS)?.nrow();
        let (ip, inx) = (SX::sym("ind_prev", n_ind), SX::sym("ind_next", n_ind));
        let (hp, hn) = (SX::sym("h_prev", 1), SX::sym("h_next", 1));
        let mut eta = self.switch_indicator.call(&[&ip, &inx])?.remove(0);
        if scaled {
            eta = eta.tanh();
        }
        let r = &eta * &(&hn - &hp);
        Ok(Function::new(
            &format!("{}_equilibrate", self.name),
            &[("ind_prev", &ip), ("ind_next", &inx), ("h_prev", &hp), ("h_next", &hn)],
            &[("r", &r), ("weight", &eta)],
        )?)
    }
}

/// The element kernels of `dcs` mapped over a horizon of `fe[k]` elements in
/// interval k, whose unknowns are in `w` laid out by `table` (the DCS's blocks, and
/// `tau` blocks with FESD).
pub fn assemble_chain(
    dcs: &DcsElement,
    fe: &ElementCounts,
    opts: ChainOptions,
    table: &VariableTable,
    w: &MX,
    inputs: &ChainInputs,
) -> Result<Chain> {
    dcs.validate()?;
    let (n, e_count) = (fe.len(), fe.iter().sum::<usize>());
    let interval_of = element_intervals(fe);
    for (name, len) in dcs.blocks.iter().map(|(n, l)| (n.as_str(), *l)).chain([("tau", 1)]) {
        let found = table.indices(name).len();
        if found != len * e_count && !(name == "tau" && found == 0) {
            return Err(DiscretizationError::InvalidOption {
                name: "variable table",
                reason: format!("{}: block {name} has {found} entries, expected {len} for each of {e_count} elements", dcs.name),
            });
        }
    }
    let blocks: Vec<MX> = dcs.blocks.iter().map(|(name, len)| table.gather(w, name, *len, e_count)).collect::<casadi::Result<_>>()?;
    let taus = if !table.indices("tau").is_empty() {
        table.gather(w, "tau", 1, e_count)?
    } else {
        let nominal: Vec<f64> = interval_of.iter().map(|&k| 1.0 / fe[k] as f64).collect();
        MX::from_slice(&nominal).reshape(1, e_count)?
    };
    let hs = &taus * &(&inputs.t_final / n as f64);
    let per_element = |m: &MX| -> casadi::Result<MX> {
        if m.nrow() > 0 {
            m.get(.., interval_of.clone())
        } else {
            Ok(MX::zeros(0, e_count))
        }
    };
    let (u, data) = (per_element(&inputs.u)?, per_element(&inputs.data)?);
    let boundary = dcs.boundary.map_with(e_count, Parallelization::Serial)?.call(&blocks.iter().collect::<Vec<_>>())?.remove(0);
    let outs = element_outputs(dcs, e_count, &blocks, &boundary, inputs, &hs, &u, &data)?;
    let mut g = outs[output::G_ROWS].clone();
    let (mut lbg, mut ubg, mut row_labels) = row_bounds(dcs, e_count);
    if opts.use_fesd {
        let sums = if opts.sum_in_time_units {
            column(&interval_sums(&hs, &interval_of, n)?)? - &inputs.t_final / n as f64
        } else {
            column(&interval_sums(&taus, &interval_of, n)?)? - 1.0
        };
        g = MX::vertcat(&[&g, &sums])?;
        lbg.extend(std::iter::repeat_n(0.0, n));
        ubg.extend(std::iter::repeat_n(0.0, n));
        let what = if opts.sum_in_time_units { "Σ h = T/N" } else { "Σ τ = 1" };
        row_labels.extend((0..n).map(|k| format!("interval {k}: {what}")));
    }
    let (mut pairs_g, mut pairs_h) = (outs[output::PAIRS_G].clone(), outs[output::PAIRS_H].clone());
    let (mut equilibration_cost, mut equilibration_constraints) = (MX::scalar(0.0), MX::zeros(0, 1));
    if opts.use_fesd && fe.iter().any(|&c| c > 1) {
        let (cost, exact) = step_equilibration(dcs, fe, opts, &taus, &hs, &inputs.t_grid, &outs[output::INDICATORS])?;
        equilibration_cost = cost;
        if let Some(r) = exact {
            equilibration_constraints = r;
        }
        if let Some(f) = &dcs.neighbour_pairs {
            let (prev, next) = neighbours(fe);
            let link = &outs[output::LINK];
            let out = f.map_with(next.len(), Parallelization::Serial)?.call(&[&pick(link, &prev)?, &pick(link, &next)?])?;
            pairs_g = MX::vertcat(&[&pairs_g, &column(&out[0])?])?;
            pairs_h = MX::vertcat(&[&pairs_h, &column(&out[1])?])?;
        }
    }
    Ok(Chain {
        g,
        lbg,
        ubg,
        row_labels,
        equilibration_constraints,
        equilibration_cost,
        pairs_g,
        pairs_h,
        tau: taus,
        h: hs,
        boundary,
        quad: outs[output::QUAD].clone(),
        penalty: outs[output::PENALTY].clone(),
        extras: outs[output::FIXED..].to_vec(),
    })
}

/// The kernels' outputs over every element: the first kernel on element 0 (if the
/// DCS has one), the element kernel mapped over the others. `g`, `G` and `H` (whose
/// length may differ between the kernels) as one column each; the rest as columns
/// side by side.
#[allow(clippy::too_many_arguments)]
fn element_outputs(
    dcs: &DcsElement,
    e_count: usize,
    blocks: &[MX],
    boundary: &MX,
    inputs: &ChainInputs,
    hs: &MX,
    u: &MX,
    data: &MX,
) -> Result<Vec<MX>> {
    let stacked = [output::G_ROWS, output::PAIRS_G, output::PAIRS_H];
    let call = |f: &Function, cols: std::ops::Range<usize>, b_in: &MX| -> Result<Vec<MX>> {
        let count = cols.len();
        let part = |m: &MX| m.get(.., cols.clone());
        let mut args: Vec<MX> = blocks.iter().map(part).collect::<casadi::Result<_>>()?;
        args.extend([b_in.clone(), part(hs)?, part(u)?, inputs.p.clone(), part(data)?]);
        let f = if count == 1 { f.clone() } else { f.map_with(count, Parallelization::Serial)? };
        let out = f.call(&args.iter().collect::<Vec<_>>())?;
        Ok(out
            .iter()
            .enumerate()
            .map(|(i, o)| if stacked.contains(&i) { column(o) } else { Ok(o.clone()) })
            .collect::<casadi::Result<_>>()?)
    };
    let b_in = |cols: std::ops::Range<usize>| -> casadi::Result<MX> {
        if cols.start == 0 {
            if cols.len() == 1 {
                return Ok(inputs.boundary0.clone());
            }
            return MX::horzcat(&[&inputs.boundary0, &boundary.get(.., 0..cols.end - 1)?]);
        }
        boundary.get(.., cols.start - 1..cols.end - 1)
    };
    let Some((first, ..)) = &dcs.first_element else { return call(&dcs.element, 0..e_count, &b_in(0..e_count)?) };
    let head = call(first, 0..1, &b_in(0..1)?)?;
    if e_count == 1 {
        return Ok(head);
    }
    let rest = call(&dcs.element, 1..e_count, &b_in(1..e_count)?)?;
    Ok(head
        .iter()
        .zip(&rest)
        .enumerate()
        .map(|(i, (a, b))| if stacked.contains(&i) { MX::vertcat(&[a, b]) } else { MX::horzcat(&[a, b]) })
        .collect::<casadi::Result<_>>()?)
}

/// The L2 step-equilibration cost `ρ Σ (η_n Δh_n)²` with its exact value and
/// gradient but, in the Hessian, only `2ρ Σ η_n² ∇Δh_n ∇Δh_nᵀ`: the curvature in the
/// step sizes with the weights η_n frozen (a Gauss–Newton term, positive
/// semidefinite). Written as `no_hess(c) + q − no_hess(q)` with `c` the exact cost
/// and `q = ρ Σ no_grad(η_n²) Δh_n²`: the value and gradient of `c`, the Hessian of `q`.
fn gauss_newton_in_steps(cost: &MX, weight: &MX, dh: &MX, rho: f64) -> Result<MX> {
    let frozen = weight.try_mul(weight)?.stop_diff(1)?;
    let model = frozen.try_mul(&dh.try_mul(dh)?)?.sum() * rho;
    Ok(cost.stop_diff(2)? + &model - model.stop_diff(2)?)
}

/// Bounds and labels of the elements' constraint rows.
fn row_bounds(dcs: &DcsElement, e_count: usize) -> (Vec<f64>, Vec<f64>, Vec<String>) {
    let (mut lbg, mut ubg, mut labels) = (Vec::new(), Vec::new(), Vec::new());
    for e in 0..e_count {
        let (lb, ub, names) = match (&dcs.first_element, e) {
            (Some((_, lb, ub, names)), 0) => (lb, ub, names),
            _ => (&dcs.lbg, &dcs.ubg, &dcs.row_names),
        };
        lbg.extend_from_slice(lb);
        ubg.extend_from_slice(ub);
        labels.extend(names.iter().map(|r| format!("element {e}: {r}")));
    }
    (lbg, ubg, labels)
}

/// Step equilibration between neighbouring elements of each interval: its cost term
/// and, for `Direct`, the constraints `η_n (h_n − h_{n−1}) = 0`. The heuristic mean
/// compares steps on the grid of `t_grid`.
fn step_equilibration(
    dcs: &DcsElement,
    fe: &[usize],
    opts: ChainOptions,
    taus: &MX,
    hs: &MX,
    t_grid: &MX,
    indicators: &MX,
) -> Result<(MX, Option<MX>)> {
    let n = fe.len();
    let h_grid = taus * &(t_grid / n as f64);
    let (prev, next) = neighbours(fe);
    let rho = opts.rho_h;
    match opts.step_equilibration {
        StepEquilibration::HeuristicMean => {
            let nominal: Vec<f64> = fe.iter().flat_map(|&c| std::iter::repeat_n(1.0 / (n * c) as f64, c)).collect();
            let d = h_grid.try_sub(&(MX::from_slice(&nominal).reshape(1, nominal.len())? * t_grid))?;
            Ok((d.dot(&d)? * rho, None))
        }
        StepEquilibration::HeuristicDiff => {
            let d = pick(&h_grid, &next)? - pick(&h_grid, &prev)?;
            Ok((d.dot(&d)? * rho, None))
        }
        mode @ (StepEquilibration::L2Relaxed | StepEquilibration::L2RelaxedScaled | StepEquilibration::Direct) => {
            let kernel =
                dcs.equilibration_kernel(mode == StepEquilibration::L2RelaxedScaled)?.map_with(next.len(), Parallelization::Serial)?;
            let (h_prev, h_next) = (pick(hs, &prev)?, pick(hs, &next)?);
            let out = kernel.call(&[&pick(indicators, &prev)?, &pick(indicators, &next)?, &h_prev, &h_next])?;
            let r = column(&out[0])?;
            if mode == StepEquilibration::Direct {
                return Ok((MX::scalar(0.0), Some(r)));
            }
            let cost = r.dot(&r)? * rho;
            match opts.equilibration_hessian {
                StepEquilibrationHessian::Exact => Ok((cost, None)),
                StepEquilibrationHessian::GaussNewton => {
                    let weight = column(&out[1])?;
                    let dh = column(&(h_next - h_prev))?;
                    Ok((gauss_newton_in_steps(&cost, &weight, &dh, rho)?, None))
                }
            }
        }
    }
}
