//! The active-set finish: it moves a spurious C-stationary limit of the homotopy to the
//! B-stationary solution, and certifies stationarity where the homotopy's point is
//! right.

use casadi::SX;
use fesd_mpcc::{Formulation, HomotopyOptions, Mpcc, MpccSolver, Stationarity};

/// min (x − 1)² + (y − 2)² s.t. x ≥ y, 0 ≤ x ⊥ y ≥ 0, from (0.5, 0.5). For every σ the
/// vertex x = y = √σ of the relaxed NLP (x y ≤ σ) is a strict local minimizer (both
/// multipliers positive), so the homotopy follows it to the origin: f = 5, where
/// MPCC-LICQ fails and the point is not B-stationary (d = (1, 0) descends). The branch
/// y = 0 has the solution (1, 0) with f = 4.
fn pinned_to_the_origin() -> Mpcc {
    nearest_to(2.0, f64::INFINITY)
}

/// min (x − 1)² + (y − 1)² s.t. 0 ≤ x ⊥ y ≥ 0, from (0.5, 0.5): the solutions (1, 0)
/// and (0, 1), f = 1.
fn two_branches() -> Mpcc {
    let w = SX::sym("w", 2);
    let (x, y) = (w.at(0).unwrap(), w.at(1).unwrap());
    let mut m = Mpcc::new(w, (&x - 1.0).powf(2.0) + (&y - 1.0).powf(2.0), x, y);
    m.w0 = vec![0.5, 0.5];
    m
}

/// min (x − 1)² + (y − b)² s.t. 0 ≤ x − y ≤ u, 0 ≤ x ⊥ y ≥ 0, from (0.5, 0.5).
fn nearest_to(b: f64, u: f64) -> Mpcc {
    let w = SX::sym("w", 2);
    let (x, y) = (w.at(0).unwrap(), w.at(1).unwrap());
    let f = (&x - 1.0).powf(2.0) + (&y - b).powf(2.0);
    let mut m = Mpcc::new(w, f, x.clone(), y.clone());
    m.g = &x - &y;
    m.lbg = vec![0.0];
    m.ubg = vec![u];
    m.w0 = vec![0.5, 0.5];
    m
}

#[test]
fn the_homotopy_alone_stops_at_a_c_stationary_point() {
    // Direct steering: the relaxed NLPs' vertex is followed to the origin.
    let r = MpccSolver::new(&without_finish(&pinned_to_the_origin()), fesd_mpcc::presets::scholtes_direct()).unwrap().solve();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!(r.w[0].abs() < 1e-4 && r.w[1].abs() < 1e-4, "{:?}", r.w);
    assert!((r.objective - 5.0).abs() < 1e-3);
    assert!(r.finish.is_none());
}

/// Ipopt's constraint regularization (`perturb_always_cd`, the MPCC default) reaches
/// Ipopt, also when switched on a built solver: at this degenerate vertex it changes
/// the outcome of the homotopy alone (it stops short of comp_tol), and switching it
/// off again restores the C-stationary limit.
#[test]
fn the_constraint_regularization_option_reaches_ipopt() {
    let plain = fesd_mpcc::presets::scholtes_direct();
    assert!(!plain.perturb_always_cd && HomotopyOptions::default().perturb_always_cd);
    let mut solver = MpccSolver::new(&without_finish(&pinned_to_the_origin()), plain.clone()).unwrap();
    assert!(solver.solve().status.is_converged());
    solver.set_options(HomotopyOptions { perturb_always_cd: true, ..plain.clone() }).unwrap();
    let regularized = solver.solve();
    assert!(!regularized.status.is_converged() && regularized.comp_residual > 1e-9, "{:?}", regularized.status);
    solver.set_options(plain).unwrap();
    solver.set_initial_guess(&[0.5, 0.5]).unwrap();
    let r = solver.solve();
    assert!(r.status.is_converged() && (r.objective - 5.0).abs() < 1e-3, "{:?} f = {}", r.status, r.objective);
}

