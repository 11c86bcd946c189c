//! The regions of a subsystem: a sign matrix or set expressions over the basic sets
//! `{x : c_j(x) > 0}`, and θ of a region set as an expression of α.

use casadi::SX;
use serde::{Deserialize, Serialize};

/// A region built from the basic sets `{x : c_j(x) > 0}` (Table I of the FESD paper on set-valued step functions).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RegionSet {
    /// `{c_j > 0}`: θ = α_j.
    Positive(usize),
    /// Complement `A^c`: θ = 1 − θ_A.
    Complement(Box<RegionSet>),
    /// Intersection: θ = Π θ_k.
    Intersection(Vec<RegionSet>),
    /// Union: `θ_{A∪B} = θ_A + θ_B − θ_A θ_B`, folded over the list.
    Union(Vec<RegionSet>),
}

impl RegionSet {
    /// `{c_j < 0}`, the complement of `{c_j > 0}`.
    pub fn negative(j: usize) -> RegionSet {
        RegionSet::Complement(Box::new(RegionSet::Positive(j)))
    }

    pub(crate) fn max_index(&self) -> usize {
        match self {
            RegionSet::Positive(j) => *j,
            RegionSet::Complement(a) => a.max_index(),
            RegionSet::Intersection(v) | RegionSet::Union(v) => v.iter().map(|r| r.max_index()).max().unwrap_or(0),
        }
    }

    /// θ of this region as an expression of α (one entry per switching function).
    pub fn theta(&self, alpha: &[SX]) -> SX {
        match self {
            RegionSet::Positive(j) => alpha[*j].clone(),
            RegionSet::Complement(a) => 1.0 - a.theta(alpha),
            RegionSet::Intersection(v) => v.iter().fold(SX::scalar(1.0), |acc, r| acc * r.theta(alpha)),
            RegionSet::Union(v) => v.iter().fold(SX::scalar(0.0), |acc, r| {
                let t = r.theta(alpha);
                &acc + &t - &acc * &t
            }),
        }
    }
}

/// How the regions of a subsystem are given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Regions {
    /// Sign matrix `S ∈ {−1, 0, 1}^{n_f × n_c}`: region i is `{S_ij c_j > 0 ∀ j: S_ij ≠ 0}`.
    SignMatrix(Vec<Vec<i8>>),
    /// Set expressions over the basic sets.
    Sets(Vec<RegionSet>),
}
