//! Optimal control of rigid bodies with impacts and friction (FESD-J): three boxes
//! on a line, a horizontal force on the middle one. The middle box must push the left
//! box from x = −2 to −3 and the right box from 2 to 3 and return to 0, every box at
//! rest at T = 6 (N = 15 control intervals, 3 elements each, Radau IIA n_s = 2),
//! minimizing ∫u².
//! Box 1 meets box 2 plastically (ε = 0), box 3 bounces off it (ε = 0.5); friction
//! 0.1 between boxes and 0.2 on the ground (`fesd::cls::models::three_boxes`).
//!
//! Status: the homotopy does not reach comp_tol on this problem yet (see the README's
//! roadmap); the example prints where it ends, and the worst constraint rows when it
//! fails.
//!
//! Prints the homotopy table, `comp_residual = …`, `target_error = …`, `cost = …` and
//! one `impact_time = …` line per impulse between the boxes.
//!
//! Arguments `key=value`: `sigma_0`, `kappa`, `n_fe`, `rho_h`, `steering`,
//! `relaxation`, `cross` (0–3), `rho_multipliers`, `rho_impulses`, `max_recoveries`, `n_intervals`,
//! `single=X`
//! (push only the right box, to X), `soft=W` (targets as a quadratic Mayer term of
//! weight W), `rest=1` (u = 0, no targets), `noguess=1` (start at rest instead of a
//! simulated guess); any other key is an Ipopt option.
//!
//! Run: `cargo run --release --example manipulation`

use fesd::cls::models::three_boxes;
use fesd::cls::{ClsOcp, ClsOcpSolver};
use fesd::casadi::SX;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = three_boxes()?;
    let (q, v, u) = (model.q.clone(), model.v.clone(), model.u.clone());
    let target = [-3.0, 0.5, 0.0, 0.5, 3.0, 0.5];
    let q0 = [-2.0, 0.5, 0.0, 0.5, 2.0, 0.5];
    let xs = SX::vertcat(&[&q.at(0)?, &q.at(2)?, &q.at(4)?, &v])?;
    let (xs_q3, xs_v) = (q.at(4)?, v.clone());
    let mut guess = true;
    let xs_dev = &xs - SX::from_slice(&[-3.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let mut ocp = ClsOcp::new(model, 6.0, 15, &q0, &[0.0; 6])
        .with_control_bounds(&[-30.0], &[30.0])
        .with_lagrange(&u * &u)
        .with_terminal(xs.clone(), &[-3.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], &[-3.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    ocp.options.cls.n_fe = 3;
    // Resting contacts: without an ℓ1 cost on the impulses the relaxation makes the
    // boxes hop (impulses √σ) and the homotopy ends infeasible at σ ≈ 1e-4.
    ocp.options.cls.rho_impulses = 1.0;
    ocp.options.homotopy.verbosity = 1;
    for arg in std::env::args().skip(1) {
        let Some((k, val)) = arg.split_once('=') else { return Err(format!("{arg}: expected key=value").into()) };
        let num = || val.parse::<f64>().map_err(|e| format!("{arg}: {e}"));
        match k {
            "sigma_0" => ocp.options.homotopy.sigma_0 = num()?,
            "kappa" => ocp.options.homotopy.kappa = num()?,
            "n_fe" => ocp.options.cls.n_fe = num()? as usize,
            "rho_h" => ocp.options.cls.rho_h = num()?,
            "steering" => ocp.options.homotopy.steering = val.parse()?,
            "relaxation" => ocp.options.homotopy.relaxation = val.parse()?,
            "soft" => {
                let d = xs_dev.clone();
                ocp.terminal = None;
                ocp.mayer = Some(d.dot(&d)? * num()?);
            }
            "cross" => ocp.options.cls.cross_complementarity = *fesd::sim::CrossComplementarity::ALL.get(num()? as usize).ok_or("cross: 0 to 3")?,
            "single" => {
                let e = SX::vertcat(&[&xs_q3, &xs_v])?;
                ocp.terminal = Some(fesd::cls::ClsTerminalConstraint { expr: e, lower: vec![num()?, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], upper: vec![num()?, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0] });
            }
            "noguess" => guess = false,
            "n_intervals" => ocp.n_intervals = num()? as usize,
            "max_recoveries" => ocp.options.homotopy.max_recoveries = num()? as usize,
            "rest" => {
                ocp.terminal = None;
                ocp.u_lower = vec![0.0];
                ocp.u_upper = vec![0.0];
            }
            "rho_impulses" => ocp.options.cls.rho_impulses = num()?,
            "rho_multipliers" => ocp.options.cls.rho_multipliers = num()?,
            _ => ocp.options.homotopy.ipopt.push((k.to_string(), fesd::ipopt::OptionValue::parse_for(k, val))),
        }
    }
    let mut solver = ClsOcpSolver::new(&ocp)?;
    println!("build {:.1} s, {} unknowns", solver.build_time().as_secs_f64(), solver.table().len());
    // A rough guess of the maneuver: push left, coast, push right, coast; simulated
    // with the OCP's own discretization to start the homotopy.
    let n = ocp.n_intervals;
    let phase = |t: f64| if t < 0.8 { -5.0 } else if t < 1.6 { 0.0 } else if t < 3.2 { 5.0 } else { 0.0 };
    let u_guess: Vec<Vec<f64>> = (0..n).map(|k| vec![phase((k as f64 + 0.5) * 6.0 / n as f64)]).collect();
    if guess {
        let failed = solver.guess_by_simulation(&u_guess)?;
        println!("initial guess simulated ({failed} intervals did not converge)");
    }
    let r = solver.solve()?;
    println!("status {:?}, {} Ipopt iterations", r.status, r.mpcc.total_iterations);
    if !r.status.is_converged() {
        for (what, v) in solver.constraint_violations(&r.w, 8)? {
            println!("  violated by {v:.2e}: {what}");
        }
    }
    let q_t = r.q.last().ok_or("no final state")?;
    let err = [0, 2, 4].iter().map(|&i| (q_t[i] - target[i]).abs()).fold(0.0f64, f64::max);
    for imp in r.impacts(1e-6) {
        if imp.contact < 2 {
            println!("impact_time = {:.6}  (contact {}, impulse {:.4})", imp.time, imp.contact, imp.impulse);
        }
    }
    for (k, u) in r.u.iter().enumerate() {
        println!("u[{k}] = {:.4}", u[0]);
    }
    println!("q_final = {:?}", q_t);
    println!("comp_residual = {:.3e}", r.comp_residual);
    println!("target_error = {:.3e}", err);
    println!("cost = {:.6}", r.cost);
    Ok(())
}
