//! The rigid-body OCP as an MPCC over MX: the FESD-J element driven by the
//! discretization layer's DCS-independent chain (the first-element kernel once, the
//! element kernel mapped over the other N · N_FE − 1 elements, each element's left
//! boundary read from its predecessor's end-state unknowns, Σ τ = 1 per interval,
//! step equilibration between neighbours), costs and terminal constraints; every
//! unknown named in the variable table.

use super::problem::{expression_in, ClsOcp};
use crate::error::Result;
use crate::geometry::Geometry;
use crate::kernel::{chained_guesses, dcs_element, element_kernel, ElementKernel};
use casadi::{Function, Mx, MX};
use fesd_discretization::VariableTable;
use fesd_discretization::{assemble_chain, ChainInputs, ChainOptions};
use fesd_mpcc::Mpcc;

/// The transcribed problem.
pub(crate) struct Transcription {
    pub mpcc: Mpcc<Mx>,
    pub table: VariableTable,
    /// `outputs(w, par) -> (h, q, v, v_post, impulse, cost)`: step sizes (1 × E),
    /// positions and pre-impact velocities at the element boundaries (n_q × (E + 1)),
    /// post-impact velocities and normal impulses at the elements' left boundaries
    /// (n_q × E, n_c × E), the OCP's cost.
    pub outputs: Function,
    /// Number of elements E = N · N_FE.
    pub n_elements: usize,
    /// Unknowns of one element.
    pub element_len: usize,
    /// `g(w, par)`: every constraint row, for diagnostics.
    pub g: Function,
    /// What each row of `g` is (`element e: line L of the element builder`, …).
    pub row_labels: Vec<String>,
}

/// Columns side by side.
fn hcat(items: &[&MX]) -> Result<MX> {
    Ok(MX::horzcat(items)?)
}

/// Lays out the unknowns (block-major: controls, elements, step sizes) with bounds and
/// a resting guess chained along the horizon.
fn table(ocp: &ClsOcp, first: &ElementKernel, inner: &ElementKernel, geo: &Geometry) -> Result<VariableTable> {
    let opts = &ocp.options.cls;
    let (n, n_fe, n_q) = (ocp.n_intervals, opts.n_fe, ocp.model.n_q());
    let mut t = VariableTable::default();
    for k in 0..n {
        t.add("u", Some(k), None, &ocp.u_lower, &ocp.u_upper, &ocp.u_guess);
    }
    let h_nom = ocp.horizon / (n * n_fe) as f64;
    let guesses = chained_guesses(first, inner, &geo.gaps, &ocp.q0, &ocp.v0, h_nom, &ocp.u_guess, &ocp.p, n * n_fe)?;
    for (e, guess) in guesses.iter().enumerate() {
        let kernel = if e == 0 { first } else { inner };
        let (mut lb, mut ub) = (kernel.lbw.clone(), kernel.ubw.clone());
        for (off, lo, hi) in [(kernel.off_q_end, &ocp.q_lower, &ocp.q_upper), (kernel.off_v_end, &ocp.v_lower, &ocp.v_upper)] {
            lb[off..off + n_q].copy_from_slice(lo);
            ub[off..off + n_q].copy_from_slice(hi);
        }
        t.add("element", Some(e / n_fe), Some(e % n_fe), &lb, &ub, guess);
    }
    if opts.use_fesd {
        let nom = 1.0 / n_fe as f64;
        let (lo, hi) = ((1.0 - opts.gamma_h) * nom, (1.0 + opts.gamma_h) * nom);
        for k in 0..n {
            for m in 0..n_fe {
                t.add("tau", Some(k), Some(m), &[lo], &[hi], &[nom]);
            }
        }
    }
    Ok(t)
}

/// Constraints with their bounds, collected.
#[derive(Default)]
struct Rows {
    g: Vec<MX>,
    lb: Vec<f64>,
    ub: Vec<f64>,
    labels: Vec<String>,
}

impl Rows {
    fn push(&mut self, g: MX, lb: Vec<f64>, ub: Vec<f64>) {
        self.g.push(g);
        self.lb.extend(lb);
        self.ub.extend(ub);
    }

    /// Labels the rows added since the last labelled one as `what`.
    fn label(&mut self, what: &str) {
        let n = self.lb.len() - self.labels.len();
        self.labels.extend(std::iter::repeat_n(what.to_string(), n));
    }
}

/// The chained elements of `ocp` over its unknowns `w` and parameters `par = (q0, v0, p)`.
struct Assembled {
    table: VariableTable,
    /// Unknowns of one (inner) element.
    element_len: usize,
    w: MX,
    par: MX,
    q0: MX,
    v0: MX,
    p: MX,
    chain: fesd_discretization::Chain,
    n_elements: usize,
}

