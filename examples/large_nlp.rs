//! A 10 000-variable sparse NLP through compiled kernels: chained Rosenbrock with
//! chained constraints, built from one SX element kernel mapped over the chain (MX),
//! so the generated C stays small whatever the size.
//!
//! Run: `cargo run --release --example large_nlp [n]`

use fesd::codegen::CompileOptions;
use fesd::ipopt::{IpoptSolver, StartPoint};
use fesd::nlp::problems::chained_rosenbrock;
use fesd::nlp::CompiledNlp;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "-h" || a == "--help") {
        println!("usage: large_nlp [number of unknowns, default 10000]");
        return Ok(());
    }
    let n: usize = std::env::args().nth(1).map(|s| s.parse()).transpose()?.unwrap_or(10_000);
    if n < 2 {
        return Err("n must be at least 2".into());
    }
    let t = Instant::now();
    let (nlp, d) = chained_rosenbrock(n)?;
    let mut compiled = CompiledNlp::build(&nlp, "chained_rosenbrock", &CompileOptions::default())?;
    let build = t.elapsed();
    let structure = compiled.structure(d.x_l, d.x_u, d.g_l, d.g_u)?;
    println!("n = {n}: {} Jacobian and {} Hessian nonzeros", structure.jac_rows.len(), structure.hess_rows.len());
    let mut solver = IpoptSolver::new(structure)?;
    solver.set_option("print_level", 0).set_option("sb", "yes");
    let t = Instant::now();
    let sol = solver.solve(&mut compiled, &StartPoint::primal(d.x0), None)?;
    let solve = t.elapsed();
    let (eval, evals) = compiled.eval_stats();
    println!("status {:?} after {} iterations", sol.status, sol.iterations);
    println!(
        "build (codegen + compile or cache, load): {:.1} ms, cache hit: {}",
        build.as_secs_f64() * 1e3,
        compiled.build_report().cache_hit
    );
    println!(
        "kernel time {:.1} ms in {evals} evaluations; Ipopt's own time {:.1} ms",
        eval.as_secs_f64() * 1e3,
        (solve - eval).as_secs_f64() * 1e3
    );
    println!("n = {n}");
    println!("solve_ms = {:.3}", solve.as_secs_f64() * 1e3);
    println!("f_star = {:.3e}", sol.objective);
    println!("iterations = {}", sol.iterations);
    if !sol.status.is_success() {
        return Err(format!("Ipopt ended with {:?}", sol.status).into());
    }
    Ok(())
}
