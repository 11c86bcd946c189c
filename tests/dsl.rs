//! The model macros build what the builder builds: the same results to 1e-12, the
//! same kernels (the second build is a cache hit, no compiler run), results read by
//! name; set-expression regions against a hand-written sign matrix.

use fesd::cls::models::bouncing_ball;
use fesd::cls::ClsModel;
use fesd::dsl::{cls_model, pss_model, Vars};
use fesd::model::{PssModel, Representation, Subsystem};
use fesd::mpcc::{CompileOptions, Kernels};
use fesd::ocp::{problems, Ocp, OcpSolver};
use fesd::sim::{models, Simulator, SimulatorOptions};

pss_model! {
    /// The FESD paper's oscillator: spirals out inside the unit circle, in outside.
    Oscillator {
        const W = 2.0 * std::f64::consts::PI;
        states    { x: 2 }
        switching { c = dot(x, x) - 1.0 }
        regions   {
            outside: [+] => [mtimes(matrix(&[[1.0, W], [-W, 1.0]])?, x)],
            inside:  [-] => [mtimes(matrix(&[[1.0, -W], [W, 1.0]])?, x)],
        }
    }
}

pss_model! {
    /// Time-optimal car with a turbo.
    pub CarTurbo(n: usize, n_fe: usize, representation: Representation) {
        states    { q, v in -20.0..=20.0 }
        controls  { u in -5.0..=5.0 }
        switching { c = v - 10.0 }
        regions   { turbo: c > 0 => [v, u * 3.0], normal: c < 0 => [v, u * 1.0] }
        ocp time_optimal {
            intervals n, elements n_fe, horizon free(1.0..=30.0, guess 15.0),
            x0 [0.0, 0.0], minimize T, terminal { q == 200.0, v == 0.0 },
            options.fesd.representation = representation,
        }
    }
}

cls_model! {
    /// The 1-D bouncing ball.
    Ball(eps: f64) {
        const G = 9.81;
        q { y }
        v { vy }
        forces [-G]
        contacts { ground: gap y, restitution eps }
    }
}

/// A model whose operands are parenthesized: the checked operations the macro makes of
/// `+ - * /` must not leave parentheses rustc's `unused_parens` lint flags.
#[deny(unused_parens)]
mod parenthesized {
    use fesd::dsl::pss_model;

    pss_model! {
        /// ẋ = −1 above x = 1/2 and +1 below: reaches 1/2 at t = 1/2 from x = 1, then slides.
        pub Parenthesized {
            states    { x }
            switching { c = (x - 0.25) - (0.25) }
            regions   {
                above: c > 0 => [((x - x) - (1.0)) / ((2.0) * (0.5))],
                below: c < 0 => [(x - x) + (1.0) * (1.0)],
            }
            ocp settle { intervals 2, horizon 1.0, x0 [1.0], lagrange ((x) - (0.5)) * ((x) - 0.5), mayer (x) * (2.0) }
        }
    }
}

#[test]
fn parenthesized_operands_expand_without_lint_and_simulate() {
    let model = parenthesized::Parenthesized::new().unwrap();
    let mut opts: SimulatorOptions = SimulatorOptions { step: 0.1, n_steps: 10, ..Default::default() };
    opts.fesd.n_fe = 2;
    let r = Simulator::new(&model.model, opts).unwrap().simulate(&[1.0], &[], &[]).unwrap();
    let traj = parenthesized::Parenthesized::trajectory(&r).unwrap();
    assert!((r.switch_times[0] - 0.5).abs() < 1e-6, "switch at {}", r.switch_times[0]);
    assert!((traj.x.x.last().unwrap() - 0.5).abs() < 1e-6);
    let ocp = model.settle().unwrap();
    assert!(ocp.lagrange.is_some() && ocp.mayer.is_some());
}

fn oscillator_options() -> SimulatorOptions {
    let t_end = std::f64::consts::FRAC_PI_2;
    let mut opts: SimulatorOptions = SimulatorOptions { step: t_end / 29.0, n_steps: 29, ..Default::default() };
    opts.fesd.n_s = 3;
    opts.fesd.n_fe = 2;
    opts
}

fn max_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().flatten().zip(b.iter().flatten()).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max)
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max)
}

