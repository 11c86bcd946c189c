//! Butcher tableaus `(A, b, c)` of Runge–Kutta methods for any number of stages,
//! computed from their collocation points and simplifying assumptions rather than
//! copied from tables.
//!
//! | family | points `c` | defined by | order |
//! |---|---|---|---|
//! | [`RkFamily::RadauIIA`] | right Radau (c_s = 1) | collocation, C(s) | 2s − 1 |
//! | [`RkFamily::RadauIA`] | left Radau (c_1 = 0) | D(s) | 2s − 1 |
//! | [`RkFamily::RadauI`] | left Radau (c_1 = 0) | collocation, C(s) | 2s − 1 |
//! | [`RkFamily::GaussLegendre`] | Gauss | collocation, C(s) | 2s |
//! | [`RkFamily::LobattoIIIA`] | Lobatto (c_1 = 0, c_s = 1) | collocation, C(s) | 2s − 2 |
//! | [`RkFamily::LobattoIIIB`] | Lobatto | D(s) | 2s − 2 |
//! | [`RkFamily::LobattoIIIC`] | Lobatto | a_i1 = b_1, C(s − 1) | 2s − 2 |
//! | [`RkFamily::Explicit`] | Euler, Heun, Kutta, classic RK4 (s ≤ 4) | classical | s |
//!
//! Here `C(q)`: `Σ_j a_ij c_j^{k−1} = c_i^k / k` for k ≤ q, and
//! `D(q)`: `Σ_i b_i c_i^{k−1} a_ij = b_j (1 − c_j^k) / k` for k ≤ q. The weights `b` are
//! the quadrature weights of the points (`∫_0^1` of the Lagrange basis).

use serde::{Deserialize, Serialize};

/// Runge–Kutta method families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RkFamily {
    /// Radau IIA: stiffly accurate collocation at the right Radau points (default of FESD).
    RadauIIA,
    /// Radau IA.
    RadauIA,
    /// Radau I (collocation at the left Radau points).
    RadauI,
    /// Gauss–Legendre collocation.
    GaussLegendre,
    /// Lobatto IIIA collocation (s ≥ 2).
    LobattoIIIA,
    /// Lobatto IIIB (s ≥ 2).
    LobattoIIIB,
    /// Lobatto IIIC (s ≥ 2).
    LobattoIIIC,
    /// Explicit Runge–Kutta: Euler (1), Heun (2), Kutta (3), classic RK4 (4).
    Explicit,
}

impl RkFamily {
    /// Every family.
    pub const ALL: [RkFamily; 8] = [
        RkFamily::RadauIIA,
        RkFamily::RadauIA,
        RkFamily::RadauI,
        RkFamily::GaussLegendre,
        RkFamily::LobattoIIIA,
        RkFamily::LobattoIIIB,
        RkFamily::LobattoIIIC,
        RkFamily::Explicit,
    ];

    /// Snake-case name (`radau_iia`, `gauss_legendre`, …).
    pub fn name(self) -> &'static str {
        match self {
            RkFamily::RadauIIA => "radau_iia",
            RkFamily::RadauIA => "radau_ia",
            RkFamily::RadauI => "radau_i",
            RkFamily::GaussLegendre => "gauss_legendre",
            RkFamily::LobattoIIIA => "lobatto_iiia",
            RkFamily::LobattoIIIB => "lobatto_iiib",
            RkFamily::LobattoIIIC => "lobatto_iiic",
            RkFamily::Explicit => "explicit_rk",
        }
    }

    /// Classical order with `s` stages.
    pub fn order(self, s: usize) -> usize {
        match self {
            RkFamily::RadauIIA | RkFamily::RadauIA | RkFamily::RadauI => 2 * s - 1,
            RkFamily::GaussLegendre => 2 * s,
            RkFamily::LobattoIIIA | RkFamily::LobattoIIIB | RkFamily::LobattoIIIC => 2 * s - 2,
            RkFamily::Explicit => s,
        }
    }

    /// Allowed stage counts `(min, max)`.
    pub fn stage_range(self) -> (usize, usize) {
        match self {
            RkFamily::LobattoIIIA | RkFamily::LobattoIIIB | RkFamily::LobattoIIIC => (2, 9),
            RkFamily::Explicit => (1, 4),
            _ => (1, 9),
        }
    }
}

