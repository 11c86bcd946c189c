//! The horizon of a rigid-body system for optimal control: N control intervals of
//! `fe[k]` FESD-J elements each, driven by the discretization layer's chain (the
//! first-element kernel once, the element kernel mapped over the others, each
//! element's left boundary read from its predecessor's end), with the stage cost,
//! path constraints and tracking of the problem inside every element. It is the
//! rigid bodies' [`Dcs`]: the state is x = (q, v), v the velocity before any impulse.

use crate::element::stage_block;
use crate::error::{ClsError, Result};
use crate::geometry::Geometry;
use crate::kernel::{chained_guesses, dcs_element, element_kernel, ElementKernel};
use crate::model::ClsModel;
use crate::options::ClsOptions;
use casadi::MX;
use fesd_discretization::{
    assemble_chain, Assembly, BlockOrder, ChainInputs, ChainOptions, Dcs, DcsElement, DiscretizationError, ElementBounds, ElementCounts,
    ElementTerms, GridInputs, HorizonGuess, StageTerms, VariableTable,
};
use fesd_rk::ButcherTableau;

/// The FESD-J element kernels of a model and the horizon's element grid.
pub struct ClsGrid {
    opts: ClsOptions,
    tableau: ButcherTableau,
    geo: Geometry,
    first: ElementKernel,
    inner: ElementKernel,
    dcs: DcsElement,
    fe: ElementCounts,
    n_q: usize,
}

impl ClsGrid {
    /// The element kernels of `model` with `opts` (validated here; its `n_fe` is not
    /// read: `fe[k]` elements in interval k) and the stage `terms` (functions of
    /// x = (q, v), u, p), for `fe.len()` intervals. The element guess predicts a rest
    /// on the closed contacts (optimal control's neutral guess).
    pub fn new(model: &ClsModel, opts: &ClsOptions, fe: ElementCounts, terms: &ElementTerms) -> Result<ClsGrid> {
        model.validate()?;
        let tableau = opts.validate()?;
        let geo = Geometry::new(model, opts.friction_directions, opts.friction_model)?;
        let stage_terms = StageTerms::new(&model.state()?, &model.u, &model.p, terms)?;
        let first = element_kernel(model, opts, &tableau, &geo, true, true, Some(&stage_terms))?;
        let inner = element_kernel(model, opts, &tableau, &geo, false, true, Some(&stage_terms))?;
        let dcs = dcs_element(&first, &inner)?;
        Ok(ClsGrid { opts: opts.clone(), tableau, geo, first, inner, dcs, fe, n_q: model.n_q() })
    }

    /// The kernel of element `e` of the horizon.
    fn kernel(&self, e: usize) -> &ElementKernel {
        if e == 0 {
            &self.first
        } else {
            &self.inner
        }
    }

    /// Index of element `(k, n)` in the horizon.
    fn index(&self, (k, n): (usize, usize)) -> usize {
        self.fe[..k].iter().sum::<usize>() + n
    }

    /// The `element` block of element `(k, n)` with its kernel.
    fn block(&self, table: &VariableTable, element: (usize, usize)) -> Option<(usize, &ElementKernel)> {
        let (k, n) = element;
        let b = table.block("element", Some(k), Some(n))?;
        let kernel = self.kernel(self.index(element));
        (b.len == kernel.n_w).then_some((b.offset, kernel))
    }

    /// Unknowns of one element.
    pub fn element_len(&self) -> usize {
        self.inner.n_w
    }
}

/// A rigid-body error as the discretization layer carries it.
fn wrap(e: ClsError) -> DiscretizationError {
    DiscretizationError::System(Box::new(e))
}

impl Dcs for ClsGrid {
    fn name(&self) -> &str {
        "rigid bodies"
    }

    fn n_x(&self) -> usize {
        2 * self.n_q
    }

    fn fe(&self) -> &[usize] {
        &self.fe
    }

    /// One `element` block per element (post-impact velocity, impulses, stage
    /// unknowns, friction multipliers, lifted slacks, end state) with its guess
    /// predicted element after element from x0 at rest on the closed contacts, then
    /// the `tau` blocks with FESD. Blocks are always element-major.
    fn add_unknowns(
        &self,
        t: &mut VariableTable,
        b: &ElementBounds,
        guess: &HorizonGuess,
        _order: BlockOrder,
    ) -> fesd_discretization::Result<()> {
        let (n_q, n) = (self.n_q, self.fe.len());
        let interval = guess.t_final / n as f64;
        let steps: Vec<f64> = self.fe.iter().flat_map(|&c| std::iter::repeat_n(interval / c as f64, c)).collect();
        let (q0, v0) = guess.x0.split_at(n_q);
        let guesses = chained_guesses(&self.first, &self.inner, &self.geo.gaps, q0, v0, &steps, guess.u, guess.p).map_err(wrap)?;
        let elements = self.fe.iter().enumerate().flat_map(|(k, &c)| (0..c).map(move |m| (k, m)));
        for (e, ((k, m), w)) in elements.zip(&guesses).enumerate() {
            let kernel = self.kernel(e);
            let (mut lb, mut ub) = (kernel.lbw.clone(), kernel.ubw.clone());
            let mut bound = |name: &str, from: usize| -> fesd_discretization::Result<()> {
                let at = kernel.block(name).map_err(wrap)?;
                lb[at.clone()].copy_from_slice(&b.x_lower[from..from + n_q]);
                ub[at].copy_from_slice(&b.x_upper[from..from + n_q]);
                Ok(())
            };
            bound("q_end", 0)?;
            bound("v_end", n_q)?;
            if b.at_stages {
                for m in 0..self.tableau.n_s() {
                    bound(&stage_block("q", m), 0)?;
                    bound(&stage_block("v", m), n_q)?;
                }
            }
            t.add("element", Some(k), Some(m), &lb, &ub, w);
        }
        if self.opts.use_fesd {
            for (k, &c) in self.fe.iter().enumerate() {
                let nom = 1.0 / c as f64;
                let (lo, hi) = ((1.0 - self.opts.gamma_h) * nom, (1.0 + self.opts.gamma_h) * nom);
                for m in 0..c {
                    t.add("tau", Some(k), Some(m), &[lo], &[hi], &[nom]);
                }
            }
        }
        Ok(())
    }

