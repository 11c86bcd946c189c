//! θ from the Step representation sums to one; the region algebra; model validation.

use casadi::{Function, SX};
use fesd_model::{DcsOptions, ModelError, PssModel, RegionSet, Representation, StageAlgebra, Subsystem};
use proptest::prelude::*;

/// θ(α) of a Step lowering as a function of α alone.
fn theta_of_alpha(s: Vec<Vec<i8>>, n_c: usize, lift: bool) -> (Function, usize) {
    let x = SX::sym("x", n_c);
    let n_f = s.len();
    let f: Vec<SX> = (0..n_f).map(|i| SX::constant(n_c, 1, i as f64)).collect();
    let model = PssModel::new(x.clone()).with_subsystem(Subsystem::new(x.clone(), s, f));
    let alg = StageAlgebra::new(&model, &DcsOptions { representation: Representation::Step, lift_products: lift }).unwrap();
    let f = Function::new("theta", &[("z", &alg.z)], &[("theta", &alg.theta)]).unwrap();
    (f, alg.n_z())
}

/// A random sparse sign matrix whose regions partition the space: the leaves of a
/// random decision tree that splits on unused switching functions (zeros in S mean
/// "not split on"). `choices` drives the tree: split or stop, and which c_j.
fn partition_sign_matrix(n_c: usize, choices: &[u8]) -> Vec<Vec<i8>> {
    fn grow(path: Vec<i8>, choices: &[u8], pos: &mut usize, out: &mut Vec<Vec<i8>>) {
        let unused: Vec<usize> = (0..path.len()).filter(|&j| path[j] == 0).collect();
        let pick = choices[*pos % choices.len()];
        *pos += 1;
        let at_root = path.iter().all(|&v| v == 0);
        if unused.is_empty() || (!at_root && pick.is_multiple_of(3)) {
            out.push(path);
            return;
        }
        let j = unused[pick as usize % unused.len()];
        for sign in [1i8, -1] {
            let mut p = path.clone();
            p[j] = sign;
            grow(p, choices, pos, out);
        }
    }
    let mut out = Vec::new();
    grow(vec![0; n_c], choices, &mut 0, &mut out);
    out
}

proptest! {
    /// For the complete sign matrix (all 2^{n_c} sign patterns), Σθ = 1 for every α;
    /// for a random sparse S, the θ of each row equals the product rule.
    #[test]
    fn theta_sums_to_one_on_the_complete_sign_matrix(n_c in 1usize..5, alpha in prop::collection::vec(0.0f64..=1.0, 4)) {
        let alpha = &alpha[..n_c];
        let s: Vec<Vec<i8>> = (0..1usize << n_c)
            .map(|m| (0..n_c).map(|j| if m >> j & 1 == 1 { 1 } else { -1 }).collect())
            .collect();
        let (f, n_z) = theta_of_alpha(s, n_c, false);
        let mut z = vec![0.0; n_z];
        z[..n_c].copy_from_slice(alpha);
        let theta = f.eval_dense(&[&z]).unwrap().remove(0);
        let sum: f64 = theta.iter().sum();
        prop_assert!((sum - 1.0).abs() < 1e-12, "sum = {}", sum);
        prop_assert!(theta.iter().all(|&t| t >= -1e-15));
    }

    /// For a random sparse S whose rows partition the space, Σθ = 1 for every α, and
    /// each θ_i follows the product rule.
    #[test]
    fn theta_sums_to_one_for_random_sparse_partitions(n_c in 1usize..5, choices in prop::collection::vec(any::<u8>(), 1..40), alpha in prop::collection::vec(0.0f64..=1.0, 4)) {
        let alpha = &alpha[..n_c];
        let s = partition_sign_matrix(n_c, &choices);
        let (f, n_z) = theta_of_alpha(s.clone(), n_c, false);
        let mut z = vec![0.0; n_z];
        z[..n_c].copy_from_slice(alpha);
        let theta = f.eval_dense(&[&z]).unwrap().remove(0);
        let sum: f64 = theta.iter().sum();
        prop_assert!((sum - 1.0).abs() < 1e-12, "S = {:?}: sum = {}", s, sum);
        for (i, row) in s.iter().enumerate() {
            let want: f64 = row.iter().zip(alpha).map(|(&sij, &a)| match sij { 1 => a, -1 => 1.0 - a, _ => 1.0 }).product();
            prop_assert!((theta[i] - want).abs() < 1e-14);
        }
    }
}