#[test]
fn the_oscillator_simulates_as_the_builder_model() {
    let built = models::oscillator().unwrap();
    let osc = Oscillator::new().unwrap();
    let x0 = models::oscillator_x0();
    let a = Simulator::new(&built, oscillator_options()).unwrap().simulate(&x0, &[], &[]).unwrap();
    let b = Simulator::new(&osc.model, oscillator_options()).unwrap().simulate(&x0, &[], &[]).unwrap();
    assert!(a.completed && b.completed);
    assert!(max_diff(&a.switch_times, &b.switch_times) <= 1e-12, "{:?} vs {:?}", a.switch_times, b.switch_times);
    assert!(max_diff(a.x_final(), b.x_final()) <= 1e-12);
    assert!(max_diff(&a.t, &b.t) <= 1e-12 && max_diff(&a.h, &b.h) <= 1e-12);
    assert!(max_difference(&a.x, &b.x) <= 1e-12);
    // The switch at t = 1 (FORMULATION §7), read by name.
    assert!((b.switch_times[0] - 1.0).abs() < 1e-6);
    let traj = Oscillator::trajectory(&b).unwrap();
    for (k, row) in b.x.iter().enumerate() {
        assert_eq!([traj.x.x[0][k], traj.x.x[1][k]], [row[0], row[1]]);
    }
}

#[test]
fn the_car_ocp_solves_as_the_builder_ocp_from_the_same_kernels() {
    for representation in [Representation::Stewart, Representation::Step] {
        let dir = tempfile::tempdir().unwrap();
        let compile = CompileOptions { cache_dir: Some(dir.path().to_path_buf()), ..CompileOptions::default() };
        let solve = |ocp: &Ocp| {
            let mut ocp = ocp.clone();
            ocp.options.kernels = Kernels::Compiled;
            let mut solver = OcpSolver::with_compile_options(&ocp, &compile).unwrap();
            let r = solver.solve().unwrap();
            (solver.build_report(), r)
        };
        let (_, a) = solve(&problems::car_turbo(10, 3, representation).unwrap());
        let runs = fesd::codegen::compiler_runs();
        let car = CarTurbo::new(10, 3, representation).unwrap();
        let (report, b) = solve(&car.time_optimal().unwrap());
        assert!(report.cache_hit, "{representation:?}: {report:?}");
        assert_eq!(fesd::codegen::compiler_runs(), runs, "no compiler run for the macro's model");
        assert!(a.status.is_converged() && b.status.is_converged());
        assert!((a.t_final - b.t_final).abs() <= 1e-12 && (b.t_final - 40.0 / 3.0).abs() < 1e-6, "{} vs {}", a.t_final, b.t_final);
        assert!(max_difference(&a.x, &b.x) <= 1e-12 && max_difference(&a.u, &b.u) <= 1e-12 && max_diff(&a.h, &b.h) <= 1e-12);
        let sol = CarTurbo::solution(&b).unwrap();
        for (k, row) in b.x.iter().enumerate() {
            assert_eq!((sol.x.q[k], sol.x.v[k]), (row[0], row[1]));
        }
        for (k, row) in b.u.iter().enumerate() {
            assert_eq!(sol.u.u[k], row[0]);
        }
        assert_eq!(sol.t_final, b.t_final);
    }
}

#[test]
fn the_car_ocp_has_the_builder_ocps_fields() {
    let car = CarTurbo::new(10, 3, Representation::Step).unwrap();
    let (a, b) = (problems::car_turbo(10, 3, Representation::Step).unwrap(), car.time_optimal().unwrap());
    assert_eq!(a.horizon, b.horizon);
    assert_eq!((&a.x0, a.time_cost, a.n_intervals), (&b.x0, b.time_cost, b.n_intervals));
    assert_eq!((&a.u_lower, &a.u_upper, &a.u_guess), (&b.u_lower, &b.u_upper, &b.u_guess));
    assert_eq!((&a.x_lower, &a.x_upper), (&b.x_lower, &b.x_upper));
    assert_eq!(a.options, b.options);
    let (ta, tb) = (a.terminal.unwrap(), b.terminal.unwrap());
    assert_eq!((ta.lower, ta.upper), (tb.lower, tb.upper));
    let (lo, hi) = car.x_bounds();
    assert_eq!((lo.flatten(), hi.flatten()), (vec![f64::NEG_INFINITY, -20.0], vec![f64::INFINITY, 20.0]));
}

