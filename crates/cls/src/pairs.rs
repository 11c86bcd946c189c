//! Complementarity pairs of one finite element in the chosen cross-complementarity
//! mode. Every quantity carries the index of the point it lives at (0: the
//! element's left boundary, 1..n_s: the stages); without FESD only quantities at the
//! same point are paired.

use casadi::SX;
use fesd_discretization::CrossComplementarity;

/// An expression at point `at` of a finite element.
#[derive(Clone)]
pub(crate) struct AtPoint {
    pub at: usize,
    pub e: SX,
}

pub(crate) fn at(at: usize, e: SX) -> AtPoint {
    AtPoint { at, e }
}

fn sum(items: &[AtPoint]) -> SX {
    items.iter().fold(SX::scalar(0.0), |a, b| a + &b.e)
}

/// The pairs `(G, H)` linking every `active` quantity (positive when its mode is
/// active: a contact force, a friction multiplier) with every `slack` quantity (zero
/// when it is: a gap, a cone slack): one element's cross complementarity.
pub(crate) fn cross_pairs(mode: CrossComplementarity, use_fesd: bool, active: &[AtPoint], slack: &[AtPoint]) -> Vec<(SX, SX)> {
    if !use_fesd {
        return active.iter().flat_map(|a| slack.iter().filter(move |s| s.at == a.at).map(move |s| (a.e.clone(), s.e.clone()))).collect();
    }
    match mode {
        CrossComplementarity::StagePairs => active.iter().flat_map(|a| slack.iter().map(move |s| (a.e.clone(), s.e.clone()))).collect(),
        CrossComplementarity::StageVsElementSum => {
            let s = sum(slack);
            active.iter().map(|a| (a.e.clone(), s.clone())).collect()
        }
        CrossComplementarity::ElementSumVsStage => {
            let a = sum(active);
            slack.iter().map(|s| (a.clone(), s.e.clone())).collect()
        }
        CrossComplementarity::ElementSums => vec![(sum(active), sum(slack))],
    }
}
