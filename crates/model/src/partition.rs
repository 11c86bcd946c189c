//! Do the regions of a subsystem partition the sign patterns of its switching functions?
//!
//! A Filippov system needs every point with `c_j(x) ≠ 0 ∀ j` to lie in exactly one
//! region. With `n_c` switching functions there are `2^{n_c}` sign patterns
//! `s ∈ {−, +}^{n_c}`. A sign-matrix row is the set of patterns that agree with its
//! nonzero entries (a cube), so the rows partition the patterns exactly when they are
//! pairwise disjoint and their sizes add up to `2^{n_c}`; the check is exact and never
//! enumerates. Region sets are evaluated at every vertex `α ∈ {0, 1}^{n_c}` of the
//! switching functions they use (`α_j = 1` ⇔ `c_j > 0`), where their θ is exactly 0 or 1.

use crate::regions::RegionSet;

/// Region sets over more switching functions than this are not enumerated (2^20
/// vertices); such subsystems are accepted unchecked.
pub const MAX_ENUMERATED_SWITCHING_FUNCTIONS: usize = 20;

/// Why the regions are not a partition: a sign pattern (`true` = `c_j > 0`) and the
/// regions that contain it (none, or more than one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PartitionDefect {
    /// The sign pattern.
    pub pattern: Vec<bool>,
    /// Regions containing it.
    pub regions: Vec<usize>,
}

/// Formats a pattern as `(c_0 > 0, c_1 < 0)`.
pub(crate) fn describe(pattern: &[bool]) -> String {
    let parts: Vec<String> = pattern.iter().enumerate().map(|(j, &pos)| format!("c_{j} {} 0", if pos { ">" } else { "<" })).collect();
    format!("({})", parts.join(", "))
}

/// Checks rows of a validated sign matrix (entries in {−1, 0, 1}, no zero rows).
pub(crate) fn check_sign_matrix(s: &[Vec<i8>], n_c: usize) -> Option<PartitionDefect> {
    // Two rows overlap unless some column has opposite nonzero signs.
    for i in 0..s.len() {
        for k in i + 1..s.len() {
            if !s[i].iter().zip(&s[k]).any(|(&a, &b)| a * b == -1) {
                // A common pattern: the signs of either row, + where both are free.
                let pattern = (0..n_c).map(|j| if s[i][j] != 0 { s[i][j] > 0 } else { s[k][j] >= 0 }).collect();
                return Some(PartitionDefect { pattern, regions: vec![i, k] });
            }
        }
    }
    // Disjoint: a partition iff no pattern is left uncovered.
    uncovered_pattern(s, n_c).map(|pattern| PartitionDefect { pattern, regions: vec![] })
}

/// A sign pattern in no row, found by a depth-first search over the columns that
/// stops as soon as some row is fully decided (its whole subtree is covered).
fn uncovered_pattern(s: &[Vec<i8>], n_c: usize) -> Option<Vec<bool>> {
    fn search(s: &[Vec<i8>], rows: Vec<usize>, prefix: &mut Vec<bool>, n_c: usize) -> Option<Vec<bool>> {
        let depth = prefix.len();
        if rows.is_empty() {
            let mut p = prefix.clone();
            p.resize(n_c, true);
            return Some(p);
        }
        if rows.iter().any(|&r| s[r][depth..].iter().all(|&v| v == 0)) {
            return None;
        }
        for sign in [true, false] {
            let want = if sign { 1 } else { -1 };
            let next: Vec<usize> = rows.iter().copied().filter(|&r| s[r][depth] == 0 || s[r][depth] == want).collect();
            prefix.push(sign);
            let found = search(s, next, prefix, n_c);
            prefix.pop();
            if found.is_some() {
                return found;
            }
        }
        None
    }
    search(s, (0..s.len()).collect(), &mut Vec::with_capacity(n_c), n_c)
}

impl RegionSet {
    /// θ of the region at a vertex `α ∈ {0, 1}^{n_c}` (`true` = 1).
    pub(crate) fn contains(&self, alpha: &[bool]) -> bool {
        match self {
            RegionSet::Positive(j) => alpha[*j],
            RegionSet::Complement(a) => !a.contains(alpha),
            RegionSet::Intersection(v) => v.iter().all(|r| r.contains(alpha)),
            RegionSet::Union(v) => v.iter().any(|r| r.contains(alpha)),
        }
    }