#[test]
fn the_bouncing_ball_simulates_as_the_builder_model() {
    let opts = || SimulatorOptions::<ClsModel> { step: 0.15, n_steps: 20, ..Default::default() };
    let a = Simulator::<ClsModel>::new(&bouncing_ball(1.0), opts()).unwrap().simulate_from(&[0.8], &[0.0], &[], &[]).unwrap();
    let ball = Ball::new(1.0).unwrap();
    let b = Simulator::<ClsModel>::new(&ball.model, opts()).unwrap().simulate_from(&[0.8], &[0.0], &[], &[]).unwrap();
    assert!(a.failed_steps().is_empty() && b.failed_steps().is_empty());
    assert_eq!(a.impacts.len(), b.impacts.len());
    for (p, q) in a.impacts.iter().zip(&b.impacts) {
        assert!((p.time - q.time).abs() <= 1e-12);
    }
    assert!(max_diff(a.q_final(), b.q_final()) <= 1e-12 && max_diff(a.v_final(), b.v_final()) <= 1e-12);
    assert!(max_difference(&a.q, &b.q) <= 1e-12 && max_difference(&a.v, &b.v) <= 1e-12);
    assert!((b.impacts[0].time - 0.4038550).abs() < 1e-6);
    let traj = Ball::trajectory(&b).unwrap();
    for (k, (q, v)) in b.q.iter().zip(&b.v).enumerate() {
        assert_eq!((traj.q.y[k], traj.v.vy[k]), (q[0], v[0]));
    }
}

pss_model! {
    /// Eight switching functions c_j = x_j; the regions as set expressions.
    Sets {
        states    { x: 8 }
        switching {
            c0 = x.at(0)?, c1 = x.at(1)?, c2 = x.at(2)?, c3 = x.at(3)?,
            c4 = x.at(4)?, c5 = x.at(5)?, c6 = x.at(6)?, c7 = x.at(7)?,
        }
        regions {
            a: c0 > 0 && !(c1 > 0 && c2 > 0) => [ones(0.5)],
            b: c0 > 0 && c1 > 0 && c2 > 0 => [ones(1.0)],
            c: c0 < 0 && (c3 > 0 || c4 > 0) => [ones(0.25)],
            d: c0 < 0 && !(c3 > 0 || c4 > 0) && (c5 > 0 && c6 > 0 || c7 < 0) => [ones(2.0)],
            e: c0 < 0 && !(c3 > 0 || c4 > 0) && !(c5 > 0 && c6 > 0 || c7 < 0) => [ones(-0.5)],
        }
    }
}

/// The same value in all eight states' derivatives (a test helper called inside the macro).
fn ones(v: f64) -> casadi::SX {
    casadi::SX::from_slice(&[v; 8])
}

/// The regions of `Sets` as a sign matrix over the 8 signs: every region split into its
/// sign patterns, written by hand.
fn sets_by_sign_matrix() -> PssModel {
    use fesd::casadi::SX;
    let x = SX::sym("x", 8);
    let c = x.clone();
    let mut rows = Vec::new();
    let mut f = Vec::new();
    // a: c0 > 0 and (c1 < 0 or c2 < 0)
    for (s1, s2) in [(-1, 1), (-1, -1), (1, -1)] {
        rows.push(vec![1, s1, s2, 0, 0, 0, 0, 0]);
        f.push(ones(0.5));
    }
    rows.push(vec![1, 1, 1, 0, 0, 0, 0, 0]);
    f.push(ones(1.0));
    // c: c0 < 0 and (c3 > 0 or c4 > 0)
    for (s3, s4) in [(1, 1), (1, -1), (-1, 1)] {
        rows.push(vec![-1, 0, 0, s3, s4, 0, 0, 0]);
        f.push(ones(0.25));
    }
    // d, e: c0 < 0, c3 < 0, c4 < 0, split by (c5 > 0 ∧ c6 > 0) ∨ c7 < 0
    for s5 in [1, -1] {
        for s6 in [1, -1] {
            for s7 in [1, -1] {
                let inside = (s5 > 0 && s6 > 0) || s7 < 0;
                rows.push(vec![-1, 0, 0, -1, -1, s5, s6, s7]);
                f.push(ones(if inside { 2.0 } else { -0.5 }));
            }
        }
    }
    PssModel::new(x).with_subsystem(Subsystem::new(c, rows, f))
}

