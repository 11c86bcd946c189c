//! Small MILPs with known solutions, and bad data as errors.

use highs::{HighsError, Milp, MilpStatus};

#[test]
fn knapsack_with_known_optimum() {
    // max 5a + 4b + 3c s.t. 2a + 3b + c ≤ 5, 4a + b + 2c ≤ 11, 3a + 4b + 2c ≤ 8, a, b, c ∈ {0, 1, 2, …}
    // (a textbook problem; integer optimum a = 2, b = 0, c = 1, value 13).
    let milp = Milp {
        cost: vec![-5.0, -4.0, -3.0],
        col_lower: vec![0.0; 3],
        col_upper: vec![f64::INFINITY; 3],
        integer: vec![true; 3],
        rows: vec![vec![(0, 2.0), (1, 3.0), (2, 1.0)], vec![(0, 4.0), (1, 1.0), (2, 2.0)], vec![(0, 3.0), (1, 4.0), (2, 2.0)]],
        row_lower: vec![f64::NEG_INFINITY; 3],
        row_upper: vec![5.0, 11.0, 8.0],
    };
    let s = milp.solve(10.0).unwrap();
    assert_eq!(s.status, MilpStatus::Optimal);
    assert!((s.objective + 13.0).abs() < 1e-9, "{}", s.objective);
    assert!((s.x[0] - 2.0).abs() < 1e-9 && s.x[1].abs() < 1e-9 && (s.x[2] - 1.0).abs() < 1e-9, "{:?}", s.x);
}

#[test]
fn continuous_lp_and_infeasible_problem() {
    // min x + y s.t. x + 2y ≥ 2, 3x + y ≥ 3, x, y ≥ 0: optimum at (0.8, 0.6), value 1.4.
    let mut lp = Milp {
        cost: vec![1.0, 1.0],
        col_lower: vec![0.0; 2],
        col_upper: vec![f64::INFINITY; 2],
        integer: vec![false; 2],
        rows: vec![vec![(0, 1.0), (1, 2.0)], vec![(0, 3.0), (1, 1.0)]],
        row_lower: vec![2.0, 3.0],
        row_upper: vec![f64::INFINITY; 2],
    };
    let s = lp.solve(10.0).unwrap();
    assert_eq!(s.status, MilpStatus::Optimal);
    assert!((s.objective - 1.4).abs() < 1e-9 && (s.x[0] - 0.8).abs() < 1e-9);
    lp.col_upper = vec![0.5, 0.5];
    assert_eq!(lp.solve(10.0).unwrap().status, MilpStatus::Infeasible);
}

#[test]
fn bad_data_is_an_error() {
    let milp = Milp { cost: vec![1.0], col_lower: vec![1.0], col_upper: vec![0.0], integer: vec![false], ..Default::default() };
    assert!(matches!(milp.solve(1.0), Err(HighsError::Invalid(_))));
    let milp = Milp {
        cost: vec![1.0],
        col_lower: vec![0.0],
        col_upper: vec![1.0],
        integer: vec![false],
        rows: vec![vec![(3, 1.0)]],
        row_lower: vec![0.0],
        row_upper: vec![1.0],
    };
    assert!(matches!(milp.solve(1.0), Err(HighsError::Invalid(_))));
}
