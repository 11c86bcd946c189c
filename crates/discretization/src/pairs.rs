//! The complementarity pairs of a finite element: cross complementarity in its four
//! modes (or the pointwise pairs of the standard discretization) and the sliding-exit
//! pairs between neighbouring elements.

use crate::options::{CrossComplementarity, FesdOptions};
use casadi::SX;

/// The complementarity pairs `(G, H)` of one finite element: with FESD, cross
/// complementarity in the chosen mode between the primals of every point and the duals
/// of the left boundary (`left`) and every point; without FESD, each point's own pairs.
/// `primals[m][i]`, `duals[m][i]`: component i at point m.
pub fn complementarity_pairs(opts: &FesdOptions, left: &[SX], primals: &[Vec<SX>], duals: &[Vec<SX>]) -> (Vec<SX>, Vec<SX>) {
    let (mut big_g, mut big_h) = (Vec::new(), Vec::new());
    for i in 0..left.len() {
        let pr: Vec<SX> = primals.iter().map(|p| p[i].clone()).collect();
        if !opts.use_fesd {
            for (a, d) in pr.iter().zip(duals) {
                big_g.push(a.clone());
                big_h.push(d[i].clone());
            }
            continue;
        }
        let du: Vec<SX> = std::iter::once(left[i].clone()).chain(duals.iter().map(|d| d[i].clone())).collect();
        match opts.cross_complementarity {
            CrossComplementarity::StagePairs => {
                for a in &pr {
                    for d in &du {
                        big_g.push(a.clone());
                        big_h.push(d.clone());
                    }
                }
            }
            CrossComplementarity::StageVsElementSum => {
                let s = sum(&du);
                for a in &pr {
                    big_g.push(a.clone());
                    big_h.push(s.clone());
                }
            }
            CrossComplementarity::ElementSumVsStage => {
                let s = sum(&pr);
                for d in &du {
                    big_g.push(s.clone());
                    big_h.push(d.clone());
                }
            }
            CrossComplementarity::ElementSums => {
                big_g.push(sum(&pr));
                big_h.push(sum(&du));
            }
        }
    }
    (big_g, big_h)
}

/// The sliding-exit pairs between two neighbouring elements (see
/// [`FesdOptions::sliding_exit_continuity`]): for every pair i,
/// `G_i = P_i(end) Σ_{j ∈ siblings(i)} P_j(end) P_j(first)` and `H_i = Σ_stages D_i`,
/// with `P(end)` the primals at the previous element's last point, `P(first)` those
/// at the next element's first stage and `D` the next element's stage duals. A pair
/// that is sliding at the end of the previous element (its primal and a sibling's
/// positive), inactive in the next (dual positive) while the sibling stays active,
/// must have its primal at zero: the Filippov multiplier fades continuously. Crossings
/// (one primal active at the end) and sliding entries (dual zero) are not affected.
pub fn sliding_exit_pairs(siblings: &[Vec<usize>], primal_end: &[SX], primal_first: &[SX], dual_stages: &[SX]) -> (Vec<SX>, Vec<SX>) {
    let g = (0..siblings.len())
        .map(|i| {
            let partners = siblings[i].iter().fold(SX::scalar(0.0), |acc, &j| acc + &primal_end[j] * &primal_first[j]);
            &primal_end[i] * &partners
        })
        .collect();
    (g, dual_stages.to_vec())
}

/// `Σ items` (0 for none).
pub(crate) fn sum(items: &[SX]) -> SX {
    items.iter().fold(SX::scalar(0.0), |a, b| a + b)
}
