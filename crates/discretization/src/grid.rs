//! The elements of a horizon assembled from one mapped kernel: N control intervals of
//! `fe[k]` finite elements each, their unknowns in the variable table, and the
//! couplings between neighbours (continuity, boundary duals, Σh per interval, step
//! equilibration, sliding exits). Optimal control uses it with N intervals; the
//! simulator with one interval whose start, control and length are parameters.

use crate::element::{element_kernel, equilibration_kernel, sliding_exit_kernel, ElementSizes, ElementTerms};
use crate::error::{DiscretizationError, Result};
use crate::options::{FesdOptions, IrkRepresentation, StepEquilibration};
use crate::table::VariableTable;
use casadi::{Function, Parallelization, MX};
use fesd_model::{PssModel, StageAlgebra, SubsystemLowering};
use fesd_rk::ButcherTableau;

/// Order of the element blocks in the NLP vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BlockOrder {
    /// All blocks of one kind together (`k` of every element, then `z`, `τ`, `x`):
    /// each kind is one slice of w (default; what optimal control uses).
    #[default]
    ByKind,
    /// Element after element (`τ`, `k`, `z`, `x` of element 0, then element 1, …).
    ByElement,
}

/// Bounds and initial guess of the element unknowns.
#[derive(Clone, Debug)]
pub struct ElementBounds {
    /// Bounds of the state at every element's end.
    pub x_lower: Vec<f64>,
    /// Upper bounds of the state at every element's end.
    pub x_upper: Vec<f64>,
    /// Also bound the stage states (integral form only; default false).
    pub at_stages: bool,
    /// Initial guess of the states (stage states too in the integral form).
    pub x_guess: Vec<f64>,
}

/// The horizon's data, as expressions in the caller's unknowns and parameters.
#[derive(Clone, Debug)]
pub struct GridInputs {
    /// State at the horizon's start (`n_x × 1`).
    pub x0: MX,
    /// Control of every interval (`n_u × N`).
    pub u: MX,
    /// Model parameters (`n_p × 1`).
    pub p: MX,
    /// Horizon length T: element n of interval k is `h = τ_{k,n} T / N` long.
    pub t_final: MX,
    /// The horizon that step equilibration's nominal steps refer to (T itself when
    /// fixed or a parameter; its guess when T is free, as nosnoc does).
    pub t_grid: MX,
    /// Boundary duals at the horizon's start (`n_comp × 1`); `None` takes those of
    /// `x0` alone (with the first control).
    pub lambda0: Option<MX>,
    /// Tracking references of every interval (`n_y × N`; `0 × N` without tracking).
    pub y_ref: MX,
}

/// What [`ElementGrid::assemble`] builds.
#[derive(Clone, Debug)]
pub struct Assembly {
    /// Equality constraints (`= 0`): the elements' equations, the end states (unless
    /// the last stage is the end, [`ElementGrid::end_is_last_stage`]) and, with FESD,
    /// `Σ_n τ_{k,n} = 1` per interval.
    pub equalities: MX,
    /// Further constraints with their bounds: `η (h_n − h_{n−1}) = 0` for direct
    /// step equilibration (empty otherwise).
    pub equilibration_constraints: MX,
    /// Step equilibration's cost term (zero when it is a constraint or unused).
    pub equilibration_cost: MX,
    /// The complementarity pairs `0 ≤ G ⊥ H ≥ 0` (cross complementarity and, if
    /// asked, the sliding-exit pairs).
    pub pairs_g: MX,
    /// Second components of the pairs.
    pub pairs_h: MX,
    /// Step sizes (`1 × E`).
    pub h: MX,
    /// State at every element's end (`n_x × E`).
    pub x_end: MX,
    /// The Lagrange cost per element (`1 × E`).
    pub quad: MX,
    /// θ at every stage (`n_theta n_s × E`).
    pub theta: MX,
    /// Stage states (`n_x n_s × E`).
    pub x_stage: MX,
    /// Path constraint values per element (rows as in [`ElementTerms::path`]).
    pub path: MX,
    /// Complementarity primals at every point (`n_comp n_pts × E`).
    pub primal: MX,
    /// Boundary duals at every element's last point (`n_comp × E`).
    pub dual_end: MX,
}

