//! The active-set finish: after the homotopy has told which side of each pair is zero,
//! solve the NLP with that active set fixed (complementarity then holds exactly) and
//! certify the point with an LPEC (in the spirit of MPECopt, Nurkanović & Leyffer
//! 2025).
//!
//! At a point `w` with index sets `I_G = {G_i = 0 < H_i}`, `I_H = {H_i = 0 < G_i}` and
//! the biactive `I_00 = {G_i = H_i = 0}`:
//! 1. the *tightened NLP* (TNLP) fixes `G_i = 0` on `I_G ∪ I_00`, `H_i = 0` on
//!    `I_H ∪ I_00`; if its multipliers of the biactive constraints are nonnegative the
//!    point is S-stationary (hence B-stationary);
//! 2. otherwise the LPEC `min ∇fᵀd` over the linearized constraints, a box `‖d‖∞ ≤ ρ`
//!    and the linearized complementarity of the biactive pairs (one binary each, a
//!    MILP solved by HiGHS) decides: value 0 means B-stationary; a negative value gives
//!    a descent direction into a branch (which side of each biactive pair is zero),
//!    whose NLP is solved next, and the check repeats at its solution;
//! 3. where the TNLP fails and the LPEC gives no answer in time, the branch NLP that
//!    keeps the smaller side of each biactive pair at zero makes complementarity
//!    exact without certifying the point (stationarity `unknown`).
//!
//! A point still above comp_tol with more than one apparently biactive pair (a
//! handover at large σ: both sides of such pairs near √σ) goes to that rounded branch
//! NLP first, as in MPECopt: the TNLP would hold both sides of every such pair at zero
//! and is degenerate there. At the branch NLP's solution (exact complementarity) the
//! active set is read again; without biactive pairs it is S-stationary, otherwise the
//! LPEC decides at once (no TNLP). The same holds after an LPEC branch change.
//!
//! Phase I comes first when the homotopy stopped above comp_tol (its point then tells
//! no active set): a feasibility LPEC with every pair's side free looks for a branch
//! feasible to first order near `w`; its NLP's solution starts the steps above, and
//! where no radius gives one the finish reports the point locally infeasible.

use crate::ipopt_setup::{max_abs, set_common_ipopt_options};
use crate::options::HomotopyOptions;
use crate::result::{FinishReport, Stationarity};
use fesd_nlp::CompiledNlp;
use highs::{Milp, MilpStatus};
use ipopt::{IpoptSolver, NlpCallbacks, NlpStructure, Solution, StartPoint};

/// Where the finish starts (see [`start`]): `Ok((point, cut_short))`, or `Err(point)`
/// when phase I found no feasible branch.
type FinishStart = Result<(Vec<f64>, bool), Vec<f64>>;

/// Rows of a sparse matrix as `(column, value)` lists.
type SparseRows = Vec<Vec<(usize, f64)>>;

/// Which side of a pair is held at zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    /// G_i = 0, H_i ≥ 0.
    G,
    /// H_i = 0, G_i ≥ 0.
    H,
    /// Both zero (biactive, in the TNLP).
    Both,
}

/// The compiled NLP `min f(w, p) s.t. (g, G, H)(w, p)` whose constraint bounds select a
/// branch, with the bounds of the MPCC.
pub(crate) struct BranchNlp {
    pub compiled: CompiledNlp,
    pub structure: NlpStructure,
    pub n_w: usize,
    pub n_g: usize,
    pub n_comp: usize,
    /// Per pair, `j` where `G_i` (first) or `H_i` (second) is exactly `w_j`: a side
    /// held at zero is then the bound `w_j = 0` rather than an equality row (see
    /// [`BranchNlp::ipopt_capped`]).
    pub pair_variables: Vec<[Option<usize>; 2]>,
}

/// Result of one run of the finish.
pub(crate) struct Finished {
    pub w: Vec<f64>,
    pub report: FinishReport,
}

