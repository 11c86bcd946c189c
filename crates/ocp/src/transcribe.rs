//! The OCP as an MPCC: the element grid of `fesd-discretization` (one kernel mapped
//! over all N · N_FE elements, couplings between neighbours) with the cost, the path
//! and terminal constraints and the bounds, every unknown named in the variable table.

use crate::error::Result;
use crate::problem::{Horizon, InitialState, Ocp};
use casadi::{Function, MX, SX};
use fesd_discretization::{BlockOrder, ElementBounds, ElementGrid, ElementSizes, ElementTerms, GridInputs, VariableTable};
use fesd_model::SubsystemLowering;
use fesd_mpcc::Mpcc;

/// Constraint rows with their lower and upper bounds.
type BoundedRows = (MX, Vec<f64>, Vec<f64>);

/// The transcribed problem.
pub(crate) struct Transcription {
    pub mpcc: Mpcc<casadi::Mx>,
    pub table: VariableTable,
    pub sizes: ElementSizes,
    /// The element ends are the last stage states (no `x` blocks).
    pub end_is_last_stage: bool,
    /// Number of elements of every interval.
    pub fe: Vec<usize>,
    /// `outputs(w, p) -> (x_stage, theta, quad)` per element (columns), for results.
    pub outputs: Function,
    /// Whether x0 is a parameter (fixed) and its offset in the parameter vector.
    pub x0_parameter: Option<usize>,
    /// Offset of the tracking references (N · n_y values) in the parameter vector.
    pub reference_parameter: usize,
    /// Number of tracked outputs.
    pub n_y: usize,
}

fn sx_function(name: &str, inputs: &[(&str, &SX)], output: &SX) -> Result<Function> {
    Ok(Function::new(name, inputs, &[("out", output)])?)
}

/// Infinite bounds replaced by a large finite value (for the penalty's expressions).
fn finite_or(v: &[f64], big: f64) -> Vec<f64> {
    v.iter().map(|x| if x.is_finite() { *x } else { big }).collect()
}

/// Lays out the unknowns and returns the table: `x0` (when free), `u` of every
/// interval, the element blocks (by kind, not element-major: the homotopy ends in
/// better local minima; evidence: `docs/evidence/ocp.md`, "Variable order"), then `T`,
/// free parameters, slacks.
fn table(ocp: &Ocp, grid: &ElementGrid) -> VariableTable {
    let mut t = VariableTable::default();
    let x_guess = ocp.x0.guess().to_vec();
    if let InitialState::Free { lower, upper, guess } = &ocp.x0 {
        t.add("x0", None, None, lower, upper, guess);
    }
    for k in 0..ocp.n_intervals {
        t.add("u", Some(k), None, &ocp.u_lower, &ocp.u_upper, &ocp.u_guess);
    }
    let bounds = ElementBounds {
        x_lower: ocp.x_lower.clone(),
        x_upper: ocp.x_upper.clone(),
        at_stages: ocp.options.state_bounds_at_stages,
        x_guess,
    };
    grid.add_blocks(&mut t, &bounds, BlockOrder::ByKind);
    if let Horizon::Free { lower, upper, guess } = ocp.horizon {
        t.add("T", None, None, &[lower], &[upper], &[guess]);
    }
    for fp in &ocp.free_parameters {
        t.add("p", None, None, &[fp.lower], &[fp.upper], &[fp.guess]);
    }
    if let Some(soft) = &ocp.soft_terminal {
        if let crate::problem::TerminalPenalty::L1 { .. } = soft.penalty {
            let n_c = soft.constraint.expr.nrow();
            t.add("s_terminal", None, None, &vec![0.0; n_c], &vec![f64::INFINITY; n_c], &vec![0.0; n_c]);
        }
    }
    t
}

/// The element grid of `ocp`: its discretization options, its intervals, and the
/// stage cost, path constraints and tracking inside every element.
fn element_grid(ocp: &Ocp, lowering: &dyn SubsystemLowering) -> Result<ElementGrid> {
    let terms = ElementTerms {
        lagrange: ocp.lagrange.clone(),
        path: ocp.path.iter().map(|c| (c.expr.clone(), c.at)).collect(),
        tracking: ocp.tracking.as_ref().map(|t| (t.expr.clone(), t.weight.clone())),
    };
    let fesd = if ocp.options.expand { ocp.options.fesd.for_expansion() } else { ocp.options.fesd.clone() };
    Ok(ElementGrid::with_lowering(&ocp.model, &fesd, ocp.fe_counts(), &terms, lowering)?)
}

