//! Helpers shared by the simulator tests.
#![allow(dead_code)]

use fesd_model::{PssModel, Representation};
use fesd_rk::RkFamily;
use fesd_sim::{CrossComplementarity, IrkRepresentation, SimulationResult, Simulator, SimulatorOptions};

/// A scheme of the test grids.
#[derive(Clone, Copy, Debug)]
pub struct Scheme {
    /// Integral or differential form of the RK equations.
    pub irk: IrkRepresentation,
    /// Runge–Kutta family.
    pub family: RkFamily,
    /// Stewart or Step.
    pub representation: Representation,
    /// Cross complementarity mode.
    pub cross: CrossComplementarity,
}

/// {differential, integral} × {Radau IIA, Gauss–Legendre} × {Stewart, Step} × the four cross complementarity modes.
pub fn grid() -> Vec<Scheme> {
    let mut out = Vec::new();
    for irk in [IrkRepresentation::Differential, IrkRepresentation::Integral] {
        for family in [RkFamily::RadauIIA, RkFamily::GaussLegendre] {
            for representation in [Representation::Stewart, Representation::Step] {
                for cross in CrossComplementarity::ALL {
                    out.push(Scheme { irk, family, representation, cross });
                }
            }
        }
    }
    out
}

/// Simulates `model` from `x0` with `scheme`, n_s stages and n_fe elements per step.
pub fn simulate(model: &PssModel, scheme: Scheme, n_s: usize, n_fe: usize, step: f64, n_steps: usize, x0: &[f64]) -> SimulationResult {
    let mut opts: SimulatorOptions = SimulatorOptions { step, n_steps, ..Default::default() };
    opts.fesd.irk_representation = scheme.irk;
    opts.fesd.rk_family = scheme.family;
    opts.fesd.representation = scheme.representation;
    opts.fesd.cross_complementarity = scheme.cross;
    opts.fesd.n_s = n_s;
    opts.fesd.n_fe = n_fe;
    let mut sim = Simulator::new(model, opts).unwrap_or_else(|e| panic!("{scheme:?}: {e}"));
    let r = sim.simulate(x0, &[], &[]).unwrap();
    assert!(r.completed, "{scheme:?}: failed steps {:#?}", r.failed_steps());
    r
}

/// Smallest max(|t − t*|, |x_i − x*|) over the element boundaries.
pub fn distance_to(r: &SimulationResult, t_star: f64, i: usize, x_star: f64) -> f64 {
    r.t.iter().zip(&r.x).map(|(t, x)| (t - t_star).abs().max((x[i] - x_star).abs())).fold(f64::INFINITY, f64::min)
}