impl BranchNlp {
    /// Ipopt for the branch NLP of `sides`, with Ipopt's `max_iter` given. Every start is warm
    /// (bound pushes 1e-9), so a variable at a bound stays there instead of moving
    /// 1e-2 inward: the finish's starts are the homotopy's point or one LPEC step from
    /// it, feasible to about comp_tol (evidence: `docs/evidence/mpcc.md`, "Warm branch
    /// NLPs").
    fn ipopt_capped(&self, sides: &[Side], opts: &HomotopyOptions, max_iter: usize) -> Option<IpoptSolver> {
        let mut s = self.structure.clone();
        for (_, row, var) in self.held_at_zero(sides) {
            match var {
                Some(j) => {
                    s.x_l[j] = 0.0;
                    s.x_u[j] = 0.0;
                }
                None => s.g_u[row] = 0.0,
            }
        }
        let mut ipopt = IpoptSolver::new(s).ok()?;
        set_common_ipopt_options(&mut ipopt, opts)
            .set_option("warm_start_bound_push", 1e-9)
            .set_option("warm_start_mult_bound_push", 1e-9)
            .set_option("tol", (0.1 * opts.comp_tol).clamp(1e-14, 1e-8))
            .set_option("constr_viol_tol", (0.1 * opts.comp_tol).clamp(1e-14, 1e-8))
            .set_option("max_iter", i32::try_from(max_iter).unwrap_or(i32::MAX));
        for (k, v) in &opts.ipopt {
            if k != "tol" && k != "constr_viol_tol" {
                ipopt.set_option(k, v.clone());
            }
        }
        Some(ipopt)
    }

    /// The sides that `sides` holds at zero: their pair, their row of `(g, G, H)` and,
    /// where the side is a variable `w_j` whose bounds admit 0, that `j`. Holding such a side by
    /// the bound `w_j = 0` (Ipopt then removes `w_j`) keeps the branch NLP free of
    /// repeated equality rows where several pairs share a variable — with rows, Ipopt
    /// may refuse the NLP for having more equalities than unknowns.
    fn held_at_zero(&self, sides: &[Side]) -> Vec<(usize, usize, Option<usize>)> {
        let (g0, h0) = (self.n_g, self.n_g + self.n_comp);
        let admits_zero = |j: usize| self.structure.x_l[j] <= 0.0 && self.structure.x_u[j] >= 0.0;
        let mut held = Vec::new();
        for (i, side) in sides.iter().enumerate() {
            let [vg, vh] = self.pair_variables.get(i).copied().unwrap_or([None, None]);
            if matches!(side, Side::G | Side::Both) {
                held.push((i, g0 + i, vg.filter(|&j| admits_zero(j))));
            }
            if matches!(side, Side::H | Side::Both) {
                held.push((i, h0 + i, vh.filter(|&j| admits_zero(j))));
            }
        }
        held
    }

    /// True if the TNLP's solution `sol` (at `sides`) has nonnegative multipliers ν of
    /// every biactive side (S-stationarity). Ipopt's convention is
    /// `∇f + Jᵀλ + z_U − z_L = 0`, so ν = −λ for a side held by its row and
    /// ν = z_L − z_U for one held by its variable's bound. A variable that some
    /// non-biactive side also holds at zero carries a multiplier of free sign, which
    /// can take the whole of it: no condition there.
    fn biactive_multipliers_nonnegative(&self, sides: &[Side], sol: &Solution) -> bool {
        let held = self.held_at_zero(sides);
        let (biactive, others): (Vec<_>, Vec<_>) = held.into_iter().partition(|(i, _, _)| sides[*i] == Side::Both);
        let free_sign: std::collections::HashSet<usize> = others.iter().filter_map(|(_, _, v)| *v).collect();
        let scale = 1.0 + max_abs(&sol.mult_g).max(max_abs(&sol.mult_x_l)).max(max_abs(&sol.mult_x_u));
        biactive.iter().all(|&(_, row, var)| match var {
            Some(j) if free_sign.contains(&j) => true,
            Some(j) => sol.mult_x_l[j] - sol.mult_x_u[j] >= -1e-8 * scale,
            None => -sol.mult_g[row] >= -1e-8 * scale,
        })
    }

