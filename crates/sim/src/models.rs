//! Reference switched systems with known answers, shared by tests, examples and
//! benchmarks (FORMULATION §7 and the FESD papers).

use casadi::SX;
use fesd_model::{ModelError, PssModel, Subsystem};

/// One state, `ẋ = left` for `x < 0` and `ẋ = right` for `x > 0` (regions: x > 0
/// first, then x < 0). With left = 3, right = 1 this is `ẋ ∈ 2 − sign(x)`; with
/// left = 1, right = −1 the trajectory reaches the sliding mode `x = 0`.
pub fn scalar_switch(left: f64, right: f64) -> PssModel {
    let x = SX::sym("x", 1);
    PssModel::new(x.clone()).with_subsystem(Subsystem::new(x, vec![vec![1], vec![-1]], vec![SX::scalar(right), SX::scalar(left)]))
}

/// `ẋ ∈ −sign(x) + t` with time as second state `(x, t)`: from x(0) = 0 the solution
/// slides on x = 0 until t = 1, then leaves into x > 0.
pub fn leaving_sliding_mode() -> PssModel {
    let s = SX::sym("s", 2);
    let (x, t) = (s.at(0).expect("2 states"), s.at(1).expect("2 states"));
    let f_pos = SX::vertcat(&[&(&t - 1.0), &SX::scalar(1.0)]).expect("scalars");
    let f_neg = SX::vertcat(&[&(&t + 1.0), &SX::scalar(1.0)]).expect("scalars");
    PssModel::new(s.clone()).with_subsystem(Subsystem::new(x, vec![vec![1], vec![-1]], vec![f_pos, f_neg]))
}

/// The FESD paper's oscillator: `ẋ = A_1 x` outside and `ẋ = A_2 x` inside the unit
/// circle, `A_1 = [[1, ω], [−ω, 1]]`, `A_2 = [[1, −ω], [ω, 1]]`, ω = 2π. From
/// x(0) = (e^{−1}, 0) the switch happens at t = 1 in (1, 0).
pub fn oscillator() -> Result<PssModel, ModelError> {
    let w = 2.0 * std::f64::consts::PI;
    let x = SX::sym("x", 2);
    let a1 = SX::from_rows(&[&[1.0, w], &[-w, 1.0]])?;
    let a2 = SX::from_rows(&[&[1.0, -w], &[w, 1.0]])?;
    let c = x.dot(&x)? - 1.0;
    Ok(PssModel::new(x.clone()).with_subsystem(Subsystem::new(c, vec![vec![1], vec![-1]], vec![a1.mtimes(&x)?, a2.mtimes(&x)?])))
}

/// Initial state of [`oscillator`].
pub fn oscillator_x0() -> [f64; 2] {
    [(-1f64).exp(), 0.0]
}

/// Exact solution of [`oscillator`] from [`oscillator_x0`] for t ≥ 1.
pub fn oscillator_exact(t: f64) -> [f64; 2] {
    let w = 2.0 * std::f64::consts::PI;
    let r = (t - 1.0).exp();
    [r * (w * (t - 1.0)).cos(), -r * (w * (t - 1.0)).sin()]
}

/// The relay feedback system of Piiroinen & Kuznetsov (2008), eq. 32:
/// `ẋ = A x + b` for `x_1 < 0`, `A x − b` for `x_1 > 0`, with
/// `A = [[−(2ξω + 1), 1, 0], [−(2ξω + ω²), 0, 1], [−ω², 0, 0]]`, `b = (1, −2σ, 1)`.
pub fn relay_feedback(omega: f64, xi: f64, sigma: f64) -> Result<PssModel, ModelError> {
    let x = SX::sym("x", 3);
    let a = SX::from_rows(&[
        &[-(2.0 * xi * omega + 1.0), 1.0, 0.0],
        &[-(2.0 * xi * omega + omega * omega), 0.0, 1.0],
        &[-omega * omega, 0.0, 0.0],
    ])?;
    let b = SX::from_slice(&[1.0, -2.0 * sigma, 1.0]);
    let ax = a.mtimes(&x)?;
    Ok(PssModel::new(x.clone()).with_subsystem(Subsystem::new(x.at(0)?, vec![vec![1], vec![-1]], vec![ax.try_sub(&b)?, ax.try_add(&b)?])))
}

/// Four regions by the signs of `c = (x_1, x_2)` with constant dynamics per quadrant
/// (rows of S: (+,+), (+,−), (−,+), (−,−)). From (−1, −0.7) the trajectory crosses
/// x_1 = 0 at t = 1 (x_2 = −0.2) and x_2 = 0 at t = 1.2 (x_1 = 0.1).
pub fn four_quadrants() -> PssModel {
    let x = SX::sym("x", 2);
    let v = |a: f64, b: f64| SX::from_slice(&[a, b]);
    PssModel::new(x.clone()).with_subsystem(Subsystem::new(
        x,
        vec![vec![1, 1], vec![1, -1], vec![-1, 1], vec![-1, -1]],
        vec![v(0.2, 0.6), v(0.5, 1.0), v(1.0, 0.3), v(1.0, 0.5)],
    ))
}

/// Exact state of [`four_quadrants`] from (−1, −0.7) at t ≥ 1.2.
pub fn four_quadrants_exact(t: f64) -> [f64; 2] {
    [0.1 + 0.2 * (t - 1.2), 0.6 * (t - 1.2)]
}

/// Three blocks on a line with Coulomb friction (the reference implementation's
/// friction example): `x = (q1, q2, q3, v1, v2, v3, t)`, `q̇ = v`,
/// `v̇1 = −q1 + (q2 − q1) − v1 − F sign(v1)`, `v̇2 = (q1 − q2) + (q3 − q2) − v2 − F sign(v2)`,
/// `v̇3 = (q2 − q3) − v3 + 10 cos(π t) − F sign(v3)`, `ṫ = 1`, with friction force
/// `F = 0.3`: three independent subsystems, switching on v1, v2 and v3.
pub fn friction_blocks() -> Result<PssModel, ModelError> {
    let x = SX::sym("x", 7);
    let e = |i: usize| x.at(i);
    let (q1, q2, q3, v1, v2, v3, t) = (e(0)?, e(1)?, e(2)?, e(3)?, e(4)?, e(5)?, e(6)?);
    let pi = std::f64::consts::PI;
    let a1 = -&q1 + (&q2 - &q1) - &v1;
    let a2 = (&q1 - &q2) + (&q3 - &q2) - &v2;
    let a3 = (&q2 - &q3) - &v3 + (&t * pi).cos() * 10.0;
    let f0 = SX::vertcat(&[&v1, &v2, &v3, &a1, &a2, &a3, &SX::scalar(1.0)])?;
    let friction = 0.3;
    let mut model = PssModel::new(x.clone()).with_drift(f0);
    for i in 0..3 {
        // Region v_i > 0: −F on v̇_i; region v_i < 0: +F.
        let push = |sign: f64| {
            let mut v = vec![0.0; 7];
            v[3 + i] = sign * friction;
            SX::from_slice(&v)
        };
        model = model.with_subsystem(Subsystem::new(x.at(3 + i)?, vec![vec![1], vec![-1]], vec![push(-1.0), push(1.0)]));
    }
    Ok(model)
}

/// The initial state of [`friction_blocks`]: `(−1, 1, −1, −1, 1, 1, 0)`.
pub fn friction_blocks_x0() -> [f64; 7] {
    [-1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 0.0]
}
