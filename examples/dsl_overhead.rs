//! Model construction through the macros against the builder: the oscillator, the car
//! OCP and the bouncing ball, each built `reps` times both ways (alternating, best of
//! five rounds). The macros expand to the builder's calls, the model's `validate()`
//! included, plus checks of entry shapes; the builder side here calls `validate()` too,
//! so the ratio should be near 1.
//!
//! Prints `{model}_builder_us`, `{model}_macro_us` and `{model}_ratio` per model.
//!
//! Run: `cargo run --release --example dsl_overhead [-- reps]`

use fesd::cls::models::bouncing_ball;
use fesd::dsl::{cls_model, pss_model};
use fesd::model::Representation;
use fesd::ocp::problems;
use fesd::sim::models;
use std::time::Instant;

pss_model! {
    /// The FESD paper's oscillator.
    Oscillator {
        const W = 2.0 * std::f64::consts::PI;
        states    { x: 2 }
        switching { c = dot(x, x) - 1.0 }
        regions   {
            outside: [+] => [mtimes(matrix(&[[1.0, W], [-W, 1.0]])?, x)],
            inside:  [-] => [mtimes(matrix(&[[1.0, -W], [W, 1.0]])?, x)],
        }
    }
}

pss_model! {
    /// Time-optimal car with a turbo.
    CarTurbo(n: usize, n_fe: usize) {
        states    { q, v in -20.0..=20.0 }
        controls  { u in -5.0..=5.0 }
        switching { c = v - 10.0 }
        regions   { turbo: c > 0 => [v, u * 3.0], normal: c < 0 => [v, u * 1.0] }
        ocp time_optimal {
            intervals n, elements n_fe, horizon free(1.0..=30.0, guess 15.0),
            x0 [0.0, 0.0], minimize T, terminal { q == 200.0, v == 0.0 },
        }
    }
}

cls_model! {
    /// The 1-D bouncing ball.
    Ball(eps: f64) {
        const G = 9.81;
        q { y }
        v { vy }
        forces [-G]
        contacts { ground: gap y, restitution eps }
    }
}

/// Best of five rounds of `reps` calls, in µs per call.
fn time(reps: usize, mut f: impl FnMut() -> Result<(), Box<dyn std::error::Error>>) -> Result<f64, Box<dyn std::error::Error>> {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..reps {
            f()?;
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e6 / reps as f64);
    }
    Ok(best)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let reps: usize = std::env::args().nth(1).map(|s| s.parse()).transpose()?.unwrap_or(2000);
    type Build = Box<dyn FnMut() -> Result<(), Box<dyn std::error::Error>>>;
    let cases: Vec<(&str, Build, Build)> = vec![
        (
            "oscillator",
            Box::new(|| models::oscillator()?.validate().map_err(Into::into)),
            Box::new(|| Oscillator::new().map(drop).map_err(Into::into)),
        ),
        (
            "car_ocp",
            Box::new(|| problems::car_turbo(10, 3, Representation::Stewart)?.model.validate().map_err(Into::into)),
            Box::new(|| CarTurbo::new(10, 3)?.time_optimal().map(drop).map_err(Into::into)),
        ),
        (
            "bouncing_ball",
            Box::new(|| bouncing_ball(1.0).validate().map_err(Into::into)),
            Box::new(|| Ball::new(1.0).map(drop).map_err(Into::into)),
        ),
    ];
    for (name, mut builder, mut mac) in cases {
        let (b, m) = (time(reps, &mut builder)?, time(reps, &mut mac)?);
        println!("{name}_builder_us = {b:.2}");
        println!("{name}_macro_us = {m:.2}");
        println!("{name}_ratio = {:.3}", m / b);
    }
    Ok(())
}