    /// Solves the branch NLP of `sides` from `start` (at most `max_iter` Ipopt
    /// iterations), resuming it from its last primal-dual iterate and barrier
    /// parameter up to `finish_resumes` times while it runs out of iterations; the
    /// returned solution counts the iterations of every run. `guard` may stop it.
    fn solve(
        &mut self,
        sides: &[Side],
        opts: &HomotopyOptions,
        max_iter: usize,
        start: StartPoint,
        guard: &mut dyn FnMut(&ipopt::IterationInfo) -> bool,
    ) -> Option<Solution> {
        let ipopt = self.ipopt_capped(sides, opts, max_iter)?;
        let last_mu = std::cell::Cell::new(f64::NAN);
        let mut watch = |info: &ipopt::IterationInfo| {
            last_mu.set(info.mu);
            guard(info)
        };
        let mut sol = ipopt.solve(&mut self.compiled, &start, Some(&mut watch)).ok()?;
        for _ in 0..opts.finish_resumes {
            if sol.status != ipopt::ApplicationReturnStatus::MaximumIterationsExceeded {
                break;
            }
            let mu = last_mu.get();
            let extra: Vec<(String, ipopt::OptionValue)> =
                if mu.is_finite() && mu > 0.0 { vec![("mu_init".into(), mu.into())] } else { Vec::new() };
            let before = sol.iterations;
            sol = ipopt.solve_with(&mut self.compiled, &sol.warm_start(), Some(&mut watch), &extra).ok()?;
            sol.iterations += before;
        }
        Some(sol)
    }

    /// `(G, H)` at `w`; `None` where the constraints do not evaluate to finite numbers
    /// (nothing can be said of such a point).
    fn pairs(&mut self, w: &[f64]) -> Option<(Vec<f64>, Vec<f64>)> {
        let mut c = vec![0.0; self.n_g + 2 * self.n_comp];
        if !self.compiled.constraints(w, true, &mut c) || c.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let h = c.split_off(self.n_g + self.n_comp);
        Some((c[self.n_g..].to_vec(), h))
    }

    /// `max_i |G_i H_i|` at `w`.
    pub(crate) fn residual(&mut self, w: &[f64]) -> Option<f64> {
        let (g, h) = self.pairs(w)?;
        Some(max_product(&g, &h))
    }

    /// Classifies every pair at `w`; `None` if some pair has both sides above the
    /// threshold `max(tol, 10 √(max_i |G_i H_i|))` (near a biactive pair both sides
    /// are about √σ when the homotopy stops). Below it, a side under [`SIDE_RATIO`]
    /// times the other is the zero side; only comparable sides make a biactive pair.
    fn classify(&mut self, w: &[f64], tol: f64) -> Option<Vec<Side>> {
        let (g, h) = self.pairs(w)?;
        let tol = tol.max(10.0 * max_product(&g, &h).sqrt());
        g.iter()
            .zip(&h)
            .map(|(&a, &b)| match (a <= tol, b <= tol) {
                (true, true) if a <= SIDE_RATIO * b => Some(Side::G),
                (true, true) if b <= SIDE_RATIO * a => Some(Side::H),
                (true, true) => Some(Side::Both),
                (true, false) => Some(Side::G),
                (false, true) => Some(Side::H),
                (false, false) => None,
            })
            .collect()
    }
}

/// Intermediate callback of a branch NLP started at (or one LPEC step from) `w`, a
/// point whose complementarity residual is r and whose objective is `f0`: the branch's
/// solution lies within about √r of `w`, so iterates whose objective climbs more than
/// `max(WORSE_TOL, 10 √r) · max(|f0|, 1)` above `f0` are heading for another, worse
/// point on a wrong active set; they are stopped instead of running to
/// `finish_max_iter` (the motor OCP at N = 120, r = 1e-6: the branch NLP went through
/// restoration from f = 0.7740 up to 0.8177 and spent 100 iterations). From a point
/// far from complementarity (a homotopy cut short) the allowance is large and the
/// branch NLP runs as before; with `unguarded` (the homotopy stopped above the
/// handover: its point holds no comparable objective, the relaxation may have bought
/// a lower one with complementarity violations) it always runs. `None` if the
/// residual cannot be evaluated.
fn guard_at(nlp: &mut BranchNlp, w: &[f64], f0: f64, unguarded: bool) -> Option<impl FnMut(&ipopt::IterationInfo) -> bool> {
    let allowance = if unguarded { f64::INFINITY } else { WORSE_TOL.max(10.0 * nlp.residual(w)?.sqrt()) * f0.abs().max(1.0) };
    Some(move |info: &ipopt::IterationInfo| info.objective <= f0 + allowance)
}