#[test]
fn set_regions_partition_and_simulate_as_the_sign_matrix() {
    use fesd::casadi::{Function, SX};
    let sets = Sets::new().unwrap();
    // θ of every region from α = (1 + sign-ish) / 2 at random points: sums to 1.
    let fesd::model::Regions::Sets(list) = &sets.model.subsystems[0].regions else { panic!("set regions expected") };
    let alpha = SX::sym("a", 8);
    let a = alpha.entries().unwrap();
    let theta: Vec<SX> = list.iter().map(|r| r.theta(&a)).collect();
    let sum = theta.iter().skip(1).fold(theta[0].clone(), |acc, t| &acc + t);
    let f = Function::new("sum", &[("alpha", &alpha)], &[("sum", &sum)]).unwrap();
    let mut seed = 7u64;
    for _ in 0..50 {
        let point: Vec<f64> = (0..8)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect();
        let s = f.eval_dense(&[&point]).unwrap()[0][0];
        assert!((s - 1.0).abs() < 1e-12, "θ sums to {s}");
    }
    // Set regions have no Stewart indicators: the step representation for both.
    let mut opts: SimulatorOptions = SimulatorOptions { step: 0.1, n_steps: 8, ..Default::default() };
    opts.fesd.n_fe = 2;
    opts.fesd.representation = Representation::Step;
    let x0 = [0.3, -0.2, 0.4, -0.1, -0.3, 0.2, 0.5, 0.1];
    let hand = Simulator::new(&sets_by_sign_matrix(), opts.clone()).unwrap().simulate(&x0, &[], &[]).unwrap();
    let mac = Simulator::new(&sets.model, opts).unwrap().simulate(&x0, &[], &[]).unwrap();
    assert!(hand.completed && mac.completed);
    assert!(!mac.switch_times.is_empty(), "the trajectory crosses a region boundary");
    // The two may cut their steps differently; the trajectory is piecewise linear with
    // its kinks on both grids, so the hand-written one interpolates exactly.
    for (t, x) in mac.t.iter().zip(&mac.x) {
        let k = hand.t.partition_point(|s| s <= t).clamp(1, hand.t.len() - 1);
        let w = (t - hand.t[k - 1]) / (hand.t[k] - hand.t[k - 1]);
        let at: Vec<f64> = hand.x[k - 1].iter().zip(&hand.x[k]).map(|(a, b)| a + w * (b - a)).collect();
        assert!(max_diff(x, &at) <= 1e-7, "t = {t}: {x:?} vs {at:?}");
    }
    assert!(max_diff(hand.x_final(), mac.x_final()) <= 1e-7);
    assert!(max_diff(&hand.switch_times, &mac.switch_times) <= 1e-7);
    // Sign changes: x3 = −0.1 + 0.5 t at 0.2; x1 = −0.2 + 0.5 t at 0.4, from region a
    // to region b (ẋ = 1 from then on); x4 = −0.1 + (t − 0.4) at 0.5.
    assert!(max_diff(&mac.switch_times, &[0.2, 0.4, 0.5]) < 1e-7, "{:?}", mac.switch_times);
}

pss_model! {
    /// Every section of the grammar at once.
    Full(n: usize, w: f64) {
        const K = 2.0 * w;
        states    { q, v in -1.0..=1.0 = 0.5, r: 2 }
        controls  { u in -5.0..=5.0 = 1.0 }
        params    { k = 1.0 free in 0.0..=2.0, m: 2 = 3.0 }
        drift     [0.0, 0.0, r * 0.0]
        switching { c = v - K, d = q }
        regions   {
            a: c > 0 && !(d > 0) => [v, u, r],
            b: [-, +] => { der(q) = v; der(v) = u * k; der(r) = r },
            e: c < 0 && d < 0 => [v, u, -r],
            f: [+, +] => [v, u, r],
        }
        subsystem s {
            switching  { g = q }
            regions    { up: [+] => [v, u, r], down: [-] => [v, 0.0, r] }
            indicators [-g, g]
        }
        ocp go {
            intervals n, elements 2, horizon free(1.0..=3.0, guess 2.0), x0 free [0.0, 0.0, 0.0, 0.0],
            minimize T, lagrange u * u, mayer q * q,
            terminal { q == 1.0, v in -1.0..=1.0, r == [0.0, 1.0] },
            soft_terminal l1(10.0) { v >= 0.0 },
            path element_ends { q + v <= 3.0 },
            tracking { outputs [q], weight vec![1.0], reference vec![vec![0.0]; n] },
            p { k = 1.5, m = [4.0, 5.0] },
            options.fesd.n_s = 3,
        }
    }
}