#[test]
fn the_finish_moves_it_to_a_b_stationary_solution() {
    let r = MpccSolver::new(&direct(&pinned_to_the_origin()), fesd_mpcc::presets::scholtes_direct()).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    println!("{finish:?} {:?}", r.w);
    assert!(r.status.is_converged());
    assert!((r.objective - 4.0).abs() < 1e-8, "f = {}", r.objective);
    assert!((r.w[0] - 1.0).abs() < 1e-8 && r.w[1].abs() < 1e-8, "{:?}", r.w);
    assert!(r.comp_residual <= 1e-12, "{}", r.comp_residual);
    assert_eq!(finish.branch_changes, 1);
    assert!(finish.lpec_value.unwrap() < 0.0);
    assert_eq!(finish.stationarity, Stationarity::SStationary);
    assert_eq!(finish.biactive, 0);
}

#[test]
fn b_stationarity_without_s_stationarity_is_certified_by_the_lpec() {
    // min −x − y + (z − 1)² s.t. x − y = 0, 0 ≤ x ⊥ y ≥ 0: the origin (in x, y) is the
    // only feasible point, hence B-stationary, but the tightened NLP's multipliers
    // satisfy ν_x + ν_y = −2 (MPCC-LICQ fails), so it is not S-stationary.
    let w = SX::sym("w", 3);
    let (x, y, z) = (w.at(0).unwrap(), w.at(1).unwrap(), w.at(2).unwrap());
    let f = -&x - &y + (&z - 1.0).powf(2.0);
    let mut m = Mpcc::new(w, f, x.clone(), y.clone());
    m.g = &x - &y;
    m.lbg = vec![0.0];
    m.ubg = vec![0.0];
    m.w0 = vec![0.5, 0.5, 0.0];
    let r = MpccSolver::new(&m, HomotopyOptions::default()).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    println!("{finish:?} {:?}", r.w);
    assert!(r.status.is_converged());
    assert_eq!(finish.stationarity, Stationarity::BStationary);
    assert_eq!(finish.biactive, 1);
    assert!(finish.lpec_value.unwrap().abs() <= 1e-9);
    assert!(r.w[0].abs() < 1e-8 && r.w[1].abs() < 1e-8 && (r.w[2] - 1.0).abs() < 1e-8, "{:?}", r.w);
}

/// min (x − 1)² + (y − 1)² s.t. 0 ≤ x ⊥ y ≥ 0, with a homotopy cut short at σ = 1:
/// its NLP's solution (1, 1) has x y = 1. Phase I: at (1, 1) the best branch needs
/// |1 + d| ≤ t on the side held at zero, so its violation is 1 − ρ for ρ < 1 and 0 at
/// ρ = 1; that branch's NLP gives a solution, (1, 0) or (0, 1) with f = 1, which the
/// finish then certifies.
#[test]
fn phase_one_finds_a_feasible_branch_when_the_homotopy_stops_short() {
    let m = two_branches();
    let opts = HomotopyOptions { n_homotopy: Some(1), ..fesd_mpcc::presets::scholtes_direct() };
    let r = MpccSolver::new(&direct(&m), opts).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    println!("{finish:?} {:?} {:?}", r.w, r.messages);
    let radii: Vec<f64> = finish.phase_one.iter().map(|(rho, _)| *rho).collect();
    assert_eq!(radii, vec![1e-3, 1e-2, 1e-1, 1.0]);
    for ((rho, v), expected) in finish.phase_one.iter().zip([1.0 - 1e-3, 1.0 - 1e-2, 1.0 - 1e-1, 0.0]) {
        // The σ = 1 NLP ends at Ipopt's acceptable level: (1, 1) to about 1e-4.
        assert!((v.unwrap() - expected).abs() < 1e-4, "radius {rho}: violation {v:?}, expected {expected}");
    }
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!((r.objective - 1.0).abs() < 1e-8, "f = {}", r.objective);
    assert!(r.comp_residual <= 1e-12);
    let (lo, hi) = (r.w[0].min(r.w[1]), r.w[0].max(r.w[1]));
    assert!(lo.abs() < 1e-8 && (hi - 1.0).abs() < 1e-8, "{:?}", r.w);
    assert_eq!(finish.stationarity, Stationarity::SStationary);
    // phase_one_radius = 0 turns it off: the finish then takes both sides of every
    // pair as zero (threshold 10 √residual), and its LPEC moves from (0, 0) into a
    // branch — here that finds the same solution, one branch change later.
    let off = HomotopyOptions { n_homotopy: Some(1), phase_one_radius: 0.0, ..fesd_mpcc::presets::scholtes_direct() };
    let r = MpccSolver::new(&direct(&m), off).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    assert!(finish.phase_one.is_empty());
    assert_eq!(finish.branch_changes, 1);
    assert!(r.status.is_converged() && (r.objective - 1.0).abs() < 1e-8, "{:?} {}", r.status, r.objective);
}