impl std::str::FromStr for RkFamily {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        RkFamily::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("unknown Runge–Kutta family '{s}'; one of {:?}", RkFamily::ALL.map(|f| f.name())))
    }
}

/// A stage count outside the family's range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{family} needs between {min} and {max} stages, got n_s = {n_s}")]
pub struct StageCountError {
    /// The family's name.
    pub family: &'static str,
    /// Requested stages.
    pub n_s: usize,
    /// Minimum.
    pub min: usize,
    /// Maximum.
    pub max: usize,
}

/// A Butcher tableau.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ButcherTableau {
    /// The family.
    pub family: RkFamily,
    /// `A`, row-major `s × s`.
    pub a: Vec<Vec<f64>>,
    /// Weights `b`.
    pub b: Vec<f64>,
    /// Nodes `c`.
    pub c: Vec<f64>,
}

impl ButcherTableau {
    /// The tableau of `family` with `n_s` stages.
    pub fn new(family: RkFamily, n_s: usize) -> Result<Self, StageCountError> {
        let (min, max) = family.stage_range();
        if n_s < min || n_s > max {
            return Err(StageCountError { family: family.name(), n_s, min, max });
        }
        let s = n_s;
        let (a, b, c) = match family {
            RkFamily::GaussLegendre => collocation(gauss_points(s)),
            RkFamily::RadauIIA => collocation(radau_right_points(s)),
            RkFamily::RadauI => collocation(radau_left_points(s)),
            RkFamily::LobattoIIIA => collocation(lobatto_points(s)),
            RkFamily::RadauIA => from_d_condition(radau_left_points(s)),
            RkFamily::LobattoIIIB => from_d_condition(lobatto_points(s)),
            RkFamily::LobattoIIIC => lobatto_iiic(lobatto_points(s)),
            RkFamily::Explicit => explicit(s),
        };
        Ok(ButcherTableau { family, a, b, c })
    }

    /// Number of stages.
    pub fn n_s(&self) -> usize {
        self.b.len()
    }

    /// Classical order.
    pub fn order(&self) -> usize {
        self.family.order(self.n_s())
    }

    /// True if the last stage lies at the right end of the step (`c_s = 1`), so stage
    /// `s` is the step's end point (Radau IIA, Lobatto).
    pub fn last_stage_is_endpoint(&self) -> bool {
        (self.c[self.n_s() - 1] - 1.0).abs() < 1e-14
    }

    /// True if the last row of `A` equals `b` (and so `c_s = 1`): the last stage value
    /// *is* the step's end value `x_n + h Σ b_j k_j` (Radau IIA, Lobatto IIIA and IIIC;
    /// not Lobatto IIIB or explicit RK4, whose last stage lies at `c = 1` but at
    /// another state).
    pub fn is_stiffly_accurate(&self) -> bool {
        let s = self.n_s();
        self.last_stage_is_endpoint() && self.a[s - 1].iter().zip(&self.b).all(|(a, b)| (a - b).abs() < 1e-14)
    }

    /// True if `A` is strictly lower triangular.
    pub fn is_explicit(&self) -> bool {
        (0..self.n_s()).all(|i| (i..self.n_s()).all(|j| self.a[i][j] == 0.0))
    }

    /// `max_k |Σ_i b_i c_i^{k−1} − 1/k|` for k = 1..=q (quadrature order condition B(q)).
    pub fn b_condition_error(&self, q: usize) -> f64 {
        (1..=q)
            .map(|k| {
                let sum: f64 = (0..self.n_s()).map(|i| self.b[i] * self.c[i].powi(k as i32 - 1)).sum();
                (sum - 1.0 / k as f64).abs()
            })
            .fold(0.0, f64::max)
    }

    /// `max |Σ_j a_ij c_j^{k−1} − c_i^k/k|` for k = 1..=q (stage order condition C(q)).
    pub fn c_condition_error(&self, q: usize) -> f64 {
        let s = self.n_s();
        let mut worst: f64 = 0.0;
        for k in 1..=q {
            for i in 0..s {
                let sum: f64 = (0..s).map(|j| self.a[i][j] * self.c[j].powi(k as i32 - 1)).sum();
                worst = worst.max((sum - self.c[i].powi(k as i32) / k as f64).abs());
            }
        }
        worst
    }

