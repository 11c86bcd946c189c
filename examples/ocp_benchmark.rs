//! Optimal-control speed and accuracy against the reference implementation's cases
//! (its `reference_ocps.py`): the sliding-mode OCP (N = 6, N_FE = 6) and the
//! voice-coil motor with Coulomb friction (N = 30, 60, 120, 240; N_FE = 2,
//! L2-relaxed-scaled step equilibration, comp_tol 1e-6); and `cart_pole_N`, the
//! reference's cart-pole swing-up with friction (`problems::cart_pole`, default
//! options, N = 50 by default; not in the reference's script). Per case it prints
//! `<case>_wall_time_s` (solve only, compilation excluded), `<case>_ipopt_iterations`
//! and `<case>_cost` (the NLP objective, as the reference reports it).
//!
//! Run: `cargo run --release --example ocp_benchmark [-- [-v] [--ipopt key=value …]
//! [--homotopy key=value …] [--fesd key=value …] [--guess-by-simulation] [--guess-line] <case> …]`
//! (`-v`: Ipopt's output; `--ipopt`: an Ipopt option for every NLP of the homotopy;
//! `--homotopy`: a field of `HomotopyOptions` by its JSON name, e.g. `kappa=0.2`,
//! `warm_start_duals=true`; `--fesd`: a field of the case's `FesdOptions`, e.g.
//! `gamma_h=0.9`, `step_equilibration_hessian="Exact"`;
//! `--guess-by-simulation`: start from a simulated guess; for experiments;
//! `--guess-line`: `OcpOptions::straight_line_guess`, the states start on the straight
//! line to the terminal target;
//! `--expand`: `OcpOptions::expand`, the NLP as one SX graph evaluated by CasADi).
//!
//! `--mpc K`: after the solve, K re-solves as in model predictive control, each from
//! the last plan's state one control interval later, once armed by
//! `OcpSolver::warm_start_from_last_solve` (previous primal-dual point, homotopy from
//! `warm_sigma_0`) and once as a default re-solve (previous primal point, whole
//! homotopy); prints `<case>_mpc_warm_ipopt_iterations`,
//! `<case>_mpc_primal_ipopt_iterations` and `<case>_mpc_max_cost_difference`.

use fesd::ipopt::OptionValue;
use fesd::ocp::{problems, OcpResult, OcpSolver};

