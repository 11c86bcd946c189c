//! The FESD discretization of one interval `[0, T]` with fixed controls: an MPCC in
//! the parameters `(x0, u, p, T, λ0)`. The step sizes are `h_n = T τ_n` with normalized
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
use crate::options::{CrossComplementarity, FesdOptions, IrkRepresentation, StepEquilibration};
use casadi::{Function, SX};
use fesd_model::{PssModel, StageAlgebra};
use fesd_mpcc::Mpcc;
use fesd_rk::ButcherTableau;

/// Where each group of unknowns sits in the MPCC's `w`.
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
    /// Offset of x_{n+1}.
    pub x_end: Vec<usize>,
    /// Length of w.
    pub n_w: usize,
}

impl Layout {
    /// Points per element carrying z (stages plus the end point if any).
    pub fn n_points(&self) -> usize {
        self.n_s + usize::from(self.end_point)
    }
}

/// One discretized interval: the MPCC, its layout, and functions to read results.
pub struct FesdInterval {
    /// The MPCC in w with parameters `(x0, u, p, T, λ0)`.
    pub mpcc: Mpcc,
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
    /// Form of the RK equations (what the stage unknowns are).
    pub irk_representation: IrkRepresentation,
}

struct Blocks {
    items: Vec<SX>,
    lb: Vec<f64>,
    ub: Vec<f64>,
    guess: Vec<f64>,
    len: usize,
}

impl Blocks {
    fn add(&mut self, v: SX, lb: &[f64], ub: &[f64], guess: &[f64]) -> usize {
        let off = self.len;
        self.len += v.nrow();
        self.lb.extend_from_slice(lb);
        self.ub.extend_from_slice(ub);
        self.guess.extend_from_slice(guess);
        self.items.push(v);
        off
    }
}

fn vcat(items: &[SX]) -> Result<SX> {
    if items.is_empty() {
        return Ok(SX::zeros(0, 1));
    }
    let refs: Vec<&SX> = items.iter().collect();
    Ok(SX::vertcat(&refs)?)
}

fn comps(v: &SX) -> Result<Vec<SX>> {
    (0..v.nrow()).map(|i| Ok(v.at(i)?)).collect()
}

/// The complementarity pairs `(G, H)` of one finite element: with FESD, cross
/// complementarity in the chosen mode between the primals of every point and the duals
/// of the left boundary (`left`) and every point; without FESD, each point's own pairs.
/// `primals[m][i]`, `duals[m][i]`: component i at point m.
pub fn complementarity_pairs(opts: &FesdOptions, left: &[SX], primals: &[Vec<SX>], duals: &[Vec<SX>]) -> (Vec<SX>, Vec<SX>) {
    let (mut big_g, mut big_h) = (Vec::new(), Vec::new());
    for i in 0..left.len() {
        let pr: Vec<SX> = primals.iter().map(|p| p[i].clone()).collect();
        if !opts.use_fesd {
            for (a, d) in pr.iter().zip(duals) {
                big_g.push(a.clone());
                big_h.push(d[i].clone());
            }
            continue;
        }
        let du: Vec<SX> = std::iter::once(left[i].clone()).chain(duals.iter().map(|d| d[i].clone())).collect();
        match opts.cross_complementarity {
            CrossComplementarity::StagePairs => {
                for a in &pr {
                    for d in &du {
                        big_g.push(a.clone());
                        big_h.push(d.clone());
                    }
                }
            }
            CrossComplementarity::StageVsElementSum => {
                let s = sum(&du);
                for a in &pr {
                    big_g.push(a.clone());
                    big_h.push(s.clone());
                }
            }
            CrossComplementarity::ElementSumVsStage => {
                let s = sum(&pr);
                for d in &du {
                    big_g.push(s.clone());
                    big_h.push(d.clone());
                }
            }
            CrossComplementarity::ElementSums => {
                big_g.push(sum(&pr));
                big_h.push(sum(&du));
            }
        }
    }
    (big_g, big_h)
}

/// The sliding-exit pairs between two neighbouring elements (see
/// [`FesdOptions::sliding_exit_continuity`]): for every pair i,
/// `G_i = P_i(end) Σ_{j ∈ siblings(i)} P_j(end) P_j(first)` and `H_i = Σ_stages D_i`,
/// with `P(end)` the primals at the previous element's last point, `P(first)` those
/// at the next element's first stage and `D` the next element's stage duals. A pair
/// that is sliding at the end of the previous element (its primal and a sibling's
/// positive), inactive in the next (dual positive) while the sibling stays active,
/// must have its primal at zero: the Filippov multiplier fades continuously. Crossings
/// (one primal active at the end) and sliding entries (dual zero) are not affected.
pub fn sliding_exit_pairs(siblings: &[Vec<usize>], primal_end: &[SX], primal_first: &[SX], dual_stages: &[SX]) -> (Vec<SX>, Vec<SX>) {
    let g = (0..siblings.len())
        .map(|i| {
            let partners = siblings[i].iter().fold(SX::scalar(0.0), |acc, &j| acc + &primal_end[j] * &primal_first[j]);
            &primal_end[i] * &partners
        })
        .collect();
    (g, dual_stages.to_vec())
}