#[test]
fn lifting_gives_the_same_theta_at_consistent_beta() {
    // All eight sign patterns of three switching functions, the first two rows
    // (+, +, +) and (−, +, −).
    let mut s = vec![vec![1, 1, 1], vec![-1, 1, -1]];
    for m in 0..8 {
        let row: Vec<i8> = (0..3).map(|j| if m >> j & 1 == 1 { 1 } else { -1 }).collect();
        if !s.contains(&row) {
            s.push(row);
        }
    }
    let x = SX::sym("x", 3);
    let f: Vec<SX> = (0..8).map(|i| SX::constant(3, 1, i as f64)).collect();
    let model = PssModel::new(x.clone()).with_subsystem(Subsystem::new(x.clone(), s.clone(), f));
    let lifted = StageAlgebra::new(&model, &DcsOptions { representation: Representation::Step, lift_products: true }).unwrap();
    assert_eq!(lifted.n_z(), 9 + 2 * 8);
    // α = (0.2, 0.5, 0.7); each row's β are its partial products, e.g. row 0:
    // (0.1, 0.07), row 1: (0.4, 0.12).
    let alpha = [0.2, 0.5, 0.7];
    let factor = |sign: i8, a: f64| if sign == 1 { a } else { 1.0 - a };
    let mut z = vec![0.2, 0.5, 0.7, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    for row in &s {
        let b1 = factor(row[0], alpha[0]) * factor(row[1], alpha[1]);
        z.extend([b1, b1 * factor(row[2], alpha[2])]);
    }
    let g = Function::new("g", &[("x", &x), ("z", &lifted.z)], &[("eqs", &lifted.equations), ("theta", &lifted.theta)]).unwrap();
    let out = g.eval_dense(&[&[0.0; 3], &z]).unwrap();
    // Equations: c − λp + λn (3 zeros at x = 0) then the lifting equations.
    assert!(out[0].iter().all(|v| v.abs() < 1e-15), "{:?}", out[0]);
    assert!((out[1][0] - 0.07).abs() < 1e-15 && (out[1][1] - 0.12).abs() < 1e-15);
    assert!((out[1].iter().sum::<f64>() - 1.0).abs() < 1e-14);
}

#[test]
fn region_algebra_follows_table_one() {
    let a = [SX::scalar(0.3), SX::scalar(0.6)];
    let ev = |r: RegionSet| r.theta(&a).evalf().unwrap()[0];
    assert!((ev(RegionSet::Positive(0)) - 0.3).abs() < 1e-15);
    assert!((ev(RegionSet::negative(1)) - 0.4).abs() < 1e-15);
    assert!((ev(RegionSet::Intersection(vec![RegionSet::Positive(0), RegionSet::negative(1)])) - 0.12).abs() < 1e-15);
    assert!((ev(RegionSet::Union(vec![RegionSet::Positive(0), RegionSet::Positive(1)])) - (0.3 + 0.6 - 0.18)).abs() < 1e-15);
}

#[test]
fn stewart_lowering_has_the_textbook_equations() {
    // ẋ ∈ 2 − sign(x): regions x > 0 (f = 1) and x < 0 (f = 3).
    let x = SX::sym("x", 1);
    let model =
        PssModel::new(x.clone()).with_subsystem(Subsystem::new(x.clone(), vec![vec![1], vec![-1]], vec![SX::scalar(1.0), SX::scalar(3.0)]));
    let alg = StageAlgebra::new(&model, &DcsOptions::default()).unwrap();
    assert_eq!(alg.n_z(), 5);
    let f = alg.function(&model, "stage").unwrap();
    // x = 0.5: g = (−0.5, 0.5); θ = (1, 0), λ = (0, 1), μ = −0.5 solves the equations.
    let out = f.eval_dense(&[&[0.5], &[], &[], &[1.0, 0.0, 0.0, 1.0, -0.5]]).unwrap();
    assert_eq!(out[0], vec![1.0]);
    assert!(out[1].iter().all(|v| v.abs() < 1e-15), "{:?}", out[1]);
    let d = alg.dual_at_state_function(&model, "d").unwrap().eval_dense(&[&[0.5], &[], &[]]).unwrap();
    assert_eq!(d[0], vec![0.0, 1.0]);
}

#[test]
fn bad_models_are_typed_errors() {
    let x = SX::sym("x", 2);
    let f = || vec![SX::zeros(2, 1), SX::zeros(2, 1)];
    let c = x.at(0).unwrap();
    let check = |m: PssModel| StageAlgebra::new(&m, &DcsOptions::default()).unwrap_err();
    assert!(matches!(check(PssModel::new(x.clone())), ModelError::NoSubsystem));
    let e = check(PssModel::new(x.clone()).with_subsystem(Subsystem::new(c.clone(), vec![vec![1], vec![0]], f())));
    assert_eq!(e, ModelError::ZeroRow { subsystem: 0, row: 1 });
    let e = check(PssModel::new(x.clone()).with_subsystem(Subsystem::new(c.clone(), vec![vec![1], vec![2]], f())));
    assert!(matches!(e, ModelError::SignMatrixEntry { value: 2, .. }));
    let e = check(PssModel::new(x.clone()).with_subsystem(Subsystem::new(c.clone(), vec![vec![1], vec![-1], vec![1]], f())));
    assert_eq!(e, ModelError::RegionCount { subsystem: 0, regions: 3, dynamics: 2 });
    let e = check(PssModel::new(x.clone()).with_subsystem(Subsystem::new(c.clone(), vec![vec![1, 1], vec![-1, 1]], f())));
    assert!(matches!(e, ModelError::SignMatrixColumns { n_c: 1, .. }));
    let e = check(PssModel::new(x.clone()).with_subsystem(Subsystem::new(
        c.clone(),
        vec![vec![1], vec![-1]],
        vec![SX::zeros(3, 1), SX::zeros(2, 1)],
    )));
    assert!(matches!(e, ModelError::DynamicsShape { rows: 3, n_x: 2, .. }));
    let e =
        check(PssModel::new(x.clone()).with_subsystem(Subsystem::new(SX::sym_matrix("c", 2, 2), vec![vec![1, 1]], vec![SX::zeros(2, 1)])));
    assert!(matches!(e, ModelError::SwitchingFunctionShape { .. }));
    let e = check(PssModel::new(x.clone()).with_subsystem(Subsystem::from_sets(
        c.clone(),
        vec![RegionSet::Positive(3)],
        vec![SX::zeros(2, 1)],
    )));
    assert!(matches!(e, ModelError::RegionSetIndex { index: 3, .. }));
    let e = check(PssModel::new(x.clone()).with_subsystem(Subsystem::from_sets(
        c.clone(),
        vec![RegionSet::Positive(0), RegionSet::negative(0)],
        f(),
    )));
    assert!(matches!(e, ModelError::StewartNeedsIndicators { .. }));
    let e = check(PssModel::new(&x * 2.0).with_subsystem(Subsystem::new(c.clone(), vec![vec![1], vec![-1]], f())));
    assert!(matches!(e, ModelError::NotSymbolic { what: "x" }));
}
