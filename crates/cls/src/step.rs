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
//!
//! The element is the FESD-J element kernel (`crate::kernel`) driven by the
//! discretization layer's DCS-independent chain with one interval, as optimal
//! control drives it with N.

use crate::element::stage_block;
use crate::error::Result;
use crate::geometry::Geometry;
use crate::kernel::{chained_guesses, dcs_element, element_kernel, ElementKernel};
use crate::model::ClsModel;
use crate::options::ClsOptions;
use casadi::{Function, MX, SX};
use fesd_discretization::{assemble_chain, ChainInputs, ChainOptions, StepEquilibrationHessian, VariableTable};
use fesd_mpcc::Mpcc;
use fesd_rk::ButcherTableau;

/// The sizes of a discretized step; where an element's unknowns sit in the MPCC's `w`
/// is read by name with [`ClsStep::block`].
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
    /// Length of w.
    pub n_w: usize,
}

/// One discretized interval of a rigid-body model.
pub struct ClsStep {
    /// The MPCC in w with parameters `(q0, v0, u, p, T)`, expanded to SX.
    pub mpcc: Mpcc,
    /// Every unknown block named: `tau` (FESD) and `element` of each element.
    pub table: VariableTable,
    /// The parameter vector's blocks: `q0`, `v0`, `u`, `p`, `len` (T); write it with
    /// [`VariableTable::fill`].
    pub parameters: VariableTable,
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
    /// The tableau used.
    pub tableau: ButcherTableau,
    first: ElementKernel,
    inner: ElementKernel,
}

impl ClsStep {
    /// Discretizes one interval of `model` with `opts`.
    pub fn new(model: &ClsModel, opts: &ClsOptions) -> Result<ClsStep> {
        model.validate()?;
        let tableau = opts.validate()?;
        let geo = Geometry::new(model, opts.friction_directions, opts.friction_model)?;
        let first = element_kernel(model, opts, &tableau, &geo, true, false, None)?;
        let inner = element_kernel(model, opts, &tableau, &geo, false, false, None)?;
        let (n_q, n_c, n_fe, n_u, n_p) = (model.n_q(), model.n_c(), opts.n_fe, model.u.nrow(), model.p.nrow());
        let mut table = VariableTable::default();
        if opts.use_fesd {
            let nom = 1.0 / n_fe as f64;
            let (lo, hi) = ((1.0 - opts.gamma_h) * nom, (1.0 + opts.gamma_h) * nom);
            for n in 0..n_fe {
                table.add("tau", Some(0), Some(n), &[lo], &[hi], &[nom]);
            }
        }
        for n in 0..n_fe {
            let k = if n == 0 { &first } else { &inner };
            table.add("element", Some(0), Some(n), &k.lbw, &k.ubw, &vec![0.0; k.n_w]);
        }
        let w = MX::sym("w", table.len());
        let parameters = VariableTable::of_blocks(&[("q0", n_q), ("v0", n_q), ("u", n_u), ("p", n_p), ("len", 1)]);
        let params = MX::sym("params", parameters.len());
        let part = |name: &str, len: usize| parameters.gather(&params, name, len, 1);
        let (q0, v0, u, p, t_int) = (part("q0", n_q)?, part("v0", n_q)?, part("u", n_u)?, part("p", n_p)?, part("len", 1)?);
        // The gaps at q0 are given, clipped at zero: a resting contact may start a hair
        // inside, by the previous interval's constraint tolerance.
        let gap0 = geo.gaps.call(&[&q0, &p])?.remove(0);
        let inputs = ChainInputs {
            boundary0: MX::vertcat(&[&q0, &v0, &gap0.fmax(&MX::zeros(n_c, 1))?])?,
            u,
            p,
            data: MX::zeros(0, 1),
            t_final: t_int.clone(),
            t_grid: t_int,
        };
        // The exact equilibration Hessian: the step is expanded into one SX graph below
        // (see `FesdOptions::for_expansion`).
        let chain_opts = ChainOptions {
            use_fesd: opts.use_fesd,
            step_equilibration: opts.step_equilibration,
            rho_h: opts.rho_h,
            equilibration_hessian: StepEquilibrationHessian::Exact,
            sum_in_time_units: true,
        };
        let chain = assemble_chain(&dcs_element(&first, &inner)?, &opts.scheme().uniform_grid(1)?, chain_opts, &table, &w, &inputs)?;
        let vec = |m: &MX| m.reshape(m.numel(), 1);
        let r = &chain.equilibration_constraints;
        let g = MX::vertcat(&[&chain.g, r])?;
        let f = chain.penalty.sum() + &chain.equilibration_cost;
        // Expanded to SX: a step has few elements, inlined kernels evaluate faster.
        let step = Function::new(
            "cls_step",
            &[("w", &w), ("params", &params)],
            &[("f", &f), ("g", &g), ("G", &vec(&chain.pairs_g)?), ("H", &vec(&chain.pairs_h)?)],
        )?
        .expand()?;
        let (w_sx, params_sx) = (SX::sym("w", w.numel()), SX::sym("params", params.numel()));
        let [f, g, big_g, big_h]: [SX; 4] = step
            .call(&[&w_sx, &params_sx])?
            .try_into()
            .map_err(|_| casadi::Error::InvalidArgument("the step function has four outputs".into()))?;
        let mut mpcc = Mpcc::new(w_sx, f, big_g, big_h);
        mpcc.g = g;
        mpcc.lbg = chain.lbg.iter().copied().chain(std::iter::repeat_n(0.0, r.numel())).collect();
        mpcc.ubg = chain.ubg.iter().copied().chain(std::iter::repeat_n(0.0, r.numel())).collect();
        mpcc.lbw = table.lb.clone();
        mpcc.ubw = table.ub.clone();
        mpcc.w0 = table.guess.clone();
        mpcc.p = params_sx;
        mpcc.p0 = vec![0.0; params.nrow()];
        let rows = |off: usize, len: usize| chain.boundary.get(off..off + len, ..);
        let side = |a: &MX, b: MX| MX::horzcat(&[a, &b]);
        let outputs = Function::new(
            "cls_outputs",
            &[("w", &w), ("params", &params)],
            &[
                ("h", &vec(&chain.h)?),
                ("q_boundary", &side(&q0, rows(0, n_q)?)?),
                ("v_boundary", &side(&v0, rows(n_q, n_q)?)?),
                ("v_post", &chain.extras[0]),
                ("impulse", &chain.extras[1]),
                ("force", &chain.extras[2].reshape(n_c, n_fe * tableau.n_s())?),
                ("gap", &side(&gap0, rows(2 * n_q, n_c)?)?),
            ],
        )?
        .expand()?;
        let layout = layout(&table, &inner, n_fe, tableau.n_s());
        Ok(ClsStep { mpcc, table, parameters, layout, outputs, gaps: geo.gaps, tableau, first, inner })
    }