    /// `max |Σ_i b_i c_i^{k−1} a_ij − b_j (1 − c_j^k)/k|` for k = 1..=q (condition D(q)).
    pub fn d_condition_error(&self, q: usize) -> f64 {
        let s = self.n_s();
        let mut worst: f64 = 0.0;
        for k in 1..=q {
            for j in 0..s {
                let sum: f64 = (0..s).map(|i| self.b[i] * self.c[i].powi(k as i32 - 1) * self.a[i][j]).sum();
                worst = worst.max((sum - self.b[j] * (1.0 - self.c[j].powi(k as i32)) / k as f64).abs());
            }
        }
        worst
    }
}

// ---------------------------------------------------------------- points

/// Legendre polynomial P_n(x) and its derivative, by the three-term recurrence.
fn legendre(n: usize, x: f64) -> (f64, f64) {
    if n == 0 {
        return (1.0, 0.0);
    }
    let (mut p0, mut p1) = (1.0, x);
    for k in 2..=n {
        let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
        p0 = p1;
        p1 = p2;
    }
    // P_n' from (x² − 1) P_n' = n (x P_n − P_{n−1}); at x = ±1 use P_n'(±1) = (±1)^{n−1} n(n+1)/2.
    let dp = if (x * x - 1.0).abs() < 1e-300 {
        let sign = if x > 0.0 || n % 2 == 1 { 1.0 } else { -1.0 };
        sign * (n * (n + 1)) as f64 / 2.0
    } else {
        n as f64 * (x * p1 - p0) / (x * x - 1.0)
    };
    (p1, dp)
}

/// All roots in (−1, 1) of `f`, found by sampling, bisection and Newton polishing.
fn roots_in_open_interval(f: impl Fn(f64) -> f64, expected: usize) -> Vec<f64> {
    let samples = 20_000;
    let mut roots = Vec::with_capacity(expected);
    let lo = -1.0 + 1e-12;
    let step = (2.0 - 2e-12) / samples as f64;
    let mut xa = lo;
    let mut fa = f(xa);
    for i in 1..=samples {
        let xb = lo + i as f64 * step;
        let fb = f(xb);
        if fa == 0.0 {
            roots.push(xa);
        } else if fa * fb < 0.0 {
            let (mut a, mut b, mut fa_) = (xa, xb, fa);
            for _ in 0..200 {
                let m = 0.5 * (a + b);
                let fm = f(m);
                if fm == 0.0 || (b - a) < 1e-17 {
                    a = m;
                    b = m;
                    break;
                }
                if fa_ * fm < 0.0 {
                    b = m;
                } else {
                    a = m;
                    fa_ = fm;
                }
            }
            roots.push(0.5 * (a + b));
        }
        xa = xb;
        fa = fb;
    }
    debug_assert_eq!(roots.len(), expected, "root count");
    roots
}

/// Maps roots on [−1, 1] to [0, 1], sorted.
fn to_unit(mut xs: Vec<f64>) -> Vec<f64> {
    for x in xs.iter_mut() {
        *x = 0.5 * (*x + 1.0);
    }
    xs.sort_by(f64::total_cmp);
    xs
}

/// Gauss–Legendre points on [0, 1].
pub fn gauss_points(s: usize) -> Vec<f64> {
    let mut r = roots_in_open_interval(|x| legendre(s, x).0, s);
    // Newton polish on P_s.
    for x in r.iter_mut() {
        for _ in 0..3 {
            let (p, dp) = legendre(s, *x);
            if dp != 0.0 {
                *x -= p / dp;
            }
        }
    }
    to_unit(r)
}

/// Right Radau points on [0, 1] (roots of P_s − P_{s−1}, including 1).
pub fn radau_right_points(s: usize) -> Vec<f64> {
    let mut r = roots_in_open_interval(|x| legendre(s, x).0 - legendre(s - 1, x).0, s - 1);
    r.push(1.0);
    to_unit(r)
}

/// Left Radau points on [0, 1] (roots of P_s + P_{s−1}, including 0).
pub fn radau_left_points(s: usize) -> Vec<f64> {
    let mut r = roots_in_open_interval(|x| legendre(s, x).0 + legendre(s - 1, x).0, s - 1);
    r.push(-1.0);
    to_unit(r)
}

/// Lobatto points on [0, 1] (0, 1 and the roots of P'_{s−1}), s ≥ 2.
pub fn lobatto_points(s: usize) -> Vec<f64> {
    let mut r = if s > 2 { roots_in_open_interval(|x| legendre(s - 1, x).1, s - 2) } else { vec![] };
    r.push(-1.0);
    r.push(1.0);
    to_unit(r)
}

