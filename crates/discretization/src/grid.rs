//! The horizon of a piecewise smooth system: N control intervals of `fe[k]` finite
//! elements each, their unknowns in the variable table, the switched system's element
//! (continuity and boundary duals carried from element to element, sliding exits
//! between neighbours) driven by the DCS-independent chain ([`crate::chain`]).
//! Optimal control uses it with N intervals; the simulator with one interval whose
//! start, control and length are parameters.

use crate::chain::{assemble_chain, element_intervals, ChainInputs, ChainOptions, DcsElement};
use crate::element::{pss_element, ElementSizes, ElementTerms};
use crate::error::{DiscretizationError, Result};
use crate::options::{FesdOptions, IrkRepresentation};
use crate::scheme::ElementCounts;
use crate::table::VariableTable;
use casadi::{Function, MX};
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

/// What a horizon's assembly builds ([`ElementGrid::assemble`], [`crate::Dcs::assemble_horizon`]),
/// the same for every DCS.
#[derive(Clone, Debug)]
pub struct Assembly {
    /// Constraint rows `lbg ≤ g ≤ ubg`: the elements' equations (for a switched system
    /// all equalities, with the end states unless the last stage is the end,
    /// [`ElementGrid::end_is_last_stage`]) and, with FESD, the sum of the steps per
    /// interval.
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
    /// A regularizing cost that is not part of the problem's cost (a rigid body's ℓ1
    /// tie-break on its multipliers; `None` for a switched system).
    pub penalty: Option<MX>,
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
    /// Path constraint values per element (rows as in [`ElementTerms::path`]).
    pub path: MX,
    /// What makes a mode active, per element (`activity_groups · n_points × E`): mode
    /// i is active in an element where entry `m · activity_groups + i` exceeds 1e-5 at
    /// some point m (θ of a switched system's regions, a rigid body's normal forces).
    pub activity: MX,
    /// Number of modes in `activity`.
    pub activity_groups: usize,
    /// The DCS's own results per element, by name (`theta`, `x_stage`, `primal`,
    /// `dual_end` of a switched system; `v_post`, `impulse`, `force` of a rigid body).
    pub results: Vec<(String, MX)>,
}

impl Assembly {
    /// The result `name` (see [`Assembly::results`]).
    pub fn result(&self, name: &str) -> Result<&MX> {
        self.results
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, m)| m)
            .ok_or_else(|| DiscretizationError::InvalidOption { name: "result", reason: format!("the assembly has no result {name:?}") })
    }
}

/// One FESD element kernel and the horizon's element grid.
pub struct ElementGrid {
    model: PssModel,
    alg: StageAlgebra,
    tableau: ButcherTableau,
    opts: FesdOptions,
    dcs: DcsElement,
    sizes: ElementSizes,
    fe: ElementCounts,
}

/// Where the `n_x` end state of element `(k, n)` starts in the NLP vector laid out by
/// `table`: its `x` block, or the last `n_x` entries of its `k` block when
/// `last_stage` (see [`ElementGrid::end_is_last_stage`]).
pub fn end_state_offset(table: &VariableTable, (k, n): (usize, usize), n_x: usize, last_stage: bool) -> Option<usize> {
    if last_stage {
        let b = table.block("k", Some(k), Some(n))?;
        Some(b.offset + b.len.checked_sub(n_x)?)
    } else {
        table.block("x", Some(k), Some(n)).map(|b| b.offset)
    }
}

/// The `n_x` end state of element `(k, n)` in `w` laid out by `table` (at
/// [`end_state_offset`]).
pub fn read_end_state(table: &VariableTable, w: &[f64], element: (usize, usize), n_x: usize, last_stage: bool) -> Option<Vec<f64>> {
    let off = end_state_offset(table, element, n_x, last_stage)?;
    w.get(off..off + n_x).map(<[f64]>::to_vec)
}

impl ElementGrid {
    /// The element kernel of `model` with `opts` (validated here; its `n_fe` is not
    /// read) and `terms`, for a horizon of `fe.len()` intervals with `fe[k]` elements
    /// each.
    /// The DCS is the one `opts.representation` names.
    pub fn new(model: &PssModel, opts: &FesdOptions, fe: ElementCounts, terms: &ElementTerms) -> Result<ElementGrid> {
        Self::with_lowering(model, opts, fe, terms, opts.lowering().as_ref())
    }