/// The parameter vector's layout: the model's p, then x0 when it is fixed, then the
/// tracking references.
struct Parameters {
    x0: Option<usize>,
    reference: usize,
    n_y: usize,
    len: usize,
}

impl Parameters {
    fn of(ocp: &Ocp, n_x: usize) -> Parameters {
        let n_p = ocp.model.p.nrow();
        let x0 = matches!(ocp.x0, InitialState::Fixed(_)).then_some(n_p);
        let n_y = ocp.tracking.as_ref().map_or(0, |t| t.expr.nrow());
        let reference = n_p + if x0.is_some() { n_x } else { 0 };
        Parameters { x0, reference, n_y, len: reference + n_y * ocp.n_intervals }
    }

    fn values(ocp: &Ocp) -> Vec<f64> {
        let x0: &[f64] = match &ocp.x0 {
            InitialState::Fixed(x0) => x0,
            InitialState::Free { .. } => &[],
        };
        ocp.p.iter().chain(x0).chain(ocp.tracking.iter().flat_map(|t| t.reference.iter().flatten())).copied().collect()
    }
}

/// The grid's inputs in terms of the unknowns `w` and parameters `par`, and the
/// model's p (given values, or unknowns for the free parameters).
fn grid_inputs(ocp: &Ocp, table: &VariableTable, w: &MX, par: &MX, layout: &Parameters, n_x: usize) -> Result<GridInputs> {
    let (n_u, n_p, n) = (ocp.model.u.nrow(), ocp.model.p.nrow(), ocp.n_intervals);
    let free_at = table.indices("p");
    let entries: Vec<MX> = (0..n_p)
        .map(|i| match ocp.free_parameters.iter().position(|fp| fp.index == i) {
            Some(j) => w.at(free_at[j]),
            None => par.at(i),
        })
        .collect::<std::result::Result<_, _>>()?;
    let p = if n_p > 0 { MX::vertcat(&entries.iter().collect::<Vec<_>>())? } else { MX::zeros(0, 1) };
    let x0 = match layout.x0 {
        Some(off) => par.slice(off..off + n_x)?,
        None => table.gather(w, "x0", n_x, 1)?,
    };
    let (t_final, t_grid) = match ocp.horizon {
        Horizon::Fixed(t) => (MX::scalar(t), MX::scalar(t)),
        Horizon::Free { guess, .. } => (table.gather(w, "T", 1, 1)?, MX::scalar(guess)),
    };
    let y_ref = if layout.n_y > 0 { par.slice(layout.reference..layout.len)?.reshape(layout.n_y, n)? } else { MX::zeros(0, n) };
    Ok(GridInputs { x0, u: table.gather(w, "u", n_u, n)?, p, t_final, t_grid, lambda0: None, y_ref })
}

/// A soft terminal constraint's penalty on the objective and, for ℓ1, its rows
/// `c − s ≤ upper`, `c + s ≥ lower` (each with its bounds) in the slacks `s ≥ 0`.
fn soft_terminal(
    soft: &crate::problem::SoftTerminalConstraint,
    ocp: &Ocp,
    table: &VariableTable,
    w: &MX,
    x_final: &MX,
    p_model: &MX,
) -> Result<(MX, Vec<BoundedRows>)> {
    let (t, model) = (&soft.constraint, &ocp.model);
    let n_c = t.expr.nrow();
    let c = sx_function("ocp_soft_terminal", &[("x", &model.x), ("p", &model.p)], &t.expr)?.call(&[x_final, p_model])?.remove(0);
    match soft.penalty {
        crate::problem::TerminalPenalty::L2 { weight } => {
            let (lo, up) = (MX::from_slice(&finite_or(&t.lower, -1e20)), MX::from_slice(&finite_or(&t.upper, 1e20)));
            let zero = MX::zeros(n_c, 1);
            let v = c.try_sub(&up)?.fmax(&zero)? + lo.try_sub(&c)?.fmax(&zero)?;
            Ok((v.dot(&v)? * weight, Vec::new()))
        }
        crate::problem::TerminalPenalty::L1 { weight } => {
            let slack = table.gather(w, "s_terminal", n_c, 1)?;
            let rows = vec![
                (c.try_sub(&slack)?, vec![f64::NEG_INFINITY; n_c], t.upper.clone()),
                (c.try_add(&slack)?, t.lower.clone(), vec![f64::INFINITY; n_c]),
            ];
            Ok((slack.sum() * weight, rows))
        }
    }
}

