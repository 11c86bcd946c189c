//! `#[derive(Vars)]`: layout, names in flattening order, round trips, wrong lengths,
//! and the same struct over several entry types.

use fesd::dsl::{LenError, Vars};

#[derive(Vars, Clone, Debug, PartialEq)]
struct Contact<T> {
    gap: T,
    force: [T; 2],
}

#[derive(Vars, Clone, Debug, PartialEq)]
struct State<T> {
    q: T,
    v: T,
    r: [T; 3],
    contacts: [Contact<T>; 2],
    last: Contact<T>,
}

fn example() -> State<f64> {
    let values: Vec<f64> = (0..State::<f64>::LEN).map(|i| i as f64).collect();
    State::unflatten(&values).unwrap()
}

#[test]
fn the_layout_follows_the_declaration_order() {
    assert_eq!(State::<f64>::LEN, 1 + 1 + 3 + 2 * 3 + 3);
    let names = State::<f64>::names();
    assert_eq!(names.len(), State::<f64>::LEN);
    assert_eq!(
        names,
        [
            "q",
            "v",
            "r[0]",
            "r[1]",
            "r[2]",
            "contacts[0].gap",
            "contacts[0].force[0]",
            "contacts[0].force[1]",
            "contacts[1].gap",
            "contacts[1].force[0]",
            "contacts[1].force[1]",
            "last.gap",
            "last.force[0]",
            "last.force[1]",
        ]
    );
    let x = example();
    assert_eq!((x.q, x.v, x.r), (0.0, 1.0, [2.0, 3.0, 4.0]));
    assert_eq!(x.contacts[1], Contact { gap: 8.0, force: [9.0, 10.0] });
    assert_eq!(x.last.force[1], 13.0);
}

#[test]
fn flatten_and_unflatten_are_inverse() {
    let x = example();
    let flat = x.flatten();
    assert_eq!(flat, (0..14).map(f64::from).collect::<Vec<_>>());
    assert_eq!(State::unflatten(&flat), Ok(x));
}

#[test]
fn a_wrong_length_is_an_error_not_a_panic() {
    let flat = example().flatten();
    assert_eq!(State::<f64>::unflatten(&flat[1..]), Err(LenError { expected: 14, got: 13 }));
    let longer = [flat.clone(), vec![0.0]].concat();
    assert_eq!(State::<f64>::unflatten(&longer), Err(LenError { expected: 14, got: 15 }));
    assert!(State::<f64>::unflatten(&[]).unwrap_err().to_string().contains("0 values given, the group has 14"));
}

#[test]
fn one_struct_serves_every_entry_type() {
    // Bounds as f64, labels as String, trajectories as Vec<f64>: map keeps the layout.
    let x = example();
    let names = x.clone().map(&mut |v| format!("{v:.0}"));
    assert_eq!(names.flatten(), (0..14).map(|i| i.to_string()).collect::<Vec<_>>());
    let columns = x.map(&mut |v| vec![v, 2.0 * v]);
    assert_eq!(columns.last.gap, vec![11.0, 22.0]);
    assert_eq!(State::<Vec<f64>>::names(), State::<f64>::names());
}