/// Smallest relative objective increase at which [`guard_at`] stops a branch NLP.
const WORSE_TOL: f64 = 1e-3;

/// Below the threshold, a side at most this fraction of the other is the zero side
/// and the other is left free (as in phase I); only sides within this factor of each
/// other make a biactive pair.
const SIDE_RATIO: f64 = 1e-2;

/// `max_i |G_i H_i|`.
fn max_product(g: &[f64], h: &[f64]) -> f64 {
    g.iter().zip(h).fold(0.0f64, |m, (a, b)| m.max((a * b).abs()))
}

/// `sides` with each biactive pair (the `biactive` indices, in order) resolved to the
/// LPEC's branch for it.
fn with_lpec_branch(sides: &[Side], biactive: &[usize], lpec_branch: &[Side]) -> Vec<Side> {
    sides
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Side::Both => lpec_branch[biactive.iter().position(|&b| b == i).unwrap_or(0)],
            other => *other,
        })
        .collect()
}

/// `w + d`, clamped to the variable bounds.
fn step_within_bounds(nlp: &BranchNlp, w: &[f64], d: &[f64]) -> Vec<f64> {
    w.iter().zip(d).enumerate().map(|(j, (x, d))| (x + d).clamp(nlp.structure.x_l[j], nlp.structure.x_u[j])).collect()
}

/// Runs the finish from the homotopy's point `w` (phase I first if its residual is
/// above the handover level); `None` where it cannot say more than the homotopy did
/// (pairs not identified, the TNLP fails).
pub(crate) fn finish(nlp: &mut BranchNlp, w: &[f64], opts: &HomotopyOptions) -> Option<Finished> {
    let mut report = FinishReport {
        stationarity: Stationarity::Unknown,
        biactive: 0,
        nlps: 0,
        iterations: 0,
        lpec_value: None,
        branch_changes: 0,
        phase_one: Vec::new(),
    };
    // Branch NLPs run without the objective guard until one has made w exact.
    let (mut w, mut unguarded) = match start(nlp, w, opts, &mut report)? {
        Ok(go_on) => go_on,
        Err(w) => return Some(Finished { w, report }),
    };
    let mut polished = false;
    // w solves a branch NLP (exact complementarity, KKT of that branch).
    let mut branch_solved = false;
    for _ in 0..=opts.max_branch_changes + 2 {
        let Some(sides) = nlp.classify(&w, opts.active_set_tol) else {
            // Unidentified pairs: nothing to say unless phase I or an NLP ran.
            return (report.nlps > 0 || !report.phase_one.is_empty()).then_some(Finished { w, report });
        };
        report.biactive = sides.iter().filter(|s| **s == Side::Both).count();
        // 0. Away from exact complementarity, several pairs look biactive (both sides
        //    near √σ): a TNLP holding both sides of each at zero is degenerate (it fails
        //    or crawls); the branch NLP keeping the smaller side at zero makes w exact,
        //    and the active set is read again there.
        if report.biactive > 1 && nlp.residual(&w)? > opts.comp_tol {
            if let Some(x) = rounded_branch(nlp, &w, &sides, opts, unguarded, &mut report) {
                (w, unguarded, branch_solved) = (x, false, true);
                continue;
            }
        }
        if branch_solved && report.biactive == 0 {
            // Strict complementarity: the MPCC is that branch NLP near w.
            report.stationarity = Stationarity::SStationary;
            return Some(Finished { w, report });
        }
        // 1. The TNLP at this active set. It can fail where it is degenerate (e.g. more
        //    equalities than variables at biactive pairs); the LPEC then decides at w.
        //    Skipped at a branch NLP's solution, where the LPEC decides at once.
        let f0 = objective(nlp, &w)?;
        let mut guard = guard_at(nlp, &w, f0, unguarded)?;
        let tnlp =
            if branch_solved { None } else { nlp.solve(&sides, opts, opts.finish_max_iter, StartPoint::primal(w.clone()), &mut guard) };
        let mut tnlp_solved = branch_solved;
        let biactive: Vec<usize> = (0..nlp.n_comp).filter(|&i| sides[i] == Side::Both).collect();
        if let Some(sol) = tnlp {
            record(&mut report, opts, "tightened NLP", &sol);
            if sol.status.is_success() {
                tnlp_solved = true;
                unguarded = false;
                w = sol.x.clone();
                if nlp.biactive_multipliers_nonnegative(&sides, &sol) {
                    report.stationarity = Stationarity::SStationary;
                    return Some(Finished { w, report });
                }
            }
        }
        // 2. The LPEC decides.
        let lpec = match lpec(nlp, &w, &sides, opts) {
            Some(l) => l,
            None => {
                if !tnlp_solved && !polished {
                    if let Some(x) = rounded_branch(nlp, &w, &sides, opts, unguarded, &mut report) {
                        w = x;
                    }
                }
                return Some(Finished { w, report });
            }
        };
        report.lpec_value = Some(lpec.value);
        let certified = lpec.value >= -opts.lpec_tol;
        if certified && (tnlp_solved || polished) {
            report.stationarity = Stationarity::BStationary;
            return Some(Finished { w, report });
        }
        // A descent direction (or, at a certified point the TNLP could not make exact,
        // the LPEC's own branch): solve that branch NLP from w + d.
        let branch = with_lpec_branch(&sides, &biactive, &lpec.branch);
        let no_step = vec![0.0; w.len()];
        let start = step_within_bounds(nlp, &w, if certified { &no_step } else { &lpec.d });
        let f_before = objective(nlp, &w)?;
        let mut guard = guard_at(nlp, &w, f_before, unguarded)?;
        let sol = nlp.solve(&branch, opts, opts.finish_max_iter, StartPoint::primal(start), &mut guard)?;
        record(&mut report, opts, if certified { "polishing branch NLP" } else { "LPEC branch NLP" }, &sol);
        let f_after = if sol.status.is_success() { objective(nlp, &sol.x)? } else { f64::INFINITY };
        if certified {
            // Polishing a B-stationary point into exact complementarity: take the branch
            // point if it solved nearby (the LPEC box is the neighbourhood).
            polished = true;
            let size = 1.0 + max_abs(&w);
            let moved = w.iter().zip(&sol.x).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            if f_after.is_finite() && moved <= opts.lpec_radius * size {
                w = sol.x;
                unguarded = false;
            } else {
                report.stationarity = Stationarity::BStationary;
                return Some(Finished { w, report });
            }
            continue;
        }
        report.branch_changes += 1;
        if f_after >= f_before {
            report.stationarity = Stationarity::NotBStationary;
            return Some(Finished { w, report });
        }
        (w, unguarded, branch_solved) = (sol.x, false, true);
    }
    Some(Finished { w, report })
}

