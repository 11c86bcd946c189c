//! The FESD paper's sensitivity example: minimize ∫₀² x² dt + (x(2) − 5/3)² over the
//! free initial value x0, with ẋ ∈ 2 − sign(x) (ẋ = 1 for x > 0, 3 for x < 0).
//! Gauss–Legendre n_s = 2, one interval of N_FE = 25 elements. FESD finds the optimum
//! x0* = −1.42757, V* = 1.52377; the standard discretization (`use_fesd = false`)
//! converges to x0 = −1.45691 from every start. Status today: FESD reaches x0* only
//! from some starts; from others it stops where an element has reached its length
//! bound with the switch on its boundary (x0 = −0.456, −0.912, …): see the roadmap.
//!
//! Run: `cargo run --release --example sensitivity`

use fesd::casadi::SX;
use fesd::model::{PssModel, Subsystem};
use fesd::ocp::{InitialState, Ocp, OcpSolver};
use fesd::rk::RkFamily;

fn problem(use_fesd: bool, x0_guess: f64) -> Ocp {
    let x = SX::sym("x", 1);
    let model = PssModel::new(x.clone()).with_subsystem(Subsystem::new(x.clone(), vec![vec![1], vec![-1]], vec![SX::scalar(1.0), SX::scalar(3.0)]));
    let mut ocp = Ocp::new(model, 2.0, 1, &[0.0]);
    ocp.x0 = InitialState::Free { lower: vec![-10.0], upper: vec![10.0], guess: vec![x0_guess] };
    ocp.lagrange = Some(&x * &x);
    ocp.mayer = Some((&x - 5.0 / 3.0).powf(2.0));
    ocp.options.fesd.rk_family = RkFamily::GaussLegendre;
    ocp.options.fesd.n_s = 2;
    ocp.options.fesd.n_fe = 25;
    ocp.options.fesd.use_fesd = use_fesd;
    // No step-equilibration cost: the heuristic-mean term would move the element
    // boundaries and so bias the quadrature of ∫x² (with ρ_h = 1: x0 = −1.42550).
    ocp.options.fesd.rho_h = 0.0;
    ocp
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let guesses = [-3.0, -2.0, -1.0, 0.0, 1.0];
    let mut best: Option<(f64, f64)> = None;
    for use_fesd in [true, false] {
        println!("{}:", if use_fesd { "FESD" } else { "standard discretization" });
        for &g in &guesses {
            let mut solver = OcpSolver::new(&problem(use_fesd, g))?;
            let r = solver.solve()?;
            let x0 = r.x[0][0];
            // The objective without the step-equilibration term: the cost itself.
            let v = r.objective;
            println!("  start {g:>5.1}: x0 = {x0:.6}, V = {v:.6}, {:?}", r.status);
            if use_fesd && r.status.is_converged() && best.is_none_or(|(_, bv)| v < bv) {
                best = Some((x0, v));
            }
        }
    }
    let (x0, v) = best.ok_or("no FESD solve converged")?;
    println!("x0_star = {x0:.6}");
    println!("V_star = {v:.6}");
    Ok(())
}
