//! Sparse symmetric indefinite LDLᵀ for the KKT systems of an interior-point method.
//!
//! [`Ldl`] takes a matrix by its lower triangle in compressed columns (the upper
//! triangle in compressed rows, as Ipopt hands it over), orders it once by approximate
//! minimum degree (faer's AMD) and analyses the order once; every numeric factorization
//! after that reuses the analysis. Two factorizations share the order:
//!
//! - faer's LDLᵀ with static pivots (simplicial or supernodal, as faer chooses), taken
//!   when no pivot is zero — at or below [`Ldl::pivot_tolerance`] times the largest entry
//!   of its row (quasi-definite matrices: the constraint block regularized, as with
//!   Ipopt's `perturb_always_cd`);
//! - otherwise a multifrontal LDLᵀ with threshold pivoting (1×1 and 2×2 pivots inside each
//!   front, [`Ldl::pivot_threshold`]) and pivots delayed to the parent front where no
//!   pivot of a front passes — what a KKT matrix with a zero constraint block needs.
//!   A matrix with as many zero diagonal entries as the last one faer's factor failed
//!   on goes to it directly (faer's factor retried every 8th).
//!
//! The inertia — the number of negative eigenvalues — is counted from D's 1×1 and 2×2
//! blocks, exactly, by Sylvester's law; it is never imposed by regularization. A matrix
//! whose last pivot candidates at a root of the elimination tree are all zero is
//! singular ([`KktError::Singular`]); one whose delayed pivots pile up (fronts growing
//! towards dense) is given up ([`KktError::TooManyDelays`], for a solver with another
//! order). Solutions are refined iteratively.
//!
//! ```
//! use fesd_kkt::Ldl;
//! // [[4, 1, 0], [1, -3, 2], [0, 2, 5]] by its lower triangle.
//! let mut ldl = Ldl::default();
//! ldl.analyze(3, &[0, 2, 4, 5], &[0, 1, 1, 2, 2]).unwrap();
//! ldl.values_mut().copy_from_slice(&[4.0, 1.0, -3.0, 2.0, 5.0]);
//! assert_eq!(ldl.factor().unwrap(), 1);            // one negative eigenvalue
//! let mut b = [5.0, 0.0, 7.0];                      // A · (1, 1, 1)
//! ldl.solve_in_place(&mut b, 1).unwrap();
//! assert!(b.iter().all(|x| (x - 1.0).abs() < 1e-12));
//! ```

mod multifrontal;

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::sparse::linalg::cholesky::supernodal::SymbolicSupernodalCholesky;
use faer::sparse::linalg::cholesky::{factorize_symbolic_cholesky, LdltRef, SymbolicCholesky, SymbolicCholeskyRaw, SymmetricOrdering};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};
use multifrontal::Multifrontal;

/// Why a matrix was not analysed, factored or solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KktError {
    /// The pattern is not a valid lower triangle in compressed columns.
    #[error("invalid pattern: {0}")]
    Pattern(String),
    /// A value of the matrix is NaN or infinite.
    #[error("the matrix has a non-finite value")]
    NotFinite,
    /// No pivot is left that is not zero: the matrix is (numerically) singular.
    #[error("singular: no nonzero pivot left at row {index} (diagonal {value:e})")]
    Singular {
        /// A row of the original matrix among those left.
        index: usize,
        /// Its diagonal value there.
        value: f64,
    },
    /// The pivoting factor delayed more pivots than [`Ldl::max_delayed`] allows (counted
    /// once per front they pass through): its fronts grow towards dense, a solver with
    /// other pivoting (or another order) does better.
    #[error("{delayed} delayed pivots, more than {limit}")]
    TooManyDelays {
        /// Delayed pivots when it stopped.
        delayed: usize,
        /// The limit.
        limit: usize,
    },
    /// Called out of order (factor before analyze, solve before factor).
    #[error("{0}")]
    State(&'static str),
    /// The right-hand sides do not have `dim · nrhs` values.
    #[error("right-hand sides: {got} values for {dim} rows × {nrhs}")]
    RhsLength {
        /// Values given.
        got: usize,
        /// Rows of the matrix.
        dim: usize,
        /// Right-hand sides.
        nrhs: usize,
    },
}

