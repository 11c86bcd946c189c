//! Tableaus against published values (n_s = 1–3) and order conditions (n_s = 1–9).

use fesd_rk::{ButcherTableau, RkFamily};

// Indices name the entries in the messages, across three tables.
#[allow(clippy::needless_range_loop)]
fn assert_tableau(family: RkFamily, a: &[&[f64]], b: &[f64], c: &[f64]) {
    let t = ButcherTableau::new(family, b.len()).unwrap();
    for i in 0..b.len() {
        assert!((t.c[i] - c[i]).abs() < 1e-14, "{family:?} c[{i}] = {} vs {}", t.c[i], c[i]);
        assert!((t.b[i] - b[i]).abs() < 1e-14, "{family:?} b[{i}] = {} vs {}", t.b[i], b[i]);
        for j in 0..b.len() {
            assert!((t.a[i][j] - a[i][j]).abs() < 1e-14, "{family:?} s={} a[{i}][{j}] = {} vs {}", b.len(), t.a[i][j], a[i][j]);
        }
    }
}

#[test]
fn published_tableaus() {
    let r6 = 6f64.sqrt();
    let r3 = 3f64.sqrt();
    let r15 = 15f64.sqrt();
    use RkFamily::*;
    // Radau IIA
    assert_tableau(RadauIIA, &[&[1.0]], &[1.0], &[1.0]);
    assert_tableau(RadauIIA, &[&[5.0 / 12.0, -1.0 / 12.0], &[0.75, 0.25]], &[0.75, 0.25], &[1.0 / 3.0, 1.0]);
    assert_tableau(
        RadauIIA,
        &[
            &[(88.0 - 7.0 * r6) / 360.0, (296.0 - 169.0 * r6) / 1800.0, (-2.0 + 3.0 * r6) / 225.0],
            &[(296.0 + 169.0 * r6) / 1800.0, (88.0 + 7.0 * r6) / 360.0, (-2.0 - 3.0 * r6) / 225.0],
            &[(16.0 - r6) / 36.0, (16.0 + r6) / 36.0, 1.0 / 9.0],
        ],
        &[(16.0 - r6) / 36.0, (16.0 + r6) / 36.0, 1.0 / 9.0],
        &[(4.0 - r6) / 10.0, (4.0 + r6) / 10.0, 1.0],
    );
    // Gauss–Legendre
    assert_tableau(GaussLegendre, &[&[0.5]], &[1.0], &[0.5]);
    assert_tableau(GaussLegendre, &[&[0.25, 0.25 - r3 / 6.0], &[0.25 + r3 / 6.0, 0.25]], &[0.5, 0.5], &[0.5 - r3 / 6.0, 0.5 + r3 / 6.0]);
    assert_tableau(
        GaussLegendre,
        &[
            &[5.0 / 36.0, 2.0 / 9.0 - r15 / 15.0, 5.0 / 36.0 - r15 / 30.0],
            &[5.0 / 36.0 + r15 / 24.0, 2.0 / 9.0, 5.0 / 36.0 - r15 / 24.0],
            &[5.0 / 36.0 + r15 / 30.0, 2.0 / 9.0 + r15 / 15.0, 5.0 / 36.0],
        ],
        &[5.0 / 18.0, 4.0 / 9.0, 5.0 / 18.0],
        &[0.5 - r15 / 10.0, 0.5, 0.5 + r15 / 10.0],
    );
    // Radau IA
    assert_tableau(RadauIA, &[&[1.0]], &[1.0], &[0.0]);
    assert_tableau(RadauIA, &[&[0.25, -0.25], &[0.25, 5.0 / 12.0]], &[0.25, 0.75], &[0.0, 2.0 / 3.0]);
    assert_tableau(
        RadauIA,
        &[
            &[1.0 / 9.0, (-1.0 - r6) / 18.0, (-1.0 + r6) / 18.0],
            &[1.0 / 9.0, (88.0 + 7.0 * r6) / 360.0, (88.0 - 43.0 * r6) / 360.0],
            &[1.0 / 9.0, (88.0 + 43.0 * r6) / 360.0, (88.0 - 7.0 * r6) / 360.0],
        ],
        &[1.0 / 9.0, (16.0 + r6) / 36.0, (16.0 - r6) / 36.0],
        &[0.0, (6.0 - r6) / 10.0, (6.0 + r6) / 10.0],
    );
    // Radau I (collocation at 0, 2/3)
    assert_tableau(RadauI, &[&[0.0, 0.0], &[1.0 / 3.0, 1.0 / 3.0]], &[0.25, 0.75], &[0.0, 2.0 / 3.0]);
    // Lobatto IIIA / IIIB / IIIC
    assert_tableau(LobattoIIIA, &[&[0.0, 0.0], &[0.5, 0.5]], &[0.5, 0.5], &[0.0, 1.0]);
    assert_tableau(
        LobattoIIIA,
        &[&[0.0, 0.0, 0.0], &[5.0 / 24.0, 1.0 / 3.0, -1.0 / 24.0], &[1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0]],
        &[1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0],
        &[0.0, 0.5, 1.0],
    );
    assert_tableau(LobattoIIIB, &[&[0.5, 0.0], &[0.5, 0.0]], &[0.5, 0.5], &[0.0, 1.0]);
    assert_tableau(
        LobattoIIIB,
        &[&[1.0 / 6.0, -1.0 / 6.0, 0.0], &[1.0 / 6.0, 1.0 / 3.0, 0.0], &[1.0 / 6.0, 5.0 / 6.0, 0.0]],
        &[1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0],
        &[0.0, 0.5, 1.0],
    );
    assert_tableau(LobattoIIIC, &[&[0.5, -0.5], &[0.5, 0.5]], &[0.5, 0.5], &[0.0, 1.0]);
    assert_tableau(
        LobattoIIIC,
        &[&[1.0 / 6.0, -1.0 / 3.0, 1.0 / 6.0], &[1.0 / 6.0, 5.0 / 12.0, -1.0 / 12.0], &[1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0]],
        &[1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0],
        &[0.0, 0.5, 1.0],
    );
    // Explicit: classic RK4
    let rk4 = ButcherTableau::new(Explicit, 4).unwrap();
    assert!(rk4.is_explicit());
    assert_eq!(rk4.b, vec![1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0]);
}

