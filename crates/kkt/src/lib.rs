//! Sparse symmetric indefinite LDLᵀ for the KKT systems of an interior-point method.
//!
//! [`Ldl`] takes a matrix by its lower triangle in compressed columns (the upper
//! triangle in compressed rows, as Ipopt hands it over), orders it once by approximate
//! minimum degree and analyses its pattern once (faer's sparse Cholesky machinery, which
//! picks a simplicial or a supernodal factor by the flops per nonzero); every numeric
//! factorization after that reuses the analysis. The factorization pivots statically
//! (no interchanges): the inertia — the number of negative eigenvalues — is the number
//! of negative entries of D, exactly, by Sylvester's law, and is never imposed by
//! regularization. A factor is rejected when a pivot is zero (or below
//! [`Ldl::pivot_tolerance`]), a value is not finite, or a multiplier |L_ij| exceeds
//! [`Ldl::growth_limit`] when one is set (a pivot small against its column: neither
//! the solution nor the inertia could be trusted). A rejected pattern is re-ordered once, each
//! zero-diagonal row paired with a neighbour; rejected again, it is factored with
//! Bunch–Kaufman 1×1 and 2×2 pivots inside each supernode (faer's intranode LBLᵀ, the
//! inertia counted per block). What is still rejected is reported, so that the caller
//! perturbs the matrix or hands it to a solver with delayed pivots. With the
//! constraint block regularized (Ipopt's `perturb_always_cd`) interior-point KKT
//! matrices are quasi-definite once the Hessian block is, and factor stably in any
//! symmetric order.
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

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::sparse::linalg::cholesky::supernodal::SymbolicSupernodalCholesky;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, IntranodeLbltRef, LdltRef, SymbolicCholesky, SymbolicCholeskyRaw,
    SymmetricOrdering,
};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};

/// Why a matrix was not analysed, factored or solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KktError {
    /// The pattern is not a valid lower triangle in compressed columns.
    #[error("invalid pattern: {0}")]
    Pattern(String),
    /// A value of the matrix is NaN or infinite.
    #[error("the matrix has a non-finite value")]
    NotFinite,
    /// A pivot is zero or below the pivot tolerance: the matrix is (numerically)
    /// singular in this order.
    #[error("singular: pivot {index} is {value:e}")]
    Singular {
        /// The pivot's position in the elimination order.
        index: usize,
        /// Its value.
        value: f64,
    },
    /// A multiplier of the factor exceeds [`Ldl::growth_limit`]: a pivot is small
    /// against its column, the factor (and its inertia) is not to be trusted.
    #[error("unstable: a multiplier of {growth:e}")]
    Unstable {
        /// The largest |L_ij|.
        growth: f64,
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
    symbolic: Option<SymbolicCholesky<usize>>,
    l_values: Vec<f64>,
    factored: bool,
    negative: usize,
    buffer: MemBuffer,
    /// A pivot at or below `pivot_tolerance · max|A|` counts as zero (default 0: exact zeros
    /// only; a relative threshold misfires once Ipopt perturbs the Hessian block by δ_w ≫ 1).
    pub pivot_tolerance: f64,
    /// Reject a factor with a multiplier |L_ij| above this (default ∞: off). Ipopt's
    /// MUMPS pivots by a relative threshold of 1e-6, which bounds them by 1e6; 1e8 here
    /// catches tiny pivots of matrices without regularization. With the constraint
    /// block regularized (`perturb_always_cd`) the factors reach multipliers above 1e8
    /// and still solve to 1e-12: there a limit only sends matrices elsewhere.
    pub growth_limit: f64,
    /// Refine a solution while its relative residual is above this (default 1e-12).
    pub refine_tolerance: f64,
    /// Refinement steps per right-hand side at most (default 10).
    pub max_refinements: usize,
    /// Factorizations so far.
    pub factorizations: usize,
    /// Reorderings for zero diagonal entries so far.
    pub reorderings: usize,
    /// The elimination order chosen for zero diagonal entries, if any.
    custom_order: Option<Vec<usize>>,
    /// How the current analysis pivots.
    pivoting: Pivoting,
    /// Patterns that went over to Bunch–Kaufman pivots so far.
    pub bunch_kaufman_switches: usize,

    /// Refinement steps taken so far.
    pub refinements: usize,
}