/// Total Ipopt iterations and costs of `steps` re-solves by `solver`, starting from
/// its last result `plan`, each from the previous plan's state after one control
/// interval, warm-started from the previous primal-dual point (`warm`) or from its
/// primal point only.
fn mpc_re_solves(
    solver: &mut OcpSolver,
    mut plan: OcpResult,
    steps: usize,
    warm: bool,
) -> Result<(usize, Vec<f64>), Box<dyn std::error::Error>> {
    let (mut iterations, mut costs) = (0, Vec::new());
    for _ in 0..steps {
        let per_interval = (plan.x.len() - 1) / plan.u.len().max(1);
        let x1 = plan.x[per_interval].clone();
        solver.set_x0(&x1)?;
        if warm {
            solver.warm_start_from_last_solve();
        }
        plan = solver.solve()?;
        iterations += plan.mpcc.total_iterations;
        costs.push(plan.objective);
    }
    Ok((iterations, costs))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let all = ["sliding_mode", "motor_30", "motor_60", "motor_120", "motor_240", "cart_pole_50"];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let mut ipopt = Vec::new();
    let mut cases = Vec::new();
    let mut homotopy = serde_json::Map::new();
    let mut fesd = serde_json::Map::new();
    let mut simulate_guess = false;
    let mut line_guess = false;
    let mut expand = false;
    let mut mpc_steps = 0;
    let mut rest = args.iter().filter(|a| *a != "-v");
    while let Some(a) = rest.next() {
        if a == "-h" || a == "--help" {
            println!("usage: ocp_benchmark [-v] [--expand] [--guess-by-simulation] [--guess-line] [--mpc K] [--ipopt key=value …] [--homotopy key=value …] [--fesd key=value …] [case …]\ncases: {}", all.join(", "));
            return Ok(());
        } else if a == "--" {
            continue;
        } else if a == "--homotopy" {
            let kv = rest.next().ok_or("--homotopy needs key=value")?;
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("--homotopy {kv}: expected key=value"))?;
            homotopy.insert(k.to_string(), serde_json::from_str(v)?);
        } else if a == "--fesd" {
            let kv = rest.next().ok_or("--fesd needs key=value")?;
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("--fesd {kv}: expected key=value"))?;
            fesd.insert(k.to_string(), serde_json::from_str(v)?);
        } else if a == "--mpc" {
            mpc_steps = rest.next().ok_or("--mpc needs a number of re-solves")?.parse()?;
        } else if a == "--guess-line" {
            line_guess = true;
        } else if a == "--guess-by-simulation" {
            simulate_guess = true;
        } else if a == "--expand" {
            expand = true;
        } else if a == "--ipopt" {
            let kv = rest.next().ok_or("--ipopt needs key=value")?;
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("--ipopt {kv}: expected key=value"))?;
            ipopt.push((k.to_string(), OptionValue::parse_for(k, v)));
        } else {
            cases.push(a.clone());
        }
    }
    let cases: Vec<String> = if cases.is_empty() { all.iter().map(|s| s.to_string()).collect() } else { cases };
    for case in &cases {
        let ocp = match case.as_str() {
            "sliding_mode" => problems::sliding_mode()?,
            c if c.starts_with("motor_") => problems::voice_coil_motor(c["motor_".len()..].parse()?)?,
            c if c.starts_with("cart_pole_") => problems::cart_pole(c["cart_pole_".len()..].parse()?)?,
            other => return Err(format!("unknown case {other}; one of {all:?}").into()),
        };
        let mut ocp = ocp;
        if verbose {
            ocp.options.homotopy.verbosity = 2;
        }
        ocp.options.homotopy.ipopt.extend(ipopt.iter().cloned());
        ocp.options.expand = expand;
        ocp.options.straight_line_guess = line_guess;
        ocp.options.homotopy = ocp.options.homotopy.with_fields(homotopy.clone())?;
        if !fesd.is_empty() {
            // The case's FESD options with the given fields replaced (unknown keys rejected).
            let mut fields = match serde_json::to_value(&ocp.options.fesd)? {
                serde_json::Value::Object(m) => m,
                _ => return Err("FESD options serialize to an object".into()),
            };
            fields.extend(fesd.clone());
            ocp.options.fesd = serde_json::from_value(serde_json::Value::Object(fields))?;
        }
        let mut solver = OcpSolver::new(&ocp)?;
        if simulate_guess {
            let failed = solver.guess_by_simulation()?;
            println!("{case}: simulated guess, {failed} intervals did not converge");
        }
        let r = solver.solve()?;
        println!("{case}: {:?}, built in {:.2} s, {} unknowns", r.status, solver.build_time().as_secs_f64(), solver.table().len());
        println!("{case}_wall_time_s = {:.4}", r.mpcc.timing.total);
        println!("{case}_ipopt_iterations = {}", r.mpcc.total_iterations);
        println!("{case}_cost = {:.6}", r.objective);
        println!("{case}_ms_per_iteration = {:.3}", r.mpcc.timing.total / r.mpcc.total_iterations.max(1) as f64 * 1e3);
        let work = ipopt::ldl_work();
        if work.factorizations > 0 {
            println!(
                "{case}_ldl_so_far: {} factorizations ({} pivoting, {} delayed pivots, {} quality increases) in {:.3} s, {} solves in {:.3} s, {} matrices handed to MUMPS",
                work.factorizations,
                work.pivoting,
                work.delayed_pivots,
                work.quality_increases,
                work.factor_seconds,
                work.solves,
                work.solve_seconds,
                work.mumps_fallbacks
            );
        }
        let t = r.mpcc.timing;
        println!(
            "{case}: time split: Ipopt {:.3} s, kernels {:.3} s (Lagrangian Hessian {:.3} s), own {:.3} s",
            t.ipopt, t.kernels, t.kernels_hessian, t.own
        );
        if mpc_steps > 0 && !simulate_guess {
            // The default re-solves on a second solver (same kernels) from the same plan.
            let mut other = OcpSolver::new(&ocp)?;
            let first = other.solve()?;
            if (first.objective - r.objective).abs() > 1e-9 * (1.0 + r.objective.abs()) {
                return Err("the repeated first solve differs".into());
            }
            let (primal, primal_costs) = mpc_re_solves(&mut other, first, mpc_steps, false)?;
            let (warm, warm_costs) = mpc_re_solves(&mut solver, r, mpc_steps, true)?;
            let difference = warm_costs.iter().zip(&primal_costs).map(|(a, b)| (a - b).abs()).fold(0.0f64, f64::max);
            println!("{case}_mpc_warm_ipopt_iterations = {warm}");
            println!("{case}_mpc_primal_ipopt_iterations = {primal}");
            println!("{case}_mpc_max_cost_difference = {difference:.3e}");
        }
    }
    Ok(())
}
