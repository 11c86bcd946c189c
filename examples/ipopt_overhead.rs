//! Measures Ipopt's per-solve and per-iteration cost on a tiny NLP (HS71): the
//! figures that dominate simulations made of many small MPCCs.
//!
//! Run: `cargo run --release --example ipopt_overhead`

use fesd::codegen::CompileOptions;
use fesd::ipopt::{IpoptSolver, StartPoint};
use fesd::nlp::problems::hs071;
use fesd::nlp::CompiledNlp;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (nlp, d) = hs071();
    let mut compiled = CompiledNlp::build(&nlp, "hs071", &CompileOptions::default())?;
    let structure = compiled.structure(d.x_l, d.x_u, d.g_l, d.g_u)?;
    let mut solver = IpoptSolver::new(structure)?;
    solver.set_option("print_level", 0).set_option("sb", "yes");
    let start = StartPoint::primal(d.x0);
    let n = 200;
    let mut iters = 0;
    let t = Instant::now();
    for _ in 0..n {
        iters += solver.solve(&mut compiled, &start, None)?.iterations;
    }
    let total = t.elapsed().as_secs_f64();
    let mut one_iter = solver.clone();
    one_iter.set_option("max_iter", 0);
    let t = Instant::now();
    for _ in 0..n {
        one_iter.solve(&mut compiled, &start, None)?;
    }
    let setup = t.elapsed().as_secs_f64() / n as f64;
    println!("per solve: {:.3} ms ({} iterations); setup (max_iter = 0): {:.3} ms", total / n as f64 * 1e3, iters / n, setup * 1e3);
    println!("per_iteration_ms = {:.4}", (total / n as f64 - setup) / (iters / n) as f64 * 1e3);
    println!("setup_ms = {:.4}", setup * 1e3);
    Ok(())
}