/// One FESD element kernel and the horizon's element grid.
pub struct ElementGrid {
    model: PssModel,
    alg: StageAlgebra,
    tableau: ButcherTableau,
    opts: FesdOptions,
    kernel: Function,
    sizes: ElementSizes,
    fe: Vec<usize>,
}

/// The `n_x` end state of element `(k, n)` in `w` laid out by `table`: its `x`
/// block, or the last `n_x` entries of its `k` block when `last_stage` (see
/// [`ElementGrid::end_is_last_stage`]).
pub fn read_end_state(table: &VariableTable, w: &[f64], (k, n): (usize, usize), n_x: usize, last_stage: bool) -> Option<Vec<f64>> {
    if last_stage {
        table.read(w, "k", Some(k), Some(n)).and_then(|stages| stages.get(stages.len().checked_sub(n_x)?..)).map(<[f64]>::to_vec)
    } else {
        table.read(w, "x", Some(k), Some(n)).map(<[f64]>::to_vec)
    }
}

/// Neighbour pairs (e − 1, e) of elements inside each control interval: `(prev, next)`.
fn neighbours(fe: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let start: Vec<usize> = fe.iter().scan(0, |acc, &c| { let s = *acc; *acc += c; Some(s) }).collect();
    let next: Vec<usize> = fe.iter().zip(&start).flat_map(|(&c, &s)| (1..c).map(move |m| s + m)).collect();
    let prev = next.iter().map(|e| e - 1).collect();
    (prev, next)
}

/// The columns `cols` of `m`.
fn pick(m: &MX, cols: &[usize]) -> casadi::Result<MX> {
    m.get(.., cols.to_vec())
}

