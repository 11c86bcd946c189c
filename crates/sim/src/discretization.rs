//! The FESD discretization of one simulation step `[0, T]` with a fixed control: the
//! element grid of `fesd-discretization` with one interval, an MPCC in the parameters
//! `(x0, u, p, T, λ0)`. The step sizes are `h_n = T τ_n` with normalized
//! unknowns `τ_n ∈ [(1 − γ_h), (1 + γ_h)] / N_FE`, `Σ τ_n = 1`, so one compiled
//! problem serves every interval length.
//!
//! Unknowns per finite element n: the step size h_n (FESD), the stage unknowns (stage
//! states or stage derivatives), the algebraic variables z at every stage (and at the
//! element's end point when the last stage is not there, e.g. Gauss–Legendre), and the
//! end state x_{n+1}. The boundary duals of element n are those of the previous
//! element's last point; for n = 0 they are the parameter λ0: the last duals of the
//! previous interval when simulating (the boundary values carried across intervals),
//! or the duals determined by x0 alone ([`FesdInterval::dual_at_state`]) at the start.

use crate::error::Result;
use casadi::{Function, MX, SX};
use fesd_discretization::{
    end_state_offset, BlockOrder, ElementBounds, ElementGrid, ElementTerms, FesdOptions, GridInputs, IrkRepresentation, VariableTable,
};
use fesd_model::{PssModel, SubsystemLowering};
use fesd_mpcc::Mpcc;
use fesd_rk::ButcherTableau;

/// Where each group of unknowns sits in the MPCC's `w` (read off the variable table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// State dimension.
    pub n_x: usize,
    /// Algebraic variables per point.
    pub n_z: usize,
    /// Complementarity components per point.
    pub n_comp: usize,
    /// θ entries per point.
    pub n_theta: usize,
    /// Finite elements.
    pub n_fe: usize,
    /// Stages.
    pub n_s: usize,
    /// True if each element has an extra end point (last stage not at the end).
    pub end_point: bool,
    /// Index of the normalized step size τ_n = h_n / T (FESD only).
    pub tau: Option<Vec<usize>>,
    /// Offset of the stage unknowns (n_x each) of element n, stage m.
    pub stage: Vec<Vec<usize>>,
    /// Offset of z at element n, point m (stages, then the end point if any).
    pub z: Vec<Vec<usize>>,
    /// Offset of x_{n+1} (the last stage's when the end state is the last stage).
    pub x_end: Vec<usize>,
    /// Length of w.
    pub n_w: usize,
}

impl Layout {
    /// Points per element carrying z (stages plus the end point if any).
    pub fn n_points(&self) -> usize {
        self.n_s + usize::from(self.end_point)
    }

    fn of(grid: &ElementGrid, table: &VariableTable) -> Layout {
        let s = grid.sizes();
        let n_fe = grid.n_elements();
        let offset = |name: &str, n: usize| table.block(name, Some(0), Some(n)).map_or(0, |b| b.offset);
        Layout {
            n_x: s.n_x,
            n_z: s.n_z,
            n_comp: s.n_comp,
            n_theta: s.n_theta,
            n_fe,
            n_s: s.n_s,
            end_point: s.n_pts > s.n_s,
            tau: grid.options().use_fesd.then(|| (0..n_fe).map(|n| offset("tau", n)).collect()),
            stage: (0..n_fe).map(|n| (0..s.n_s).map(|m| offset("k", n) + m * s.n_x).collect()).collect(),
            z: (0..n_fe).map(|n| (0..s.n_pts).map(|m| offset("z", n) + m * s.n_z).collect()).collect(),
            x_end: (0..n_fe).map(|n| end_state_offset(table, (0, n), s.n_x, grid.end_is_last_stage()).unwrap_or(0)).collect(),
            n_w: table.len(),
        }
    }
}

