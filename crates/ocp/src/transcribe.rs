//! The OCP as an MPCC: the element kernel mapped over all N · N_FE elements (MX), the
//! couplings between neighbours (continuity, boundary duals, Σh per interval), the
//! cost and the bounds, with every unknown named in the variable table.

use crate::element::{element_kernel, ElementSizes};
use crate::error::Result;
use crate::problem::{Horizon, InitialState, Ocp};
use crate::table::VariableTable;
use casadi::{Function, Parallelization, MX, SX};
use fesd_model::{DcsOptions, StageAlgebra};
use fesd_mpcc::Mpcc;

/// The transcribed problem.
pub(crate) struct Transcription {
    pub mpcc: Mpcc<casadi::Mx>,
    pub table: VariableTable,
    pub sizes: ElementSizes,
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

/// Lays out the unknowns and returns the table.
fn table(ocp: &Ocp, alg: &StageAlgebra, s: &ElementSizes, fe: &[usize]) -> VariableTable {
    let mut t = VariableTable::default();
    let opts = &ocp.options.fesd;
    let x_guess = match &ocp.x0 {
        InitialState::Fixed(x0) => x0.clone(),
        InitialState::Free { guess, .. } => guess.clone(),
    };
    if let InitialState::Free { lower, upper, guess } = &ocp.x0 {
        t.add("x0", None, None, lower, upper, guess);
    }
    let inf = f64::INFINITY;
    // Normalized step sizes: τ = h / (T/N), nominal 1/N_FE of the interval.
    let tau_bounds = |k: usize| {
        let tau_nom = 1.0 / fe[k] as f64;
        let (lo, hi) = if opts.use_fesd { ((1.0 - opts.gamma_h) * tau_nom, (1.0 + opts.gamma_h) * tau_nom) } else { (tau_nom, tau_nom) };
        (lo, hi, tau_nom)
    };
    let integral = opts.irk_representation == fesd_sim::IrkRepresentation::Integral;
    let k_guess: Vec<f64> = (0..s.n_s).flat_map(|_| if integral { x_guess.clone() } else { vec![0.0; s.n_x] }).collect();
    let z_rep = |v: &[f64]| (0..s.n_pts).flat_map(|_| v.to_vec()).collect::<Vec<f64>>();
    // Block-major order: all blocks of one kind are contiguous in w, so each kind is
    // one slice of w. Measured against element-major order on the motor OCP: MUMPS is
    // faster per iteration there (N = 60: 12 instead of 22 ms), but the homotopy
    // ends in worse local minima (N = 120: 0.818 instead of 0.774; the car's warm
    // re-solve at T = 10 instead of 80/9), so block-major stays.
    for k in 0..ocp.n_intervals {
        t.add("u", Some(k), None, &ocp.u_lower, &ocp.u_upper, &ocp.u_guess);
    }
    let elements = || (0..ocp.n_intervals).flat_map(|k| (0..fe[k]).map(move |n| (Some(k), Some(n))));
    let (k_lo, k_hi) = if ocp.options.state_bounds_at_stages {
        (ocp.x_lower.repeat(s.n_s), ocp.x_upper.repeat(s.n_s))
    } else {
        (vec![-inf; s.n_x * s.n_s], vec![inf; s.n_x * s.n_s])
    };
    for (k, n) in elements() {
        t.add("k", k, n, &k_lo, &k_hi, &k_guess);
    }
    for (k, n) in elements() {
        t.add("z", k, n, &z_rep(&alg.z_lb), &z_rep(&alg.z_ub), &z_rep(&alg.z_guess));
    }
    for (k, n) in elements() {
        let (lo, hi, nom) = tau_bounds(k.unwrap_or(0));
        t.add("tau", k, n, &[lo], &[hi], &[nom]);
    }
    for (k, n) in elements() {
        t.add("x", k, n, &ocp.x_lower, &ocp.x_upper, &x_guess);
    }
    if let Horizon::Free { lower, upper, guess } = ocp.horizon {
        t.add("T", None, None, &[lower], &[upper], &[guess]);
    }
    for fp in &ocp.free_parameters {
        t.add("p", None, None, &[fp.lower], &[fp.upper], &[fp.guess]);
    }
    if let Some(soft) = &ocp.soft_terminal {
        if let crate::problem::TerminalPenalty::L1 { .. } = soft.penalty {
            let n_c = soft.constraint.expr.nrow();
            t.add("s_terminal", None, None, &vec![0.0; n_c], &vec![inf; n_c], &vec![0.0; n_c]);
        }
    }
    t
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

/// The sliding-exit pairs between neighbouring elements of each control interval (not
/// across intervals, where the control may jump), as two column vectors.
fn sliding_exit_pairs(alg: &StageAlgebra, fe: &[usize], primal_end: &MX, primal_first: &MX, dual_stages: &MX) -> Result<(MX, MX)> {
    let (prev, next) = neighbours(fe);
    let kernel = crate::element::sliding_exit_kernel(alg)?.map_with(next.len(), Parallelization::Serial)?;
    let out = kernel.call(&[&pick(primal_end, &prev)?, &pick(primal_first, &next)?, &pick(dual_stages, &next)?])?;
    Ok((out[0].reshape(out[0].numel(), 1)?, out[1].reshape(out[1].numel(), 1)?))
}

/// The step-equilibration term of the cost and, for `Direct`, the constraints
/// `η_n (h_n − h_{n−1}) = 0`; between neighbouring elements of each interval.
fn step_equilibration(ocp: &Ocp, alg: &StageAlgebra, s: &ElementSizes, taus: &MX, hs: &MX, dual_sums: &MX, primal_sums: &MX) -> Result<(MX, Option<MX>)> {
    let opts = &ocp.options.fesd;
    let (n, fe) = (ocp.n_intervals, ocp.fe_counts());
    // The numerical time grid: T itself when fixed, its guess when free (nosnoc's
    // speed-of-time formulation).
    let t_grid = match ocp.horizon {
        Horizon::Fixed(t) => t,
        Horizon::Free { guess, .. } => guess,
    };
    let h_grid = taus * (t_grid / n as f64);
    let (prev, next) = neighbours(&fe);
    let diff = || -> Result<MX> { Ok(pick(&h_grid, &next)? - pick(&h_grid, &prev)?) };
    use fesd_sim::StepEquilibration as Se;
    let rho = opts.rho_h;
    match opts.step_equilibration {
        Se::HeuristicMean => {
            let nominal: Vec<f64> = fe.iter().flat_map(|&c| std::iter::repeat_n(t_grid / (n * c) as f64, c)).collect();
            let d = h_grid.try_sub(&MX::from_slice(&nominal).reshape(1, nominal.len())?)?;
            Ok((d.dot(&d)? * rho, None))
        }
        Se::HeuristicDiff => {
            let d = diff()?;
            Ok((d.dot(&d)? * rho, None))
        }
        Se::L2Relaxed | Se::L2RelaxedScaled | Se::Direct => {
            let kernel = crate::element::equilibration_kernel(alg, s.n_comp, opts.step_equilibration == Se::L2RelaxedScaled)?;
            let mapped = kernel.map_with(next.len(), Parallelization::Serial)?;
            let r = mapped
                .call(&[&pick(dual_sums, &prev)?, &pick(primal_sums, &prev)?, &pick(dual_sums, &next)?, &pick(primal_sums, &next)?, &pick(hs, &prev)?, &pick(hs, &next)?])?
                .remove(0);
            let r = r.reshape(r.numel(), 1)?;
            if opts.step_equilibration == Se::Direct {
                Ok((MX::scalar(0.0), Some(r)))
            } else {
                Ok((r.dot(&r)? * rho, None))
            }
        }
    }
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

/// Transcribes `ocp` (validated) into an MPCC over MX expressions.
pub(crate) fn transcribe(ocp: &Ocp) -> Result<Transcription> {
    let opts = &ocp.options.fesd;
    let tableau = opts.validate()?;
    let model = &ocp.model;
    let alg = StageAlgebra::new(model, &DcsOptions { representation: opts.representation, lift_products: opts.lift_products })?;
    let (kernel, s) = element_kernel(model, &alg, &tableau, opts, ocp.lagrange.as_ref(), &ocp.path, ocp.tracking.as_ref())?;
    let (n, fe) = (ocp.n_intervals, ocp.fe_counts());
    let e_count: usize = fe.iter().sum();
    let (n_u, n_p) = (model.u.nrow(), model.p.nrow());
    let table = table(ocp, &alg, &s, &fe);
    let w = MX::sym("w", table.len());
    // Parameters: the model's p, then x0 when it is fixed, then the tracking references.
    let x0_parameter = matches!(ocp.x0, InitialState::Fixed(_)).then_some(n_p);
    let n_y = ocp.tracking.as_ref().map_or(0, |t| t.expr.nrow());
    let reference_parameter = n_p + if x0_parameter.is_some() { s.n_x } else { 0 };
    let n_par = reference_parameter + n_y * n;
    let par = MX::sym("p", n_par);
    // The model's p: given values, or unknowns for the free parameters.
    let free_at = table.indices("p");
    let entries: Vec<MX> = (0..n_p)
        .map(|i| match ocp.free_parameters.iter().position(|fp| fp.index == i) {
            Some(j) => w.at(free_at[j]),
            None => par.at(i),
        })
        .collect::<std::result::Result<_, _>>()?;
    let p_model = if n_p > 0 { MX::vertcat(&entries.iter().collect::<Vec<_>>())? } else { MX::zeros(0, 1) };
    let x0 = match x0_parameter {
        Some(off) => par.slice(off..off + s.n_x)?,
        None => table.gather(&w, "x0", s.n_x, 1)?,
    };
    let t_final = match ocp.horizon {
        Horizon::Fixed(t) => MX::scalar(t),
        Horizon::Free { .. } => table.gather(&w, "T", 1, 1)?,
    };
    let x_ends = table.gather(&w, "x", s.n_x, e_count)?;
    let ks = table.gather(&w, "k", s.n_x * s.n_s, e_count)?;
    let zs = table.gather(&w, "z", s.n_z * s.n_pts, e_count)?;
    let taus = table.gather(&w, "tau", 1, e_count)?;
    let us = table.gather(&w, "u", n_u, n)?;
    let element_interval: Vec<usize> = fe.iter().enumerate().flat_map(|(k, &c)| std::iter::repeat_n(k, c)).collect();
    let u_per_element = if n_u > 0 { us.get(.., element_interval.clone())? } else { MX::zeros(0, e_count) };
    let x_starts = if e_count > 1 { MX::horzcat(&[&x0, &x_ends.get(.., 0..e_count - 1)?])? } else { x0.clone() };
    let hs = &taus * &(&t_final / n as f64);
    // Boundary duals: from x0 for the first element, else the previous element's last point.
    let dual_at_state = alg.dual_at_state_function(model, "ocp_dual_at_state")?;
    let u0 = if n_u > 0 { us.get(.., 0usize)? } else { MX::zeros(0, 1) };
    let lam_first = dual_at_state.call(&[&x0, &u0, &p_model])?.remove(0);
    let lam0 = if e_count > 1 {
        let z_point = SX::sym("z", s.n_z);
        let dual_of_z = Function::new("ocp_dual_of_z", &[("z", &alg.z)], &[("dual", &alg.dual)])?;
        let dual_z = sx_function("ocp_boundary_dual", &[("z", &z_point)], &dual_of_z.call(&[&z_point])?.remove(0))?;
        let last_points = zs.get((s.n_pts - 1) * s.n_z..s.n_pts * s.n_z, 0..e_count - 1)?;
        let rest = dual_z.map_with(e_count - 1, Parallelization::Serial)?.call(&[&last_points])?.remove(0);
        MX::horzcat(&[&lam_first, &rest])?
    } else {
        lam_first
    };
    let yref = if n_y > 0 {
        par.slice(reference_parameter..n_par)?.reshape(n_y, n)?.get(.., element_interval.clone())?
    } else {
        MX::zeros(0, e_count)
    };
    let mapped = kernel.map_with(e_count, Parallelization::Serial)?;
    let out = mapped.call(&[&x_starts, &ks, &zs, &hs, &u_per_element, &p_model, &lam0, &yref])?;
    let (eq, x_end, big_g, big_h, quad) = (&out[0], &out[1], &out[2], &out[3], &out[4]);
    let vec = |m: &MX| m.reshape(m.numel(), 1);
    let mut g = vec![vec(eq)?, vec(&x_ends.try_sub(x_end)?)?];
    let (mut lbg, mut ubg) = (vec![0.0; eq.numel() + x_end.numel()], vec![0.0; eq.numel() + x_end.numel()]);
    if opts.use_fesd {
        // Σ_n τ_{k,n} = 1 in every interval (equidistant control grid).
        g.push(vec(&interval_sums(&taus, &element_interval, n)?)? - 1.0);
        lbg.extend(std::iter::repeat_n(0.0, n));
        ubg.extend(std::iter::repeat_n(0.0, n));
    }
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
        g.push(vec(&out[9])?);
        for _ in 0..e_count {
            lbg.extend_from_slice(&lo);
            ubg.extend_from_slice(&up);
        }
    }
    let x_final = x_ends.get(.., e_count - 1)?;
    if let Some(term) = &ocp.terminal {
        let c = sx_function("ocp_terminal", &[("x", &model.x), ("p", &model.p)], &term.expr)?;
        g.push(c.call(&[&x_final, &p_model])?.remove(0));
        lbg.extend_from_slice(&term.lower);
        ubg.extend_from_slice(&term.upper);
    }
    let mut f = quad.sum() + &t_final * ocp.time_cost;
    if let Some(soft) = &ocp.soft_terminal {
        let t = &soft.constraint;
        let c = sx_function("ocp_soft_terminal", &[("x", &model.x), ("p", &model.p)], &t.expr)?.call(&[&x_final, &p_model])?.remove(0);
        let (lo, up) = (MX::from_slice(&finite_or(&t.lower, -1e20)), MX::from_slice(&finite_or(&t.upper, 1e20)));
        match soft.penalty {
            crate::problem::TerminalPenalty::L2 { weight } => {
                let zero = MX::zeros(t.expr.nrow(), 1);
                let v = c.try_sub(&up)?.fmax(&zero)? + lo.try_sub(&c)?.fmax(&zero)?;
                f = f + v.dot(&v)? * weight;
            }
            crate::problem::TerminalPenalty::L1 { weight } => {
                let slack = table.gather(&w, "s_terminal", t.expr.nrow(), 1)?;
                g.push(c.try_sub(&slack)?);
                lbg.extend(std::iter::repeat_n(f64::NEG_INFINITY, t.expr.nrow()));
                ubg.extend_from_slice(&t.upper);
                g.push(c.try_add(&slack)?);
                lbg.extend_from_slice(&t.lower);
                ubg.extend(std::iter::repeat_n(f64::INFINITY, t.expr.nrow()));
                f = f + slack.sum() * weight;
            }
        }
    }
    if let Some(m) = &ocp.mayer {
        let mf = sx_function("ocp_mayer", &[("x", &model.x), ("p", &model.p)], m)?;
        f = f + mf.call(&[&x_final, &p_model])?.remove(0);
    }
    let cost = f.clone();
    if opts.use_fesd && fe.iter().any(|&c| c > 1) {
        let (penalty, exact) = step_equilibration(ocp, &alg, &s, &taus, &hs, &out[7], &out[8])?;
        f = f + penalty;
        if let Some(r) = exact {
            lbg.extend(std::iter::repeat_n(0.0, r.numel()));
            ubg.extend(std::iter::repeat_n(0.0, r.numel()));
            g.push(r);
        }
    }
    let g_all = MX::vertcat(&g.iter().collect::<Vec<_>>())?;
    let (mut pairs_g, mut pairs_h) = (vec(big_g)?, vec(big_h)?);
    if opts.use_fesd && opts.sliding_exit_continuity && fe.iter().any(|&c| c > 1) {
        let (eg, eh) = sliding_exit_pairs(&alg, &fe, &out[10], &out[11], &out[12])?;
        pairs_g = MX::vertcat(&[&pairs_g, &eg])?;
        pairs_h = MX::vertcat(&[&pairs_h, &eh])?;
    }
    let mut mpcc = Mpcc::new(w.clone(), f, pairs_g, pairs_h);
    mpcc.p = par.clone();
    mpcc.g = g_all;
    mpcc.lbg = lbg;
    mpcc.ubg = ubg;
    mpcc.lbw = table.lb.clone();
    mpcc.ubw = table.ub.clone();
    mpcc.w0 = table.guess.clone();
    mpcc.p0 = ocp.p.iter().copied().chain(match &ocp.x0 {
        InitialState::Fixed(x0) => x0.clone(),
        InitialState::Free { .. } => vec![],
    }).chain(ocp.tracking.iter().flat_map(|t| t.reference.iter().flatten().copied())).collect();
    let outputs = Function::new(
        "ocp_outputs",
        &[("w", &w), ("p", &par)],
        &[("x_stage", &out[6]), ("theta", &out[5]), ("h", &hs), ("T", &t_final), ("cost", &cost), ("p_model", &p_model)],
    )?;
    Ok(Transcription { mpcc, table, sizes: s, fe, outputs, x0_parameter, reference_parameter, n_y })
}
