//! Regions must partition the sign patterns of the switching functions: every
//! non-degenerate point in exactly one region. Definitions that are not a partition
//! are errors naming a pattern (regression: they were accepted and every simulation
//! step reported "converged").

use casadi::{Function, SX};
use fesd_model::{DcsOptions, ModelError, PssModel, RegionSet, Representation, StageAlgebra, Subsystem};
use proptest::prelude::*;

fn sign_model(s: Vec<Vec<i8>>, n_c: usize) -> PssModel {
    let x = SX::sym("x", n_c);
    let f = (0..s.len()).map(|i| SX::constant(n_c, 1, i as f64)).collect();
    PssModel::new(x.clone()).with_subsystem(Subsystem::new(x, s, f))
}

fn set_model(sets: Vec<RegionSet>, n_c: usize) -> PssModel {
    let x = SX::sym("x", n_c);
    let f = (0..sets.len()).map(|i| SX::constant(n_c, 1, i as f64)).collect();
    PssModel::new(x.clone()).with_subsystem(Subsystem::from_sets(x, sets, f))
}

fn defect(m: &PssModel) -> (String, Vec<usize>) {
    match m.validate() {
        Err(ModelError::NotAPartition { pattern, regions, .. }) => (pattern, regions),
        other => panic!("expected NotAPartition, got {other:?}"),
    }
}

#[test]
fn sign_matrices_that_are_not_partitions() {
    // Duplicate rows: x > 0 twice, x < 0 nowhere.
    assert_eq!(defect(&sign_model(vec![vec![1], vec![1]], 1)), ("(c_0 > 0)".into(), vec![0, 1]));
    // Two quadrants of four.
    let (pattern, regions) = defect(&sign_model(vec![vec![1, 1], vec![-1, -1]], 2));
    assert!(regions.is_empty() && (pattern == "(c_0 > 0, c_1 < 0)" || pattern == "(c_0 < 0, c_1 > 0)"), "{pattern}");
    // Overlapping half planes.
    let (pattern, regions) = defect(&sign_model(vec![vec![1, 0], vec![0, 1], vec![-1, -1]], 2));
    assert_eq!((pattern.as_str(), regions), ("(c_0 > 0, c_1 > 0)", vec![0, 1]));
    let err = sign_model(vec![vec![1, 1], vec![-1, -1]], 2).validate().unwrap_err().to_string();
    assert!(err.contains("not a partition") && err.contains("no region"), "{err}");
}

#[test]
fn zero_regions_are_an_error_in_both_representations() {
    // Regression: Stewart panicked, Step "completed" with ẋ ≡ 0.
    for representation in [Representation::Stewart, Representation::Step] {
        let opts = DcsOptions { representation, lift_products: false };
        let e = StageAlgebra::new(&sign_model(vec![], 1), &opts).unwrap_err();
        assert!(matches!(&e, ModelError::NotAPartition { regions, .. } if regions.is_empty()), "{e}");
        let e = StageAlgebra::new(&set_model(vec![], 1), &opts).unwrap_err();
        assert!(matches!(&e, ModelError::NotAPartition { .. }), "{e}");
    }
}

#[test]
fn region_sets_that_are_not_partitions() {
    use RegionSet::*;
    // Empty intersection (always on) and empty union (never on).
    for empty in [Intersection(vec![]), Union(vec![])] {
        let e = set_model(vec![Positive(0), empty], 1).validate().unwrap_err();
        assert_eq!(e, ModelError::EmptySetOperation { subsystem: 0, region: 1 });
    }
    // {c0 > 0} and {c0 > 0 or c1 > 0} overlap.
    let (pattern, regions) = defect(&set_model(vec![Positive(0), Union(vec![Positive(0), Positive(1)]), RegionSet::negative(0)], 2));
    assert!(pattern.starts_with("(c_0 > 0") && regions == vec![0, 1], "{pattern} {regions:?}");
    // Four quadrants as intersections: a partition.
    let q = |a: RegionSet, b: RegionSet| Intersection(vec![a, b]);
    let quadrants = vec![
        q(Positive(0), Positive(1)),
        q(Positive(0), RegionSet::negative(1)),
        q(RegionSet::negative(0), Positive(1)),
        q(RegionSet::negative(0), RegionSet::negative(1)),
    ];
    assert!(set_model(quadrants.clone(), 2).validate().is_ok());
    // The whole line as {c0 < 0} ∪ {c0 > 0}: right at the vertices, θ = 1 − α + α² inside.
    let e = set_model(vec![Union(vec![RegionSet::negative(0), Positive(0)])], 1).validate().unwrap_err();
    assert!(matches!(e, ModelError::ThetaSum { .. }), "{e}");
    // Three of them leave a quadrant uncovered.
    let (pattern, regions) = defect(&set_model(quadrants[..3].to_vec(), 2));
    assert_eq!((pattern.as_str(), regions), ("(c_0 < 0, c_1 < 0)", vec![]));
}

/// θ of the Step lowering at α (after z's α entries), for any model of one subsystem.
fn step_theta(m: &PssModel, alpha: &[f64]) -> Vec<f64> {
    let alg = StageAlgebra::new(m, &DcsOptions { representation: Representation::Step, lift_products: false }).unwrap();
    let f = Function::new("theta", &[("z", &alg.z)], &[("theta", &alg.theta)]).unwrap();
    let mut z = vec![0.0; alg.n_z()];
    z[..alpha.len()].copy_from_slice(alpha);
    f.eval_dense(&[&z]).unwrap().remove(0)
}

