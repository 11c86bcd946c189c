//! The discretized step's layout, read back through its own outputs: the offsets the
//! simulator writes guesses to (derived from the variable table and the element
//! kernels) are the unknowns the outputs read as positions and velocities.

use fesd_cls::{models, ClsOptions, ClsStep};

#[test]
fn guesses_written_by_layout_are_read_back_by_the_outputs() {
    let model = models::three_boxes().unwrap();
    let opts = ClsOptions { n_fe: 3, ..Default::default() };
    let step = ClsStep::new(&model, &opts).unwrap();
    let l = &step.layout;
    assert_eq!((l.n_q, l.n_c, l.n_fe, l.n_s), (6, 5, 3, 2));
    assert_eq!(l.n_w, step.table.len());
    assert_eq!(l.tau.as_ref().map(Vec::len), Some(3));
    let q0 = [-2.0, 0.5, 0.0, 0.5, 2.0, 0.5];
    let v0 = [0.1, 0.0, -0.2, 0.0, 0.3, 0.0];
    let (u, t) = (4.0, 0.3);
    let params: Vec<f64> = q0.iter().chain(&v0).copied().chain([u, t]).collect();

    // The resting guess: every position and velocity unknown at (q0, v0).
    let w = step.resting_guess(&q0, &v0).unwrap();
    assert!(step.resting_guess(&q0[..5], &v0).is_err());
    let out = step.outputs.eval_dense(&[&w, &params]).unwrap();
    let (h, q, v, v_post) = (&out[0], &out[1], &out[2], &out[3]);
    assert!(h.iter().all(|x| (x - t / 3.0).abs() < 1e-12), "h = {h:?}");
    for b in 0..=l.n_fe {
        assert_eq!(&q[b * 6..(b + 1) * 6], &q0, "q at boundary {b}");
        assert_eq!(&v[b * 6..(b + 1) * 6], &v0, "v at boundary {b}");
    }
    assert_eq!(v_post, &v0.repeat(l.n_fe));
    // The same unknowns by name: element 2's post-impact velocity, stage 1's positions.
    assert_eq!(&w[step.block("v_post", 2).unwrap()], &v0);
    assert_eq!(&w[step.block("q_stage_1", 2).unwrap()], &q0);
    assert_eq!(step.block("impulse", 0).unwrap().len(), 5);
    assert!(step.block("v_post", 3).is_err() && step.block("no_such_block", 0).is_err());

    // The predicted guess: contact-free motion with the start acceleration frozen,
    // element after element; the middle box (pushed by u, resting on the ground) is
    // predicted to accelerate at u, the others not at all (their gravity is held by
    // nothing in a contact-free prediction, so only horizontal entries are checked).
    let w = step.initial_guess(&params).unwrap();
    let out = step.outputs.eval_dense(&[&w, &params]).unwrap();
    let q_end = &out[1][l.n_fe * 6..];
    let v_end = &out[2][l.n_fe * 6..];
    for (i, a) in [(0, 0.0), (2, u), (4, 0.0)] {
        assert!((v_end[i] - (v0[i] + a * t)).abs() < 1e-9, "v[{i}] = {} vs {}", v_end[i], v0[i] + a * t);
        assert!((q_end[i] - (q0[i] + v0[i] * t + 0.5 * a * t * t)).abs() < 1e-9, "q[{i}] = {}", q_end[i]);
    }
    // A wrong parameter vector is refused by name.
    assert!(step.initial_guess(&params[1..]).is_err());
    assert!(step.initial_guess(&params[..3]).is_err());
}
