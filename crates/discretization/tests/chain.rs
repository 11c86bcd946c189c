//! The element chain with a DCS of the test's own (neither a switched system nor a
//! rigid body): an integrator element `x = b_in + c h u` (c = 2 on the horizon's
//! first element, 1 after), checked row by row against hand-computed values.

use casadi::{Function, MX, SX};
use fesd_discretization::{
    assemble_chain, ChainInputs, ChainOptions, DcsElement, ElementCounts, StepEquilibration, StepEquilibrationHessian, VariableTable,
};

/// The integrator element; `c` scales the control.
fn kernel(name: &str, c: f64) -> Function {
    let (x, b_in, h, u) = (SX::sym("x", 1), SX::sym("b_in", 1), SX::sym("h", 1), SX::sym("u", 1));
    let (p, data) = (SX::sym("p", 0), SX::sym("data", 0));
    let g = &x - &b_in - &h * &u * c;
    Function::new(
        name,
        &[("x", &x), ("b_in", &b_in), ("h", &h), ("u", &u), ("p", &p), ("data", &data)],
        &[
            ("g", &g),
            ("G", &x),
            ("H", &h),
            ("quad", &(&h * &x)),
            ("penalty", &SX::scalar(0.0)),
            ("indicators", &x),
            ("link", &SX::zeros(0, 1)),
        ],
    )
    .unwrap()
}

fn integrator() -> DcsElement {
    let x = SX::sym("x", 1);
    let (ip, inx) = (SX::sym("ind_prev", 1), SX::sym("ind_next", 1));
    DcsElement {
        name: "integrator".into(),
        blocks: vec![("x".into(), 1)],
        element: kernel("integrator", 1.0),
        lbg: vec![0.0],
        ubg: vec![0.0],
        row_names: vec!["x = b_in + h u".into()],
        first_element: Some((kernel("integrator_first", 2.0), vec![0.0], vec![0.0], vec!["x = b_in + 2 h u".into()])),
        boundary: Function::new("integrator_boundary", &[("x", &x)], &[("b", &x)]).unwrap(),
        switch_indicator: Function::new("integrator_eta", &[("ind_prev", &ip), ("ind_next", &inx)], &[("eta", &(&ip * &inx))]).unwrap(),
        neighbour_pairs: None,
    }
}

#[test]
fn a_dcs_of_its_own_is_chained_row_by_row() {
    // Two intervals with 2 and 3 elements over T = 2.
    let fe = [2usize, 3];
    let table = tau_then_x(&fe);
    let w = MX::sym("w", table.len());
    let par = MX::sym("par", 3);
    let inputs = ChainInputs {
        boundary0: par.at(0).unwrap(),
        u: par.slice(1..3).unwrap().reshape(1, 2).unwrap(),
        p: MX::zeros(0, 1),
        data: MX::zeros(0, 2),
        t_final: MX::scalar(2.0),
        t_grid: MX::scalar(2.0),
    };
    let rho = 3.0;
    let opts = ChainOptions {
        use_fesd: true,
        step_equilibration: StepEquilibration::L2Relaxed,
        rho_h: rho,
        equilibration_hessian: StepEquilibrationHessian::Exact,
        sum_in_time_units: false,
    };
    let c = assemble_chain(&integrator(), &ElementCounts::new(fe.to_vec()).unwrap(), opts, &table, &w, &inputs).unwrap();
    assert_eq!(c.row_labels[0], "element 0: x = b_in + 2 h u");
    assert_eq!(c.row_labels[4], "element 4: x = b_in + h u");
    assert_eq!(c.row_labels[6], "interval 1: Σ τ = 1");
    let f = Function::new(
        "chain",
        &[("w", &w), ("par", &par)],
        &[
            ("g", &c.g),
            ("G", &c.pairs_g),
            ("H", &c.pairs_h),
            ("h", &c.h),
            ("b", &c.boundary),
            ("quad", &c.quad),
            ("eq_cost", &c.equilibration_cost),
        ],
    )
    .unwrap();
    let tau = [0.3, 0.7, 0.2, 0.5, 0.4];
    let x = [1.0, -2.0, 0.5, 4.0, -1.5];
    let (x0, u) = (0.25, [3.0, -1.0]);
    let wv: Vec<f64> = tau.iter().chain(&x).copied().collect();
    let out = f.eval_dense(&[&wv, &[x0, u[0], u[1]]]).unwrap();
    let h: Vec<f64> = tau.iter().map(|t| t * 2.0 / 2.0).collect();
    let interval = [0, 0, 1, 1, 1];
    let mut want_g = vec![x[0] - x0 - 2.0 * h[0] * u[0]];
    want_g.extend((1..5).map(|e| x[e] - x[e - 1] - h[e] * u[interval[e]]));
    want_g.extend([tau[0] + tau[1] - 1.0, tau[2] + tau[3] + tau[4] - 1.0]);
    let close = |a: &[f64], b: &[f64]| a.len() == b.len() && a.iter().zip(b).all(|(p, q)| (p - q).abs() < 1e-12);
    assert!(close(&out[0], &want_g), "g = {:?}, expected {want_g:?}", out[0]);
    assert!(close(&out[1], &x) && close(&out[2], &h) && close(&out[3], &h) && close(&out[4], &x));
    let quad: Vec<f64> = h.iter().zip(&x).map(|(a, b)| a * b).collect();
    assert!(close(&out[5], &quad));
    // Neighbours inside an interval only: (0, 1), (2, 3), (3, 4).
    let want_cost: f64 = [(0usize, 1usize), (2, 3), (3, 4)].iter().map(|&(a, b)| (x[a] * x[b] * (h[b] - h[a])).powi(2)).sum::<f64>() * rho;
    assert!((out[6][0] - want_cost).abs() < 1e-12, "equilibration cost {} vs {want_cost}", out[6][0]);
}