/// Where the finish starts: the homotopy's point `w`, or, if the homotopy stopped above
/// the handover, phase I's solution. `Ok((point, unguarded))` to go on (`unguarded`:
/// the point is not exact, so its objective is no yardstick for [`guard_at`]);
/// `Err(w)` when phase I decided every radius without a feasible branch (reported
/// locally infeasible). An undecided phase I (no LPEC answer in time) goes on from `w`
/// with the sides it shows, as after a handover.
fn start(nlp: &mut BranchNlp, w: &[f64], opts: &HomotopyOptions, report: &mut FinishReport) -> Option<FinishStart> {
    let cut_short = nlp.residual(w)? > opts.finish_handover.max(opts.comp_tol);
    if !(opts.phase_one_radius > 0.0 && cut_short) {
        return Some(Ok((w.to_vec(), cut_short)));
    }
    Some(match phase_one(nlp, w, opts, report) {
        Some(x) => Ok((x, false)),
        // Phase I tries at least one radius; every one must have been decided.
        None if report.phase_one.iter().all(|(_, v)| v.is_some()) => {
            report.stationarity = Stationarity::LocallyInfeasible;
            Err(w.to_vec())
        }
        None => Ok((w.to_vec(), true)),
    })
}

/// Counts one NLP of the finish in `report`; at verbosity ≥ 1 prints its outcome.
fn record(report: &mut FinishReport, opts: &HomotopyOptions, what: &str, sol: &Solution) {
    report.nlps += 1;
    report.iterations += sol.iterations;
    if opts.verbosity >= 1 {
        println!("  finish, {what}: {:?}, {} Ipopt iterations, f = {:.8e}", sol.status, sol.iterations, sol.objective);
    }
}