    /// θ of the region at any `α ∈ [0, 1]^{n_c}` (Table I of the FESD paper on set-valued step functions, in `f64`).
    pub(crate) fn value(&self, alpha: &[f64]) -> f64 {
        match self {
            RegionSet::Positive(j) => alpha[*j],
            RegionSet::Complement(a) => 1.0 - a.value(alpha),
            RegionSet::Intersection(v) => v.iter().map(|r| r.value(alpha)).product(),
            RegionSet::Union(v) => v.iter().fold(0.0, |acc, r| {
                let t = r.value(alpha);
                acc + t - acc * t
            }),
        }
    }

    /// Adds the indices of the switching functions this set uses to `used`.
    pub(crate) fn collect_used(&self, used: &mut Vec<bool>) {
        match self {
            RegionSet::Positive(j) => used[*j] = true,
            RegionSet::Complement(a) => a.collect_used(used),
            RegionSet::Intersection(v) | RegionSet::Union(v) => v.iter().for_each(|r| r.collect_used(used)),
        }
    }

    /// True if an `Intersection` or `Union` somewhere in the expression is empty.
    pub(crate) fn has_empty_operation(&self) -> bool {
        match self {
            RegionSet::Positive(_) => false,
            RegionSet::Complement(a) => a.has_empty_operation(),
            RegionSet::Intersection(v) | RegionSet::Union(v) => v.is_empty() || v.iter().any(|r| r.has_empty_operation()),
        }
    }
}

/// Checks region sets (indices already validated) at every vertex of the switching
/// functions they use; unused ones are fixed at `c_j > 0`.
pub(crate) fn check_sets(sets: &[RegionSet], n_c: usize) -> Option<PartitionDefect> {
    let mut used = vec![false; n_c];
    sets.iter().for_each(|r| r.collect_used(&mut used));
    let free: Vec<usize> = (0..n_c).filter(|&j| used[j]).collect();
    if free.len() > MAX_ENUMERATED_SWITCHING_FUNCTIONS {
        return None;
    }
    let mut alpha = vec![true; n_c];
    for m in 0u64..1 << free.len() {
        for (b, &j) in free.iter().enumerate() {
            alpha[j] = m >> b & 1 == 1;
        }
        let regions: Vec<usize> = (0..sets.len()).filter(|&i| sets[i].contains(&alpha)).collect();
        if regions.len() != 1 {
            return Some(PartitionDefect { pattern: alpha, regions });
        }
    }
    None
}

/// A point `α ∈ (0, 1)^{n_c}` where the θ of a partition by region sets do not sum to
/// one, with the sum. Σθ is a polynomial that is 1 at every vertex; it is 1 everywhere
/// when each θ is multilinear, which fails when the operands of an `Intersection` or
/// `Union` share a switching function (e.g. `{c_0 < 0} ∪ {c_0 > 0}`: θ = 1 − α_0 + α_0²).
/// Such θ are wrong on sliding modes, so three generic interior points are checked.
pub(crate) fn theta_sum_defect(sets: &[RegionSet], n_c: usize) -> Option<(Vec<f64>, f64)> {
    (1..=3).find_map(|t| {
        let alpha: Vec<f64> = (0..n_c).map(|j| (0.5 + 0.618_033_988_75 * ((j + 1) * t) as f64).fract()).collect();
        let sum: f64 = sets.iter().map(|r| r.value(&alpha)).sum();
        ((sum - 1.0).abs() > 1e-12).then_some((alpha, sum))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_matrices() {
        assert_eq!(check_sign_matrix(&[vec![1], vec![-1]], 1), None);
        assert_eq!(check_sign_matrix(&[vec![1, 0], vec![-1, 1], vec![-1, -1]], 2), None);
        let d = check_sign_matrix(&[vec![1], vec![1]], 1).unwrap();
        assert_eq!((d.pattern, d.regions), (vec![true], vec![0, 1]));
        let d = check_sign_matrix(&[vec![1, 1], vec![-1, -1]], 2).unwrap();
        assert!(d.regions.is_empty());
        assert_eq!(d.pattern, vec![true, false]);
        assert!(check_sign_matrix(&[], 2).unwrap().regions.is_empty());
        assert_eq!(describe(&[true, false]), "(c_0 > 0, c_1 < 0)");
    }
}
