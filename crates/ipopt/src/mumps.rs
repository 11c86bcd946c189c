//! MUMPS, configured as Ipopt configures it, on one sparse symmetric matrix: the
//! reference that `linear_solver = ldl` is measured against (`examples/kkt_benchmark`).
//! Not on any solve path: MUMPS is not safe to call beside Ipopt's own MUMPS calls in
//! other threads (Ipopt serializes those behind a lock of its own).

use std::ffi::{c_int, c_void};

extern "C" {
    fn fesd_mumps_new(n: c_int, nnz: i64, irn: *mut c_int, jcn: *mut c_int, a: *mut f64, pivtol: f64) -> *mut c_void;
    fn fesd_mumps_factor(p: *mut c_void, negative: *mut c_int) -> c_int;
    fn fesd_mumps_solve(p: *mut c_void, rhs: *mut f64) -> c_int;
    fn fesd_mumps_factor_entries(p: *mut c_void) -> i64;
    fn fesd_mumps_free(p: *mut c_void);
}

/// A MUMPS factorization of one matrix (its lower triangle by columns).
pub struct Mumps {
    handle: *mut c_void,
    // MUMPS keeps pointers to these.
    _irn: Vec<c_int>,
    _jcn: Vec<c_int>,
    _a: Vec<f64>,
    n: usize,
}

impl Mumps {
    /// MUMPS for the `dim × dim` matrix given by its lower triangle in compressed
    /// columns, with pivot tolerance `pivtol` (fesd's Ipopt default 1e-8).
    pub fn new(dim: usize, col_ptr: &[usize], row_idx: &[usize], values: &[f64], pivtol: f64) -> Result<Mumps, String> {
        let mut irn = Vec::with_capacity(row_idx.len());
        let mut jcn = Vec::with_capacity(row_idx.len());
        for j in 0..dim {
            for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
                irn.push(c_int::try_from(i + 1).map_err(|e| e.to_string())?);
                jcn.push(c_int::try_from(j + 1).map_err(|e| e.to_string())?);
            }
        }
        let mut a = values.to_vec();
        let n = c_int::try_from(dim).map_err(|e| e.to_string())?;
        // SAFETY: the arrays live in the returned value as long as MUMPS does.
        let handle = unsafe { fesd_mumps_new(n, irn.len() as i64, irn.as_mut_ptr(), jcn.as_mut_ptr(), a.as_mut_ptr(), pivtol) };
        if handle.is_null() {
            return Err("MUMPS did not initialize".into());
        }
        Ok(Mumps { handle, _irn: irn, _jcn: jcn, _a: a, n: dim })
    }

    /// Analysis (the first time) and factorization: the number of negative pivots, or
    /// MUMPS's error code INFOG(1).
    pub fn factor(&mut self) -> Result<usize, i32> {
        let mut negative = 0;
        // SAFETY: a live handle.
        let info = unsafe { fesd_mumps_factor(self.handle, &mut negative) };
        if info < 0 {
            return Err(info);
        }
        Ok(usize::try_from(negative).unwrap_or(0))
    }

    /// Solves in place for one right-hand side.
    pub fn solve(&mut self, rhs: &mut [f64]) -> Result<(), i32> {
        if rhs.len() != self.n {
            return Err(-1);
        }
        // SAFETY: a factored handle and n values.
        let info = unsafe { fesd_mumps_solve(self.handle, rhs.as_mut_ptr()) };
        if info < 0 {
            return Err(info);
        }
        Ok(())
    }

    /// Entries of the factors (INFOG(29)).
    pub fn factor_entries(&self) -> i64 {
        // SAFETY: a live handle.
        unsafe { fesd_mumps_factor_entries(self.handle) }
    }
}

impl Drop for Mumps {
    fn drop(&mut self) {
        // SAFETY: created by fesd_mumps_new, freed once.
        unsafe { fesd_mumps_free(self.handle) }
    }
}