/// Transcribes `ocp` (validated) into an MPCC over MX expressions.
pub(crate) fn transcribe(ocp: &Ocp, lowering: &dyn SubsystemLowering) -> Result<Transcription> {
    let grid = element_grid(ocp, lowering)?;
    let (s, fe, e_count) = (grid.sizes(), grid.fe().to_vec(), grid.n_elements());
    let model = &ocp.model;
    let table = table(ocp, &grid);
    let w = MX::sym("w", table.len());
    let layout = Parameters::of(ocp, s.n_x);
    let par = MX::sym("p", layout.len);
    let inputs = grid_inputs(ocp, &table, &w, &par, &layout, s.n_x)?;
    let (p_model, t_final) = (inputs.p.clone(), inputs.t_final.clone());
    let a = grid.assemble(&table, &w, &inputs)?;
    let vec = |m: &MX| m.reshape(m.numel(), 1);
    let mut g = vec![a.equalities.clone()];
    let (mut lbg, mut ubg) = (vec![0.0; a.equalities.numel()], vec![0.0; a.equalities.numel()]);
    if !ocp.path.is_empty() {
        // Path constraints: the kernel's values per element, bounds repeated.
        let (mut lo, mut up) = (Vec::new(), Vec::new());
        for c in &ocp.path {
            let reps = if c.at == crate::problem::PathPoints::Stages { s.n_s } else { 1 };
            for _ in 0..reps {
                lo.extend_from_slice(&c.lower);
                up.extend_from_slice(&c.upper);
            }
        }
        g.push(vec(&a.path)?);
        for _ in 0..e_count {
            lbg.extend_from_slice(&lo);
            ubg.extend_from_slice(&up);
        }
    }
    let x_final = a.x_end.get(.., e_count - 1)?;
    if let Some(term) = &ocp.terminal {
        let c = sx_function("ocp_terminal", &[("x", &model.x), ("p", &model.p)], &term.expr)?;
        g.push(c.call(&[&x_final, &p_model])?.remove(0));
        lbg.extend_from_slice(&term.lower);
        ubg.extend_from_slice(&term.upper);
    }
    let mut f = a.quad.sum() + &t_final * ocp.time_cost;
    if let Some(soft) = &ocp.soft_terminal {
        let (penalty, rows) = soft_terminal(soft, ocp, &table, &w, &x_final, &p_model)?;
        f = f + penalty;
        for (row, lo, up) in rows {
            g.push(row);
            lbg.extend(lo);
            ubg.extend(up);
        }
    }
    if let Some(m) = &ocp.mayer {
        let mf = sx_function("ocp_mayer", &[("x", &model.x), ("p", &model.p)], m)?;
        f = f + mf.call(&[&x_final, &p_model])?.remove(0);
    }
    let cost = f.clone();
    f = f + &a.equilibration_cost;
    let n_eq = a.equilibration_constraints.numel();
    lbg.extend(std::iter::repeat_n(0.0, n_eq));
    ubg.extend(std::iter::repeat_n(0.0, n_eq));
    g.push(a.equilibration_constraints.clone());
    let g_all = MX::vertcat(&g.iter().collect::<Vec<_>>())?;
    let mut mpcc = Mpcc::new(w.clone(), f, a.pairs_g.clone(), a.pairs_h.clone());
    mpcc.p = par.clone();
    mpcc.g = g_all;
    mpcc.lbg = lbg;
    mpcc.ubg = ubg;
    mpcc.lbw = table.lb.clone();
    mpcc.ubw = table.ub.clone();
    mpcc.w0 = table.guess.clone();
    mpcc.p0 = Parameters::values(ocp);
    let outputs = Function::new(
        "ocp_outputs",
        &[("w", &w), ("p", &par)],
        &[("x_stage", &a.x_stage), ("theta", &a.theta), ("h", &a.h), ("T", &t_final), ("cost", &cost), ("p_model", &p_model)],
    )?;
    let end_is_last_stage = grid.end_is_last_stage();
    Ok(Transcription {
        mpcc,
        table,
        sizes: s,
        end_is_last_stage,
        fe,
        outputs,
        x0_parameter: layout.x0,
        reference_parameter: layout.reference,
        n_y: layout.n_y,
    })
}