/// A table of τ blocks, then x blocks, for intervals of `fe[k]` elements.
fn tau_then_x(fe: &[usize]) -> VariableTable {
    let mut table = VariableTable::default();
    for name in ["tau", "x"] {
        for (k, &c) in fe.iter().enumerate() {
            for n in 0..c {
                let (lo, hi, guess) = if name == "tau" { (0.0, 1.0, 1.0 / c as f64) } else { (-10.0, 10.0, 0.0) };
                table.add(name, Some(k), Some(n), &[lo], &[hi], &[guess]);
            }
        }
    }
    table
}

#[test]
fn the_gauss_newton_equilibration_hessian_keeps_value_and_gradient() {
    // One interval of three elements over T = N = 1 (h = τ): neighbours (0, 1), (1, 2),
    // weights η = x_a x_b, cost ρ Σ (η Δh)².
    let fe = [3usize];
    let table = tau_then_x(&fe);
    let w = MX::sym("w", table.len());
    let inputs = ChainInputs {
        boundary0: MX::scalar(0.0),
        u: MX::zeros(1, 1),
        p: MX::zeros(0, 1),
        data: MX::zeros(0, 1),
        t_final: MX::scalar(1.0),
        t_grid: MX::scalar(1.0),
    };
    let rho = 3.0;
    let (tau, x) = ([0.2, 0.5, 0.3], [1.5, -2.0, 0.5]);
    let wv: Vec<f64> = tau.iter().chain(&x).copied().collect();
    let derivatives = |hessian: StepEquilibrationHessian| -> Vec<Vec<f64>> {
        let opts = ChainOptions {
            use_fesd: true,
            step_equilibration: StepEquilibration::L2Relaxed,
            rho_h: rho,
            equilibration_hessian: hessian,
            sum_in_time_units: false,
        };
        let cost =
            assemble_chain(&integrator(), &ElementCounts::new(fe.to_vec()).unwrap(), opts, &table, &w, &inputs).unwrap().equilibration_cost;
        let grad = MX::gradient(&cost, &w).unwrap();
        let hess = MX::hessian(&cost, &w).unwrap();
        Function::new("d", &[("w", &w)], &[("f", &cost), ("g", &grad), ("h", &hess)]).unwrap().eval_dense(&[&wv]).unwrap()
    };
    let (exact, gn) = (derivatives(StepEquilibrationHessian::Exact), derivatives(StepEquilibrationHessian::GaussNewton));
    let want_cost: f64 = [(0usize, 1usize), (1, 2)].iter().map(|&(a, b)| (x[a] * x[b] * (tau[b] - tau[a])).powi(2)).sum::<f64>() * rho;
    assert!((exact[0][0] - want_cost).abs() < 1e-12 && (gn[0][0] - want_cost).abs() < 1e-12, "{} {} {want_cost}", exact[0][0], gn[0][0]);
    assert!(exact[1].iter().zip(&gn[1]).all(|(a, b)| (a - b).abs() < 1e-12), "gradients {:?} vs {:?}", exact[1], gn[1]);
    // Gauss–Newton: 2ρ η² (e_b − e_a)(e_b − e_a)ᵀ in the τ entries, nothing else.
    let n = wv.len();
    let mut want = vec![0.0; n * n];
    for (a, b) in [(0usize, 1usize), (1, 2)] {
        let c = 2.0 * rho * (x[a] * x[b]).powi(2);
        for (i, si) in [(a, -1.0), (b, 1.0)] {
            for (j, sj) in [(a, -1.0), (b, 1.0)] {
                want[i * n + j] += c * si * sj;
            }
        }
    }
    assert!(gn[2].iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-12), "Gauss–Newton Hessian {:?}, expected {want:?}", gn[2]);
    // The exact Hessian has the indicator entries the Gauss–Newton one drops.
    assert!(exact[2][3 * n + 4].abs() > 1e-3 && gn[2][3 * n + 4] == 0.0);
}

#[test]
fn a_wrong_kernel_or_table_is_refused_by_name() {
    let mut dcs = integrator();
    dcs.lbg = vec![0.0, 0.0];
    let table = VariableTable::default();
    let w = MX::sym("w", 0);
    let inputs = ChainInputs {
        boundary0: MX::scalar(0.0),
        u: MX::zeros(1, 1),
        p: MX::zeros(0, 1),
        data: MX::zeros(0, 1),
        t_final: MX::scalar(1.0),
        t_grid: MX::scalar(1.0),
    };
    let opts = ChainOptions {
        use_fesd: false,
        step_equilibration: StepEquilibration::HeuristicMean,
        rho_h: 1.0,
        equilibration_hessian: StepEquilibrationHessian::default(),
        sum_in_time_units: false,
    };
    let err = assemble_chain(&dcs, &ElementCounts::new(vec![1]).unwrap(), opts, &table, &w, &inputs).expect_err("refused");
    assert!(err.to_string().contains("integrator") && err.to_string().contains("constraint rows"), "{err}");
    // A table without the element's block is refused too (not read as zeros).
    let err = assemble_chain(&integrator(), &ElementCounts::new(vec![1]).unwrap(), opts, &table, &w, &inputs).expect_err("refused");
    assert!(err.to_string().contains("block x has 0 entries"), "{err}");
}
