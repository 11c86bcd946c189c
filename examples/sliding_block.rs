//! FESD-J with Coulomb friction: a unit block on flat ground (μ = 0.5, g = 9.81)
//! pushed off at speed 2 slides, decelerated at μg, and stops at t = 2/(μg) =
//! 0.4077472 after 4/(2μg) = 0.4077472; then it sticks. The stop lands on an element
//! boundary (a slide stops only at a boundary: the slip at each element's start is
//! crossed with sticking at its stages).
//!
//! The same block as a spatial contact (two tangent directions, the friction cone a
//! polyhedron of 8 directions) pushed off diagonally, along one of the cone's
//! directions: it stops at the same time and distance on its starting line. Pushed
//! off at 30°, between two directions, the polyhedron brakes it less (it stops at
//! 0.4376 s, bending toward 45°); the conic model (`FrictionModel::Conic`, the
//! circular cone itself) stops it exactly, on its line.
//!
//! Prints `t_stop = …`, `x_stop = …` and their errors, `x_final = …`, for the
//! spatial block `t_stop_spatial = …`, `distance_spatial = …`, their errors and
//! `off_line_spatial = …` (distance from the starting line), and the same keys with
//! `_polyhedral_30` and `_conic_30` for the pushes at 30°.
//!
//! Writes the planar block's positions and velocities to `sliding_block.png`.
//!
//! Run: `cargo run --release --example sliding_block`

use fesd::cls::models::{point_in_space, point_on_plane, G};
use fesd::cls::{ClsModel, ClsOptions, FrictionModel};
use fesd::sim::{Simulator, SimulatorOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mu = 0.5;
    let (t_exact, x_exact) = (2.0 / (mu * G), 4.0 / (2.0 * mu * G));
    let opts = SimulatorOptions::<ClsModel> { step: 0.1, n_steps: 8, ..Default::default() };
    let mut sim = Simulator::<ClsModel>::new(&point_on_plane(0.0, mu, 0.0)?, opts.clone())?;
    let r = sim.simulate_from(&[0.0, 0.0], &[2.0, 0.0], &[], &[])?;
    println!("planar: {} Ipopt iterations, {} failed pieces", r.total_iterations(), r.failed_steps().len());
    let i = r.v.iter().position(|v| v[0].abs() < 1e-7).ok_or("the block did not stop")?;
    println!("t_stop = {:.7}", r.t[i]);
    println!("x_stop = {:.7}", r.q[i][0]);
    println!("t_stop_error = {:.3e}", (r.t[i] - t_exact).abs());
    println!("x_stop_error = {:.3e}", (r.q[i][0] - x_exact).abs());
    println!("x_final = {:.7}", r.q_final()[0]);
    r.plot(std::path::Path::new("sliding_block.png"), "Block sliding to rest, FESD-J (μ = 0.5)")?;
    println!("wrote sliding_block.png");

    // Spatial: q = (x, y, z), pushed off at 2 m/s along 45°, then along 30°.
    let conic = ClsOptions { friction_model: FrictionModel::Conic, ..Default::default() };
    for (suffix, theta, cls) in
        [("", 45.0f64, ClsOptions::default()), ("_polyhedral_30", 30.0, ClsOptions::default()), ("_conic_30", 30.0, conic)]
    {
        let mut sim =
            Simulator::<ClsModel>::new(&point_in_space(0.0, mu, [0.0, 0.0])?, SimulatorOptions::<ClsModel> { fesd: cls, ..opts.clone() })?;
        let (c, s) = (theta.to_radians().cos(), theta.to_radians().sin());
        let r = sim.simulate_from(&[0.0, 0.0, 0.0], &[2.0 * c, 2.0 * s, 0.0], &[], &[])?;
        println!("spatial{suffix}: {} Ipopt iterations, {} failed pieces", r.total_iterations(), r.failed_steps().len());
        let i = r.v.iter().position(|v| v[0].hypot(v[1]) < 1e-7).ok_or("the spatial block did not stop")?;
        let (x, y) = (r.q[i][0], r.q[i][1]);
        println!("t_stop_spatial{suffix} = {:.7}", r.t[i]);
        println!("distance_spatial{suffix} = {:.7}", x.hypot(y));
        println!("t_stop_spatial{suffix}_error = {:.3e}", (r.t[i] - t_exact).abs());
        println!("distance_spatial{suffix}_error = {:.3e}", (x.hypot(y) - x_exact).abs());
        println!("off_line_spatial{suffix} = {:.3e}", (x * s - y * c).abs());
    }
    Ok(())
}