    /// As [`ElementGrid::new`] with the DCS written by `lowering` (any
    /// [`SubsystemLowering`], not only the representations of
    /// [`FesdOptions::representation`], which is then ignored).
    pub fn with_lowering(
        model: &PssModel,
        opts: &FesdOptions,
        fe: ElementCounts,
        terms: &ElementTerms,
        lowering: &dyn SubsystemLowering,
    ) -> Result<ElementGrid> {
        let tableau = opts.validate()?;
        let alg = StageAlgebra::with_lowering(model, lowering)?;
        let end_block = !end_is_last_stage(opts, &tableau);
        let (dcs, sizes) = pss_element(model, &alg, &tableau, opts, terms, end_block)?;
        Ok(ElementGrid { model: model.clone(), alg, tableau, opts: opts.clone(), dcs, sizes, fe })
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

    /// Number of elements E = Σ_k `fe[k]`.
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
        end_is_last_stage(&self.opts, &self.tableau)
    }

    /// The element as the DCS-independent chain drives it.
    pub fn element(&self) -> &DcsElement {
        &self.dcs
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
        element_intervals(&self.fe)
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
            if opts.use_fesd {
                ([(1.0 - opts.gamma_h) * nom], [(1.0 + opts.gamma_h) * nom], [nom])
            } else {
                ([nom], [nom], [nom])
            }
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
    /// neighbours ([`crate::assemble_chain`]); `w` is the NLP vector laid out by
    /// `table` (which holds the blocks of [`ElementGrid::add_blocks`]).
    pub fn assemble(&self, table: &VariableTable, w: &MX, inputs: &GridInputs) -> Result<Assembly> {
        let opts = &self.opts;
        let boundary0 = MX::vertcat(&[&inputs.x0, &self.first_boundary_duals(inputs)?])?;
        let chain_inputs = ChainInputs {
            boundary0,
            u: inputs.u.clone(),
            p: inputs.p.clone(),
            data: inputs.y_ref.clone(),
            t_final: inputs.t_final.clone(),
            t_grid: inputs.t_grid.clone(),
        };
        let chain_opts = ChainOptions {
            use_fesd: opts.use_fesd,
            step_equilibration: opts.step_equilibration,
            rho_h: opts.rho_h,
            equilibration_hessian: opts.step_equilibration_hessian,
            sum_in_time_units: false,
        };
        let c = assemble_chain(&self.dcs, &self.fe, chain_opts, table, w, &chain_inputs)?;
        let [theta, x_stage, path, primal, dual_end] = <[MX; 5]>::try_from(c.extras)
            .map_err(|_| DiscretizationError::InvalidOption { name: "element kernel", reason: "expected five result outputs".into() })?;
        Ok(Assembly {
            g: c.g,
            lbg: c.lbg,
            ubg: c.ubg,
            row_labels: c.row_labels,
            equilibration_constraints: c.equilibration_constraints,
            equilibration_cost: c.equilibration_cost,
            penalty: None,
            pairs_g: c.pairs_g,
            pairs_h: c.pairs_h,
            h: c.h,
            x_end: c.boundary.get(0..self.sizes.n_x, ..)?,
            quad: c.quad,
            path,
            activity: theta.clone(),
            activity_groups: self.sizes.n_theta,
            results: [("theta", theta), ("x_stage", x_stage), ("primal", primal), ("dual_end", dual_end)]
                .into_iter()
                .map(|(n, m)| (n.to_string(), m))
                .collect(),
        })
    }

    /// Boundary duals at the horizon's start: the given ones, or those of `x0` with
    /// the first control.
    fn first_boundary_duals(&self, inputs: &GridInputs) -> Result<MX> {
        match &inputs.lambda0 {
            Some(l) => Ok(l.clone()),
            None => {
                let u0 = if inputs.u.nrow() > 0 { inputs.u.get(.., 0usize)? } else { MX::zeros(0, 1) };
                Ok(self.dual_at_state("fesd_dual_at_state")?.call(&[&inputs.x0, &u0, &inputs.p])?.remove(0))
            }
        }
    }
}

/// True if an element's end state is its last stage state with `opts` and `tableau`
/// (see [`ElementGrid::end_is_last_stage`]).
fn end_is_last_stage(opts: &FesdOptions, tableau: &ButcherTableau) -> bool {
    !opts.lift_element_end && opts.irk_representation == IrkRepresentation::Integral && tableau.is_stiffly_accurate()
}