/// The same stopped homotopy when phase I's LPECs get no answer in time (a time limit
/// too short for HiGHS; its presolve alone may still answer the small radii, not
/// ρ = 1): phase I is undecided, and the finish goes on from the homotopy's point
/// with the sides it shows (both sides below 10 √residual: biactive), whose tightened
/// NLP makes complementarity exact at (0, 0), f = 2; where HiGHS answers the LPEC
/// there, its descent direction leads on to the S-stationary (1, 0) or (0, 1), f = 1.
#[test]
fn an_undecided_phase_one_still_hands_the_point_to_the_finish() {
    let m = two_branches();
    let opts = HomotopyOptions { n_homotopy: Some(1), lpec_time_limit: 1e-12, ..fesd_mpcc::presets::scholtes_direct() };
    let r = MpccSolver::new(&direct(&m), opts).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    println!("{finish:?} {:?} {:?}", r.w, r.messages);
    assert_eq!(finish.phase_one.len(), 4);
    assert!(finish.phase_one.iter().any(|(_, v)| v.is_none()), "{:?}", finish.phase_one);
    assert!(finish.nlps >= 1);
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!(r.comp_residual <= 1e-12, "{:e}", r.comp_residual);
    match finish.stationarity {
        Stationarity::SStationary => assert!((r.objective - 1.0).abs() < 1e-8, "{}", r.objective),
        other => assert!(other == Stationarity::Unknown && (r.objective - 2.0).abs() < 1e-8, "{other:?} {}", r.objective),
    }
}

/// 0 ≤ x ⊥ y ≥ 0 with x, y ≥ 1: no feasible point. Every relaxed NLP below σ = 1 is
/// infeasible; phase I finds the violation min(x, y) ≥ 1 on every branch and reports
/// the MPCC locally infeasible, with the homotopy's status kept.
#[test]
fn phase_one_reports_a_locally_infeasible_mpcc() {
    let w = SX::sym("w", 2);
    let (x, y) = (w.at(0).unwrap(), w.at(1).unwrap());
    let mut m = Mpcc::new(w, &x + &y, x, y);
    m.lbw = vec![1.0, 1.0];
    m.w0 = vec![1.5, 1.5];
    let r = MpccSolver::new(&direct(&m), fesd_mpcc::presets::scholtes_direct()).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    println!("{:?} {finish:?} {:?} {:?}", r.status, r.w, r.messages);
    assert!(!r.status.is_converged());
    assert_eq!(finish.stationarity, Stationarity::LocallyInfeasible);
    assert_eq!(finish.phase_one.len(), 4);
    let last = finish.phase_one.last().unwrap().1.unwrap();
    assert!((last - 1.0).abs() < 1e-6, "violation at radius 1: {last}");
    assert!(finish.phase_one.iter().all(|(_, v)| v.unwrap() >= 1.0 - 1e-6));
    assert!(r.messages.iter().any(|m| m.contains("locally infeasible")), "{:?}", r.messages);
}