#[test]
fn order_conditions_for_every_stage_count() {
    for family in RkFamily::ALL {
        let (lo, hi) = family.stage_range();
        for s in lo..=hi {
            let t = ButcherTableau::new(family, s).unwrap();
            let p = t.order();
            let tol = 1e-13;
            // Quadrature order: B(p) holds, B(p + 1) does not.
            assert!(t.b_condition_error(p) < tol, "{family:?} s={s}: B({p}) error {:e}", t.b_condition_error(p));
            assert!(family == RkFamily::Explicit || t.b_condition_error(p + 1) > 1e-11, "{family:?} s={s}: order exceeds {p}");
            // Row sums c_i = Σ_j a_ij (C(1)); the D(s) families need not satisfy it
            // (Radau IA with s = 1, Lobatto IIIB with s = 2 do not).
            for i in 0..s {
                if matches!(family, RkFamily::RadauIA | RkFamily::LobattoIIIB) {
                    continue;
                }
                let row: f64 = t.a[i].iter().sum();
                assert!((row - t.c[i]).abs() < tol, "{family:?} s={s} row {i}");
            }
            match family {
                RkFamily::RadauIIA | RkFamily::RadauI | RkFamily::GaussLegendre | RkFamily::LobattoIIIA => {
                    assert!(t.c_condition_error(s) < tol, "{family:?} s={s}: C(s) error {:e}", t.c_condition_error(s))
                }
                RkFamily::RadauIA | RkFamily::LobattoIIIB => {
                    assert!(t.d_condition_error(s) < tol, "{family:?} s={s}: D(s) error {:e}", t.d_condition_error(s))
                }
                RkFamily::LobattoIIIC => {
                    assert!(t.c_condition_error(s - 1) < tol, "{family:?} s={s}: C(s-1)");
                    assert!(t.d_condition_error(s - 1) < 1e-12, "{family:?} s={s}: D(s-1) {:e}", t.d_condition_error(s - 1));
                }
                RkFamily::Explicit => assert!(t.is_explicit()),
            }
        }
    }
}

#[test]
fn explicit_methods_meet_the_rooted_tree_conditions() {
    for s in 1..=4 {
        let t = ButcherTableau::new(RkFamily::Explicit, s).unwrap();
        let (a, b, c) = (&t.a, &t.b, &t.c);
        let n = s;
        let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>();
        let ac: Vec<f64> = (0..n).map(|i| dot(&a[i], c)).collect();
        let c2: Vec<f64> = c.iter().map(|v| v * v).collect();
        let conditions: Vec<(usize, f64, f64)> = vec![
            (1, b.iter().sum(), 1.0),
            (2, dot(b, c), 0.5),
            (3, dot(b, &c2), 1.0 / 3.0),
            (3, dot(b, &ac), 1.0 / 6.0),
            (4, dot(b, &c.iter().map(|v| v * v * v).collect::<Vec<_>>()), 0.25),
            (4, (0..n).map(|i| b[i] * c[i] * ac[i]).sum(), 0.125),
            (4, dot(b, &(0..n).map(|i| dot(&a[i], &c2)).collect::<Vec<_>>()), 1.0 / 12.0),
            (4, dot(b, &(0..n).map(|i| dot(&a[i], &ac)).collect::<Vec<_>>()), 1.0 / 24.0),
        ];
        for (order, got, want) in conditions {
            if order <= s {
                assert!((got - want).abs() < 1e-15, "explicit s={s}: order-{order} condition {got} vs {want}");
            }
        }
    }
}

#[test]
fn stage_counts_out_of_range_are_errors() {
    assert!(ButcherTableau::new(RkFamily::RadauIIA, 0).is_err());
    assert!(ButcherTableau::new(RkFamily::GaussLegendre, 10).is_err());
    assert!(ButcherTableau::new(RkFamily::LobattoIIIA, 1).is_err());
    let e = ButcherTableau::new(RkFamily::Explicit, 5).unwrap_err();
    assert!(e.to_string().contains("n_s = 5"));
    assert!(ButcherTableau::new(RkFamily::RadauIIA, 3).unwrap().last_stage_is_endpoint());
    assert!(!ButcherTableau::new(RkFamily::GaussLegendre, 3).unwrap().last_stage_is_endpoint());
    // Stiffly accurate (last row of A = b): Radau IIA, Lobatto IIIA/IIIC; not IIIB or RK4.
    for (family, n_s, expect) in [
        (RkFamily::RadauIIA, 2, true),
        (RkFamily::LobattoIIIA, 3, true),
        (RkFamily::LobattoIIIC, 2, true),
        (RkFamily::LobattoIIIB, 2, false),
        (RkFamily::Explicit, 4, false),
        (RkFamily::GaussLegendre, 2, false),
    ] {
        let t = ButcherTableau::new(family, n_s).unwrap();
        assert_eq!(t.is_stiffly_accurate(), expect, "{family:?} {n_s}");
    }
}