/// One discretized step: the MPCC, its variable table and layout, and functions to
/// read results.
pub struct FesdInterval {
    /// The MPCC in w with parameters `(x0, u, p, T, λ0)`, expanded to SX (one step has
    /// few elements: inlined code evaluates 10× faster than the mapped MX kernels,
    /// measured on the relay example: 0.0076 vs 0.086 s of kernel time in 4 588 Ipopt
    /// iterations).
    pub mpcc: Mpcc,
    /// Every unknown named: `tau`, `k`, `z`, `x` of interval 0, element n.
    pub table: VariableTable,
    /// Where the unknowns are.
    pub layout: Layout,
    /// `outputs(w, (x0, u, p, T, λ0)) -> (h, x_boundary, x_stage, theta, primal, dual_end)`:
    /// step sizes (n_fe), boundary states (n_x × (n_fe + 1)), stage states
    /// (n_x × n_fe n_s), θ at the stages (n_theta × n_fe n_s) and the complementarity
    /// primals at every point (n_comp × n_fe n_points), and the duals at the interval's
    /// last point (the next interval's λ0).
    pub outputs: Function,
    /// `dual_at_state(x, u, p)`: boundary duals of a state.
    pub dual_at_state: Function,
    /// The tableau used.
    pub tableau: ButcherTableau,
    /// The parameter vector's blocks: `x0`, `u`, `p`, `len` (T), `lambda0` (the
    /// boundary duals at x0); write it with [`VariableTable::fill`].
    pub parameters: VariableTable,
    /// Form of the RK equations (what the stage unknowns are).
    pub irk_representation: IrkRepresentation,
}

impl FesdInterval {
    /// Discretizes one step of `model` with `opts`: one interval of `opts.n_fe`
    /// elements of the shared element grid.
    pub fn new(model: &PssModel, opts: &FesdOptions) -> Result<FesdInterval> {
        Self::with_lowering(model, opts, opts.lowering().as_ref())
    }

    /// As [`FesdInterval::new`] with the DCS written by `lowering`.
    pub fn with_lowering(model: &PssModel, opts: &FesdOptions, lowering: &dyn SubsystemLowering) -> Result<FesdInterval> {
        // The step is expanded into one SX graph below.
        let opts = &opts.for_expansion();
        let grid = ElementGrid::with_lowering(model, opts, opts.scheme().uniform_grid(1)?, &ElementTerms::default(), lowering)?;
        let s = grid.sizes();
        let (n_x, n_u, n_p) = (s.n_x, model.u.nrow(), model.p.nrow());
        let inf = f64::INFINITY;
        let mut table = VariableTable::default();
        let bounds = ElementBounds { x_lower: vec![-inf; n_x], x_upper: vec![inf; n_x], at_stages: false, x_guess: vec![0.0; n_x] };
        grid.add_blocks(&mut table, &bounds, BlockOrder::ByElement);
        let w = MX::sym("w", table.len());
        let parameters = VariableTable::of_blocks(&[("x0", n_x), ("u", n_u), ("p", n_p), ("len", 1), ("lambda0", s.n_comp)]);
        let params = MX::sym("params", parameters.len());
        let part = |name: &str, len: usize| parameters.gather(&params, name, len, 1);
        let (x0, u, p, t) = (part("x0", n_x)?, part("u", n_u)?, part("p", n_p)?, part("len", 1)?);
        let lambda0 = part("lambda0", s.n_comp)?;
        let inputs = GridInputs { x0: x0.clone(), u, p, t_final: t.clone(), t_grid: t, lambda0: Some(lambda0), y_ref: MX::zeros(0, 1) };
        let a = grid.assemble(&table, &w, &inputs)?;
        let g = MX::vertcat(&[&a.g, &a.equilibration_constraints])?;
        let n_g = g.numel();
        let step = Function::new(
            "fesd_step",
            &[("w", &w), ("params", &params)],
            &[("f", &a.equilibration_cost), ("g", &g), ("G", &a.pairs_g), ("H", &a.pairs_h)],
        )?
        .expand()?;
        let (w_sx, params_sx) = (SX::sym("w", w.numel()), SX::sym("params", params.numel()));
        let [f, g, big_g, big_h]: [SX; 4] = step
            .call(&[&w_sx, &params_sx])?
            .try_into()
            .map_err(|_| casadi::Error::InvalidArgument("the step function has four outputs".into()))?;
        let mut mpcc = Mpcc::new(w_sx, f, big_g, big_h);
        mpcc.p = params_sx;
        mpcc.g = g;
        mpcc.lbg = vec![0.0; n_g];
        mpcc.ubg = vec![0.0; n_g];
        mpcc.lbw = table.lb.clone();
        mpcc.ubw = table.ub.clone();
        mpcc.w0 = table.guess.clone();
        mpcc.p0 = vec![0.0; params.numel()];
        let e = grid.n_elements();
        let outputs = Function::new(
            "fesd_outputs",
            &[("w", &w), ("params", &params)],
            &[
                ("h", &a.h),
                ("x_boundary", &MX::horzcat(&[&x0, &a.x_end])?),
                ("x_stage", a.result("x_stage")?),
                ("theta", a.result("theta")?),
                ("primal", a.result("primal")?),
                ("dual_end", &a.result("dual_end")?.get(.., e - 1)?),
            ],
        )?
        .expand()?;
        Ok(FesdInterval {
            mpcc,
            layout: Layout::of(&grid, &table),
            table,
            outputs,
            dual_at_state: grid.dual_at_state("fesd_dual_at_state")?,
            tableau: grid.tableau().clone(),
            irk_representation: opts.irk_representation,
            parameters,
        })
    }