/// `m` as one column.
fn column(m: &MX) -> casadi::Result<MX> {
    m.reshape(m.numel(), 1)
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

impl ElementGrid {
    /// The element kernel of `model` with `opts` (validated here) and `terms`, for a
    /// horizon of `fe.len()` intervals with `fe[k]` elements each.
    /// The DCS is the one `opts.representation` names.
    pub fn new(model: &PssModel, opts: &FesdOptions, fe: Vec<usize>, terms: &ElementTerms) -> Result<ElementGrid> {
        Self::with_lowering(model, opts, fe, terms, opts.lowering().as_ref())
    }

    /// As [`ElementGrid::new`] with the DCS written by `lowering` (any
    /// [`SubsystemLowering`], not only the representations of
    /// [`FesdOptions::representation`], which is then ignored).
    pub fn with_lowering(model: &PssModel, opts: &FesdOptions, fe: Vec<usize>, terms: &ElementTerms, lowering: &dyn SubsystemLowering) -> Result<ElementGrid> {
        let tableau = opts.validate()?;
        if fe.is_empty() || fe.contains(&0) {
            return Err(DiscretizationError::InvalidOption { name: "n_fe", reason: "every interval needs at least one finite element".into() });
        }
        let alg = StageAlgebra::with_lowering(model, lowering)?;
        let (kernel, sizes) = element_kernel(model, &alg, &tableau, opts, terms)?;
        Ok(ElementGrid { model: model.clone(), alg, tableau, opts: opts.clone(), kernel, sizes, fe })
    }

    /// Sizes of one element's blocks.
    pub fn sizes(&self) -> ElementSizes {
        self.sizes
    }

    /// Elements of every interval.
    pub fn fe(&self) -> &[usize] {
        &self.fe
    }

    /// Number of control intervals N.
    pub fn n_intervals(&self) -> usize {
        self.fe.len()
    }

    /// Number of elements E = Σ_k fe[k].
    pub fn n_elements(&self) -> usize {
        self.fe.iter().sum()
    }

    /// The Butcher tableau.
    pub fn tableau(&self) -> &ButcherTableau {
        &self.tableau
    }

    /// The DCS's stage algebra.
    pub fn algebra(&self) -> &StageAlgebra {
        &self.alg
    }

    /// The options.
    pub fn options(&self) -> &FesdOptions {
        &self.opts
    }

    /// True if an element's end state is its last stage state (integral form with a
    /// stiffly accurate tableau, e.g. Radau IIA, unless
    /// [`FesdOptions::lift_element_end`]): then there is no `x` block and no
    /// continuity equation — the last stage unknowns are the end state.
    pub fn end_is_last_stage(&self) -> bool {
        !self.opts.lift_element_end && self.opts.irk_representation == IrkRepresentation::Integral && self.tableau.is_stiffly_accurate()
    }

    /// `dual_at_state(x, u, p)`: the boundary duals of a state (SX).
    pub fn dual_at_state(&self, name: &str) -> Result<Function> {
        Ok(self.alg.dual_at_state_function(&self.model, name)?)
    }

    /// The state at the end of element `n` of interval `k` in the NLP vector `w` laid
    /// out by `table`: its `x` block, or the last stage of its `k` block when that is
    /// the end ([`ElementGrid::end_is_last_stage`]).
    pub fn end_state(&self, table: &VariableTable, w: &[f64], k: usize, n: usize) -> Option<Vec<f64>> {
        read_end_state(table, w, (k, n), self.sizes.n_x, self.end_is_last_stage())
    }

    /// The interval of every element.
    pub fn element_interval(&self) -> Vec<usize> {
        self.fe.iter().enumerate().flat_map(|(k, &c)| std::iter::repeat_n(k, c)).collect()
    }

    /// Adds the unknowns of every element to `table`: `k` (stage unknowns), `z`
    /// (algebraic variables of every point), `tau` (normalized step size
    /// τ = h / (T/N), in `[(1 − γ_h), (1 + γ_h)] / N_FE`, fixed at 1/N_FE without
    /// FESD) and `x` (state at the element's end, unless it is the last stage, see
    /// [`ElementGrid::end_is_last_stage`]), each named with its (interval,
    /// element).
    pub fn add_blocks(&self, t: &mut VariableTable, b: &ElementBounds, order: BlockOrder) {
        let (s, opts, inf) = (&self.sizes, &self.opts, f64::INFINITY);
        let integral = opts.irk_representation == IrkRepresentation::Integral;
        let k_guess: Vec<f64> = (0..s.n_s).flat_map(|_| if integral { b.x_guess.clone() } else { vec![0.0; s.n_x] }).collect();
        let (mut k_lo, mut k_hi) = if b.at_stages {
            (b.x_lower.repeat(s.n_s), b.x_upper.repeat(s.n_s))
        } else {
            (vec![-inf; s.n_x * s.n_s], vec![inf; s.n_x * s.n_s])
        };
        let eliminated = self.end_is_last_stage();
        if eliminated {
            // The last stage is the element's end: the end-state bounds apply to it.
            let last = (s.n_s - 1) * s.n_x..s.n_s * s.n_x;
            k_lo[last.clone()].copy_from_slice(&b.x_lower);
            k_hi[last].copy_from_slice(&b.x_upper);
        }
        let z_rep = |v: &[f64]| (0..s.n_pts).flat_map(|_| v.to_vec()).collect::<Vec<f64>>();
        let (z_lo, z_hi, z_guess) = (z_rep(&self.alg.z_lb), z_rep(&self.alg.z_ub), z_rep(&self.alg.z_guess));
        let fe = &self.fe;
        let tau = |k: usize| {
            let nom = 1.0 / fe[k] as f64;
            if opts.use_fesd { ([(1.0 - opts.gamma_h) * nom], [(1.0 + opts.gamma_h) * nom], [nom]) } else { ([nom], [nom], [nom]) }
        };
        let elements: Vec<(usize, usize)> = fe.iter().enumerate().flat_map(|(k, &c)| (0..c).map(move |n| (k, n))).collect();
        let add = |t: &mut VariableTable, kind: &str, k: usize, n: usize| match kind {
            "k" => t.add("k", Some(k), Some(n), &k_lo, &k_hi, &k_guess),
            "z" => t.add("z", Some(k), Some(n), &z_lo, &z_hi, &z_guess),
            "tau" => {
                let (lo, hi, nom) = tau(k);
                t.add("tau", Some(k), Some(n), &lo, &hi, &nom)
            }
            _ => t.add("x", Some(k), Some(n), &b.x_lower, &b.x_upper, &b.x_guess),
        };
        let kinds: &[&str] = match (order, eliminated) {
            (BlockOrder::ByKind, false) => &["k", "z", "tau", "x"],
            (BlockOrder::ByKind, true) => &["k", "z", "tau"],
            (BlockOrder::ByElement, false) => &["tau", "k", "z", "x"],
            (BlockOrder::ByElement, true) => &["tau", "k", "z"],
        };
        match order {
            BlockOrder::ByKind => {
                for kind in kinds {
                    for &(k, n) in &elements {
                        add(t, kind, k, n);
                    }
                }
            }
            BlockOrder::ByElement => {
                for &(k, n) in &elements {
                    for kind in kinds {
                        add(t, kind, k, n);
                    }
                }
            }
        }
    }

    /// The element kernel mapped over every element, with the couplings between
    /// neighbours; `w` is the NLP vector laid out by `table` (which holds the blocks
    /// of [`ElementGrid::add_blocks`]).
    pub fn assemble(&self, table: &VariableTable, w: &MX, inputs: &GridInputs) -> Result<Assembly> {
        let (s, opts) = (&self.sizes, &self.opts);
        let (n, e_count) = (self.n_intervals(), self.n_elements());
        let element_interval = self.element_interval();
        let ks = table.gather(w, "k", s.n_x * s.n_s, e_count)?;
        let eliminated = self.end_is_last_stage();
        let x_ends = if eliminated { ks.get((s.n_s - 1) * s.n_x..s.n_s * s.n_x, ..)? } else { table.gather(w, "x", s.n_x, e_count)? };
        let zs = table.gather(w, "z", s.n_z * s.n_pts, e_count)?;
        let taus = table.gather(w, "tau", 1, e_count)?;
        let n_u = inputs.u.nrow();
        let u_per_element = if n_u > 0 { inputs.u.get(.., element_interval.clone())? } else { MX::zeros(0, e_count) };
        let x_starts = if e_count > 1 { MX::horzcat(&[&inputs.x0, &x_ends.get(.., 0..e_count - 1)?])? } else { inputs.x0.clone() };
        let hs = &taus * &(&inputs.t_final / n as f64);
        let lam0 = self.boundary_duals(inputs, &zs)?;
        let y_ref = if inputs.y_ref.nrow() > 0 { inputs.y_ref.get(.., element_interval.clone())? } else { MX::zeros(0, e_count) };
        let mapped = self.kernel.map_with(e_count, Parallelization::Serial)?;
        let out = mapped.call(&[&x_starts, &ks, &zs, &hs, &u_per_element, &inputs.p, &lam0, &y_ref])?;
        let mut eqs = vec![column(&out[0])?];
        if !eliminated {
            eqs.push(column(&x_ends.try_sub(&out[1])?)?);
        }
        if opts.use_fesd {
            eqs.push(column(&interval_sums(&taus, &element_interval, n)?)? - 1.0);
        }
        let (mut pairs_g, mut pairs_h) = (column(&out[2])?, column(&out[3])?);
        let split = opts.use_fesd && self.fe.iter().any(|&c| c > 1);
        let (mut equilibration_cost, mut equilibration_constraints) = (MX::scalar(0.0), MX::zeros(0, 1));
        if split {
            let (cost, exact) = self.step_equilibration(&taus, &hs, &inputs.t_grid, &out[7], &out[8])?;
            equilibration_cost = cost;
            if let Some(r) = exact {
                equilibration_constraints = r;
            }
            if opts.sliding_exit_continuity {
                let (eg, eh) = self.sliding_exits(&out[10], &out[11], &out[12])?;
                pairs_g = MX::vertcat(&[&pairs_g, &eg])?;
                pairs_h = MX::vertcat(&[&pairs_h, &eh])?;
            }
        }
        Ok(Assembly {
            equalities: MX::vertcat(&eqs.iter().collect::<Vec<_>>())?,
            equilibration_constraints,
            equilibration_cost,
            pairs_g,
            pairs_h,
            h: hs,
            x_end: x_ends,
            quad: out[4].clone(),
            theta: out[5].clone(),
            x_stage: out[6].clone(),
            path: out[9].clone(),
            primal: out[13].clone(),
            dual_end: out[14].clone(),
        })
    }

    /// Boundary duals at every element's start: the given (or x0's) for the first,
    /// the previous element's last point for the others.
    fn boundary_duals(&self, inputs: &GridInputs, zs: &MX) -> Result<MX> {
        let (s, e_count) = (&self.sizes, self.n_elements());
        let lam_first = match &inputs.lambda0 {
            Some(l) => l.clone(),
            None => {
                let u0 = if inputs.u.nrow() > 0 { inputs.u.get(.., 0usize)? } else { MX::zeros(0, 1) };
                self.dual_at_state("fesd_dual_at_state")?.call(&[&inputs.x0, &u0, &inputs.p])?.remove(0)
            }
        };
        if e_count == 1 {
            return Ok(lam_first);
        }
        let dual_of_z = Function::new("fesd_boundary_dual", &[("z", &self.alg.z)], &[("dual", &self.alg.dual)])?;
        let last_points = zs.get((s.n_pts - 1) * s.n_z..s.n_pts * s.n_z, 0..e_count - 1)?;
        let rest = dual_of_z.map_with(e_count - 1, Parallelization::Serial)?.call(&[&last_points])?.remove(0);
        Ok(MX::horzcat(&[&lam_first, &rest])?)
    }

    /// The sliding-exit pairs between neighbouring elements of each control interval
    /// (not across intervals, where the control may jump), as two column vectors.
    fn sliding_exits(&self, primal_end: &MX, primal_first: &MX, dual_stages: &MX) -> Result<(MX, MX)> {
        let (prev, next) = neighbours(&self.fe);
        let kernel = sliding_exit_kernel(&self.alg)?.map_with(next.len(), Parallelization::Serial)?;
        let out = kernel.call(&[&pick(primal_end, &prev)?, &pick(primal_first, &next)?, &pick(dual_stages, &next)?])?;
        Ok((column(&out[0])?, column(&out[1])?))
    }

    /// Step equilibration between neighbouring elements of each interval: its cost
    /// term and, for `Direct`, the constraints `η_n (h_n − h_{n−1}) = 0`. The
    /// heuristics compare steps on the grid of `t_grid`.
    fn step_equilibration(&self, taus: &MX, hs: &MX, t_grid: &MX, dual_sums: &MX, primal_sums: &MX) -> Result<(MX, Option<MX>)> {
        let (opts, fe, n) = (&self.opts, &self.fe, self.n_intervals());
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
            StepEquilibration::L2Relaxed | StepEquilibration::L2RelaxedScaled | StepEquilibration::Direct => {
                let scaled = opts.step_equilibration == StepEquilibration::L2RelaxedScaled;
                let kernel = equilibration_kernel(&self.alg, self.sizes.n_comp, scaled)?.map_with(next.len(), Parallelization::Serial)?;
                let r = kernel
                    .call(&[&pick(dual_sums, &prev)?, &pick(primal_sums, &prev)?, &pick(dual_sums, &next)?, &pick(primal_sums, &next)?, &pick(hs, &prev)?, &pick(hs, &next)?])?
                    .remove(0);
                let r = column(&r)?;
                if opts.step_equilibration == StepEquilibration::Direct {
                    Ok((MX::scalar(0.0), Some(r)))
                } else {
                    Ok((r.dot(&r)? * rho, None))
                }
            }
        }
    }
}
