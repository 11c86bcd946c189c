//! Compressed-column sparsity patterns.

use crate::error::{Error, Result};
use crate::ffi::bridge as ffi;
use cxx::UniquePtr;
use std::fmt;

/// A CasADi sparsity pattern (compressed column storage).
pub struct Sparsity {
    pub(crate) inner: UniquePtr<ffi::Sparsity>,
}

impl Sparsity {
    pub(crate) fn wrap(inner: UniquePtr<ffi::Sparsity>) -> Self {
        Sparsity { inner }
    }

    /// A dense `nrow × ncol` pattern.
    pub fn dense(nrow: usize, ncol: usize) -> Result<Sparsity> {
        let _g = crate::lock::guard();
        Ok(Self::wrap(ffi::sp_dense(nrow, ncol)?))
    }

    /// A pattern from (row, column) pairs; duplicates are merged.
    pub fn triplet(nrow: usize, ncol: usize, rows: &[usize], cols: &[usize]) -> Result<Sparsity> {
        let _g = crate::lock::guard();
        if rows.len() != cols.len() {
            return Err(Error::InvalidArgument(format!("triplet sparsity: {} row indices but {} column indices", rows.len(), cols.len())));
        }
        if let Some(r) = rows.iter().find(|&&r| r >= nrow) {
            return Err(Error::InvalidArgument(format!("triplet sparsity: row {r} out of range for {nrow} rows")));
        }
        if let Some(c) = cols.iter().find(|&&c| c >= ncol) {
            return Err(Error::InvalidArgument(format!("triplet sparsity: column {c} out of range for {ncol} columns")));
        }
        let r: Vec<i64> = rows.iter().map(|&i| i as i64).collect();
        let c: Vec<i64> = cols.iter().map(|&i| i as i64).collect();
        Ok(Self::wrap(ffi::sp_triplet(nrow, ncol, &r, &c)?))
    }

    /// Number of rows.
    pub fn nrow(&self) -> usize {
        let _g = crate::lock::guard();
        ffi::sp_nrow(&self.inner).unwrap_or_default()
    }

    /// Number of columns.
    pub fn ncol(&self) -> usize {
        let _g = crate::lock::guard();
        ffi::sp_ncol(&self.inner).unwrap_or_default()
    }

    /// `(nrow, ncol)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.nrow(), self.ncol())
    }

    /// Number of structural nonzeros.
    pub fn nnz(&self) -> usize {
        let _g = crate::lock::guard();
        ffi::sp_nnz(&self.inner).unwrap_or_default()
    }

    /// `nrow · ncol`.
    pub fn numel(&self) -> usize {
        self.nrow() * self.ncol()
    }

    /// True if every entry is structurally nonzero.
    pub fn is_dense(&self) -> bool {
        self.nnz() == self.numel()
    }

    /// Column pointers of the CCS format (`ncol + 1` entries).
    pub fn colind(&self) -> Vec<usize> {
        let _g = crate::lock::guard();
        ffi::sp_colind(&self.inner).unwrap_or_default().into_iter().map(|i| i as usize).collect()
    }

    /// Row indices of the CCS format (`nnz` entries).
    pub fn row(&self) -> Vec<usize> {
        let _g = crate::lock::guard();
        ffi::sp_row(&self.inner).unwrap_or_default().into_iter().map(|i| i as usize).collect()
    }

    /// `(rows, cols)` of every nonzero, in CCS (column-major) order.
    pub fn triplets(&self) -> (Vec<usize>, Vec<usize>) {
        let colind = self.colind();
        let rows = self.row();
        let mut cols = Vec::with_capacity(rows.len());
        for c in 0..colind.len().saturating_sub(1) {
            cols.extend(std::iter::repeat_n(c, colind[c + 1] - colind[c]));
        }
        (rows, cols)
    }

    /// Scatters CCS-ordered `nonzeros` into a dense column-major array.
    pub fn densify(&self, nonzeros: &[f64]) -> Result<Vec<f64>> {
        if nonzeros.len() != self.nnz() {
            return Err(Error::InvalidArgument(format!("densify: {} values for a pattern with {} nonzeros", nonzeros.len(), self.nnz())));
        }
        let (rows, cols) = self.triplets();
        let mut out = vec![0.0; self.numel()];
        for ((r, c), v) in rows.iter().zip(&cols).zip(nonzeros) {
            out[c * self.nrow() + r] = *v;
        }
        Ok(out)
    }
}

impl Drop for Sparsity {
    fn drop(&mut self) {
        let _g = crate::lock::guard();
        drop(std::mem::replace(&mut self.inner, UniquePtr::null()));
    }
}

impl Clone for Sparsity {
    fn clone(&self) -> Self {
        let _g = crate::lock::guard();
        Self::wrap(crate::error::allocated(ffi::sp_clone(&self.inner)))
    }
}

impl PartialEq for Sparsity {
    fn eq(&self, other: &Self) -> bool {
        let _g = crate::lock::guard();
        ffi::sp_equal(&self.inner, &other.inner).unwrap_or(false)
    }
}

impl fmt::Display for Sparsity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let _g = crate::lock::guard();
        match ffi::sp_to_string(&self.inner) {
            Ok(s) => f.write_str(&s),
            Err(_) => write!(f, "{}x{},{}nz", self.nrow(), self.ncol(), self.nnz()),
        }
    }
}

impl fmt::Debug for Sparsity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sparsity({self})")
    }
}