/// Builds the element kernels (the first element's and the others'), lays out the
/// unknowns and assembles the chain of N · N_FE elements.
fn assemble(ocp: &ClsOcp) -> Result<Assembled> {
    let tableau = ocp.validate()?;
    let (model, opts) = (&ocp.model, &ocp.options.cls);
    let geo = Geometry::new(model, opts.friction_directions, opts.friction_model)?;
    let lagrange = match &ocp.lagrange {
        Some(l) => Some(expression_in("Lagrange term", l, &[("q", &model.q), ("v", &model.v), ("u", &model.u), ("p", &model.p)])?),
        None => None,
    };
    let first = element_kernel(model, opts, &tableau, &geo, true, true, lagrange.as_ref())?;
    let inner = element_kernel(model, opts, &tableau, &geo, false, true, lagrange.as_ref())?;
    let (n, n_fe, n_q, n_u, n_p) = (ocp.n_intervals, opts.n_fe, model.n_q(), ocp.n_u(), model.p.nrow());
    let table = table(ocp, &first, &inner, &geo)?;
    let dcs = dcs_element(&first, &inner)?;
    let w = MX::sym("w", table.len());
    let par = MX::sym("par", 2 * n_q + n_p);
    let (q0, v0, p) = (par.slice(0..n_q)?, par.slice(n_q..2 * n_q)?, par.slice(2 * n_q..2 * n_q + n_p)?);
    // The gaps at q0 are data, clipped at zero (a resting contact may start a hair inside).
    let gap0 = geo.gaps.call(&[&q0, &p])?.remove(0).fmax(&MX::zeros(inner.n_c, 1))?;
    let inputs = ChainInputs {
        boundary0: MX::vertcat(&[&q0, &v0, &gap0])?,
        u: table.gather(&w, "u", n_u, n)?,
        p: p.clone(),
        data: MX::zeros(0, n),
        t_final: MX::scalar(ocp.horizon),
        t_grid: MX::scalar(ocp.horizon),
    };
    let chain_opts = ChainOptions {
        use_fesd: opts.use_fesd,
        step_equilibration: opts.step_equilibration,
        rho_h: opts.rho_h,
        equilibration_hessian: opts.step_equilibration_hessian,
        sum_in_time_units: true,
    };
    let chain = assemble_chain(&dcs, &vec![n_fe; n], chain_opts, &table, &w, &inputs)?;
    Ok(Assembled { table, element_len: inner.n_w, w, par, q0, v0, p, chain, n_elements: n * n_fe })
}

/// Transcribes `ocp` into an MPCC in `w` with the parameters `(q0, v0, p)`.
pub(crate) fn transcribe(ocp: &ClsOcp) -> Result<Transcription> {
    let Assembled { table, element_len, w, par, q0, v0, p, chain, n_elements: e_count } = assemble(ocp)?;
    let (model, n_q) = (&ocp.model, ocp.model.n_q());
    let rows_of = |off: usize, len: usize| chain.boundary.get(off..off + len, ..);
    let (q_end, v_end) = (rows_of(0, n_q)?, rows_of(n_q, n_q)?);
    let vec = |m: &MX| m.reshape(m.numel(), 1);
    let mut rows = Rows::default();
    rows.push(chain.g.clone(), chain.lbg.clone(), chain.ubg.clone());
    rows.labels.extend(chain.row_labels.iter().cloned());
    let (q_t, v_t) = (q_end.get(.., e_count - 1)?, v_end.get(.., e_count - 1)?);
    let terminal_inputs = [("q", &model.q), ("v", &model.v), ("p", &model.p)];
    if let Some(c) = &ocp.terminal {
        let cf = expression_in("terminal constraint", &c.expr, &terminal_inputs)?;
        rows.push(cf.call(&[&q_t, &v_t, &p])?.remove(0), c.lower.clone(), c.upper.clone());
        rows.label("terminal constraint");
    }
    let mut cost = chain.quad.sum();
    if let Some(phi) = &ocp.mayer {
        cost = cost + expression_in("Mayer term", phi, &terminal_inputs)?.call(&[&q_t, &v_t, &p])?.remove(0);
    }
    let f = &cost + chain.penalty.sum() + &chain.equilibration_cost;
    let r = &chain.equilibration_constraints;
    if r.numel() > 0 {
        rows.push(r.clone(), vec![0.0; r.numel()], vec![0.0; r.numel()]);
        rows.label("step equilibration");
    }
    let mut mpcc = Mpcc::new(w.clone(), f, vec(&chain.pairs_g)?, vec(&chain.pairs_h)?);
    mpcc.p = par.clone();
    mpcc.g = MX::vertcat(&rows.g.iter().collect::<Vec<_>>())?;
    let g = Function::new("cls_ocp_g", &[("w", &w), ("par", &par)], &[("g", &mpcc.g)])?;
    let row_labels = std::mem::take(&mut rows.labels);
    (mpcc.lbg, mpcc.ubg) = (rows.lb, rows.ub);
    (mpcc.lbw, mpcc.ubw, mpcc.w0) = (table.lb.clone(), table.ub.clone(), table.guess.clone());
    mpcc.p0 = ocp.q0.iter().chain(&ocp.v0).chain(&ocp.p).copied().collect();
    let outputs = Function::new(
        "cls_ocp_outputs",
        &[("w", &w), ("par", &par)],
        &[
            ("h", &chain.h),
            ("q", &hcat(&[&q0, &q_end])?),
            ("v", &hcat(&[&v0, &v_end])?),
            ("v_post", &chain.extras[0]),
            ("impulse", &chain.extras[1]),
            ("cost", &cost),
        ],
    )?;
    Ok(Transcription { mpcc, table, outputs, n_elements: e_count, element_len, g, row_labels })
}