    /// The chain from `b_in = (q0, v0, gap0)`: the gaps at q0 are data, clipped at zero
    /// (a resting contact may start a hair inside); the sums of the steps in time
    /// units. `inputs.lambda0` is not read.
    fn assemble_horizon(&self, table: &VariableTable, w: &MX, inputs: &GridInputs) -> fesd_discretization::Result<Assembly> {
        let (n_q, n_c) = (self.n_q, self.inner.n_c);
        let (q0, v0) = (inputs.x0.slice(0..n_q)?, inputs.x0.slice(n_q..2 * n_q)?);
        let gap0 = self.geo.gaps.call(&[&q0, &inputs.p])?.remove(0).fmax(&MX::zeros(n_c, 1))?;
        let chain_inputs = ChainInputs {
            boundary0: MX::vertcat(&[&q0, &v0, &gap0])?,
            u: inputs.u.clone(),
            p: inputs.p.clone(),
            data: inputs.y_ref.clone(),
            t_final: inputs.t_final.clone(),
            t_grid: inputs.t_grid.clone(),
        };
        let opts = &self.opts;
        let chain_opts = ChainOptions {
            use_fesd: opts.use_fesd,
            step_equilibration: opts.step_equilibration,
            rho_h: opts.rho_h,
            equilibration_hessian: opts.step_equilibration_hessian,
            sum_in_time_units: true,
        };
        let c = assemble_chain(&self.dcs, &self.fe, chain_opts, table, w, &chain_inputs)?;
        let [v_post, impulse, force, path] = <[MX; 4]>::try_from(c.extras)
            .map_err(|_| DiscretizationError::InvalidOption { name: "element kernel", reason: "expected four result outputs".into() })?;
        let (n_s, e_count) = (self.tableau.n_s(), self.n_elements());
        // Stage forces n_c × (n_s E) as one column of n_c n_s per element.
        let activity = force.reshape(n_c * n_s, e_count)?;
        Ok(Assembly {
            g: c.g,
            lbg: c.lbg,
            ubg: c.ubg,
            row_labels: c.row_labels,
            equilibration_constraints: c.equilibration_constraints,
            equilibration_cost: c.equilibration_cost,
            penalty: Some(c.penalty.sum()),
            pairs_g: c.pairs_g.reshape(c.pairs_g.numel(), 1)?,
            pairs_h: c.pairs_h.reshape(c.pairs_h.numel(), 1)?,
            h: c.h,
            x_end: c.boundary.get(0..2 * n_q, ..)?,
            quad: c.quad,
            path,
            activity: activity.clone(),
            activity_groups: n_c,
            results: vec![("v_post".into(), v_post), ("impulse".into(), impulse), ("force".into(), activity)],
        })
    }

    fn guess_nodes(&self) -> Vec<f64> {
        self.tableau.c.clone()
    }

    /// The stage positions and velocities and the end state; the other unknowns of
    /// the element keep their values.
    fn write_state_guess(
        &self,
        table: &VariableTable,
        w: &mut [f64],
        element: (usize, usize),
        _h: f64,
        (_start, nodes, end): (&[f64], &[Vec<f64>], &[f64]),
    ) -> fesd_discretization::Result<()> {
        let n_q = self.n_q;
        let missing = || DiscretizationError::InvalidOption {
            name: "variable table",
            reason: format!("no element block {element:?} of the right length"),
        };
        let (off, k) = self.block(table, element).ok_or_else(missing)?;
        let mut put = |name: &str, x: &[f64]| -> fesd_discretization::Result<()> {
            let at = k.block(name).map_err(wrap)?;
            w[off + at.start..off + at.end].copy_from_slice(&x[..n_q]);
            Ok(())
        };
        for (m, x) in nodes.iter().enumerate() {
            put(&stage_block("q", m), x)?;
            put(&stage_block("v", m), &x[n_q..])?;
        }
        put("q_end", end)?;
        put("v_end", &end[n_q..])
    }
}