/// Where neither the TNLP nor the LPEC gives an answer (many biactive pairs make the
/// TNLP degenerate and the MILP too large for its time limit), the branch NLP that
/// keeps the smaller side of every biactive pair at zero and leaves the other free:
/// complementarity becomes exact, without a certificate. `None` if that NLP fails or
/// climbs away from `w` (see [`guard_at`]).
fn rounded_branch(
    nlp: &mut BranchNlp,
    w: &[f64],
    sides: &[Side],
    opts: &HomotopyOptions,
    unguarded: bool,
    report: &mut FinishReport,
) -> Option<Vec<f64>> {
    if !sides.contains(&Side::Both) {
        return None;
    }
    let (g, h) = nlp.pairs(w)?;
    let branch: Vec<Side> = sides
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Side::Both if h[i] < g[i] => Side::H,
            Side::Both => Side::G,
            other => *other,
        })
        .collect();
    let f0 = objective(nlp, w)?;
    let mut guard = guard_at(nlp, w, f0, unguarded)?;
    let sol = nlp.solve(&branch, opts, opts.finish_max_iter, StartPoint::primal(w.to_vec()), &mut guard)?;
    record(report, opts, "rounded branch NLP", &sol);
    (sol.status.is_success() && nlp.residual(&sol.x)? <= opts.comp_tol).then_some(sol.x)
}

/// Phase I of the finish: from a point whose complementarity residual is above
/// comp_tol, the feasibility LPEC at growing radii; the first branch feasible to first
/// order is solved as an NLP. Returns its solution (complementarity exact), or `None`
/// with every radius tried recorded in `report.phase_one`.
fn phase_one(nlp: &mut BranchNlp, w: &[f64], opts: &HomotopyOptions, report: &mut FinishReport) -> Option<Vec<f64>> {
    let tol = 10.0 * opts.lpec_tol.max(1e-10);
    let mut radius = opts.lpec_radius.min(opts.phase_one_radius);
    loop {
        let lp = feasibility_lpec(nlp, w, radius, opts.lpec_time_limit);
        report.phase_one.push((radius, lp.as_ref().map(|l| l.value)));
        if let Some(lp) = lp.filter(|l| l.value <= tol) {
            let start: Vec<f64> =
                w.iter().zip(&lp.d).enumerate().map(|(j, (x, d))| (x + d).clamp(nlp.structure.x_l[j], nlp.structure.x_u[j])).collect();
            // The start may be far from the branch's solution: more iterations than a finish NLP.
            let max_iter = opts.finish_max_iter.max(500);
            if let Some(sol) = nlp.solve(&lp.branch, opts, max_iter, StartPoint::primal(start), &mut |_: &ipopt::IterationInfo| true) {
                record(report, opts, "phase I branch NLP", &sol);
                if sol.status.is_success() && nlp.residual(&sol.x)? <= opts.comp_tol {
                    return Some(sol.x);
                }
            }
        }
        if radius >= opts.phase_one_radius {
            return None;
        }
        radius = (10.0 * radius).min(opts.phase_one_radius);
    }
}