/// The same infeasible MPCC with the default schedule: from σ = 1e-4 on every NLP ends
/// at the same residual x y = 1, so the homotopy stops after `stalled_steps` = 3 such
/// NLPs (9 of its 13, the last at σ = 1e-6) and phase I reports local infeasibility;
/// with `stalled_steps` = 0 all 13 run, to the same verdict (both without the
/// direct-steering fallback, which then fails too: the MPCC is infeasible).
#[test]
fn a_stalled_residual_ends_the_homotopy() {
    let w = SX::sym("w", 2);
    let (x, y) = (w.at(0).unwrap(), w.at(1).unwrap());
    let mut m = Mpcc::new(w, &x + &y, x, y);
    m.lbw = vec![1.0, 1.0];
    m.w0 = vec![1.5, 1.5];
    let elastic_only = HomotopyOptions { direct_fallback: false, ..HomotopyOptions::default() };
    let stopped = MpccSolver::new(&m, elastic_only.clone()).unwrap().solve();
    let sigmas: Vec<f64> = stopped.steps.iter().map(|s| s.sigma).collect();
    println!("{sigmas:?} {:?}", stopped.messages);
    assert_eq!(stopped.steps.len(), 9);
    assert!((sigmas[8] / 1e-6 - 1.0).abs() < 1e-9, "last sigma {}", sigmas[8]);
    assert!(stopped.messages.iter().any(|m| m.contains("stalled_steps")), "{:?}", stopped.messages);
    assert_eq!(stopped.finish.as_ref().unwrap().stationarity, Stationarity::LocallyInfeasible);
    let all = MpccSolver::new(&m, HomotopyOptions { stalled_steps: 0, ..elastic_only }).unwrap().solve();
    assert_eq!(all.steps.len(), 13);
    assert!(!all.messages.iter().any(|m| m.contains("stalled_steps")), "{:?}", all.messages);
    assert_eq!(all.finish.as_ref().unwrap().stationarity, Stationarity::LocallyInfeasible);
    // With the fallback: its NLPs follow, the verdict and the point stay the first run's.
    let fallback = MpccSolver::new(&m, HomotopyOptions::default()).unwrap().solve();
    assert!(fallback.steps.len() > 9 && fallback.steps[9..].iter().all(|s| s.recovery), "{:?}", fallback.steps);
    assert!(fallback.messages.iter().any(|m| m.contains("direct_fallback")), "{:?}", fallback.messages);
    assert_eq!(fallback.finish.as_ref().unwrap().stationarity, Stationarity::LocallyInfeasible);
    assert_eq!(fallback.w, stopped.w);
}

/// min 10⁴ ((x − 0.005)² + (y − 0.005)²) s.t. 0 ≤ x ⊥ y ≥ 0 with comp_tol = 1e-4: the
/// first relaxed NLP ends at (0.005, 0.005), f = 0, x y = 2.5e-5 ≤ comp_tol. Both sides
/// are below the finish's threshold and comparable, so its tightened NLP holds both at
/// zero; on the way there the objective climbs to 0.5, past the allowance
/// max(1e-3, 10 √(2.5e-5)) = 0.05, and the guard stops it. The finish is a polish and
/// a certificate, not a second solve: it keeps the homotopy's point (within the
/// comp_tol the user asked for) and says `unknown`, instead of trading it for an exact
/// branch solution 0.25 worse (without the guard: the origin, then the LPEC's branch
/// (0.005, 0), S-stationary at f = 0.25).
#[test]
fn a_branch_nlp_that_climbs_away_from_the_homotopys_point_is_stopped() {
    let w = SX::sym("w", 2);
    let (x, y) = (w.at(0).unwrap(), w.at(1).unwrap());
    let f = ((&x - 0.005).powf(2.0) + (&y - 0.005).powf(2.0)) * 1e4;
    let mut m = Mpcc::new(w, f, x, y);
    m.lbw = vec![0.0, 0.0];
    m.w0 = vec![0.5, 0.5];
    let opts = HomotopyOptions { comp_tol: 1e-4, ..fesd_mpcc::presets::scholtes_direct() };
    let r = MpccSolver::new(&direct(&m), opts).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert!(r.objective < 1e-6, "f = {}", r.objective);
    assert!((r.w[0] - 0.005).abs() < 1e-5 && (r.w[1] - 0.005).abs() < 1e-5, "{:?}", r.w);
    assert_eq!(finish.stationarity, Stationarity::Unknown);
    assert_eq!(finish.biactive, 1);
    assert!(finish.iterations <= 10, "{} finish iterations", finish.iterations);
}