impl Default for Ldl {
    fn default() -> Self {
        Ldl {
            dim: 0,
            col_ptr: vec![0],
            row_idx: Vec::new(),
            values: Vec::new(),
            symbolic: None,
            l_values: Vec::new(),
            factored: false,
            negative: 0,
            buffer: MemBuffer::new(StackReq::EMPTY),
            pivot_tolerance: 0.0,
            growth_limit: f64::INFINITY,
            refine_tolerance: 1e-12,
            max_refinements: 10,
            factorizations: 0,
            reorderings: 0,
            custom_order: None,
            pivoting: Pivoting::Static,
            bunch_kaufman_switches: 0,
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
        self.pivoting = Pivoting::Static;
        self.install(symbolic);
        self.values = vec![0.0; row_idx.len()];
        self.custom_order = None;
        (self.dim, self.col_ptr, self.row_idx) = (dim, col_ptr, row_idx);
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

    /// Nonzeros of the factor L (of the analysis).
    pub fn factor_nonzeros(&self) -> usize {
        self.l_values.len()
    }

    /// The matrix values, in the order of the analysed pattern.
    pub fn values_mut(&mut self) -> &mut [f64] {
        self.factored = false;
        &mut self.values
    }

    /// Factors the current values; returns the number of negative eigenvalues. A
    /// rejected factor (module docs) re-orders the pattern pairing zero-diagonal rows
    /// (a variable without curvature, an unregularized constraint) with neighbours, then
    /// switches it to Bunch–Kaufman pivots; both are kept for the following
    /// factorizations of the pattern.
    pub fn factor(&mut self) -> Result<usize, KktError> {
        let rejected = |r: &Result<usize, KktError>| matches!(r, Err(KktError::Singular { .. } | KktError::Unstable { .. }));
        let first = self.factor_once();
        if !rejected(&first) || !matches!(self.pivoting, Pivoting::Static) {
            return first;
        }
        if self.reorder_zero_diagonal()? {
            let second = self.factor_once();
            if !rejected(&second) {
                return second;
            }
        }
        self.switch_to_bunch_kaufman()?;
        self.factor_once()
    }

    /// Re-analyses the pattern (same order) for Bunch–Kaufman pivots inside supernodes,
    /// kept for the following factorizations of the pattern.
    fn switch_to_bunch_kaufman(&mut self) -> Result<(), KktError> {
        let n = self.dim;
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx);
        let order: Vec<usize> = match (&self.custom_order, self.symbolic.as_ref().and_then(|s| s.perm())) {
            (Some(order), _) => order.clone(),
            (None, Some(p)) => p.arrays().0.to_vec(),
            (None, None) => (0..n).collect(),
        };
        let mut inverse = vec![0; n];
        for (k, &v) in order.iter().enumerate() {
            inverse[v] = k;
        }
        let perm = faer::perm::PermRef::new_checked(&order, &inverse, n);
        let params =
            CholeskySymbolicParams { supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SUPERNODAL, ..Default::default() };
        let symbolic = factorize_symbolic_cholesky(pattern, Side::Lower, SymmetricOrdering::Custom(perm), params)
            .map_err(|e| KktError::Pattern(format!("{e:?}")))?;
        self.pivoting = Pivoting::BunchKaufman { subdiag: vec![0.0; n], forward: vec![0; n], inverse: vec![0; n] };
        self.install(symbolic);
        self.bunch_kaufman_switches += 1;
        Ok(())
    }

    fn factor_once(&mut self) -> Result<usize, KktError> {
        self.factored = false;
        let symbolic = self.symbolic.as_ref().ok_or(KktError::State("factor before analyze"))?;
        if self.values.iter().any(|v| !v.is_finite()) {
            return Err(KktError::NotFinite);
        }
        let scale = self.values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let a = SparseColMatRef::new(
            SymbolicSparseColMatRef::new_checked(self.dim, self.dim, &self.col_ptr, None, &self.row_idx),
            &self.values,
        );
        let stack = MemStack::new(&mut self.buffer);
        self.factorizations += 1;
        if let Pivoting::BunchKaufman { subdiag, forward, inverse } = &mut self.pivoting {
            symbolic.factorize_numeric_intranode_lblt(
                &mut self.l_values,
                subdiag,
                forward,
                inverse,
                a,
                Side::Lower,
                Par::Seq,
                stack,
                Default::default(),
            );
        } else {
            symbolic
                .factorize_numeric_ldlt(
                    &mut self.l_values,
                    a,
                    Side::Lower,
                    LdltRegularization::default(),
                    Par::Seq,
                    stack,
                    Default::default(),
                )
                .map_err(|e| {
                    let faer::linalg::cholesky::ldlt::factor::LdltError::ZeroPivot { index } = e;
                    KktError::Singular { index, value: 0.0 }
                })?;
        }
        let mut negative = 0;
        let tolerance = self.pivot_tolerance * scale;
        let mut check = |index: usize, d: f64| -> Result<(), KktError> {
            if !d.is_finite() || d.abs() <= tolerance {
                return Err(KktError::Singular { index, value: d });
            }
            negative += usize::from(d < 0.0);
            Ok(())
        };
        match symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(s) => {
                // Column j of L starts with its diagonal, which holds D_j.
                for (j, &start) in s.col_ptr()[..self.dim].iter().enumerate() {
                    check(j, self.l_values[start])?;
                }
            }
            SymbolicCholeskyRaw::Supernodal(s) => {
                for (first, ncols, block) in supernode_blocks(s, &self.l_values) {
                    let nrows = block.len() / ncols.max(1);
                    // The supernode's column-major block; its top square's diagonal is D,
                    // with 2×2 blocks where the Bunch–Kaufman subdiagonal is nonzero.
                    let subdiag = match &self.pivoting {
                        Pivoting::BunchKaufman { subdiag, .. } => &subdiag[first..first + ncols],
                        Pivoting::Static => &[][..],
                    };
                    let mut c = 0;
                    while c < ncols {
                        let (a, off) = (block[c * nrows + c], subdiag.get(c).copied().unwrap_or(0.0));
                        if off == 0.0 {
                            check(first + c, a)?;
                            c += 1;
                            continue;
                        }
                        // [[a, off], [off, b]]: det < 0 one negative eigenvalue, det > 0
                        // two of a's sign.
                        let b = block[(c + 1) * nrows + c + 1];
                        let det = a * b - off * off;
                        check(first + c, det)?;
                        if det > 0.0 {
                            check(first + c, a)?;
                            check(first + c, a)?;
                        }
                        c += 2;
                    }
                }
            }
        }
        let growth = self.largest_multiplier();
        if !growth.is_finite() {
            return Err(KktError::Singular { index: 0, value: f64::NAN });
        }
        if growth > self.growth_limit {
            return Err(KktError::Unstable { growth });
        }
        self.negative = negative;
        self.factored = true;
        Ok(negative)
    }