/// A sparse LDLᵀ factorization with its analysis kept across factorizations.
pub struct Ldl {
    dim: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    /// faer's analysis (simplicial or supernodal) and its static factor.
    symbolic: Option<SymbolicCholesky<usize>>,
    l_values: Vec<f64>,
    buffer: MemBuffer,
    /// Scratch vectors of the solves (kept to spare allocations per call).
    work: Vec<f64>,
    scratch: Vec<f64>,
    /// The multifrontal analysis of the same order, built at its first use.
    pivoting: Option<Multifrontal>,
    /// Which factor the last successful factorization made.
    pivoted: bool,
    /// The number of zero diagonal entries of the last matrix faer's static factor
    /// failed on, and the factorizations since: a matrix with as many goes to the
    /// pivoting factor directly (faer retried every 8th).
    static_failed: Option<(usize, usize)>,
    /// Every factorization pivots (after [`Ldl::increase_quality`]).
    always_pivot: bool,
    factored: bool,
    negative: usize,
    /// A pivot at or below `pivot_tolerance` times the largest entry of its row counts as
    /// zero (default 1e-13).
    pub pivot_tolerance: f64,
    /// The multifrontal factorization's threshold u: a 1×1 pivot needs |a_cc| ≥ u ·
    /// max|column| (default 1e-8, as fesd sets MUMPS's `mumps_pivtol`; Ipopt's option
    /// `ldl_pivtol`).
    pub pivot_threshold: f64,
    /// The largest threshold [`Ldl::increase_quality`] raises u to (default 0.1, MUMPS's
    /// `mumps_pivtolmax` in Ipopt; Ipopt's option `ldl_pivtolmax`).
    pub max_pivot_threshold: f64,
    /// Times the threshold was raised.
    pub quality_increases: usize,
    /// The pivoting factor gives up ([`KktError::TooManyDelays`]) past this many delayed
    /// pivots per row (default 1: n delays, counted once per front they pass).
    pub max_delayed: f64,
    /// Refine a solution while its relative residual is above this (default 1e-10).
    pub refine_tolerance: f64,
    /// Refinement steps per right-hand side at most (default 10).
    pub max_refinements: usize,
    /// Factorizations so far.
    pub factorizations: usize,
    /// Factorizations by the multifrontal factor so far.
    pub pivoting_factorizations: usize,
    /// Pivots delayed to a parent front so far.
    pub delayed_pivots: usize,
    /// Refinement steps taken so far.
    pub refinements: usize,
}

/// The default pivot threshold u of [`Ldl::pivot_threshold`].
pub const DEFAULT_PIVOT_THRESHOLD: f64 = 1e-8;
/// The default of [`Ldl::max_pivot_threshold`].
pub const DEFAULT_MAX_PIVOT_THRESHOLD: f64 = 0.1;

impl Default for Ldl {
    fn default() -> Self {
        Ldl {
            dim: 0,
            col_ptr: vec![0],
            row_idx: Vec::new(),
            values: Vec::new(),
            symbolic: None,
            l_values: Vec::new(),
            buffer: MemBuffer::new(StackReq::EMPTY),
            work: Vec::new(),
            scratch: Vec::new(),
            pivoting: None,
            pivoted: false,
            static_failed: None,
            always_pivot: false,
            factored: false,
            negative: 0,
            pivot_tolerance: 1e-13,
            pivot_threshold: DEFAULT_PIVOT_THRESHOLD,
            max_pivot_threshold: DEFAULT_MAX_PIVOT_THRESHOLD,
            quality_increases: 0,
            max_delayed: 1.0,
            refine_tolerance: 1e-10,
            max_refinements: 10,
            factorizations: 0,
            pivoting_factorizations: 0,
            delayed_pivots: 0,
            refinements: 0,
        }
    }
}

impl Ldl {
    /// Orders and analyses the pattern of a `dim × dim` matrix given by its lower
    /// triangle in compressed columns (column `j` holds rows `i ≥ j`, 0-based; the
    /// diagonal may be absent). Values go to [`Ldl::values_mut`] in the same order.
    pub fn analyze<I: Copy + TryInto<usize>>(&mut self, dim: usize, col_ptr: &[I], row_idx: &[I]) -> Result<(), KktError> {
        let to = |v: I| v.try_into().map_err(|_| KktError::Pattern("a negative index".into()));
        let col_ptr: Vec<usize> = col_ptr.iter().map(|&v| to(v)).collect::<Result<_, _>>()?;
        let row_idx: Vec<usize> = row_idx.iter().map(|&v| to(v)).collect::<Result<_, _>>()?;
        if col_ptr.len() != dim + 1 || col_ptr[0] != 0 || col_ptr.windows(2).any(|w| w[0] > w[1]) || col_ptr[dim] != row_idx.len() {
            return Err(KktError::Pattern(format!("column pointers do not describe {} entries in {dim} columns", row_idx.len())));
        }
        for j in 0..dim {
            if let Some(&i) = row_idx[col_ptr[j]..col_ptr[j + 1]].iter().find(|&&i| i < j || i >= dim) {
                return Err(KktError::Pattern(format!("row {i} in column {j} is not in the lower triangle")));
            }
        }
        let pattern = SymbolicSparseColMatRef::new_checked(dim, dim, &col_ptr, None, &row_idx);
        let symbolic = factorize_symbolic_cholesky(pattern, Side::Lower, SymmetricOrdering::Amd, Default::default())
            .map_err(|e| KktError::Pattern(format!("{e:?}")))?;
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_ldlt_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        self.buffer = MemBuffer::new(req);
        self.l_values = vec![0.0; symbolic.len_val()];
        self.symbolic = Some(symbolic);
        self.values = vec![0.0; row_idx.len()];
        (self.dim, self.col_ptr, self.row_idx) = (dim, col_ptr, row_idx);
        self.pivoting = None;
        self.static_failed = None;
        self.factored = false;
        Ok(())
    }