/// min (x − 1)² + (y − 1)² s.t. x = y, 0 ≤ x ⊥ y ≥ 0: the homotopy follows
/// x = y = √σ to the biactive origin, the only feasible point (f = 2). Its TNLP
/// (x = 0 and y = 0 fix both unknowns, the equality x = y is left with none) has too
/// few degrees of freedom for Ipopt.
fn biactive_with_a_degenerate_tnlp() -> Mpcc {
    nearest_to(1.0, 0.0)
}

#[test]
fn without_an_lpec_answer_the_rounded_branch_makes_complementarity_exact() {
    // An LPEC time limit too short for HiGHS to answer: the finish falls back on the
    // branch that keeps one side of the biactive pair at zero.
    let opts = HomotopyOptions { lpec_time_limit: 1e-12, ..fesd_mpcc::presets::scholtes_direct() };
    let r = MpccSolver::new(&direct(&biactive_with_a_degenerate_tnlp()), opts).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    println!("{finish:?} {:?} comp {:e}", r.w, r.comp_residual);
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert_eq!(finish.stationarity, Stationarity::Unknown);
    assert!(finish.lpec_value.is_none());
    assert!(r.comp_residual <= 1e-14, "{:e}", r.comp_residual);
    assert!((r.objective - 2.0).abs() < 1e-10, "{}", r.objective);
    // With time for the LPEC, the same point is certified.
    let r = MpccSolver::new(&direct(&biactive_with_a_degenerate_tnlp()), fesd_mpcc::presets::scholtes_direct()).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    assert!(finish.stationarity.is_certified(), "{finish:?}");
    assert!(r.comp_residual <= 1e-14 && (r.objective - 2.0).abs() < 1e-10, "{:e} {}", r.comp_residual, r.objective);
}

/// A finish NLP that runs out of iterations is resumed from its last primal-dual
/// iterate `finish_resumes` times: with two iterations per run the branch NLP out of
/// the origin cannot reach (1, 0) in one run, but does over several.
#[test]
fn finish_nlps_out_of_iterations_are_resumed() {
    let capped = HomotopyOptions { finish_max_iter: 2, ..fesd_mpcc::presets::scholtes_direct() };
    let r = MpccSolver::new(&direct(&pinned_to_the_origin()), capped.clone()).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    assert!((r.objective - 5.0).abs() < 1e-3 && !finish.stationarity.is_certified(), "{finish:?} f = {}", r.objective);
    let resumed = HomotopyOptions { finish_resumes: 20, ..capped };
    let r = MpccSolver::new(&direct(&pinned_to_the_origin()), resumed).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    assert!(finish.stationarity.is_certified(), "{finish:?}");
    assert!((r.objective - 4.0).abs() < 1e-8 && (r.w[0] - 1.0).abs() < 1e-8 && r.w[1].abs() < 1e-8, "{:?} f = {}", r.w, r.objective);
    assert!(finish.iterations > 2, "{finish:?}");
}