    /// The largest |L_ij| below the diagonal (NaN if any entry is not finite): a pivot
    /// small against its column makes it large, and the factor inaccurate.
    fn largest_multiplier(&self) -> f64 {
        let Some(symbolic) = self.symbolic.as_ref() else { return 0.0 };
        let mut largest = 0.0_f64;
        let mut take = |v: &[f64]| {
            for &x in v {
                largest = if x.is_finite() && largest.is_finite() { largest.max(x.abs()) } else { f64::NAN };
            }
        };
        match symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(s) => {
                let ptr = s.col_ptr();
                for j in 0..self.dim {
                    take(&self.l_values[ptr[j] + 1..ptr[j + 1]]);
                }
            }
            SymbolicCholeskyRaw::Supernodal(s) => {
                for (_, ncols, block) in supernode_blocks(s, &self.l_values) {
                    let nrows = block.len() / ncols.max(1);
                    for c in 0..ncols {
                        take(&block[c * nrows + c + 1..(c + 1) * nrows]);
                    }
                }
            }
        }
        largest
    }

    /// A new elimination order that pairs every row whose diagonal value is zero with a
    /// neighbour (a matching, rows with the fewest free neighbours first) and orders the
    /// pairs as single nodes by approximate minimum degree, each pair's nonzero-diagonal
    /// row first: a zero pivot then meets the neighbour that makes it nonzero (static
    /// pivots) or the 2×2 block it belongs to (Bunch–Kaufman). False if there is no
    /// zero diagonal or the order is the one already in use.
    fn reorder_zero_diagonal(&mut self) -> Result<bool, KktError> {
        let n = self.dim;
        let mut zero = vec![true; n];
        let mut neighbours = vec![Vec::new(); n];
        for j in 0..n {
            for p in self.col_ptr[j]..self.col_ptr[j + 1] {
                let i = self.row_idx[p];
                if i == j {
                    zero[j] = self.values[p] == 0.0;
                } else {
                    neighbours[i].push(j);
                    neighbours[j].push(i);
                }
            }
        }
        let mut partner: Vec<Option<usize>> = vec![None; n];
        let mut pending: Vec<usize> = (0..n).filter(|&v| zero[v] && !neighbours[v].is_empty()).collect();
        if pending.is_empty() {
            return Ok(false);
        }
        pending.sort_by_key(|&v| neighbours[v].len());
        for &v in &pending {
            if partner[v].is_some() {
                continue;
            }
            // Prefer a neighbour with a nonzero diagonal: its pivot comes first.
            let free = |u: &&usize| partner[**u].is_none();
            let pick = neighbours[v].iter().filter(free).find(|&&u| !zero[u]).or_else(|| neighbours[v].iter().find(free));
            if let Some(&u) = pick {
                (partner[v], partner[u]) = (Some(u), Some(v));
            }
        }
        // Nodes of the compressed graph: each pair once, by its smaller index.
        let mut node = vec![usize::MAX; n];
        let mut members: Vec<[usize; 2]> = Vec::new();
        for v in 0..n {
            if node[v] != usize::MAX {
                continue;
            }
            node[v] = members.len();
            match partner[v] {
                Some(u) => {
                    node[u] = members.len();
                    // The nonzero-diagonal row first.
                    members.push(if zero[v] && !zero[u] { [u, v] } else { [v, u] });
                }
                None => members.push([v, v]),
            }
        }
        let m = members.len();
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); m];
        for j in 0..n {
            for p in self.col_ptr[j]..self.col_ptr[j + 1] {
                let (a, b) = (node[self.row_idx[p]], node[j]);
                let (lo, hi) = (a.min(b), a.max(b));
                edges[lo].push(hi);
            }
        }
        let (mut cp, mut ri) = (vec![0usize], Vec::new());
        for (k, e) in edges.iter_mut().enumerate() {
            e.push(k);
            e.sort_unstable();
            e.dedup();
            ri.extend_from_slice(e);
            cp.push(ri.len());
        }
        let compressed = SymbolicSparseColMatRef::new_checked(m, m, &cp, None, &ri);
        let analysis = factorize_symbolic_cholesky(compressed, Side::Lower, SymmetricOrdering::Amd, Default::default())
            .map_err(|e| KktError::Pattern(format!("{e:?}")))?;
        let node_order: Vec<usize> = match analysis.perm() {
            Some(p) => p.arrays().0.to_vec(),
            None => (0..m).collect(),
        };
        // Expand the pairs; a zero-diagonal row left without a partner waits for its first
        // neighbour.
        let mut order = Vec::with_capacity(n);
        let mut emitted = vec![false; n];
        let mut waiting: Vec<Vec<usize>> = vec![Vec::new(); n];
        fn emit(v: usize, order: &mut Vec<usize>, emitted: &mut [bool], waiting: &mut [Vec<usize>]) {
            let mut stack = vec![v];
            while let Some(v) = stack.pop() {
                if !std::mem::replace(&mut emitted[v], true) {
                    order.push(v);
                    stack.extend(std::mem::take(&mut waiting[v]).into_iter().rev());
                }
            }
        }
        for k in node_order {
            let [a, b] = members[k];
            if a == b && zero[a] && !neighbours[a].is_empty() && !neighbours[a].iter().any(|&u| emitted[u]) {
                neighbours[a].iter().for_each(|&u| waiting[u].push(a));
                continue;
            }
            emit(a, &mut order, &mut emitted, &mut waiting);
            emit(b, &mut order, &mut emitted, &mut waiting);
        }
        for v in 0..n {
            emit(v, &mut order, &mut emitted, &mut waiting);
        }
        if self.custom_order.as_deref() == Some(&order[..]) {
            return Ok(false);
        }
        let mut inverse = vec![0; n];
        for (k, &v) in order.iter().enumerate() {
            inverse[v] = k;
        }
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx);
        let perm = faer::perm::PermRef::new_checked(&order, &inverse, n);
        let symbolic = factorize_symbolic_cholesky(pattern, Side::Lower, SymmetricOrdering::Custom(perm), Default::default())
            .map_err(|e| KktError::Pattern(format!("{e:?}")))?;
        self.install(symbolic);
        self.custom_order = Some(order);
        self.reorderings += 1;
        Ok(true)
    }

    /// Makes `symbolic` the analysis of the factorizations to come.
    fn install(&mut self, symbolic: SymbolicCholesky<usize>) {
        let par = Par::Seq;
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_ldlt_scratch::<f64>(par, Default::default()),
            symbolic.factorize_numeric_intranode_lblt_scratch::<f64>(par, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, par),
        ]);
        self.buffer = MemBuffer::new(req);
        self.l_values = vec![0.0; symbolic.len_val()];
        self.symbolic = Some(symbolic);
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
        let b = rhs.to_vec();
        let mut worst = 0.0_f64;
        self.substitute(rhs, nrhs)?;
        let n = self.dim;
        for k in 0..nrhs {
            let (x, b) = (&mut rhs[k * n..(k + 1) * n], &b[k * n..(k + 1) * n]);
            let mut r = self.residual_vector(x, b);
            let mut norm = max_abs(&r) / b.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
            for _ in 0..self.max_refinements {
                if norm <= self.refine_tolerance {
                    break;
                }
                self.substitute(&mut r, 1)?;
                let candidate: Vec<f64> = x.iter().zip(&r).map(|(x, d)| x + d).collect();
                let next = self.residual_vector(&candidate, b);
                let next_norm = max_abs(&next) / b.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
                if next_norm >= norm {
                    break;
                }
                x.copy_from_slice(&candidate);
                (r, norm) = (next, next_norm);
                self.refinements += 1;
            }
            worst = worst.max(norm);
        }
        Ok(worst)
    }

    /// Forward and back substitution with the factor, in place.
    fn substitute(&mut self, rhs: &mut [f64], nrhs: usize) -> Result<(), KktError> {
        let symbolic = self.symbolic.as_ref().ok_or(KktError::State("solve before analyze"))?;
        let req = symbolic.solve_in_place_scratch::<f64>(nrhs, Par::Seq);
        if req.size_bytes() > self.buffer.len() {
            let ldlt = symbolic.factorize_numeric_ldlt_scratch::<f64>(Par::Seq, Default::default());
            let lblt = symbolic.factorize_numeric_intranode_lblt_scratch::<f64>(Par::Seq, Default::default());
            self.buffer = MemBuffer::new(StackReq::any_of(&[ldlt, lblt, req]));
        }
        let mat = MatMut::from_column_major_slice_mut(rhs, self.dim, nrhs);
        let stack = MemStack::new(&mut self.buffer);
        match &self.pivoting {
            Pivoting::Static => {
                LdltRef::<usize, f64>::new(symbolic, &self.l_values).solve_in_place_with_conj(Conj::No, mat, Par::Seq, stack)
            }
            Pivoting::BunchKaufman { subdiag, forward, inverse } => {
                let perm = faer::perm::PermRef::new_checked(forward, inverse, self.dim);
                IntranodeLbltRef::<usize, f64>::new(symbolic, &self.l_values, subdiag, perm).solve_in_place_with_conj(
                    Conj::No,
                    mat,
                    Par::Seq,
                    stack,
                )
            }
        }
        Ok(())
    }

    /// `b − A x` for the current values.
    fn residual_vector(&self, x: &[f64], b: &[f64]) -> Vec<f64> {
        let mut r = b.to_vec();
        for j in 0..self.dim {
            for p in self.col_ptr[j]..self.col_ptr[j + 1] {
                let (i, a) = (self.row_idx[p], self.values[p]);
                r[i] -= a * x[j];
                if i != j {
                    r[j] -= a * x[i];
                }
            }
        }
        r
    }

    /// `‖A x − b‖∞ / max(‖b‖∞, 1)` for the current values (one right-hand side).
    pub fn residual(&self, x: &[f64], b: &[f64]) -> f64 {
        max_abs(&self.residual_vector(x, b)) / b.iter().fold(1.0_f64, |m, v| m.max(v.abs()))
    }
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

