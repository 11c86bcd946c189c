//! The element grid on its own: several control intervals with different element
//! counts, solved as an MPCC, against the exact solution of ẋ ∈ 2 − sign(x).

use casadi::{MX, SX};
use fesd_discretization::{
    BlockOrder, DiscretizationError, ElementBounds, ElementCounts, ElementGrid, ElementTerms, FesdOptions, GridInputs, VariableTable,
};
use fesd_model::{PssModel, Subsystem};
use fesd_mpcc::{HomotopyOptions, Mpcc, MpccSolver};
use fesd_rk::RkFamily;

/// ẋ = 1 for x > 0, 3 for x < 0: from x(0) = −1 the switch is at t = 1/3.
fn model() -> PssModel {
    let x = SX::sym("x", 1);
    PssModel::new(x.clone()).with_subsystem(Subsystem::new(x, vec![vec![1], vec![-1]], vec![SX::scalar(1.0), SX::scalar(3.0)]))
}

/// Two intervals of length 1/2 with 2 and 1 elements, implicit Euler (Radau IIA, one
/// stage), the element ends their own unknowns or the last stages: solved, and the
/// end states and step sizes read from the table by name.
fn solve(order: BlockOrder, lift_element_end: bool) -> (ElementGrid, VariableTable, Vec<f64>) {
    let opts = FesdOptions { rk_family: RkFamily::RadauIIA, n_s: 1, lift_element_end, ..Default::default() };
    let grid = ElementGrid::new(&model(), &opts, counts(vec![2, 1]), &ElementTerms::default()).unwrap();
    assert_eq!((grid.n_intervals(), grid.n_elements(), grid.element_interval()), (2, 3, vec![0, 0, 1]));
    let mut table = VariableTable::default();
    let inf = f64::INFINITY;
    grid.add_blocks(&mut table, &ElementBounds { x_lower: vec![-inf], x_upper: vec![inf], at_stages: false, x_guess: vec![-1.0] }, order);
    let w = MX::sym("w", table.len());
    let one = MX::scalar(1.0);
    let inputs = GridInputs {
        x0: MX::scalar(-1.0),
        u: MX::zeros(0, 2),
        p: MX::zeros(0, 1),
        t_final: one.clone(),
        t_grid: one,
        lambda0: None,
        y_ref: MX::zeros(0, 2),
    };
    let a = grid.assemble(&table, &w, &inputs).unwrap();
    assert_eq!(a.equilibration_constraints.numel(), 0, "heuristic step equilibration is a cost");
    let n_eq = a.g.numel();
    let mut mpcc = Mpcc::new(w, a.equilibration_cost, a.pairs_g, a.pairs_h);
    mpcc.g = a.g;
    (mpcc.lbg, mpcc.ubg) = (vec![0.0; n_eq], vec![0.0; n_eq]);
    (mpcc.lbw, mpcc.ubw, mpcc.w0) = (table.lb.clone(), table.ub.clone(), table.guess.clone());
    let r = MpccSolver::new(&mpcc, HomotopyOptions::default()).unwrap().solve();
    assert!(r.status.is_converged(), "{:?}", r.status);
    assert_eq!(grid.end_is_last_stage(), !lift_element_end);
    assert_eq!(table.block("x", Some(0), Some(0)).is_some(), lift_element_end);
    (grid, table, r.w)
}

#[test]
fn intervals_with_different_element_counts_find_the_exact_switch() {
    let mut solutions = Vec::new();
    for (order, lift) in
        [(BlockOrder::ByKind, false), (BlockOrder::ByElement, false), (BlockOrder::ByKind, true), (BlockOrder::ByElement, true)]
    {
        let (grid, table, w) = solve(order, lift);
        let read = |name: &str, k: usize, n: usize| table.read(&w, name, Some(k), Some(n)).unwrap()[0];
        let end = |k: usize, n: usize| grid.end_state(&table, &w, k, n).unwrap()[0];
        // τ = h / (T/N): the first element ends at the switch, t = 1/3.
        let taus = [read("tau", 0, 0), read("tau", 0, 1), read("tau", 1, 0)];
        let ends = [end(0, 0), end(0, 1), end(1, 0)];
        for (got, want) in taus.iter().zip([2.0 / 3.0, 1.0 / 3.0, 1.0]) {
            assert!((got - want).abs() < 1e-7, "{order:?}: τ = {taus:?}");
        }
        for (got, want) in ends.iter().zip([0.0, 1.0 / 6.0, 2.0 / 3.0]) {
            assert!((got - want).abs() < 1e-7, "{order:?}: x = {ends:?}");
        }
        solutions.push((taus, ends));
    }
    assert!(table_orders_differ());
    let (t0, x0) = &solutions[0];
    for (t1, x1) in &solutions[1..] {
        assert!(t0.iter().zip(t1).chain(x0.iter().zip(x1)).all(|(a, b)| (a - b).abs() < 1e-7));
    }
}

/// The two block orders lay w out differently (the test above is not the same twice).
fn table_orders_differ() -> bool {
    let grid = ElementGrid::new(&model(), &FesdOptions::default(), counts(vec![2, 1]), &ElementTerms::default()).unwrap();
    let layout = |order| {
        let mut t = VariableTable::default();
        grid.add_blocks(&mut t, &ElementBounds { x_lower: vec![-1e3], x_upper: vec![1e3], at_stages: false, x_guess: vec![0.0] }, order);
        t.blocks.iter().map(|b| (b.name.clone(), b.interval, b.element, b.offset)).collect::<Vec<_>>()
    };
    layout(BlockOrder::ByKind) != layout(BlockOrder::ByElement)
}

#[test]
fn empty_intervals_are_rejected() {
    let err = ElementCounts::new(vec![2, 0]).err().unwrap();
    assert!(err.to_string().contains("n_fe"), "{err}");
    assert!(ElementCounts::new(vec![]).is_err());
    let opts = FesdOptions { n_fe: 0, ..Default::default() };
    assert!(opts.scheme().uniform_grid(3).is_err());
    assert!(matches!(opts.validate(), Err(DiscretizationError::InvalidOption { name: "n_fe", .. })));
}

fn counts(fe: Vec<usize>) -> ElementCounts {
    ElementCounts::new(fe).unwrap()
}
