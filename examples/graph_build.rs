//! Measures expression-graph construction through the bindings: builds an SX graph
//! of at least 100 000 nodes (a chained nonlinear recursion) and an MX graph of a
//! mapped element kernel, and reports the wall time of each step.
//!
//! Run: `cargo run --release --example graph_build`

use fesd::casadi::{Function, MX, SX};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n = 20_000;
    let t = Instant::now();
    let x = SX::sym("x", n);
    let xs: Vec<SX> = (0..n).map(|i| x.at(i)).collect::<Result<_, _>>()?;
    let mut acc = SX::scalar(0.0);
    for i in 0..n - 1 {
        // five operations per step: sin, *, +, -, *
        acc = acc + xs[i].sin() * &xs[i + 1] - &xs[i] * 0.5;
    }
    let build = t.elapsed();
    let nodes = acc.n_nodes()?;
    let t = Instant::now();
    let f = Function::new("chain", &[("x", &x)], &[("y", &acc)])?;
    let func = t.elapsed();
    let t = Instant::now();
    let g = SX::gradient(&acc, &x)?;
    let grad = t.elapsed();
    println!(
        "SX graph: {nodes} nodes in {:.1} ms; Function {:.1} ms; gradient ({} nnz) {:.1} ms",
        build.as_secs_f64() * 1e3,
        func.as_secs_f64() * 1e3,
        g.nnz(),
        grad.as_secs_f64() * 1e3
    );
    println!("graph_nodes = {nodes}");
    println!("graph_build_ms = {:.3}", build.as_secs_f64() * 1e3);
    println!("ns_per_node = {:.1}", build.as_secs_f64() * 1e9 / nodes as f64);

    let t = Instant::now();
    let (a, b) = (SX::sym("a", 1), SX::sym("b", 1));
    let element = Function::new("element", &[("a", &a), ("b", &b)], &[("y", &(a.sin() * &b))])?;
    let m = 100_000;
    let xm = MX::sym("x", m + 1);
    let y = element.map(m)?.call(&[&xm.slice(0..m)?.t(), &xm.slice(1..m + 1)?.t()])?;
    let total = y[0].sum();
    let mx = t.elapsed();
    println!("MX map over {m} elements: {:.1} ms ({} MX nodes)", mx.as_secs_f64() * 1e3, total.n_nodes()?);
    println!("mx_map_build_ms = {:.3}", mx.as_secs_f64() * 1e3);
    let _ = f;
    Ok(())
}