    /// A neutral initial guess for the state `x0`: every state unknown at x0 (stage
    /// derivatives at zero), algebraic variables at their neutral values, τ = 1/N_FE.
    pub fn initial_guess(&self, x0: &[f64]) -> Vec<f64> {
        let mut w = self.mpcc.w0.clone();
        let l = &self.layout;
        for n in 0..l.n_fe {
            for &off in &l.stage[n] {
                if self.irk_representation == IrkRepresentation::Integral {
                    w[off..off + l.n_x].copy_from_slice(x0);
                }
            }
            w[l.x_end[n]..l.x_end[n] + l.n_x].copy_from_slice(x0);
        }
        w
    }

    /// Overwrites the state unknowns of `guess` with the straight line through `x0`
    /// along `slope` (dx/dt) over a piece of length `len` whose elements have their
    /// neutral length `len / N_FE`: stage states `x0 + (n + c_m) h slope` (stage
    /// derivatives `slope` in the differential form) and end states
    /// `x0 + (n + 1) h slope`. Does nothing if a length does not match.
    pub fn extrapolate_states(&self, guess: &mut [f64], x0: &[f64], slope: &[f64], len: f64) {
        let l = &self.layout;
        if guess.len() != l.n_w || x0.len() != l.n_x || slope.len() != l.n_x || !len.is_finite() {
            return;
        }
        let h = len / l.n_fe as f64;
        let line = |t: f64| -> Vec<f64> { x0.iter().zip(slope).map(|(a, d)| a + t * d).collect() };
        for n in 0..l.n_fe {
            for (m, &o) in l.stage[n].iter().enumerate() {
                let value = match self.irk_representation {
                    IrkRepresentation::Integral => line((n as f64 + self.tableau.c[m]) * h),
                    IrkRepresentation::Differential => slope.to_vec(),
                };
                guess[o..o + l.n_x].copy_from_slice(&value);
            }
        }
        // (Where the end state is the last stage's, this sets it again, to the same.)
        for n in 0..l.n_fe {
            guess[l.x_end[n]..l.x_end[n] + l.n_x].copy_from_slice(&line((n + 1) as f64 * h));
        }
    }

    /// `neutral` (the [`FesdInterval::initial_guess`] at the current state) with the
    /// algebraic variables of `previous`'s last point (its active set: θ, λ, μ or
    /// α, λ±) at every point of every element.
    pub fn active_set_guess(&self, neutral: &[f64], previous: &[f64]) -> Vec<f64> {
        let mut w = neutral.to_vec();
        let l = &self.layout;
        let last = l.z.last().and_then(|points| points.last()).copied();
        if let Some(src) = last.filter(|&o| previous.len() == w.len() && o + l.n_z <= w.len()) {
            for &o in l.z.iter().flatten() {
                w[o..o + l.n_z].copy_from_slice(&previous[src..src + l.n_z]);
            }
        }
        w
    }
}