    /// Order of the analysed matrix.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The analysed pattern (lower triangle by columns) and the current values.
    pub fn matrix(&self) -> (&[usize], &[usize], &[f64]) {
        (&self.col_ptr, &self.row_idx, &self.values)
    }

    /// Nonzeros of the last factor's L, diagonal included.
    pub fn factor_nonzeros(&self) -> usize {
        match (&self.pivoting, self.pivoted) {
            (Some(m), true) => m.factor_nonzeros(),
            _ => self.l_values.len(),
        }
    }

    /// The matrix values, in the order of the analysed pattern.
    pub fn values_mut(&mut self) -> &mut [f64] {
        self.factored = false;
        &mut self.values
    }

    /// The last factorization pivoted (the multifrontal factor made it).
    pub fn pivoted(&self) -> bool {
        self.pivoted
    }

    /// Factors the current values; returns the number of negative eigenvalues (module
    /// docs).
    pub fn factor(&mut self) -> Result<usize, KktError> {
        self.factored = false;
        if self.symbolic.is_none() {
            return Err(KktError::State("factor before analyze"));
        }
        if self.values.iter().any(|v| !v.is_finite()) {
            return Err(KktError::NotFinite);
        }
        self.factorizations += 1;
        let row_max = row_max(self.dim, &self.col_ptr, &self.row_idx, &self.values);
        let zeros = (0..self.dim)
            .filter(|&j| {
                let (start, end) = (self.col_ptr[j], self.col_ptr[j + 1]);
                start == end || self.row_idx[start] != j || self.values[start] == 0.0
            })
            .count();
        let try_static = !self.always_pivot
            && match &mut self.static_failed {
                Some((z, since)) if *z == zeros => {
                    *since += 1;
                    *since % 8 == 0
                }
                _ => true,
            };
        if try_static {
            if let Some(negative) = self.factor_static(&row_max) {
                return Ok(self.accept(negative, false));
            }
            self.static_failed = Some((zeros, 0));
        }
        // The pivoting factor's analysis, once per pattern.
        let multifrontal = match self.pivoting.take() {
            Some(m) => self.pivoting.insert(m),
            None => self.pivoting.insert(Multifrontal::new(self.order(), &self.col_ptr, &self.row_idx)),
        };
        let limit = (self.max_delayed * self.dim as f64) as usize;
        let result = multifrontal.factor(&self.values, &row_max, self.pivot_threshold, self.pivot_tolerance, limit);
        self.delayed_pivots += multifrontal.delayed;
        self.pivoting_factorizations += 1;
        Ok(self.accept(result?, true))
    }

    /// Pivots more strictly from the next factorization on (u ← min(√u, max), every
    /// matrix by the pivoting factor), as Ipopt asks when a solution is not accurate;
    /// false if u is already at its maximum.
    pub fn increase_quality(&mut self) -> bool {
        if self.pivot_threshold >= self.max_pivot_threshold && self.always_pivot {
            return false;
        }
        self.pivot_threshold = self.pivot_threshold.sqrt().min(self.max_pivot_threshold);
        self.always_pivot = true;
        self.quality_increases += 1;
        true
    }

    fn accept(&mut self, negative: usize, pivoted: bool) -> usize {
        (self.negative, self.pivoted, self.factored) = (negative, pivoted, true);
        negative
    }

    /// The analysed elimination order (position → row).
    fn order(&self) -> Vec<usize> {
        match self.symbolic.as_ref().and_then(|s| s.perm()) {
            Some(p) => p.arrays().0.to_vec(),
            None => (0..self.dim).collect(),
        }
    }

