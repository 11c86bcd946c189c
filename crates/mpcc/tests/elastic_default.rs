//! The default homotopy (ℓ∞ elastic mode from σ_0 = 100) on a NOSBENCH problem where
//! nosnoc's direct steering ends in a higher local minimum: the time-optimal car
//! (CARTIM, Stewart, N = 10 intervals of 3 elements), whose reference solution has
//! f = 13.33417.

use fesd_mpcc::{nosbench, Formulation, HomotopyOptions, MpccSolver, Stationarity};
use std::path::PathBuf;

fn cartim() -> fesd_mpcc::Mpcc {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/CARTIM_001_010_003_2_RIIA_STEWART_7_FIL_0.json");
    nosbench::read_file(&path).unwrap()
}

#[test]
fn the_elastic_default_reaches_the_reference_minimum_of_the_car() {
    let r = MpccSolver::new(&cartim(), HomotopyOptions::default()).unwrap().solve();
    assert!(r.status.is_converged(), "{:?} {:?}", r.status, r.messages);
    assert!((r.objective - 13.33417).abs() < 1e-4, "f = {}", r.objective);
    assert!(r.comp_residual <= 1e-9, "{}", r.comp_residual);
    let finish = r.finish.expect("finish report");
    assert!(matches!(finish.stationarity, Stationarity::SStationary | Stationarity::BStationary), "{:?}", finish.stationarity);
    // nosnoc's direct steering from σ_0 = 1 solves it too, at a point no lower.
    let direct = MpccSolver::new(&cartim().with_formulation(Formulation::direct()), fesd_mpcc::presets::scholtes_direct()).unwrap().solve();
    assert!(direct.status.is_converged(), "{:?}", direct.status);
    assert!(direct.objective >= r.objective - 1e-6, "direct {} vs elastic {}", direct.objective, r.objective);
}