/// Three copies of `two_branches`: min Σ (x_i − 1)² + (y_i − 1)² s.t.
/// 0 ≤ x_i ⊥ y_i ≥ 0, from x = y = 0.5. Along the homotopy x_i = y_i = √σ, so a
/// handover at σ = 1e-2 shows three pairs with both sides 0.1.
fn three_symmetric_pairs() -> Mpcc {
    let w = SX::sym("w", 6);
    let (x, y) = (w.slice(0..3).unwrap(), w.slice(3..6).unwrap());
    let f = ((&x - 1.0).powf(2.0) + (&y - 1.0).powf(2.0)).sum();
    let mut m = Mpcc::new(w, f, x, y);
    m.w0 = vec![0.5; 6];
    m
}

#[test]
fn several_apparently_biactive_pairs_are_rounded_before_any_tightened_nlp() {
    // Handed over at σ = 1e-2, every pair looks biactive. The TNLP would hold all six
    // sides at zero (f = 6, not stationary: an LPEC and a branch NLP follow); the
    // branch NLP with the smaller side of each pair at zero reaches a solution with
    // f = 3 at once, strictly complementary, hence S-stationary.
    let opts = HomotopyOptions { finish_handover: 2e-2, ..fesd_mpcc::presets::scholtes_direct() };
    let r = MpccSolver::new(&direct(&three_symmetric_pairs()), opts).unwrap().solve();
    let finish = r.finish.clone().expect("finish report");
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert_eq!(r.steps.len(), 3, "σ = 1, 0.1, 1e-2, then the handover");
    assert_eq!(finish.stationarity, Stationarity::SStationary, "{finish:?}");
    assert_eq!((finish.nlps, finish.biactive, finish.branch_changes), (1, 0, 0), "{finish:?}");
    assert!((r.objective - 3.0).abs() < 1e-10 && r.comp_residual <= 1e-14, "f = {}, comp {:e}", r.objective, r.comp_residual);
    let on_a_branch = |(x, y): (&f64, &f64)| x.min(*y).abs() < 1e-10 && (x.max(*y) - 1.0).abs() < 1e-8;
    assert!(r.w[..3].iter().zip(&r.w[3..]).all(on_a_branch), "{:?}", r.w);
}

/// `m` with nosnoc's classic formulation (direct steering), which the schedule
/// `presets::scholtes_direct` is made for.
fn direct(m: &Mpcc) -> Mpcc {
    Mpcc { formulation: Formulation::direct(), ..m.clone() }
}

/// [`direct`] without the active-set finish.
fn without_finish(m: &Mpcc) -> Mpcc {
    Mpcc { formulation: Formulation { active_set_finish: false, ..Formulation::direct() }, ..m.clone() }
}

/// `constraint_violation` measures g's bounds and G, H ≥ 0 (here bounds on x, y), not
/// complementarity, and refuses a point of the wrong length or with a NaN.
#[test]
fn the_constraint_violation_of_a_point() {
    let mut solver = MpccSolver::new(&nearest_to(1.0, 0.5), HomotopyOptions::default()).unwrap();
    let at = |s: &mut MpccSolver, w: [f64; 2]| s.constraint_violation(&w).unwrap();
    assert_eq!(at(&mut solver, [0.5, 0.0]), 0.0);
    // Both sides positive: complementarity is violated, the constraints are not.
    assert_eq!(at(&mut solver, [0.4, 0.3]), 0.0);
    assert!((at(&mut solver, [0.2, 0.5]) - 0.3).abs() < 1e-12, "x − y = −0.3 below its bound 0");
    assert!((at(&mut solver, [2.0, 0.0]) - 1.5).abs() < 1e-12, "x − y = 2 above its bound 0.5");
    assert!((at(&mut solver, [-0.25, -0.5]) - 0.5).abs() < 1e-12, "y = −0.5 below G, H ≥ 0");
    assert!(solver.constraint_violation(&[0.0]).is_err());
    assert!(solver.constraint_violation(&[f64::NAN, 0.0]).is_err());
    // The solution's point is feasible.
    let r = solver.solve();
    assert!(solver.constraint_violation(&r.w).unwrap() <= 1e-8);
}