    /// faer's LDLᵀ with static pivots; None where a pivot is at or below
    /// `pivot_tolerance` times the largest entry of its row of A.
    fn factor_static(&mut self, row_max: &[f64]) -> Option<usize> {
        let symbolic = self.symbolic.as_ref()?;
        let a = SparseColMatRef::new(
            SymbolicSparseColMatRef::new_checked(self.dim, self.dim, &self.col_ptr, None, &self.row_idx),
            &self.values,
        );
        let stack = MemStack::new(&mut self.buffer);
        symbolic
            .factorize_numeric_ldlt(&mut self.l_values, a, Side::Lower, LdltRegularization::default(), Par::Seq, stack, Default::default())
            .ok()?;
        let perm = symbolic.perm().map(|p| p.arrays().0);
        let tolerance = self.pivot_tolerance;
        let mut negative = 0;
        let mut pivot = |k: usize, d: f64| {
            negative += usize::from(d < 0.0);
            d.is_finite() && d.abs() > tolerance * row_max[perm.map_or(k, |p| p[k])]
        };
        let good = match symbolic.raw() {
            // Column j of L starts with its diagonal, which holds D_j.
            SymbolicCholeskyRaw::Simplicial(s) => {
                s.col_ptr()[..self.dim].iter().enumerate().all(|(j, &start)| pivot(j, self.l_values[start]))
            }
            SymbolicCholeskyRaw::Supernodal(s) => supernode_blocks(s, &self.l_values).all(|(first, ncols, block)| {
                let nrows = block.len() / ncols.max(1);
                (0..ncols).all(|c| pivot(first + c, block[c * nrows + c]))
            }),
        };
        (good && self.l_values.iter().all(|v| v.is_finite())).then_some(negative)
    }

    /// The current values are factored (the last [`Ldl::factor`] succeeded and the
    /// values were not touched since).
    pub fn is_factored(&self) -> bool {
        self.factored
    }

    /// Negative eigenvalues of the last successful factorization.
    pub fn negative_eigenvalues(&self) -> usize {
        self.negative
    }

