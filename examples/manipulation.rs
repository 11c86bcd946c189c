//! Optimal control of rigid bodies with impacts and friction (FESD-J): three boxes
//! on a line (`fesd::cls::models::three_boxes`: side 1, unit masses, a horizontal
//! force u on the middle one; box 1 meets box 2 plastically (ε = 0), box 3 bounces
//! off box 2 (ε = 0.5); friction 0.1 between boxes and 0.2 on the ground; five
//! contacts), T = 6, N = 15 control intervals of N_FE = 3 elements, Radau IIA n_s = 2,
//! minimize ∫u², |u| ≤ 30, from x = (−2, 0, 2) at rest.
//!
//! - `task=push` (default): box 3 to x = 3, every box at rest at T.
//! - `task=three`: box 1 to −3, box 3 to 3, box 2 back to 0, every box at rest at T.
//!   From the resting guess the relaxed problems at σ ≥ 0.1 move the boxes by forces
//!   across open gaps (λ · gap ≤ σ) at no control cost, and the homotopy cannot
//!   follow that path back to real pushes (Ipopt ends infeasible at σ = 1e-2).
//!   This task therefore starts from a simulation of a rough push-left, push-right
//!   control (`guess=1`), at σ_0 = 1e-2, with the impact guard's ε_c = 1e-5 (with
//!   1e-3 an element's guard ends violated at σ = 1e-5). It converges in 8–12 min
//!   (7 095 Ipopt iterations, cost 124.75, comp 1e-10, targets to 1e-23; the
//!   point is not B-stationary: the finish's LPEC finds a descent direction but its
//!   branch NLP does not converge in 100 iterations). Any of the three can be
//!   overridden (`guess=0 sigma_0=1 eps_c=1e-3` gives the old failing setup);
//!   a failed solve prints the worst constraint rows of its last iterate.
//!
//! Prints the homotopy table, one `impact_time = …` line per impulse between boxes,
//! `comp_residual = …`, `target_error = …`, `cost = …`, and writes the boxes'
//! positions and velocities to `manipulation.png` (`manipulation_three.png`); with `resimulate=1` also
//! `resimulation_error = …` (the optimal controls re-simulated one step per
//! interval; slow on resting boxes with friction: every piece needs the simulator's
//! third homotopy tier).
//!
//! Other `key=value` arguments: `sigma_0`, `kappa`, `n_fe`, `n_intervals`,
//! `steering`, `relaxation`, `cross` (0–3), `rho_impulses`, `rho_multipliers`,
//! `contact_tol`, `eps_c`,
//! `max_recoveries`, `n_homotopy`, `out=<file>` (the result as JSON), `warm=<file>` (start
//! from the `w` of such a result), `homotopy.<field>=<json>` (any field of the
//! homotopy options, e.g. `homotopy.finish_handover=1e-4`), `resimulate=1`, `guess=1` (start from a simulation of a rough push-left,
//! push-right control instead of rest; the default of `task=three`); any other key is an Ipopt option.
//!
//! Run: `cargo run --release --example manipulation [-- task=three]`