cls_model! {
    /// A block with two contacts, a mass matrix from a param, and an OCP.
    Block(mu: f64) {
        q { x, y in 0.0..=2.0 }
        v { vx, vy }
        controls { u }
        params { m = 2.0 }
        mass [[m, 0.0], [0.0, m]]
        forces [u, -9.81 * m]
        contacts {
            floor: gap y, restitution 0.5, friction mu along [1.0, 0.0],
            wall: gap x + 1.0, normal [1.0, 0.0],
        }
        ocp push { intervals 5, horizon 1.0, q0 [0.0, 0.5], v0 [0.0, 0.0], lagrange u * u, terminal { x == 1.0 } }
    }
}

#[test]
fn every_section_expands_to_the_builder_fields() {
    use fesd::model::Regions;
    use fesd::ocp::{Horizon, InitialState, PathPoints, TerminalPenalty};
    let full = Full::new(4, 0.5).unwrap();
    let m = &full.model;
    assert_eq!((m.n_x(), m.u.nrow(), m.p.nrow(), m.subsystems.len()), (4, 1, 3, 2));
    assert!(m.f0.is_some());
    // Conjunctions are sign rows, so the first subsystem keeps Stewart's sign matrix.
    assert_eq!(m.subsystems[0].regions, Regions::SignMatrix(vec![vec![1, -1], vec![-1, 1], vec![-1, -1], vec![1, 1]]));
    assert_eq!(m.subsystems[1].n_c(), 1);
    assert!(m.subsystems[1].indicators.is_some());
    assert_eq!(full.p_default().flatten(), vec![1.0, 3.0, 3.0]);
    assert_eq!(Vars::<f64>::flatten(&full.u_default()), vec![1.0]);
    assert_eq!(FullX::<f64>::names(), ["q", "v", "r[0]", "r[1]"]);
    let ocp = full.go().unwrap();
    ocp.validate().unwrap();
    assert_eq!(ocp.horizon, Horizon::Free { lower: 1.0, upper: 3.0, guess: 2.0 });
    let inf = f64::INFINITY;
    assert_eq!(ocp.x0, InitialState::Free { lower: vec![-inf, -1.0, -inf, -inf], upper: vec![inf, 1.0, inf, inf], guess: vec![0.0; 4] });
    assert_eq!((ocp.n_intervals, ocp.options.fesd.n_fe, ocp.options.fesd.n_s, ocp.time_cost), (4, 2, 3, 1.0));
    assert_eq!((ocp.u_lower.clone(), ocp.u_upper.clone(), ocp.u_guess.clone()), (vec![-5.0], vec![5.0], vec![1.0]));
    assert_eq!(ocp.p, vec![1.5, 4.0, 5.0]);
    assert_eq!(ocp.free_parameters.len(), 1);
    assert_eq!((ocp.free_parameters[0].index, ocp.free_parameters[0].guess), (0, 1.5));
    let t = ocp.terminal.as_ref().unwrap();
    assert_eq!((t.expr.nrow(), t.lower.clone(), t.upper.clone()), (4, vec![1.0, -1.0, 0.0, 1.0], vec![1.0, 1.0, 0.0, 1.0]));
    let soft = ocp.soft_terminal.as_ref().unwrap();
    assert_eq!(
        (soft.penalty, soft.constraint.lower.clone(), soft.constraint.upper.clone()),
        (TerminalPenalty::L1 { weight: 10.0 }, vec![0.0], vec![inf])
    );
    assert_eq!((ocp.path.len(), ocp.path[0].at, ocp.path[0].upper.clone()), (1, PathPoints::ElementEnds, vec![3.0]));
    assert_eq!(ocp.tracking.as_ref().unwrap().reference.len(), 4);
    assert!(ocp.lagrange.is_some() && ocp.mayer.is_some());

    let block = Block::new(0.3).unwrap();
    let model = &block.model;
    assert_eq!((model.contacts.len(), model.contacts[0].restitution, model.contacts[0].friction), (2, 0.5, 0.3));
    assert!(model.contacts[1].normal.is_some() && model.contacts[1].tangent.is_none());
    let ocp = block.push().unwrap();
    ocp.validate().unwrap();
    assert_eq!(ocp.x0, InitialState::Fixed(vec![0.0, 0.5, 0.0, 0.0]));
    assert_eq!((ocp.x_lower.clone(), ocp.x_upper.clone()), (vec![-inf, 0.0, -inf, -inf], vec![inf, 2.0, inf, inf]));
    assert_eq!(ocp.p, vec![2.0]);
}

