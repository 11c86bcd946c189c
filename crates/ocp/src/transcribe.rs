//! The OCP as an MPCC: the model kind's horizon (a [`Dcs`]: one kernel mapped over
//! all N · N_FE elements, couplings between neighbours) with the cost, the path and
//! terminal constraints and the bounds, every unknown named in the variable table and
//! every parameter in the parameter table.

use crate::error::Result;
use crate::kind::{ElementOptions, ModelKind};
use crate::problem::{Horizon, InitialState, Ocp};
use casadi::{Function, MX, SX};
use fesd_discretization::{BlockOrder, Dcs, ElementBounds, ElementTerms, GridInputs, HorizonGuess, VariableTable};
use fesd_model::SubsystemLowering;
use fesd_mpcc::Mpcc;

/// Constraint rows with their lower and upper bounds.
type BoundedRows = (MX, Vec<f64>, Vec<f64>);

/// The transcribed problem.
pub(crate) struct Transcription {
    pub mpcc: Mpcc<casadi::Mx>,
    pub table: VariableTable,
    /// The parameter vector by name: `p` (the model's), `x0` (when fixed), `reference`
    /// (one block per interval, with tracking); the values in `guess`.
    pub parameters: VariableTable,
    /// The horizon's discretization.
    pub dcs: Box<dyn Dcs>,
    /// `outputs(w, p) -> (h, T, cost, p_model, activity, x, u, t, results…)`, for results.
    pub outputs: Function,
    /// Names of the outputs after the fixed five.
    pub result_names: Vec<String>,
    /// Modes in the activity output.
    pub activity_groups: usize,
    /// `g(w, p)`: every constraint row, for diagnostics.
    pub g: Function,
    /// What each row of `g` is.
    pub row_labels: Vec<String>,
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
fn table<M: ModelKind>(ocp: &Ocp<M>, dcs: &dyn Dcs) -> Result<VariableTable> {
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
    let p = ocp.parameter_guess();
    let guess = HorizonGuess { x0: ocp.x0.guess(), u: &ocp.u_guess, p: &p, t_final: ocp.horizon.guess() };
    dcs.add_unknowns(&mut t, &bounds, &guess, BlockOrder::ByKind)?;
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
    Ok(t)
}

/// The horizon of `ocp`: its discretization options, its intervals, and the stage
/// cost, path constraints and tracking inside every element.
fn horizon<M: ModelKind>(ocp: &Ocp<M>, lowering: Option<&dyn SubsystemLowering>) -> Result<Box<dyn Dcs>> {
    let terms = ElementTerms {
        lagrange: ocp.lagrange.clone(),
        path: ocp.path.iter().map(|c| (c.expr.clone(), c.at)).collect(),
        tracking: ocp.tracking.as_ref().map(|t| (t.expr.clone(), t.weight.clone())),
    };
    let fesd = if ocp.options.expand { ocp.options.fesd.for_expansion() } else { ocp.options.fesd.clone() };
    ocp.model.horizon(&fesd, ocp.fe_counts()?, &terms, lowering)
}

/// The parameter vector's layout and values: the model's p, then x0 when it is fixed,
/// then the tracking references of every interval.
fn parameters<M: ModelKind>(ocp: &Ocp<M>) -> VariableTable {
    let mut t = VariableTable::default();
    let fixed = |v: &[f64]| (v.to_vec(), v.to_vec(), v.to_vec());
    let add = |t: &mut VariableTable, name: &str, k: Option<usize>, v: &[f64]| {
        let (lo, up, guess) = fixed(v);
        t.add(name, k, None, &lo, &up, &guess);
    };
    add(&mut t, "p", None, &ocp.p);
    if let InitialState::Fixed(x0) = &ocp.x0 {
        add(&mut t, "x0", None, x0);
    }
    for (k, r) in ocp.tracking.iter().flat_map(|t| t.reference.iter()).enumerate() {
        add(&mut t, "reference", Some(k), r);
    }
    t
}

/// The grid's inputs in terms of the unknowns `w` and parameters `par`, and the
/// model's p (given values, or unknowns for the free parameters).
fn grid_inputs<M: ModelKind>(
    ocp: &Ocp<M>,
    table: &VariableTable,
    w: &MX,
    par: &MX,
    layout: &VariableTable,
    n_x: usize,
) -> Result<GridInputs> {
    let (n_u, n_p, n) = (ocp.model.controls().nrow(), ocp.model.parameters().nrow(), ocp.n_intervals);
    let free_at = table.indices("p");
    let given_at = layout.indices("p");
    let entries: Vec<MX> = (0..n_p)
        .map(|i| match ocp.free_parameters.iter().position(|fp| fp.index == i) {
            Some(j) => w.at(free_at[j]),
            None => par.at(given_at[i]),
        })
        .collect::<std::result::Result<_, _>>()?;
    let p = if n_p > 0 { MX::vertcat(&entries.iter().collect::<Vec<_>>())? } else { MX::zeros(0, 1) };
    let x0 = match layout.block("x0", None, None) {
        Some(_) => layout.gather(par, "x0", n_x, 1)?,
        None => table.gather(w, "x0", n_x, 1)?,
    };
    let (t_final, t_grid) = match ocp.horizon {
        Horizon::Fixed(t) => (MX::scalar(t), MX::scalar(t)),
        Horizon::Free { guess, .. } => (table.gather(w, "T", 1, 1)?, MX::scalar(guess)),
    };
    let n_y = ocp.tracking.as_ref().map_or(0, |t| t.expr.nrow());
    let y_ref = if n_y > 0 { layout.gather(par, "reference", n_y, n)? } else { MX::zeros(0, n) };
    Ok(GridInputs { x0, u: table.gather(w, "u", n_u, n)?, p, t_final, t_grid, lambda0: None, y_ref })
}

/// A soft terminal constraint's penalty on the objective and, for ℓ1, its rows
/// `c − s ≤ upper`, `c + s ≥ lower` (each with its bounds) in the slacks `s ≥ 0`.
fn soft_terminal(
    soft: &crate::problem::SoftTerminalConstraint,
    (x, p): (&SX, &SX),
    table: &VariableTable,
    w: &MX,
    x_final: &MX,
    p_model: &MX,
) -> Result<(MX, Vec<BoundedRows>)> {
    let t = &soft.constraint;
    let n_c = t.expr.nrow();
    let c = sx_function("ocp_soft_terminal", &[("x", x), ("p", p)], &t.expr)?.call(&[x_final, p_model])?.remove(0);
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
pub(crate) fn transcribe<M: ModelKind>(ocp: &Ocp<M>, lowering: Option<&dyn SubsystemLowering>, module: &str) -> Result<Transcription> {
    let dcs = horizon(ocp, lowering)?;
    let (n_x, e_count) = (dcs.n_x(), dcs.n_elements());
    let (x_sym, p_sym) = (ocp.model.state()?, ocp.model.parameters().clone());
    let table = table(ocp, dcs.as_ref())?;
    let w = MX::sym("w", table.len());
    let layout = parameters(ocp);
    let par = MX::sym("p", layout.len());
    let inputs = grid_inputs(ocp, &table, &w, &par, &layout, n_x)?;
    let (p_model, t_final) = (inputs.p.clone(), inputs.t_final.clone());
    let (x0, u) = (inputs.x0.clone(), inputs.u.clone());
    let a = dcs.assemble_horizon(&table, &w, &inputs)?;
    let vec = |m: &MX| m.reshape(m.numel(), 1);
    let mut g = vec![a.g.clone()];
    let (mut lbg, mut ubg, mut row_labels) = (a.lbg.clone(), a.ubg.clone(), a.row_labels.clone());
    let mut label = |lbg: &Vec<f64>, what: &str| row_labels.extend(std::iter::repeat_n(what.to_string(), lbg.len() - row_labels.len()));
    if !ocp.path.is_empty() {
        // Path constraints: the kernel's values per element, bounds repeated.
        let n_s = dcs.guess_nodes().len();
        let (mut lo, mut up) = (Vec::new(), Vec::new());
        for c in &ocp.path {
            let reps = if c.at == crate::problem::PathPoints::Stages { n_s } else { 1 };
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
        label(&lbg, "path constraint");
    }
    let x_final = a.x_end.get(.., e_count - 1)?;
    if let Some(term) = &ocp.terminal {
        let c = sx_function("ocp_terminal", &[("x", &x_sym), ("p", &p_sym)], &term.expr)?;
        g.push(c.call(&[&x_final, &p_model])?.remove(0));
        lbg.extend_from_slice(&term.lower);
        ubg.extend_from_slice(&term.upper);
        label(&lbg, "terminal constraint");
    }
    let mut f = a.quad.sum() + &t_final * ocp.time_cost;
    if let Some(soft) = &ocp.soft_terminal {
        let (penalty, rows) = soft_terminal(soft, (&x_sym, &p_sym), &table, &w, &x_final, &p_model)?;
        f = f + penalty;
        for (row, lo, up) in rows {
            g.push(row);
            lbg.extend(lo);
            ubg.extend(up);
        }
        label(&lbg, "soft terminal constraint");
    }
    if let Some(m) = &ocp.mayer {
        let mf = sx_function("ocp_mayer", &[("x", &x_sym), ("p", &p_sym)], m)?;
        f = f + mf.call(&[&x_final, &p_model])?.remove(0);
    }
    let cost = f.clone();
    if let Some(penalty) = &a.penalty {
        f = f + penalty;
    }
    f = f + &a.equilibration_cost;
    let n_eq = a.equilibration_constraints.numel();
    lbg.extend(std::iter::repeat_n(0.0, n_eq));
    ubg.extend(std::iter::repeat_n(0.0, n_eq));
    label(&lbg, "step equilibration");
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
    mpcc.p0 = layout.guess.clone();
    mpcc.module = module.into();
    let g_function = Function::new("ocp_g", &[("w", &w), ("p", &par)], &[("g", &mpcc.g)])?;
    // The trajectory for a caller without the variable table (an exported solver): the
    // state at the start and at every element's end, the controls, the element times.
    let x = MX::horzcat(&[&x0, &a.x_end])?;
    let mut times = vec![MX::scalar(0.0)];
    for e in 0..e_count {
        let next = times[e].clone() + a.h.at(e)?;
        times.push(next);
    }
    let t = MX::horzcat(&times.iter().collect::<Vec<_>>())?;
    let mut outputs: Vec<(&str, &MX)> = vec![
        ("h", &a.h),
        ("T", &t_final),
        ("cost", &cost),
        ("p_model", &p_model),
        ("activity", &a.activity),
        ("x", &x),
        ("u", &u),
        ("t", &t),
    ];
    outputs.extend(a.results.iter().map(|(n, m)| (n.as_str(), m)));
    let outputs = Function::new(&format!("{}_outputs", mpcc.module), &[("w", &w), ("p", &par)], &outputs)?;
    Ok(Transcription {
        mpcc,
        table,
        parameters: layout,
        result_names: a.results.iter().map(|(n, _)| n.clone()).collect(),
        activity_groups: a.activity_groups,
        outputs,
        g: g_function,
        row_labels,
        n_y: ocp.tracking.as_ref().map_or(0, |t| t.expr.nrow()),
        dcs,
    })
}