fn sum(items: &[SX]) -> SX {
    items.iter().fold(SX::scalar(0.0), |a, b| a + b)
}

/// The algebra evaluated at one point: primals and duals as scalar lists.
struct Point {
    primal: Vec<SX>,
    dual: Vec<SX>,
}

impl FesdInterval {
    /// Discretizes one interval of `model` with `opts`.
    pub fn new(model: &PssModel, opts: &FesdOptions) -> Result<FesdInterval> {
        let tableau = opts.validate()?;
        let alg = StageAlgebra::new(model, &fesd_model::DcsOptions {
            representation: opts.representation,
            lift_products: opts.lift_products,
        })?;
        let stage_fn = alg.function(model, "fesd_stage")?;
        let dual_fn = alg.dual_at_state_function(model, "fesd_dual_at_state")?;
        let (n_x, n_z, n_comp, n_theta) = (model.n_x(), alg.n_z(), alg.n_comp(), alg.theta.nrow());
        let (n_fe, n_s) = (opts.n_fe, tableau.n_s());
        // The DCS algebra must hold at the element's end state. Only for stiffly
        // accurate tableaus is that state a stage; otherwise it gets its own point.
        let end_point = !tableau.is_stiffly_accurate();
        let n_pts = n_s + usize::from(end_point);
        let tau_nom = 1.0 / n_fe as f64;

        let x0 = SX::sym("x0", n_x);
        let t_int = SX::sym("T", 1);
        let (u, p) = (model.u.clone(), model.p.clone());
        let lambda0 = SX::sym("lambda0", n_comp);
        let params = SX::vertcat(&[&x0, &u, &p, &t_int, &lambda0])?;
        let h_nom = &t_int * tau_nom;
        let mut w = Blocks { items: vec![], lb: vec![], ub: vec![], guess: vec![], len: 0 };
        let inf = f64::INFINITY;

        // Normalized step sizes first.
        let (h, tau): (Vec<SX>, Vec<SX>) = if opts.use_fesd {
            let ts = SX::sym("tau", n_fe);
            let lo = (1.0 - opts.gamma_h) * tau_nom;
            let hi = (1.0 + opts.gamma_h) * tau_nom;
            w.add(ts.clone(), &vec![lo; n_fe], &vec![hi; n_fe], &vec![tau_nom; n_fe]);
            let tau = comps(&ts)?;
            (tau.iter().map(|t| &t_int * t).collect(), tau)
        } else {
            (vec![h_nom.clone(); n_fe], vec![])
        };
        let tau_index = opts.use_fesd.then(|| (0..n_fe).collect::<Vec<_>>());

        let mut g: Vec<SX> = Vec::new();
        let (mut lbg, mut ubg) = (Vec::<f64>::new(), Vec::<f64>::new());
        let eq = |g: &mut Vec<SX>, e: SX, lbg: &mut Vec<f64>, ubg: &mut Vec<f64>| {
            lbg.extend(std::iter::repeat_n(0.0, e.nrow()));
            ubg.extend(std::iter::repeat_n(0.0, e.nrow()));
            g.push(e);
        };
        let (mut big_g, mut big_h): (Vec<SX>, Vec<SX>) = (Vec::new(), Vec::new());
        let mut layout = Layout {
            n_x,
            n_z,
            n_comp,
            n_theta,
            n_fe,
            n_s,
            end_point,
            tau: tau_index,
            stage: vec![],
            z: vec![],
            x_end: vec![],
            n_w: 0,
        };
        let mut out_x_boundary = vec![x0.clone()];
        let mut out_x_stage = Vec::new();
        let mut out_theta = Vec::new();
        let mut out_primal = Vec::new();
        // Duals of the left boundary point of the current element.
        let mut boundary_dual = comps(&lambda0)?;
        // Per element: points (for cross complementarity and equilibration).
        let mut elements: Vec<(Vec<Point>, Vec<SX>)> = Vec::new();
        let mut x_n = x0.clone();
        for n in 0..n_fe {
            let mut stage_off = Vec::with_capacity(n_s);
            let mut z_off = Vec::with_capacity(n_pts);
            let mut unknowns = Vec::with_capacity(n_s);
            let mut zs = Vec::with_capacity(n_pts);
            for m in 0..n_s {
                let k = SX::sym(&format!("k_{n}_{m}"), n_x);
                stage_off.push(w.add(k.clone(), &vec![-inf; n_x], &vec![inf; n_x], &vec![0.0; n_x]));
                unknowns.push(k);
                let z = SX::sym(&format!("z_{n}_{m}"), n_z);
                z_off.push(w.add(z.clone(), &alg.z_lb, &alg.z_ub, &alg.z_guess));
                zs.push(z);
            }
            if end_point {
                let z = SX::sym(&format!("z_{n}_end"), n_z);
                z_off.push(w.add(z.clone(), &alg.z_lb, &alg.z_ub, &alg.z_guess));
                zs.push(z);
            }
            let x_next = SX::sym(&format!("x_{}", n + 1), n_x);
            layout.x_end.push(w.add(x_next.clone(), &vec![-inf; n_x], &vec![inf; n_x], &vec![0.0; n_x]));
            layout.stage.push(stage_off);
            layout.z.push(z_off);

            // Stage states.
            let stage_x: Vec<SX> = match opts.irk_representation {
                IrkRepresentation::Integral => unknowns.clone(),
                IrkRepresentation::Differential => (0..n_s)
                    .map(|m| {
                        &x_n + &h[n] * SX::weighted_sum(&tableau.a[m], &unknowns, n_x)
                    })
                    .collect(),
            };
            let mut points = Vec::with_capacity(n_pts);
            let mut xdots = Vec::with_capacity(n_s);
            for m in 0..n_s {
                let out = stage_fn.call(&[&stage_x[m], &u, &p, &zs[m]])?;
                xdots.push(out[0].clone());
                eq(&mut g, out[1].clone(), &mut lbg, &mut ubg);
                out_theta.push(out[2].clone());
                out_primal.push(out[3].clone());
                points.push(Point { primal: comps(&out[3])?, dual: comps(&out[4])? });
                out_x_stage.push(stage_x[m].clone());
            }
            // RK equations.
            for m in 0..n_s {
                match opts.irk_representation {
                    IrkRepresentation::Differential => eq(&mut g, unknowns[m].try_sub(&xdots[m])?, &mut lbg, &mut ubg),
                    IrkRepresentation::Integral => {
                        let incr = SX::weighted_sum(&tableau.a[m], &xdots, n_x);
                        eq(&mut g, unknowns[m].try_sub(&x_n)? - &h[n] * incr, &mut lbg, &mut ubg)
                    }
                }
            }
            let incr = SX::weighted_sum(&tableau.b, &xdots, n_x);
            eq(&mut g, x_next.try_sub(&x_n)? - &h[n] * incr, &mut lbg, &mut ubg);
            if end_point {
                let out = stage_fn.call(&[&x_next, &u, &p, &zs[n_s]])?;
                eq(&mut g, out[1].clone(), &mut lbg, &mut ubg);
                out_primal.push(out[3].clone());
                points.push(Point { primal: comps(&out[3])?, dual: comps(&out[4])? });
            }
            // Complementarity of this element.
            let primals: Vec<Vec<SX>> = points.iter().map(|pt| pt.primal.clone()).collect();
            let duals: Vec<Vec<SX>> = points.iter().map(|pt| pt.dual.clone()).collect();
            let (g_e, h_e) = complementarity_pairs(opts, &boundary_dual, &primals, &duals);
            big_g.extend(g_e);
            big_h.extend(h_e);
            let left = boundary_dual.clone();
            boundary_dual = points.last().map(|pt| pt.dual.clone()).unwrap_or_default();
            elements.push((points, left));
            out_x_boundary.push(x_next.clone());
            x_n = x_next;
        }
        if opts.use_fesd {
            eq(&mut g, sum(&tau) - 1.0, &mut lbg, &mut ubg);
        }
        if opts.use_fesd && opts.sliding_exit_continuity {
            for n in 1..n_fe {
                let (prev, next) = (&elements[n - 1].0, &elements[n].0);
                let last = prev.len() - 1;
                let dual_stages: Vec<SX> = (0..alg.n_comp()).map(|i| sum(&next[..n_s].iter().map(|pt| pt.dual[i].clone()).collect::<Vec<_>>())).collect();
                let (g_e, h_e) = sliding_exit_pairs(&alg.siblings, &prev[last].primal, &next[0].primal, &dual_stages);
                big_g.extend(g_e);
                big_h.extend(h_e);
            }
        }

        // Step equilibration.
        let mut f = SX::scalar(0.0);
        if opts.use_fesd && n_fe > 1 {
            let eta = |n: usize| -> SX {
                // Backward (element n−1) and forward (element n) sums, point 0 included for duals.
                let (prev, prev_left) = &elements[n - 1];
                let (next, next_left) = &elements[n];
                let mut product = SX::scalar(1.0);
                for grp in &alg.groups {
                    let width = grp.dual_parts.first().or(grp.primal_parts.first()).map_or(0, |v| v.len());
                    for j in 0..width {
                        let mut upsilon = SX::scalar(0.0);
                        for part in &grp.dual_parts {
                            let i = part[j];
                            let back = &prev_left[i] + sum(&prev.iter().map(|pt| pt.dual[i].clone()).collect::<Vec<_>>());
                            let fwd = &next_left[i] + sum(&next.iter().map(|pt| pt.dual[i].clone()).collect::<Vec<_>>());
                            upsilon = upsilon + back * fwd;
                        }
                        for part in &grp.primal_parts {
                            let i = part[j];
                            let back = sum(&prev.iter().map(|pt| pt.primal[i].clone()).collect::<Vec<_>>());
                            let fwd = sum(&next.iter().map(|pt| pt.primal[i].clone()).collect::<Vec<_>>());
                            upsilon = upsilon + back * fwd;
                        }
                        product = product * upsilon;
                    }
                }
                product
            };
            let rho = opts.rho_h;
            match opts.step_equilibration {
                StepEquilibration::HeuristicMean => {
                    for hn in &h {
                        let d = hn - &h_nom;
                        f = f + rho * &d * &d;
                    }
                }
                StepEquilibration::HeuristicDiff => {
                    for n in 1..n_fe {
                        let d = &h[n] - &h[n - 1];
                        f = f + rho * &d * &d;
                    }
                }
                StepEquilibration::L2Relaxed | StepEquilibration::L2RelaxedScaled | StepEquilibration::Direct => {
                    for n in 1..n_fe {
                        let mut e = eta(n);
                        if opts.step_equilibration == StepEquilibration::L2RelaxedScaled {
                            e = e.tanh();
                        }
                        let r = e * (&h[n] - &h[n - 1]);
                        if opts.step_equilibration == StepEquilibration::Direct {
                            eq(&mut g, r, &mut lbg, &mut ubg);
                        } else {
                            f = f + rho * &r * &r;
                        }
                    }
                }
            }
        }

        layout.n_w = w.len;
        let wv = vcat(&w.items)?;
        let mut mpcc = Mpcc::new(wv.clone(), f, vcat(&big_g)?, vcat(&big_h)?);
        mpcc.p = params.clone();
        mpcc.g = vcat(&g)?;
        mpcc.lbg = lbg;
        mpcc.ubg = ubg;
        mpcc.lbw = w.lb;
        mpcc.ubw = w.ub;
        mpcc.w0 = w.guess;
        mpcc.p0 = vec![0.0; params.nrow()];
        let h_out = vcat(&h)?;
        let outputs = Function::new(
            "fesd_outputs",
            &[("w", &wv), ("params", &params)],
            &[
                ("h", &h_out),
                ("x_boundary", &SX::horzcat(&out_x_boundary.iter().collect::<Vec<_>>())?),
                ("x_stage", &SX::horzcat(&out_x_stage.iter().collect::<Vec<_>>())?),
                ("theta", &SX::horzcat(&out_theta.iter().collect::<Vec<_>>())?),
                ("primal", &SX::horzcat(&out_primal.iter().collect::<Vec<_>>())?),
                ("dual_end", &vcat(&boundary_dual)?),
            ],
        )?;
        Ok(FesdInterval {
            mpcc,
            layout,
            outputs,
            dual_at_state: dual_fn,
            tableau,
            irk_representation: opts.irk_representation,
        })
    }

    /// A neutral initial guess for the state `x0`: every state unknown at x0 (stage
    /// derivatives at zero), algebraic variables at their neutral values, τ = 1/N_FE.
    pub fn initial_guess(&self, x0: &[f64]) -> Vec<f64> {
        let mut w = self.mpcc.w0.clone();
        let l = &self.layout;
        for n in 0..l.n_fe {
            for &off in &l.stage[n] {
                if self.is_integral() {
                    w[off..off + l.n_x].copy_from_slice(x0);
                }
            }
            w[l.x_end[n]..l.x_end[n] + l.n_x].copy_from_slice(x0);
        }
        w
    }

    fn is_integral(&self) -> bool {
        self.irk_representation == IrkRepresentation::Integral
    }
}