/// The feasibility LPEC at `w`: `min Σ slacks` over `d` (`‖d‖∞ ≤ radius`, within the
/// bounds of w) and one binary per undecided pair choosing the side held at zero, subject to the
/// linearized general constraints, `G, H ≥ 0` and the chosen side's `G = 0` or
/// `H = 0`, each softened by slacks. Its value is `+∞` when HiGHS finds the MILP
/// infeasible (cannot happen with every row softened, kept as a guard); `None` if
/// HiGHS gave no answer in time.
fn feasibility_lpec(nlp: &mut BranchNlp, w: &[f64], radius: f64, time_limit: f64) -> Option<Lpec> {
    let (n, ng, nc) = (nlp.n_w, nlp.n_g, nlp.n_comp);
    let (c, rows_of) = linearization(nlp, w)?;
    // Columns: d (n), s⁺ and s⁻ of every general row (2 ng), the slacks of G ≥ 0 and
    // H ≥ 0 (2 nc), the binaries (nc). A pair whose sides differ by two orders of
    // magnitude keeps the smaller one at zero (its binary fixed): the MILP branches
    // only where the point does not tell (the three-box OCP's 3 370 free binaries
    // left HiGHS without an answer in 10 s).
    let slacks = 2 * ng + 2 * nc;
    let decided = |i: usize| -> Option<f64> {
        let (g, h) = (c[ng + i].abs(), c[ng + nc + i].abs());
        if g <= SIDE_RATIO * h {
            Some(0.0)
        } else if h <= SIDE_RATIO * g {
            Some(1.0)
        } else {
            None
        }
    };
    let mut milp = Milp {
        cost: std::iter::repeat_n(0.0, n).chain(std::iter::repeat_n(1.0, slacks)).chain(std::iter::repeat_n(0.0, nc)).collect(),
        col_lower: (0..n)
            .map(|j| (nlp.structure.x_l[j] - w[j]).max(-radius))
            .chain(std::iter::repeat_n(0.0, slacks))
            .chain((0..nc).map(|i| decided(i).unwrap_or(0.0)))
            .collect(),
        col_upper: (0..n)
            .map(|j| (nlp.structure.x_u[j] - w[j]).min(radius))
            .chain(std::iter::repeat_n(f64::INFINITY, slacks))
            .chain((0..nc).map(|i| decided(i).unwrap_or(1.0)))
            .collect(),
        integer: std::iter::repeat_n(false, n + slacks).chain(std::iter::repeat_n(true, nc)).collect(),
        ..Default::default()
    };
    if milp.col_lower.iter().zip(&milp.col_upper).any(|(l, u)| l > u) {
        return None;
    }
    let mut push = |row: Vec<(usize, f64)>, lo: f64, up: f64| {
        milp.rows.push(row);
        milp.row_lower.push(lo);
        milp.row_upper.push(up);
    };
    for r in 0..ng {
        let row = rows_of[r].iter().copied().chain([(n + 2 * r, 1.0), (n + 2 * r + 1, -1.0)]).collect();
        push(row, nlp.structure.g_l[r] - c[r], nlp.structure.g_u[r] - c[r]);
    }
    let (g0, h0) = (ng, ng + nc);
    for i in 0..nc {
        let y = n + slacks + i;
        let (t_g, t_h) = (n + 2 * ng + 2 * i, n + 2 * ng + 2 * i + 1);
        let (rg, rh) = (&rows_of[g0 + i], &rows_of[h0 + i]);
        let (gi, hi) = (c[g0 + i], c[h0 + i]);
        let (mg, mh) = (big_m(rg, gi, radius), big_m(rh, hi, radius));
        // −t_G ≤ G + ∇G d ≤ M_G y + t_G: y = 0 holds G at zero (up to its slack).
        push(rg.iter().copied().chain([(t_g, 1.0)]).collect(), -gi, f64::INFINITY);
        push(rg.iter().copied().chain([(y, -mg), (t_g, -1.0)]).collect(), f64::NEG_INFINITY, -gi);
        // −t_H ≤ H + ∇H d ≤ M_H (1 − y) + t_H: y = 1 holds H at zero.
        push(rh.iter().copied().chain([(t_h, 1.0)]).collect(), -hi, f64::INFINITY);
        push(rh.iter().copied().chain([(y, mh), (t_h, -1.0)]).collect(), f64::NEG_INFINITY, mh - hi);
    }
    let sol = milp.solve(time_limit).ok()?;
    match sol.status {
        MilpStatus::Optimal => {
            let branch = (0..nc).map(|i| if sol.x[n + slacks + i] < 0.5 { Side::G } else { Side::H }).collect();
            Some(Lpec { value: sol.objective.max(0.0), d: sol.x[..n].to_vec(), branch })
        }
        MilpStatus::Infeasible => Some(Lpec { value: f64::INFINITY, d: vec![0.0; n], branch: vec![Side::G; nc] }),
        _ => None,
    }
}

/// `(g, G, H)` at `w` and the rows of their Jacobian as `(column, value)` lists.
fn linearization(nlp: &mut BranchNlp, w: &[f64]) -> Option<(Vec<f64>, SparseRows)> {
    let m = nlp.n_g + 2 * nlp.n_comp;
    let mut c = vec![0.0; m];
    let mut jac = vec![0.0; nlp.structure.jac_rows.len()];
    if !(nlp.compiled.constraints(w, true, &mut c) && nlp.compiled.jacobian(w, false, &mut jac)) {
        return None;
    }
    let mut rows_of: Vec<Vec<(usize, f64)>> = vec![Vec::new(); m];
    for (k, &v) in jac.iter().enumerate() {
        rows_of[nlp.structure.jac_rows[k]].push((nlp.structure.jac_cols[k], v));
    }
    Some((c, rows_of))
}