/// Brute force: the number of rows containing each of the 2^{n_c} patterns.
fn coverage(s: &[Vec<i8>], n_c: usize) -> Vec<usize> {
    (0..1usize << n_c).map(|m| s.iter().filter(|row| (0..n_c).all(|j| row[j] == 0 || (row[j] == 1) == (m >> j & 1 == 1))).count()).collect()
}

fn region_set(n_c: usize) -> impl Strategy<Value = RegionSet> {
    let leaf = prop_oneof![(0..n_c).prop_map(RegionSet::Positive), (0..n_c).prop_map(RegionSet::negative)];
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..3).prop_map(RegionSet::Intersection),
            prop::collection::vec(inner.clone(), 1..3).prop_map(RegionSet::Union),
            inner.prop_map(|r| RegionSet::Complement(Box::new(r))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A random sign matrix is accepted exactly when brute force finds every pattern
    /// in one row; when accepted, Step's θ sums to one and one region is active at
    /// every vertex.
    #[test]
    fn random_sign_matrices(n_c in 1usize..4, rows in prop::collection::vec(prop::collection::vec(-1i8..=1, 3), 1..7),
                            alpha in prop::collection::vec(0.0f64..=1.0, 3)) {
        let s: Vec<Vec<i8>> = rows.into_iter().map(|r| r[..n_c].to_vec()).filter(|r| r.iter().any(|&v| v != 0)).collect();
        prop_assume!(!s.is_empty());
        let m = sign_model(s.clone(), n_c);
        let cover = coverage(&s, n_c);
        match m.validate() {
            Ok(()) => {
                prop_assert!(cover.iter().all(|&c| c == 1), "accepted {:?}: coverage {:?}", s, cover);
                let theta = step_theta(&m, &alpha[..n_c]);
                prop_assert!((theta.iter().sum::<f64>() - 1.0).abs() < 1e-12);
                for v in 0..1usize << n_c {
                    let vertex: Vec<f64> = (0..n_c).map(|j| (v >> j & 1) as f64).collect();
                    let on = step_theta(&m, &vertex).iter().filter(|&&t| t == 1.0).count();
                    prop_assert_eq!(on, 1);
                }
            }
            Err(ModelError::NotAPartition { .. }) => prop_assert!(cover.iter().any(|&c| c != 1), "rejected a partition {:?}", s),
            Err(e) => prop_assert!(false, "unexpected error {}", e),
        }
    }

    /// The same for random region sets.
    #[test]
    fn random_region_sets(sets in prop::collection::vec(region_set(3), 1..5), alpha in prop::collection::vec(0.0f64..=1.0, 3)) {
        let m = set_model(sets.clone(), 3);
        // θ from the region algebra itself (the lowering refuses rejected models).
        let active = |vertex: &[f64]| {
            let a: Vec<SX> = vertex.iter().map(|&v| SX::scalar(v)).collect();
            sets.iter().filter(|r| r.theta(&a).evalf().unwrap()[0] == 1.0).count()
        };
        let vertices: Vec<Vec<f64>> = (0..8).map(|v| (0..3).map(|j| (v >> j & 1) as f64).collect()).collect();
        match m.validate() {
            Ok(()) => {
                for v in &vertices {
                    prop_assert_eq!(active(v), 1);
                }
                prop_assert!((step_theta(&m, &alpha).iter().sum::<f64>() - 1.0).abs() < 1e-12);
            }
            Err(ModelError::NotAPartition { .. }) => prop_assert!(vertices.iter().any(|v| active(v) != 1)),
            Err(ModelError::ThetaSum { alpha, sum, .. }) => {
                // A partition at the vertices whose θ fail to sum to one inside.
                prop_assert!(vertices.iter().all(|v| active(v) == 1));
                let a: Vec<SX> = alpha.iter().map(|&v| SX::scalar(v)).collect();
                let total: f64 = sets.iter().map(|r| r.theta(&a).evalf().unwrap()[0]).sum();
                prop_assert!((total - sum).abs() < 1e-12 && (total - 1.0).abs() > 1e-12);
            }
            Err(e) => prop_assert!(false, "unexpected error {}", e),
        }
    }
}

#[test]
fn free_repeated_and_non_finite_symbols_are_named() {
    let x = SX::sym("x", 1);
    let y = SX::sym("y_free", 1);
    let f = |v: f64| SX::scalar(v);
    // A switching function using a symbol that is not a state, control or parameter.
    let m = PssModel::new(x.clone()).with_subsystem(Subsystem::new(&x + &y, vec![vec![1], vec![-1]], vec![f(1.0), f(2.0)]));
    let e = m.validate().unwrap_err();
    assert!(matches!(&e, ModelError::FreeSymbols { names } if names.contains("y_free")), "{e}");
    // The same symbol as state and control.
    let m = PssModel::new(x.clone()).with_controls(x.clone()).with_subsystem(Subsystem::new(
        x.clone(),
        vec![vec![1], vec![-1]],
        vec![f(1.0), f(2.0)],
    ));
    let e = m.validate().unwrap_err();
    assert!(matches!(e, ModelError::RepeatedSymbol(_)), "{e}");
    // A NaN constant as switching function.
    let m = PssModel::new(x.clone()).with_subsystem(Subsystem::new(SX::scalar(f64::NAN), vec![vec![1], vec![-1]], vec![f(1.0), f(2.0)]));
    let e = m.validate().unwrap_err();
    assert!(matches!(&e, ModelError::NotFinite { value, .. } if value.is_nan()), "{e}");
}
