//! Pipeline demo: Hock–Schittkowski 71 built with CasADi expressions, differentiated
//! exactly, generated as C, compiled (cached), loaded, and solved by Ipopt, then
//! re-solved with a primal-dual warm start.
//!
//! Run: `cargo run --release --example hs71`

use fesd::codegen::CompileOptions;
use fesd::ipopt::{IpoptSolver, StartPoint};
use fesd::nlp::problems::hs071;
use fesd::nlp::CompiledNlp;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (nlp, d) = hs071();
    let t = Instant::now();
    let mut compiled = CompiledNlp::build(&nlp, "hs071", &CompileOptions::default())?;
    let report = compiled.build_report();
    println!(
        "kernels: codegen {:.1} ms, compile+load {:.1} ms (cache hit: {})",
        report.codegen.as_secs_f64() * 1e3,
        report.compile_and_load.as_secs_f64() * 1e3,
        report.cache_hit
    );
    let structure = compiled.structure(d.x_l, d.x_u, d.g_l, d.g_u)?;
    let mut solver = IpoptSolver::new(structure)?;
    solver.set_option("print_level", 0).set_option("sb", "yes").set_option("tol", 1e-10);
    println!("{:>4} {:>14} {:>10} {:>10}", "iter", "objective", "inf_pr", "inf_du");
    let mut table = |i: &ipopt::IterationInfo| {
        println!("{:>4} {:>14.8} {:>10.2e} {:>10.2e}", i.iter, i.objective, i.inf_pr, i.inf_du);
        true
    };
    let sol = solver.solve(&mut compiled, &StartPoint::primal(d.x0), Some(&mut table))?;
    let (eval_time, evals) = compiled.eval_stats();
    println!("status: {:?}; x = {:?}", sol.status, sol.x);
    println!("kernel evaluations: {evals} in {:.3} ms; total {:.1} ms", eval_time.as_secs_f64() * 1e3, t.elapsed().as_secs_f64() * 1e3);

    solver.set_option("warm_start_bound_push", 1e-9).set_option("warm_start_mult_bound_push", 1e-9).set_option("mu_init", 1e-9);
    let warm = solver.solve(&mut compiled, &sol.warm_start(), None)?;
    println!("objective = {:.10}", sol.objective);
    println!("iterations = {}", sol.iterations);
    println!("warm_start_iterations = {}", warm.iterations);
    if !sol.status.is_success() {
        return Err(format!("Ipopt ended with {:?}", sol.status).into());
    }
    Ok(())
}