/// How the current analysis pivots.
enum Pivoting {
    /// 1×1 pivots in the analysed order.
    Static,
    /// Bunch–Kaufman 1×1 and 2×2 pivots inside each supernode (faer's intranode LBLᵀ);
    /// the subdiagonal of the 2×2 blocks and the pivots' permutation.
    BunchKaufman { subdiag: Vec<f64>, forward: Vec<usize>, inverse: Vec<usize> },
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
                    Err(KktError::Singular { .. } | KktError::Unstable { .. }) => {}
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
    fn an_unregularized_constraint_block_factors_with_two_by_two_pivots() {
        // [[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]]: no 1×1 pivot in any
        // order; eigenvalues ±1 twice.
        let mut ldl = Ldl::default();
        ldl.analyze(4, &[0, 2, 4, 5, 6], &[0, 2, 1, 3, 2, 3]).unwrap();
        ldl.values_mut().copy_from_slice(&[0.0, 1.0, 0.0, 1.0, 0.0, 0.0]);
        assert_eq!(ldl.factor(), Ok(2));
        assert_eq!(ldl.bunch_kaufman_switches, 1);
        let b = [1.0, 2.0, 3.0, 4.0];
        let mut x = b;
        ldl.solve_in_place(&mut x, 1).unwrap();
        assert_eq!(x, [3.0, 4.0, 1.0, 2.0]);
        // Random KKT matrices without δ_c, a third of the Hessian diagonal zero: every
        // factor accepted has the dense inertia and solves to 1e-10; most nonsingular
        // ones are accepted, some only with 2×2 pivots; singular ones are rejected.
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let (mut nonsingular, mut factored, mut with_two_by_two) = (0, 0, 0);
        for _ in 0..40 {
            let mut a = kkt(&mut rng, 30, 12, 0.0);
            for (i, row) in a.iter_mut().enumerate() {
                if i >= 30 || rng.gen_bool(0.3) {
                    row[i] = 0.0;
                }
            }
            let eig = faer::Mat::from_fn(42, 42, |i, j| a[i][j]).self_adjoint_eigenvalues(Side::Lower).unwrap();
            let singular = eig.iter().any(|v| v.abs() < 1e-12);
            nonsingular += usize::from(!singular);
            let (cp, ri, v) = lower_csc(&a);
            let mut ldl = Ldl { growth_limit: 1e8, ..Ldl::default() };
            ldl.analyze(42, &cp, &ri).unwrap();
            ldl.values_mut().copy_from_slice(&v);
            match ldl.factor() {
                Ok(neg) => {
                    assert!(!singular);
                    assert_eq!(neg, dense_negative(&a));
                    let b: Vec<f64> = (0..42).map(|i| (i as f64).cos()).collect();
                    let mut x = b.clone();
                    assert!(ldl.solve_in_place(&mut x, 1).unwrap() < 1e-10);
                    factored += 1;
                    with_two_by_two += ldl.bunch_kaufman_switches;
                }
                Err(KktError::Singular { .. } | KktError::Unstable { .. }) => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert!(nonsingular >= 15 && 2 * factored >= nonsingular, "{factored} of {nonsingular} nonsingular");
        assert!(with_two_by_two > 0);
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
        // [[1e-12, 1], [1, 1]]: the static pivot 1e-12 makes a multiplier of 1e12, above
        // the limit; Bunch–Kaufman pivots take the 2×2 block.
        let mut tiny = Ldl { growth_limit: 1e8, ..Ldl::default() };
        tiny.analyze(2, &[0, 2, 3], &[0, 1, 1]).unwrap();
        tiny.values_mut().copy_from_slice(&[1e-12, 1.0, 1.0]);
        assert_eq!(tiny.factor(), Ok(1));
        assert_eq!(tiny.bunch_kaufman_switches, 1);
        let mut empty = Ldl::default();
        empty.analyze::<usize>(0, &[0], &[]).unwrap();
        assert_eq!(empty.factor(), Ok(0));
        empty.solve_in_place(&mut [], 1).unwrap();
    }
}
