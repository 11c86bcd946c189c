//! A DCS of the user's own drives the discretization: Stewart's representation of a
//! two-region subsystem with θ₂ = 1 − θ₁ eliminated, written as a
//! [`SubsystemLowering`] outside the library, simulates a crossing to the exact
//! answer and is rejected, with a typed error, on subsystems it cannot write.

use casadi::SX;
use fesd_model::{AlgebraBuilder, EquilibrationGroup, ModelError, PssModel, Regions, Subsystem, SubsystemLowering};
use fesd_sim::{SimError, Simulator, SimulatorOptions};

/// Stewart for two regions with one convex multiplier: θ ∈ [0, 1] is region 0's,
/// 1 − θ region 1's; `g − λ − μ e = 0` with `g = −S c`; `θ ⊥ λ₀`, `1 − θ ⊥ λ₁`.
struct TwoRegionStewart;

impl SubsystemLowering for TwoRegionStewart {
    fn name(&self) -> &'static str {
        "two_region_stewart"
    }

    fn lower(&self, k: usize, sub: &Subsystem, b: &mut AlgebraBuilder) -> Result<Vec<SX>, ModelError> {
        let unsupported = |reason: &str| ModelError::UnsupportedSubsystem { lowering: self.name(), subsystem: k, reason: reason.into() };
        let Regions::SignMatrix(s) = &sub.regions else { return Err(unsupported("needs a sign matrix")) };
        if s.len() != 2 || sub.c.nrow() != 1 {
            return Err(unsupported("needs one switching function and two regions"));
        }
        let c = sub.c.at(0)?;
        let g: Vec<SX> = s.iter().map(|row| &c * f64::from(-row[0])).collect();
        let theta = SX::sym(&format!("theta{k}"), 1);
        let lambda = SX::sym(&format!("lambda{k}"), 2);
        let mu = SX::sym(&format!("mu{k}"), 1);
        b.unknowns(&theta, 0.0, 1.0, 0.5);
        b.unknowns(&lambda, 0.0, f64::INFINITY, 0.0);
        b.unknowns(&mu, f64::NEG_INFINITY, f64::INFINITY, 0.0);
        let (l0, l1) = (lambda.at(0)?, lambda.at(1)?);
        b.equations(SX::column(&[&g[0] - &l0 - &mu, &g[1] - &l1 - &mu])?);
        let base = b.n_pairs();
        let th = theta.at(0)?;
        let one_minus = 1.0 - &th;
        b.pairs([th.clone(), one_minus.clone()], [l0, l1]);
        let g_min = g[0].fmin(&g[1])?;
        b.duals_at_state([&g[0] - &g_min, &g[1] - &g_min]);
        b.siblings([vec![base + 1], vec![base]]);
        b.group(EquilibrationGroup { dual_parts: vec![vec![base, base + 1]], primal_parts: vec![vec![base, base + 1]] });
        Ok(vec![th, one_minus])
    }
}

/// ẋ = 1 for x > 0 and 3 for x < 0: from x0 = −1 the crossing is at t = 1/3 and
/// x(1) = 2/3.
fn crossing() -> PssModel {
    let x = SX::sym("x", 1);
    PssModel::new(x.clone()).with_subsystem(Subsystem::new(x, vec![vec![1], vec![-1]], vec![SX::scalar(1.0), SX::scalar(3.0)]))
}

#[test]
fn a_lowering_of_your_own_simulates_a_crossing_exactly() {
    let opts = SimulatorOptions { step: 0.25, n_steps: 4, ..Default::default() };
    let mut sim = Simulator::with_lowering(&crossing(), opts, &TwoRegionStewart).unwrap();
    // θ, λ₀, λ₁, μ: one unknown fewer than the library's Stewart.
    assert_eq!(sim.interval().layout.n_z, 4);
    let r = sim.simulate(&[-1.0], &[], &[]).unwrap();
    assert!(r.completed);
    assert!((r.x_final()[0] - 2.0 / 3.0).abs() < 1e-9, "x(1) = {}", r.x_final()[0]);
    assert_eq!(r.switch_times.len(), 1, "switches at {:?}", r.switch_times);
    assert!((r.switch_times[0] - 1.0 / 3.0).abs() < 1e-9, "switch at {}", r.switch_times[0]);
}

#[test]
fn a_lowering_that_cannot_write_a_subsystem_is_a_typed_error() {
    let x = SX::sym("x", 2);
    let three_regions = PssModel::new(x.clone()).with_subsystem(Subsystem::new(
        x.clone(),
        vec![vec![1, 1], vec![1, -1], vec![-1, 0]],
        vec![SX::from_slice(&[1.0, 0.0]), SX::from_slice(&[0.0, 1.0]), SX::from_slice(&[1.0, 1.0])],
    ));
    match Simulator::with_lowering(&three_regions, SimulatorOptions::default(), &TwoRegionStewart) {
        Err(SimError::Model(ModelError::UnsupportedSubsystem { lowering, subsystem, .. })) => {
            assert_eq!((lowering, subsystem), ("two_region_stewart", 0));
        }
        Err(e) => panic!("expected UnsupportedSubsystem, got {e}"),
        Ok(_) => panic!("expected an error"),
    }
}