    /// Solves `A X = B` for `nrhs` right-hand sides stored column after column in `rhs`,
    /// in place, with iterative refinement while the relative residual exceeds
    /// [`Ldl::refine_tolerance`] and still decreases (at most
    /// [`Ldl::max_refinements`] steps per right-hand side); returns the largest relative
    /// residual ‖Ax − b‖∞ / max(‖b‖∞, 1) left.
    pub fn solve_in_place(&mut self, rhs: &mut [f64], nrhs: usize) -> Result<f64, KktError> {
        if !self.factored {
            return Err(KktError::State("solve before a successful factorization"));
        }
        if rhs.len() != self.dim * nrhs {
            return Err(KktError::RhsLength { got: rhs.len(), dim: self.dim, nrhs });
        }
        if nrhs == 0 || self.dim == 0 {
            return Ok(0.0);
        }
        let n = self.dim;
        let mut worst = 0.0_f64;
        let (mut b, mut r, mut candidate, mut next) = (Vec::with_capacity(n), vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        for x in rhs.chunks_exact_mut(n) {
            b.clear();
            b.extend_from_slice(x);
            let bnorm = b.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
            self.substitute(x);
            self.residual_into(x, &b, &mut r);
            let mut norm = max_abs(&r) / bnorm;
            for _ in 0..self.max_refinements {
                if norm <= self.refine_tolerance {
                    break;
                }
                self.substitute(&mut r);
                for ((c, x), d) in candidate.iter_mut().zip(x.iter()).zip(&r) {
                    *c = x + d;
                }
                self.residual_into(&candidate, &b, &mut next);
                let next_norm = max_abs(&next) / bnorm;
                if next_norm >= norm {
                    break;
                }
                x.copy_from_slice(&candidate);
                std::mem::swap(&mut r, &mut next);
                norm = next_norm;
                self.refinements += 1;
            }
            worst = worst.max(norm);
        }
        Ok(worst)
    }

    /// x ← A⁻¹ x with the last factor (one right-hand side).
    fn substitute(&mut self, x: &mut [f64]) {
        match (&self.pivoting, self.pivoted) {
            (Some(m), true) => {
                let (mut work, mut scratch) = (std::mem::take(&mut self.work), std::mem::take(&mut self.scratch));
                work.clear();
                work.extend(m.order.iter().map(|&i| x[i]));
                m.solve_permuted(&mut work, &mut scratch);
                for (k, &i) in m.order.iter().enumerate() {
                    x[i] = work[k];
                }
                (self.work, self.scratch) = (work, scratch);
            }
            _ => {
                let Some(symbolic) = self.symbolic.as_ref() else { return };
                let mat = MatMut::from_column_major_slice_mut(x, self.dim, 1);
                let stack = MemStack::new(&mut self.buffer);
                LdltRef::<usize, f64>::new(symbolic, &self.l_values).solve_in_place_with_conj(Conj::No, mat, Par::Seq, stack);
            }
        }
    }

    /// r ← `b − A x` for the current values.
    fn residual_into(&self, x: &[f64], b: &[f64], r: &mut [f64]) {
        r.copy_from_slice(b);
        for j in 0..self.dim {
            let (mut rj, xj) = (r[j], x[j]);
            for p in self.col_ptr[j]..self.col_ptr[j + 1] {
                let (i, a) = (self.row_idx[p], self.values[p]);
                if i != j {
                    r[i] -= a * xj;
                    rj -= a * x[i];
                } else {
                    rj -= a * xj;
                }
            }
            r[j] = rj;
        }
    }

    /// `‖A x − b‖∞ / max(‖b‖∞, 1)` for the current values (one right-hand side).
    pub fn residual(&self, x: &[f64], b: &[f64]) -> f64 {
        let mut r = vec![0.0; b.len()];
        self.residual_into(x, b, &mut r);
        max_abs(&r) / b.iter().fold(1.0_f64, |m, v| m.max(v.abs()))
    }
}

/// The largest |A_ij| of each row (of the whole symmetric matrix).
fn row_max(n: usize, col_ptr: &[usize], row_idx: &[usize], values: &[f64]) -> Vec<f64> {
    let mut largest = vec![0.0_f64; n];
    for j in 0..n {
        for p in col_ptr[j]..col_ptr[j + 1] {
            let (i, v) = (row_idx[p], values[p].abs());
            largest[i] = largest[i].max(v);
            largest[j] = largest[j].max(v);
        }
    }
    largest
}

/// Each supernode's first column, its number of columns and its column-major block of
/// factor values.
fn supernode_blocks<'a>(
    s: &'a SymbolicSupernodalCholesky<usize>,
    l_values: &'a [f64],
) -> impl Iterator<Item = (usize, usize, &'a [f64])> + 'a {
    let (begin, end, val_ptr) = (s.supernode_begin(), s.supernode_end(), s.col_ptr_for_val());
    (0..s.n_supernodes()).map(move |k| (begin[k], end[k] - begin[k], &l_values[val_ptr[k]..val_ptr[k + 1]]))
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Negative eigenvalues of a dense symmetric matrix (faer's dense eigen solver).
    fn dense_negative(a: &[Vec<f64>]) -> usize {
        let n = a.len();
        let m = faer::Mat::from_fn(n, n, |i, j| a[i][j]);
        let eig = m.self_adjoint_eigenvalues(Side::Lower).unwrap();
        eig.iter().filter(|v| **v < 0.0).count()
    }

    fn lower_csc(a: &[Vec<f64>]) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
        let n = a.len();
        let (mut cp, mut ri, mut v) = (vec![0], vec![], vec![]);
        for j in 0..n {
            for (i, row) in a.iter().enumerate().skip(j) {
                if row[j] != 0.0 || i == j {
                    ri.push(i);
                    v.push(row[j]);
                }
            }
            cp.push(ri.len());
        }
        (cp, ri, v)
    }

    /// A random KKT matrix [[H + δ I, Jᵀ], [J, −δ_c I]] with a sparse indefinite H.
    fn kkt(rng: &mut rand::rngs::StdRng, n: usize, m: usize, delta: f64) -> Vec<Vec<f64>> {
        let mut a = vec![vec![0.0; n + m]; n + m];
        for i in 0..n {
            a[i][i] = rng.gen_range(-1.0..3.0) + delta;
            if i + 1 < n && rng.gen_bool(0.5) {
                let v = rng.gen_range(-1.0..1.0);
                a[i][i + 1] = v;
                a[i + 1][i] = v;
            }
        }
        for r in 0..m {
            for _ in 0..3 {
                let c = rng.gen_range(0..n);
                let v = rng.gen_range(-2.0..2.0);
                a[n + r][c] = v;
                a[c][n + r] = v;
            }
            a[n + r][n + r] = -1e-8;
        }
        a
    }

    #[test]
    fn the_inertia_and_the_solution_match_dense_linear_algebra() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for (n, m) in [(5, 2), (40, 15), (200, 80)] {
            for delta in [0.0, 1.0, 5.0] {
                let a = kkt(&mut rng, n, m, delta);
                let (cp, ri, v) = lower_csc(&a);
                let mut ldl = Ldl::default();
                ldl.analyze(n + m, &cp, &ri).unwrap();
                ldl.values_mut().copy_from_slice(&v);
                let expected = dense_negative(&a);
                match ldl.factor() {
                    Ok(neg) => {
                        assert_eq!(neg, expected, "n = {n}, m = {m}, δ = {delta}");
                        let b: Vec<f64> = (0..n + m).map(|i| (i as f64 * 0.37).sin()).collect();
                        let mut x = b.clone();
                        ldl.solve_in_place(&mut x, 1).unwrap();
                        assert!(ldl.residual(&x, &b) < 1e-12, "residual {}", ldl.residual(&x, &b));
                    }
                    Err(KktError::Singular { .. }) => {}
                    Err(e) => panic!("{e}"),
                }
            }
        }
    }

    #[test]
    fn a_zero_diagonal_is_eliminated_after_its_neighbour() {
        // A free variable without curvature (row 0) bound by a constraint (row 1) with
        // a tiny regularization: nonsingular, eigenvalues ≈ ±1, but a zero first pivot
        // in the natural order.
        let mut ldl = Ldl::default();
        ldl.analyze(2, &[0, 2, 3], &[0, 1, 1]).unwrap();
        ldl.values_mut().copy_from_slice(&[0.0, 1.0, -1e-8]);
        assert_eq!(ldl.factor(), Ok(1));
        let mut b = [1.0, 2.0];
        ldl.solve_in_place(&mut b, 1).unwrap();
        assert!(ldl.residual(&b, &[1.0, 2.0]) < 1e-12, "{b:?}");
        // The random KKT matrices again, with zero Hessian diagonals.
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for _ in 0..20 {
            let mut a = kkt(&mut rng, 30, 12, 0.0);
            for (i, row) in a.iter_mut().enumerate().take(30) {
                if rng.gen_bool(0.3) {
                    row[i] = 0.0;
                }
            }
            let (cp, ri, v) = lower_csc(&a);
            let mut ldl = Ldl::default();
            ldl.analyze(42, &cp, &ri).unwrap();
            ldl.values_mut().copy_from_slice(&v);
            if let Ok(neg) = ldl.factor() {
                assert_eq!(neg, dense_negative(&a));
            }
        }
    }

    #[test]
    fn an_unregularized_constraint_block_is_factored_with_delayed_and_two_by_two_pivots() {
        // [[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]]: no 1×1 pivot in any
        // order; eigenvalues ±1 twice.
        let mut ldl = Ldl::default();
        ldl.analyze(4, &[0, 2, 4, 5, 6], &[0, 2, 1, 3, 2, 3]).unwrap();
        ldl.values_mut().copy_from_slice(&[0.0, 1.0, 0.0, 1.0, 0.0, 0.0]);
        assert_eq!(ldl.factor(), Ok(2));
        assert!(ldl.pivoted());
        let b = [1.0, 2.0, 3.0, 4.0];
        let mut x = b;
        ldl.solve_in_place(&mut x, 1).unwrap();
        assert!(x.iter().zip([3.0, 4.0, 1.0, 2.0]).all(|(x, e)| (x - e).abs() < 1e-14), "{x:?}");
        // Random KKT matrices without δ_c, a third of the Hessian diagonal zero: every
        // nonsingular one factors with the dense inertia and solves to 1e-10 (all of them
        // by the pivoting factor); every singular one is reported singular.
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let (mut nonsingular, mut pivoted) = (0, 0);
        for _ in 0..40 {
            let mut a = kkt(&mut rng, 30, 12, 0.0);
            for (i, row) in a.iter_mut().enumerate() {
                if i >= 30 || rng.gen_bool(0.3) {
                    row[i] = 0.0;
                }
            }
            let eig = faer::Mat::from_fn(42, 42, |i, j| a[i][j]).self_adjoint_eigenvalues(Side::Lower).unwrap();
            let largest = eig.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            let smallest = eig.iter().fold(f64::INFINITY, |m, v| m.min(v.abs()));
            let (cp, ri, v) = lower_csc(&a);
            let mut ldl = Ldl::default();
            ldl.analyze(42, &cp, &ri).unwrap();
            ldl.values_mut().copy_from_slice(&v);
            match ldl.factor() {
                Ok(neg) => {
                    assert!(smallest > 1e-12 * largest, "a singular matrix factored: {smallest:e}");
                    assert_eq!(neg, dense_negative(&a));
                    let b: Vec<f64> = (0..42).map(|i| (i as f64).cos()).collect();
                    let mut x = b.clone();
                    assert!(ldl.solve_in_place(&mut x, 1).unwrap() < 1e-10);
                    nonsingular += 1;
                    pivoted += usize::from(ldl.pivoted());
                }
                Err(KktError::Singular { .. }) => assert!(smallest < 1e-8 * largest, "nonsingular reported singular: {smallest:e}"),
                Err(e) => panic!("{e}"),
            }
        }
        assert!(nonsingular >= 15 && pivoted == nonsingular, "{pivoted} of {nonsingular} pivoted");
    }

    /// A sparse KKT matrix [[H, Jᵀ], [J, 0]] with a banded indefinite H (some diagonal
    /// entries zero) and a sparse J, as lower-triangle columns, and its dense form.
    fn sparse_kkt(rng: &mut rand::rngs::StdRng, n: usize, m: usize) -> Vec<Vec<f64>> {
        let mut a = vec![vec![0.0; n + m]; n + m];
        for i in 0..n {
            // A variable without curvature only where a constraint holds it.
            let held = (0..m).any(|r| r * n / m.max(1) == i);
            a[i][i] = match rng.gen_range(0..10) {
                0..3 if held => 0.0,
                3..5 => -rng.gen_range(0.5..2.0),
                _ => rng.gen_range(0.5..4.0),
            };
            for k in 1..3 {
                if i + k < n && rng.gen_bool(0.4) {
                    let v = rng.gen_range(-1.0..1.0);
                    (a[i][i + k], a[i + k][i]) = (v, v);
                }
            }
        }
        for r in 0..m {
            // Each constraint couples its own variable and a few nearby ones, as a
            // discretization does.
            let base = r * n / m.max(1);
            let own = rng.gen_range(0.5..2.0);
            (a[n + r][base], a[base][n + r]) = (own, own);
            for _ in 0..rng.gen_range(0..3) {
                let c = (base + rng.gen_range(0..6)).min(n - 1);
                let v = rng.gen_range(-2.0..2.0);
                (a[n + r][c], a[c][n + r]) = (v, v);
            }
        }
        a
    }

    #[test]
    fn kkt_matrices_with_a_zero_constraint_block_match_dense_linear_algebra() {
        // Up to 300 rows: fronts with delayed pivots, amalgamated supernodes and roots
        // that take the best pivot left. Every nonsingular matrix: the dense inertia and
        // a residual below 1e-10 after refinement; a singular one is reported singular.
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        let (mut factored, mut singular, mut gave_up) = (0, 0, 0);
        for (n, m) in [(6, 3), (20, 8), (60, 25), (120, 50), (200, 100)] {
            for _ in 0..6 {
                let a = sparse_kkt(&mut rng, n, m);
                let eig = faer::Mat::from_fn(n + m, n + m, |i, j| a[i][j]).self_adjoint_eigenvalues(Side::Lower).unwrap();
                let largest = eig.iter().fold(0.0_f64, |x, v| x.max(v.abs()));
                let smallest = eig.iter().fold(f64::INFINITY, |x, v| x.min(v.abs()));
                let (cp, ri, v) = lower_csc(&a);
                let mut ldl = Ldl::default();
                ldl.analyze(n + m, &cp, &ri).unwrap();
                ldl.values_mut().copy_from_slice(&v);
                // A nonsingular matrix factors exactly; one singular to rounding may go
                // either way (as with any pivoting solver), an exactly singular one is
                // reported (`bad_input_is_an_error`).
                let nonsingular = smallest > 1e-10 * largest;
                // Without delayed pivots allowed, the pivoting factor gives up instead.
                let mut strict = Ldl { max_delayed: 0.0, ..Ldl::default() };
                strict.analyze(n + m, &cp, &ri).unwrap();
                strict.values_mut().copy_from_slice(&v);
                gave_up += usize::from(matches!(strict.factor(), Err(KktError::TooManyDelays { .. })));
                match ldl.factor() {
                    Ok(neg) if nonsingular => {
                        assert_eq!(neg, dense_negative(&a), "n = {n}, m = {m}");
                        let b: Vec<f64> = (0..n + m).map(|i| (i as f64 * 0.7).sin() + 0.1).collect();
                        let mut x = b.clone();
                        assert!(ldl.solve_in_place(&mut x, 1).unwrap() <= 1e-10);
                        assert!(ldl.residual(&x, &b) <= 1e-10);
                        factored += 1;
                    }
                    Err(KktError::Singular { .. }) if nonsingular => panic!("nonsingular ({smallest:e}) reported singular"),
                    Ok(_) | Err(KktError::Singular { .. }) => singular += 1,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        assert!(factored >= 20 && gave_up > 0, "{factored} factored, {singular} singular, {gave_up} gave up");
    }

    #[test]
    fn several_right_hand_sides_and_a_new_pattern() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(29);
        let a = sparse_kkt(&mut rng, 40, 15);
        let (cp, ri, v) = lower_csc(&a);
        let mut ldl = Ldl::default();
        ldl.analyze(55, &cp, &ri).unwrap();
        ldl.values_mut().copy_from_slice(&v);
        ldl.factor().unwrap();
        let b: Vec<f64> = (0..110).map(|i| (i as f64).cos()).collect();
        let mut x = b.clone();
        assert!(ldl.solve_in_place(&mut x, 2).unwrap() <= 1e-10);
        for k in 0..2 {
            let mut one = b[k * 55..(k + 1) * 55].to_vec();
            ldl.solve_in_place(&mut one, 1).unwrap();
            assert!(one.iter().zip(&x[k * 55..(k + 1) * 55]).all(|(p, q)| (p - q).abs() <= 1e-12));
        }
        // Another matrix, another pattern: analysed afresh, nothing of the old one kept.
        let a = sparse_kkt(&mut rng, 25, 10);
        let (cp, ri, v) = lower_csc(&a);
        ldl.analyze(35, &cp, &ri).unwrap();
        assert!(matches!(ldl.solve_in_place(&mut [0.0; 35], 1), Err(KktError::State(_))));
        ldl.values_mut().copy_from_slice(&v);
        if let Ok(neg) = ldl.factor() {
            assert_eq!(neg, dense_negative(&a));
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut ldl = Ldl::default();
        assert!(matches!(ldl.factor(), Err(KktError::State(_))));
        assert!(matches!(ldl.analyze(2, &[0, 1, 2], &[1, 1]), Ok(())));
        assert!(matches!(ldl.analyze(2, &[0, 2, 1], &[0, 1]), Err(KktError::Pattern(_))));
        assert!(matches!(ldl.analyze(2, &[0, 1, 2], &[0, 0]), Err(KktError::Pattern(_))));
        // [[1, 2], [2, 4]] is singular.
        ldl.analyze(2, &[0, 2, 3], &[0, 1, 1]).unwrap();
        ldl.values_mut().copy_from_slice(&[1.0, 2.0, 4.0]);
        assert!(matches!(ldl.factor(), Err(KktError::Singular { .. })));
        let mut b = [1.0, 1.0];
        assert!(matches!(ldl.solve_in_place(&mut b, 1), Err(KktError::State(_))));
        ldl.values_mut().copy_from_slice(&[1.0, f64::NAN, 4.0]);
        assert_eq!(ldl.factor(), Err(KktError::NotFinite));
        ldl.values_mut().copy_from_slice(&[1.0, 0.0, -4.0]);
        assert_eq!(ldl.factor(), Ok(1));
        assert!(matches!(ldl.solve_in_place(&mut b[..1], 1), Err(KktError::RhsLength { .. })));
        // [[1e-14, 1], [1, 1]]: a pivot below the tolerance; the 2×2 block is the pivot.
        let mut tiny = Ldl::default();
        tiny.analyze(2, &[0, 2, 3], &[0, 1, 1]).unwrap();
        tiny.values_mut().copy_from_slice(&[1e-14, 1.0, 1.0]);
        assert_eq!(tiny.factor(), Ok(1));
        assert!(tiny.pivoted());
        let mut x = [1.0, 2.0];
        tiny.solve_in_place(&mut x, 1).unwrap();
        assert!(tiny.residual(&x, &[1.0, 2.0]) < 1e-14);
        // A zero row without neighbours: singular; the next matrix of the pattern factors.
        let mut zero = Ldl::default();
        zero.analyze(3, &[0, 1, 2, 3], &[0, 1, 2]).unwrap();
        zero.values_mut().copy_from_slice(&[0.0, 2.0, -1.0]);
        assert!(matches!(zero.factor(), Err(KktError::Singular { .. })));
        zero.values_mut().copy_from_slice(&[3.0, 2.0, -1.0]);
        assert_eq!(zero.factor(), Ok(1));
        let mut empty = Ldl::default();
        empty.analyze::<usize>(0, &[0], &[]).unwrap();
        assert_eq!(empty.factor(), Ok(0));
        empty.solve_in_place(&mut [], 1).unwrap();
    }
}