#[test]
fn a_shape_mismatch_is_an_error_naming_the_source_line() {
    pss_model! {
        /// `dot` of a 2-vector with a scalar does not fit.
        Misfit {
            states    { x: 2 }
            switching { c = dot(x, 1.0) }
            regions   { a: [+] => [x], b: [-] => [x * 2.0] }
        }
    }
    pss_model! {
        /// A 2-vector entry for the scalar state `y`.
        WrongEntry {
            states    { y, z }
            switching { c = y }
            regions   { a: [+] => [y, z], b: [-] => [SX::from_slice(&[1.0, 2.0]), z] }
        }
    }
    let err = Misfit::new().unwrap_err().to_string();
    assert!(err.contains("tests/dsl.rs:"), "{err}");
    let err = WrongEntry::new().unwrap_err().to_string();
    assert!(err.contains("the dynamics of `y` in region `b` is 2x1, expected 1x1") && err.contains("tests/dsl.rs:"), "{err}");
}

cls_model! {
    /// The `fesd::ocp` docs' box pushed 1 m against friction, rest to rest.
    PushedBox {
        q { x, y }
        v { vx, vy }
        controls { u in -30.0..=30.0 }
        forces [u, -9.81]
        contacts { ground: gap y - 0.5, friction 0.2 along [1.0, 0.0] }
        ocp push {
            intervals 10, horizon 2.0, q0 [0.0, 0.5], v0 [0.0, 0.0],
            lagrange u * u, terminal { x == 1.0, vx == 0.0, vy == 0.0 },
        }
    }
}

#[test]
fn a_rigid_body_ocp_solves_as_documented_and_reads_by_name() {
    let r = OcpSolver::new(&PushedBox::new().unwrap().push().unwrap()).unwrap().solve().unwrap();
    assert!(r.comp_residual <= 1e-9 && (r.cost - 9.21404).abs() < 1e-4, "{}", r.cost);
    let sol = PushedBox::solution(&r).unwrap();
    for (k, row) in r.x.iter().enumerate() {
        assert_eq!([sol.q.x[k], sol.q.y[k], sol.v.vx[k], sol.v.vy[k]], [row[0], row[1], row[2], row[3]]);
    }
    assert!((sol.q.x.last().unwrap() - 1.0).abs() < 1e-6);
    assert_eq!(sol.u.u.len(), 10);
}

/// A macro model's OCP exports as a C solver directory (`.export(name, dir)`), which
/// plain `make` builds and runs to the documented cost.
#[test]
fn a_macro_models_ocp_exports_to_c() {
    use fesd::export::ExportOcp;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dsl_box");
    let exported = PushedBox::new().unwrap().push().unwrap().export("dsl_box", &dir).unwrap();
    assert!(exported.dir.join("include/dsl_box_solver.h").is_file());
    let out = std::process::Command::new("make").arg("-C").arg(&dir).arg("test").env_clear().env("PATH", "/usr/bin:/bin").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let cost: f64 = stdout.lines().find_map(|l| l.strip_prefix("cost = ")).unwrap().parse().unwrap();
    assert!((cost - 9.21404).abs() < 1e-4, "{cost}");
}