// ---------------------------------------------------------------- tableaus

/// Lagrange basis polynomial `j` of the nodes `c`, at `t`.
fn lagrange(c: &[f64], j: usize, t: f64) -> f64 {
    c.iter().enumerate().filter(|(k, _)| *k != j).map(|(_, &ck)| (t - ck) / (c[j] - ck)).product()
}

/// `∫_0^x ℓ_j(t) dt`, exactly (Gauss quadrature with more nodes than the degree needs).
fn integrate_lagrange(c: &[f64], j: usize, x: f64, quad: &[(f64, f64)]) -> f64 {
    quad.iter().map(|&(t, w)| w * x * lagrange(c, j, t * x)).sum()
}

/// Gauss–Legendre nodes and weights on [0, 1] with `n` points (exact to degree 2n − 1).
fn quadrature(n: usize) -> Vec<(f64, f64)> {
    gauss_points(n)
        .into_iter()
        .map(|t| {
            let x = 2.0 * t - 1.0;
            let (_, dp) = legendre(n, x);
            (t, 1.0 / ((1.0 - x * x) * dp * dp))
        })
        .collect()
}

type Tableau = (Vec<Vec<f64>>, Vec<f64>, Vec<f64>);

fn weights(c: &[f64], quad: &[(f64, f64)]) -> Vec<f64> {
    (0..c.len()).map(|j| integrate_lagrange(c, j, 1.0, quad)).collect()
}

/// Collocation: `a_ij = ∫_0^{c_i} ℓ_j`, `b_j = ∫_0^1 ℓ_j`.
fn collocation(c: Vec<f64>) -> Tableau {
    let s = c.len();
    let quad = quadrature(s + 2);
    let a = (0..s).map(|i| (0..s).map(|j| integrate_lagrange(&c, j, c[i], &quad)).collect()).collect();
    let b = weights(&c, &quad);
    (a, b, c)
}

/// `A` from the condition D(s): with `p = ℓ_i` it reads
/// `b_i a_ij = b_j ∫_{c_j}^1 ℓ_i`, so `a_ij = b_j (b_i − ∫_0^{c_j} ℓ_i) / b_i`.
fn from_d_condition(c: Vec<f64>) -> Tableau {
    let s = c.len();
    let quad = quadrature(s + 2);
    let b = weights(&c, &quad);
    let a = (0..s).map(|i| (0..s).map(|j| b[j] * (b[i] - integrate_lagrange(&c, i, c[j], &quad)) / b[i]).collect()).collect();
    (a, b, c)
}

/// Lobatto IIIC: `a_i1 = b_1` and C(s − 1). With `p = ℓ̃_k`, the Lagrange basis of the
/// nodes `c_2 … c_s`, C(s − 1) reads `b_1 ℓ̃_k(0) + a_ik = ∫_0^{c_i} ℓ̃_k`.
fn lobatto_iiic(c: Vec<f64>) -> Tableau {
    let s = c.len();
    let quad = quadrature(s + 2);
    let b = weights(&c, &quad);
    let tail = &c[1..];
    let mut a = vec![vec![0.0; s]; s];
    for (row, &ci) in a.iter_mut().zip(&c) {
        row[0] = b[0];
        for (k, entry) in row.iter_mut().enumerate().skip(1) {
            *entry = integrate_lagrange(tail, k - 1, ci, &quad) - b[0] * lagrange(tail, k - 1, 0.0);
        }
    }
    (a, b, c)
}

/// The classical explicit methods.
fn explicit(s: usize) -> Tableau {
    match s {
        1 => (vec![vec![0.0]], vec![1.0], vec![0.0]),
        2 => (vec![vec![0.0, 0.0], vec![1.0, 0.0]], vec![0.5, 0.5], vec![0.0, 1.0]),
        3 => (
            vec![vec![0.0, 0.0, 0.0], vec![0.5, 0.0, 0.0], vec![-1.0, 2.0, 0.0]],
            vec![1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0],
            vec![0.0, 0.5, 1.0],
        ),
        _ => (
            vec![vec![0.0, 0.0, 0.0, 0.0], vec![0.5, 0.0, 0.0, 0.0], vec![0.0, 0.5, 0.0, 0.0], vec![0.0, 0.0, 1.0, 0.0]],
            vec![1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0],
            vec![0.0, 0.5, 0.5, 1.0],
        ),
    }
}