/// A bound on `|value + row · d|` over `‖d‖∞ ≤ radius` (big-M of a branch choice).
fn big_m(row: &[(usize, f64)], value: f64, radius: f64) -> f64 {
    radius * row.iter().map(|(_, v)| v.abs()).sum::<f64>() + value.abs() + 1.0
}

fn objective(nlp: &mut BranchNlp, w: &[f64]) -> Option<f64> {
    nlp.compiled.objective(w, true)
}

struct Lpec {
    value: f64,
    d: Vec<f64>,
    /// The side of each biactive pair that the LPEC's solution keeps at zero.
    branch: Vec<Side>,
}

/// The LPEC at `w` (MILP with one binary per biactive pair).
fn lpec(nlp: &mut BranchNlp, w: &[f64], sides: &[Side], opts: &HomotopyOptions) -> Option<Lpec> {
    let n = nlp.n_w;
    let (c, rows_of) = linearization(nlp, w)?;
    let mut grad = vec![0.0; n];
    if !nlp.compiled.gradient(w, false, &mut grad) {
        return None;
    }
    let rho = opts.lpec_radius;
    let biactive: Vec<usize> = (0..nlp.n_comp).filter(|&i| sides[i] == Side::Both).collect();
    let nb = biactive.len();
    let mut milp = Milp {
        cost: grad.iter().copied().chain(std::iter::repeat_n(0.0, nb)).collect(),
        col_lower: (0..n).map(|j| (nlp.structure.x_l[j] - w[j]).max(-rho)).chain(std::iter::repeat_n(0.0, nb)).collect(),
        col_upper: (0..n).map(|j| (nlp.structure.x_u[j] - w[j]).min(rho)).chain(std::iter::repeat_n(1.0, nb)).collect(),
        integer: std::iter::repeat_n(false, n).chain(std::iter::repeat_n(true, nb)).collect(),
        ..Default::default()
    };
    let mut push = |row: Vec<(usize, f64)>, lo: f64, up: f64| {
        milp.rows.push(row);
        milp.row_lower.push(lo);
        milp.row_upper.push(up);
    };
    // General constraints: lbg ≤ g + J d ≤ ubg.
    for r in 0..nlp.n_g {
        push(rows_of[r].clone(), nlp.structure.g_l[r] - c[r], nlp.structure.g_u[r] - c[r]);
    }
    let (g0, h0) = (nlp.n_g, nlp.n_g + nlp.n_comp);
    for i in 0..nlp.n_comp {
        let (rg, rh) = (rows_of[g0 + i].clone(), rows_of[h0 + i].clone());
        let (gi, hi) = (c[g0 + i], c[h0 + i]);
        match sides[i] {
            Side::G => {
                push(rg, -gi, -gi);
                push(rh, -hi, f64::INFINITY);
            }
            Side::H => {
                push(rg, -gi, f64::INFINITY);
                push(rh, -hi, -hi);
            }
            Side::Both => {
                // y = 0: G + ∇G d = 0 side; y = 1: H + ∇H d = 0 side (big-M).
                let y = n + biactive.iter().position(|&b| b == i).unwrap_or(0);
                let (mg, mh) = (big_m(&rg, gi, rho), big_m(&rh, hi, rho));
                push(rg.clone(), -gi, f64::INFINITY);
                push(rg.into_iter().chain([(y, -mg)]).collect(), f64::NEG_INFINITY, -gi);
                push(rh.clone(), -hi, f64::INFINITY);
                push(rh.into_iter().chain([(y, mh)]).collect(), f64::NEG_INFINITY, mh - hi);
            }
        }
    }
    let sol = milp.solve(opts.lpec_time_limit).ok()?;
    if sol.status != MilpStatus::Optimal {
        return None;
    }
    let branch = (0..nb).map(|b| if sol.x[n + b] < 0.5 { Side::G } else { Side::H }).collect();
    Some(Lpec { value: sol.objective, d: sol.x[..n].to_vec(), branch })
}