    /// The predicted initial guess for the parameters `(q0, v0, u, p, T)`: each
    /// element in contact-free motion from its predecessor's predicted end, with the
    /// acceleration frozen at its start (contact forces and impulses zero, lifted
    /// quantities consistent with it).
    pub fn initial_guess(&self, params: &[f64]) -> Result<Vec<f64>> {
        let l = &self.layout;
        let table = &self.parameters;
        if params.len() != table.len() {
            return Err(crate::error::ClsError::BadInput {
                what: "params",
                reason: format!("has {} entries, expected (q0, v0, u, p, T): {}", params.len(), table.len()),
            });
        }
        let read = |name: &str| table.read(params, name, None, None).unwrap_or_default();
        let (q0, v0, u, p) = (read("q0"), read("v0"), read("u"), read("p"));
        let h_nom = read("len").first().copied().unwrap_or_default() / l.n_fe as f64;
        let mut w = self.mpcc.w0.clone();
        let guesses = chained_guesses(&self.first, &self.inner, &self.gaps, q0, v0, &vec![h_nom; l.n_fe], u, p)?;
        for (n, guess) in guesses.iter().enumerate() {
            let off = self.table.block("element", Some(0), Some(n)).map_or(0, |b| b.offset);
            w[off..off + guess.len()].copy_from_slice(guess);
        }
        Ok(w)
    }

    /// A resting guess at `(q0, v0)`: every position and velocity unknown at the
    /// initial values, everything else zero, τ = 1/N_FE.
    pub fn resting_guess(&self, q0: &[f64], v0: &[f64]) -> Result<Vec<f64>> {
        let l = &self.layout;
        for (what, vals) in [("q0", q0), ("v0", v0)] {
            if vals.len() != l.n_q {
                return Err(crate::error::ClsError::BadInput {
                    what,
                    reason: format!("has {} entries, the model needs {}", vals.len(), l.n_q),
                });
            }
        }
        let mut w = self.mpcc.w0.clone();
        for n in 0..l.n_fe {
            let mut put = |name: &str, val: &[f64]| -> Result<()> {
                w[self.block(name, n)?].copy_from_slice(val);
                Ok(())
            };
            put("v_post", v0)?;
            for m in 0..l.n_s {
                put(&stage_block("q", m), q0)?;
                put(&stage_block("v", m), v0)?;
            }
            put("q_end", q0)?;
            put("v_end", v0)?;
        }
        Ok(w)
    }

    /// The indices in `w` of block `name` of element n: `v_post`, `impulse`,
    /// `q_stage_m`, `v_stage_m`, `force_stage_m`, `q_end`, `v_end`, `gap_end` and the
    /// element's lifted and friction blocks (its kernel's table, inside the horizon
    /// table's block `element` of n).
    pub fn block(&self, name: &str, n: usize) -> Result<std::ops::Range<usize>> {
        let kernel = if n == 0 { &self.first } else { &self.inner };
        let element = self.table.block("element", Some(0), Some(n)).ok_or_else(|| crate::error::ClsError::BadInput {
            what: "element",
            reason: format!("{n} is not an element of the step ({} elements)", self.layout.n_fe),
        })?;
        let inside = kernel.block(name)?;
        Ok(element.offset + inside.start..element.offset + inside.end)
    }
}

/// The sizes of the step laid out by `table`.
fn layout(table: &VariableTable, inner: &ElementKernel, n_fe: usize, n_s: usize) -> ClsLayout {
    let tau = table.indices("tau");
    ClsLayout { n_q: inner.n_q, n_c: inner.n_c, n_fe, n_s, tau: (!tau.is_empty()).then_some(tau), n_w: table.len() }
}