use fesd::casadi::SX;
use fesd::cls::models::three_boxes;
use fesd::cls::ClsModel;
use fesd::ocp::{Ocp, OcpSolver};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = three_boxes()?;
    let (q, v, u) = (model.q.clone(), model.v.clone(), model.u.clone());
    let args: Vec<(String, String)> = std::env::args()
        .skip(1)
        .map(|a| a.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).ok_or(format!("{a}: expected key=value")))
        .collect::<Result<_, _>>()?;
    let three = args.iter().any(|(k, v)| k == "task" && v == "three");
    // Targets: positions of the boxes named in the task, and every velocity zero.
    let (moved, target): (Vec<usize>, Vec<f64>) = if three { (vec![0, 2, 4], vec![-3.0, 0.0, 3.0]) } else { (vec![4], vec![3.0]) };
    let picked: Vec<SX> = moved.iter().map(|&i| q.at(i)).collect::<Result<_, _>>()?;
    let terminal = SX::vertcat(&picked.iter().chain(std::iter::once(&v)).collect::<Vec<_>>())?;
    let bounds: Vec<f64> = target.iter().copied().chain([0.0; 6]).collect();
    let mut ocp = Ocp::new(model, 6.0, 15, &[[-2.0, 0.5, 0.0, 0.5, 2.0, 0.5], [0.0; 6]].concat())
        .with_control_bounds(&[-30.0], &[30.0])
        .with_lagrange(&u * &u)
        .with_terminal(terminal, &bounds, &bounds);
    ocp.options.fesd.n_fe = 3;
    // Resting contacts: without an ℓ1 cost on the impulses the relaxation lets the
    // boxes hop (impulses of size √σ) and the homotopy ends infeasible at σ ≈ 1e-4.
    ocp.options.fesd.rho_impulses = 1.0;
    ocp.options.homotopy.verbosity = 1;
    let mut guess = three;
    if three {
        ocp.options.homotopy.sigma_0 = 1e-2;
        ocp.options.fesd.eps_c = 1e-5;
    }
    apply_args(&mut ocp, &args, &mut guess)?;
    let mut solver = OcpSolver::new(&ocp)?;
    println!("build {:.1} s, {} unknowns", solver.build_time().as_secs_f64(), solver.table().len());
    if guess {
        let n = ocp.n_intervals;
        let phase = |t: f64| {
            if t < 0.8 {
                -5.0
            } else if t < 1.6 {
                0.0
            } else if t < 3.2 {
                5.0
            } else {
                0.0
            }
        };
        let u_guess: Vec<Vec<f64>> = (0..n).map(|k| vec![phase((k as f64 + 0.5) * 6.0 / n as f64)]).collect();
        let failed = solver.guess_by_simulation_of(&u_guess)?;
        println!("initial guess simulated ({failed} of {n} intervals did not converge)");
    }
    if let Some((_, path)) = args.iter().find(|(k, _)| k == "warm") {
        let stored: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
        let w: Vec<f64> = serde_json::from_value(stored["w"].clone())?;
        solver.set_initial_guess(&w)?;
        println!("initial guess: the solution stored in {path}");
    }
    let r = solver.solve()?;
    if let Some((_, path)) = args.iter().find(|(k, _)| k == "out") {
        std::fs::write(path, r.to_json()?)?;
    }
    println!("status {:?}, {} Ipopt iterations, {:.1} s", r.status, r.mpcc.total_iterations, r.mpcc.timing.total);
    if !r.status.is_converged() {
        for (what, v) in solver.constraint_violations(&r.w, 8)? {
            println!("  violated by {v:.2e}: {what}");
        }
        for m in &r.mpcc.messages {
            println!("  note: {m}");
        }
    }
    for imp in r.impacts(1e-6).iter().filter(|i| i.contact < 2) {
        println!("impact_time = {:.6}  (boxes {}–{}, impulse {:.4})", imp.time, imp.contact + 1, imp.contact + 2, imp.impulse);
    }
    let u_line: Vec<String> = r.u.iter().map(|u| format!("{:.3}", u[0])).collect();
    println!("u = [{}]", u_line.join(", "));
    let q_t = &r.x.last().ok_or("no final state")?[..6];
    let target_error = moved.iter().zip(&target).map(|(&i, x)| (q_t[i] - x).abs()).fold(0.0f64, f64::max);
    println!("q_final = {q_t:?}");
    println!("comp_residual = {:.3e}", r.comp_residual);
    println!("target_error = {target_error:.3e}");
    println!("cost = {:.6}", r.cost);
    // Positions and velocities of the boxes over the element grid.
    let (q, v) = r.x.iter().map(|x| (x[..6].to_vec(), x[6..].to_vec())).unzip();
    let trajectory = fesd::sim::ClsSimulation { t: r.t.clone(), q, v, ..Default::default() };
    let plot = if three { "manipulation_three.png" } else { "manipulation.png" };
    trajectory.plot(std::path::Path::new(plot), "Three boxes, FESD-J optimal control (x and y of each box)")?;
    println!("wrote {plot}");
    if args.iter().any(|(k, v)| k == "resimulate" && v != "0") {
        println!("resimulation_error = {:.3e}", solver.resimulate(&r, 1)?);
    }
    Ok(())
}

/// The command line's `key=value` settings applied to the OCP's options (`guess`
/// sets whether to start from a simulated push); any other key is an Ipopt option.
fn apply_args(ocp: &mut Ocp<ClsModel>, args: &[(String, String)], guess: &mut bool) -> Result<(), Box<dyn std::error::Error>> {
    for (k, val) in args {
        let num = || val.parse::<f64>().map_err(|e| format!("{k}={val}: {e}"));
        match k.as_str() {
            "task" => {}
            "sigma_0" => ocp.options.homotopy.sigma_0 = num()?,
            "kappa" => ocp.options.homotopy.kappa = num()?,
            "n_fe" => ocp.options.fesd.n_fe = num()? as usize,
            "n_intervals" => ocp.n_intervals = num()? as usize,
            "steering" => ocp.options.formulation.steering = val.parse()?,
            "relaxation" => ocp.options.formulation.relaxation = val.parse()?,
            "cross" => {
                ocp.options.fesd.cross_complementarity =
                    *fesd::sim::CrossComplementarity::ALL.get(num()? as usize).ok_or("cross: 0 to 3")?
            }
            "rho_impulses" => ocp.options.fesd.rho_impulses = num()?,
            "rho_multipliers" => ocp.options.fesd.rho_multipliers = num()?,
            "contact_tol" => ocp.options.fesd.contact_tol = num()?,
            "eps_c" => ocp.options.fesd.eps_c = num()?,
            "max_recoveries" => ocp.options.homotopy.max_recoveries = num()? as usize,
            "n_homotopy" => ocp.options.homotopy.n_homotopy = Some(num()? as usize),
            "guess" => *guess = num()? != 0.0,
            "warm" | "out" => {}
            "resimulate" => {}
            _ if k.starts_with("homotopy.") => {
                let mut field = serde_json::Map::new();
                field.insert(k.trim_start_matches("homotopy.").to_string(), serde_json::from_str(val)?);
                ocp.options.homotopy = ocp.options.homotopy.with_fields(field)?;
            }
            _ => ocp.options.homotopy.ipopt.push((k.to_string(), ipopt::OptionValue::parse_for(k, val))),
        }
    }
    Ok(())
}
