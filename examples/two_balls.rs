//! Convergence order of FESD-J: two balls joined by a stiff spring (k = 1e4, rest
//! length 1, radius 0.2, ε = 0.8, q(0) = (1, 2), v(0) = 0, T = 1), the lower one
//! bouncing on the ground. Between impacts the motion is known in closed form (free
//! fall of the centre of mass, harmonic relative motion with ω = √(2k)); the
//! event-driven reference finds each impact by bisection on it. FESD-J with Radau
//! IIA, n_s = 1, 2, 3, is run on several step sizes; the terminal error's fitted
//! slope is the observed order (Radau IIA: 2 n_s − 1).
//!
//! Prints per n_s `slope_ns<s> = …` (least-squares slope over all step sizes) and
//! `order_ns<s> = …` (slope between the two finest), `failed_fraction = …` (pieces
//! on which no homotopy converged), and a table of errors.
//!
//! With ω = 141 the step must resolve the spring's oscillation before the
//! asymptotic order shows (ω h_element ≈ 0.1 at 800 steps). Radau IIA n_s = 1
//! (implicit Euler) damps that oscillation out at every affordable step size
//! (amplitude factor exp(−ω² h T / 2)), so it is not run by default (`NS=1,2,3`).
//!
//! Writes the finest run's heights and velocities to `two_balls.png` (the last n_s).
//!
//! Run: `cargo run --release --example two_balls [-- steps…]` (default 100 200 400 800)

use fesd::cls::models::{two_balls, G};
use fesd::cls::ClsModel;
use fesd::rk::RkFamily;
use fesd::sim::{Simulator, SimulatorOptions};

const K: f64 = 1e4;
const EPS: f64 = 0.8;

/// The exact state (q1, q2, v1, v2) at `t_end` from (1, 2, 0, 0) and the impact times.
fn reference(t_end: f64) -> ([f64; 4], Vec<f64>) {
    let w = (2.0 * K).sqrt();
    // State at t0: c, ċ (centre of mass), d − 1, ḋ (relative); q1 = c − d/2, q2 = c + d/2.
    let (mut t0, mut s) = (0.0, [1.5, 0.0, 0.0, 0.0]);
    let at = |s: &[f64; 4], dt: f64| -> [f64; 4] {
        let c = s[0] + s[1] * dt - 0.5 * G * dt * dt;
        let cd = s[1] - G * dt;
        let (co, si) = ((w * dt).cos(), (w * dt).sin());
        [c, cd, s[2] * co + s[3] / w * si, -s[2] * w * si + s[3] * co]
    };
    let q1 = |s: &[f64; 4]| s[0] - 0.5 * (1.0 + s[2]) - 0.2;
    let mut impacts = Vec::new();
    loop {
        // Scan for the next time the lower ball reaches the ground moving down.
        let dt_scan = 1e-5;
        let mut a = 1e-9;
        let hit = loop {
            let b = a + dt_scan;
            if t0 + a > t_end {
                break None;
            }
            if q1(&at(&s, b)) < 0.0 {
                break Some((a, b));
            }
            a = b;
        };
        let Some((mut lo, mut hi)) = hit else { break };
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if q1(&at(&s, mid)) < 0.0 {
                hi = mid
            } else {
                lo = mid
            }
        }
        let t_hit = t0 + hi;
        if t_hit > t_end {
            break;
        }
        let x = at(&s, hi);
        let (v1, v2) = (x[1] - 0.5 * x[3], x[1] + 0.5 * x[3]);
        let v1 = -EPS * v1;
        s = [x[0], 0.5 * (v1 + v2), x[2], v2 - v1];
        // Put q1 exactly on the ground.
        s[0] = 0.2 + 0.5 * (1.0 + s[2]);
        impacts.push(t_hit);
        t0 = t_hit;
    }
    let x = at(&s, t_end - t0);
    ([x[0] - 0.5 * (1.0 + x[2]), x[0] + 0.5 * (1.0 + x[2]), x[1] - 0.5 * x[3], x[1] + 0.5 * x[3]], impacts)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let steps: Vec<usize> = {
        let a: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
        if a.is_empty() {
            vec![100, 200, 400, 800]
        } else {
            a
        }
    };
    let (exact, impacts) = reference(1.0);
    println!("reference: {} impacts, first at {:.9}; x(1) = {exact:?}", impacts.len(), impacts.first().copied().unwrap_or(f64::NAN));
    let (mut pieces, mut failed) = (0usize, 0usize);
    println!("{:>4} {:>6} {:>12} {:>10} {:>8} {:>8}", "n_s", "steps", "h_step", "error", "iters", "failed");
    let stages: Vec<usize> = std::env::var("NS").map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect()).unwrap_or(vec![2, 3]);
    for n_s in stages {
        let mut points = Vec::new();
        for &n in &steps {
            let mut opts = SimulatorOptions::<ClsModel> { step: 1.0 / n as f64, n_steps: n, ..Default::default() };
            opts.fesd.rk_family = RkFamily::RadauIIA;
            opts.fesd.n_s = n_s;
            let mut sim = Simulator::<ClsModel>::new(&two_balls(K, EPS)?, opts)?;
            let r = sim.simulate_from(&[1.0, 2.0], &[0.0, 0.0], &[], &[])?;
            if Some(&n) == steps.last() {
                r.plot(
                    std::path::Path::new("two_balls.png"),
                    &format!("Two balls and a spring, FESD-J (Radau IIA n_s = {n_s}, {n} steps)"),
                )?;
            }
            let x: Vec<f64> = r.q_final().iter().chain(r.v_final()).copied().collect();
            let err = x.iter().zip(&exact).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            pieces += r.steps.len();
            failed += r.failed_steps().len();
            println!("{n_s:>4} {n:>6} {:>12.3e} {err:>10.3e} {:>8} {:>8}", 1.0 / n as f64, r.total_iterations(), r.failed_steps().len());
            points.push(((1.0 / n as f64).ln(), err.max(1e-300).ln()));
        }
        // Least-squares slope of log(error) over log(h), on errors above 1e-9.
        let pts: Vec<&(f64, f64)> = points.iter().filter(|p| p.1 > (1e-9f64).ln()).collect();
        let m = pts.len() as f64;
        let (sx, sy) = (pts.iter().map(|p| p.0).sum::<f64>(), pts.iter().map(|p| p.1).sum::<f64>());
        let (sxx, sxy) = (pts.iter().map(|p| p.0 * p.0).sum::<f64>(), pts.iter().map(|p| p.0 * p.1).sum::<f64>());
        let slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
        println!("slope_ns{n_s} = {slope:.2}");
        if let [.., (h1, e1), (h2, e2)] = points[..] {
            println!("order_ns{n_s} = {:.2}", (e2 - e1) / (h2 - h1));
        }
    }
    println!("failed_fraction = {:.4}", failed as f64 / pieces.max(1) as f64);
    Ok(())
}
