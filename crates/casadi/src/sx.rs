//! Symbolic matrices of scalar expressions (CasADi `SX`).

use crate::error::{Error, Result};
use crate::ffi::bridge as ffi;
use crate::ffi::{BinOp, UnOp};
use crate::sparsity::Sparsity;
use cxx::UniquePtr;
use std::fmt;
use std::ops::{Add, Div, Mul, Neg, Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, Sub};

/// A sparse matrix whose entries are scalar symbolic expressions (CasADi `SX`).
///
/// Column vectors are `n × 1`. Arithmetic with `f64` works on either side;
/// elementwise operations between matrices need equal shapes or a scalar operand.
pub struct SX {
    pub(crate) inner: UniquePtr<ffi::SX>,
}

/// Rows, columns or elements to select (see [`SX::get`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Indices {
    /// Every index.
    All,
    /// These indices, in this order.
    List(Vec<usize>),
    /// `start..end` (`end = None`: to the end).
    Range(usize, Option<usize>),
}

impl Indices {
    fn resolve(&self, len: usize, what: &str) -> Result<Vec<i64>> {
        let list: Vec<usize> = match self {
            Indices::All => (0..len).collect(),
            Indices::List(v) => v.clone(),
            Indices::Range(s, e) => {
                let e = e.unwrap_or(len);
                if *s > e {
                    return Err(Error::InvalidArgument(format!("{what} range {s}..{e} is reversed")));
                }
                (*s..e).collect()
            }
        };
        if let Some(i) = list.iter().find(|&&i| i >= len) {
            return Err(Error::InvalidArgument(format!("{what} index {i} out of range (size {len})")));
        }
        Ok(list.into_iter().map(|i| i as i64).collect())
    }
}

impl From<usize> for Indices {
    fn from(i: usize) -> Self {
        Indices::List(vec![i])
    }
}
impl From<Vec<usize>> for Indices {
    fn from(v: Vec<usize>) -> Self {
        Indices::List(v)
    }
}
impl From<&[usize]> for Indices {
    fn from(v: &[usize]) -> Self {
        Indices::List(v.to_vec())
    }
}
impl From<Range<usize>> for Indices {
    fn from(r: Range<usize>) -> Self {
        Indices::Range(r.start, Some(r.end))
    }
}
impl From<RangeInclusive<usize>> for Indices {
    fn from(r: RangeInclusive<usize>) -> Self {
        Indices::Range(*r.start(), Some(*r.end() + 1))
    }
}
impl From<RangeFrom<usize>> for Indices {
    fn from(r: RangeFrom<usize>) -> Self {
        Indices::Range(r.start, None)
    }
}
impl From<RangeTo<usize>> for Indices {
    fn from(r: RangeTo<usize>) -> Self {
        Indices::Range(0, Some(r.end))
    }
}
impl From<RangeFull> for Indices {
    fn from(_: RangeFull) -> Self {
        Indices::All
    }
}

impl SX {
    pub(crate) fn wrap(inner: UniquePtr<ffi::SX>) -> Self {
        SX { inner }
    }

    /// Unwraps results of calls that only fail if CasADi cannot allocate memory.
    fn infallible(r: std::result::Result<UniquePtr<ffi::SX>, cxx::Exception>) -> SX {
        match r {
            Ok(p) => SX::wrap(p),
            Err(e) => panic!("CasADi failed in an operation that cannot fail for valid shapes: {}", e.what()),
        }
    }

    /// A column vector of `n` symbols named `name_0 … name_{n-1}` (or `name` if `n == 1`).
    pub fn sym(name: &str, n: usize) -> SX {
        Self::infallible(ffi::sx_sym(name, n, 1))
    }

    /// An `nrow × ncol` matrix of symbols.
    pub fn sym_matrix(name: &str, nrow: usize, ncol: usize) -> SX {
        Self::infallible(ffi::sx_sym(name, nrow, ncol))
    }

    /// A `1 × 1` constant.
    pub fn scalar(value: f64) -> SX {
        Self::infallible(ffi::sx_constant(1, 1, value))
    }

    /// A dense `nrow × ncol` matrix filled with `value`.
    pub fn constant(nrow: usize, ncol: usize, value: f64) -> SX {
        Self::infallible(ffi::sx_constant(nrow, ncol, value))
    }

    /// A dense `nrow × ncol` matrix of zeros.
    pub fn zeros(nrow: usize, ncol: usize) -> SX {
        Self::constant(nrow, ncol, 0.0)
    }

    /// A dense `nrow × ncol` matrix of ones.
    pub fn ones(nrow: usize, ncol: usize) -> SX {
        Self::constant(nrow, ncol, 1.0)
    }

    /// An all-structural-zero (empty pattern) `nrow × ncol` matrix.
    pub fn sparse_zeros(nrow: usize, ncol: usize) -> Result<SX> {
        let sp = Sparsity::triplet(nrow, ncol, &[], &[])?;
        SX::from_nonzeros(&sp, &[])
    }

    /// A column vector of constants.
    pub fn from_slice(values: &[f64]) -> SX {
        Self::infallible(ffi::sx_from_column_major(values.len(), 1, values))
    }

    /// A dense matrix from column-major data.
    pub fn from_column_major(nrow: usize, ncol: usize, data: &[f64]) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_from_column_major(nrow, ncol, data)?))
    }

    /// A dense matrix from rows (each row a slice of equal length).
    pub fn from_rows(rows: &[&[f64]]) -> Result<SX> {
        let nrow = rows.len();
        let ncol = rows.first().map_or(0, |r| r.len());
        if let Some(bad) = rows.iter().position(|r| r.len() != ncol) {
            return Err(Error::InvalidArgument(format!(
                "from_rows: row {bad} has {} entries, row 0 has {ncol}",
                rows[bad].len()
            )));
        }
        let mut data = Vec::with_capacity(nrow * ncol);
        for c in 0..ncol {
            data.extend(rows.iter().map(|r| r[c]));
        }
        SX::from_column_major(nrow, ncol, &data)
    }

    /// A sparse matrix with the given pattern and nonzeros (CCS order).
    pub fn from_nonzeros(sp: &Sparsity, nonzeros: &[f64]) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_from_sparsity(&sp.inner, nonzeros)?))
    }

    /// Number of rows.
    pub fn nrow(&self) -> usize {
        ffi::sx_nrow(&self.inner)
    }

    /// Number of columns.
    pub fn ncol(&self) -> usize {
        ffi::sx_ncol(&self.inner)
    }

    /// `(nrow, ncol)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.nrow(), self.ncol())
    }

    /// `nrow · ncol`.
    pub fn numel(&self) -> usize {
        self.nrow() * self.ncol()
    }

    /// Number of structural nonzeros.
    pub fn nnz(&self) -> usize {
        ffi::sx_nnz(&self.inner)
    }

    /// True if every nonzero is a distinct free symbol (a valid `Function` input).
    pub fn is_symbolic(&self) -> bool {
        ffi::sx_is_symbolic(&self.inner)
    }

    /// Number of nodes in the expression graph.
    pub fn n_nodes(&self) -> Result<usize> {
        Ok(ffi::sx_n_nodes(&self.inner)?)
    }

    /// The sparsity pattern.
    pub fn sparsity(&self) -> Sparsity {
        Sparsity::wrap(ffi::sx_sparsity(&self.inner))
    }

    /// Numeric value of a constant expression, dense column-major; `Err` if it has free symbols.
    pub fn evalf(&self) -> Result<Vec<f64>> {
        Ok(ffi::sx_evalf(&self.inner)?)
    }

    fn binary(&self, op: BinOp, other: &SX) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_binary(op as u8, &self.inner, &other.inner)?))
    }

    fn unary(&self, op: UnOp) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_unary(op as u8, &self.inner)?))
    }

    fn elementwise(&self, op: UnOp) -> SX {
        Self::infallible(ffi::sx_unary(op as u8, &self.inner))
    }

    /// Elementwise `self + other`; `Err` on incompatible shapes.
    pub fn try_add(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Add, other)
    }
    /// Elementwise `self - other`; `Err` on incompatible shapes.
    pub fn try_sub(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Sub, other)
    }
    /// Elementwise `self * other`; `Err` on incompatible shapes.
    pub fn try_mul(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Mul, other)
    }
    /// Elementwise `self / other`; `Err` on incompatible shapes.
    pub fn try_div(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Div, other)
    }
    /// Elementwise power `self ^ other`.
    pub fn pow(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Pow, other)
    }
    /// Elementwise power with a constant exponent.
    pub fn powf(&self, exponent: f64) -> SX {
        Self::infallible(ffi::sx_binary(BinOp::Pow as u8, &self.inner, &SX::scalar(exponent).inner))
    }
    /// Elementwise minimum.
    pub fn fmin(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Fmin, other)
    }
    /// Elementwise maximum.
    pub fn fmax(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Fmax, other)
    }
    /// Elementwise two-argument arctangent `atan2(self, other)`.
    pub fn atan2(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Atan2, other)
    }
    /// Elementwise `self < other` as 0/1 expressions.
    pub fn lt(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Lt, other)
    }
    /// Elementwise `self <= other` as 0/1 expressions.
    pub fn le(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Le, other)
    }
    /// Elementwise `self == other` as 0/1 expressions.
    pub fn eq_elem(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Eq, other)
    }
    /// Matrix product.
    pub fn mtimes(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Mtimes, other)
    }
    /// Inner product `Σ self_ij other_ij`.
    pub fn dot(&self, other: &SX) -> Result<SX> {
        self.binary(BinOp::Dot, other)
    }

    /// Elementwise sine.
    pub fn sin(&self) -> SX {
        self.elementwise(UnOp::Sin)
    }
    /// Elementwise cosine.
    pub fn cos(&self) -> SX {
        self.elementwise(UnOp::Cos)
    }
    /// Elementwise tangent.
    pub fn tan(&self) -> SX {
        self.elementwise(UnOp::Tan)
    }
    /// Elementwise exponential.
    pub fn exp(&self) -> SX {
        self.elementwise(UnOp::Exp)
    }
    /// Elementwise natural logarithm.
    pub fn log(&self) -> SX {
        self.elementwise(UnOp::Log)
    }
    /// Elementwise square root.
    pub fn sqrt(&self) -> SX {
        self.elementwise(UnOp::Sqrt)
    }
    /// Elementwise hyperbolic tangent.
    pub fn tanh(&self) -> SX {
        self.elementwise(UnOp::Tanh)
    }
    /// Elementwise absolute value.
    pub fn abs(&self) -> SX {
        self.elementwise(UnOp::Abs)
    }
    /// Elementwise sign (−1, 0, 1).
    pub fn sign(&self) -> SX {
        self.elementwise(UnOp::Sign)
    }
    /// Transpose.
    pub fn t(&self) -> SX {
        self.elementwise(UnOp::Transpose)
    }
    /// Sum of all entries (a `1 × 1` expression).
    pub fn sum(&self) -> SX {
        self.elementwise(UnOp::Sum)
    }
    /// Euclidean norm of a vector; `Err` for a matrix.
    pub fn norm_2(&self) -> Result<SX> {
        self.unary(UnOp::Norm2)
    }
    /// The same matrix with every structural zero made an explicit zero entry.
    pub fn densify(&self) -> SX {
        self.elementwise(UnOp::Densify)
    }
    /// Lower triangular part (including the diagonal).
    pub fn tril(&self) -> SX {
        self.elementwise(UnOp::Tril)
    }

    /// `if_else(c, a, b)`: `a` where `c ≠ 0`, else `b` (elementwise).
    pub fn if_else(c: &SX, a: &SX, b: &SX) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_if_else(&c.inner, &a.inner, &b.inner)?))
    }

    pub(crate) fn to_vec(items: &[&SX]) -> UniquePtr<ffi::SXVec> {
        let mut v = ffi::sxvec_new();
        for x in items {
            ffi::sxvec_push(v.pin_mut(), &x.inner);
        }
        v
    }

    /// Vertical concatenation (equal column counts).
    pub fn vertcat(items: &[&SX]) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_vertcat(&SX::to_vec(items))?))
    }

    /// Horizontal concatenation (equal row counts).
    pub fn horzcat(items: &[&SX]) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_horzcat(&SX::to_vec(items))?))
    }

    /// Column-major reshape to `nrow × ncol` (same number of entries).
    pub fn reshape(&self, nrow: usize, ncol: usize) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_reshape(&self.inner, nrow, ncol)?))
    }

    /// Submatrix of the given rows and columns.
    pub fn get(&self, rows: impl Into<Indices>, cols: impl Into<Indices>) -> Result<SX> {
        let r = rows.into().resolve(self.nrow(), "row")?;
        let c = cols.into().resolve(self.ncol(), "column")?;
        Ok(SX::wrap(ffi::sx_get(&self.inner, &r, &c)?))
    }

    /// Entries of a vector (row or column) by position; the result keeps its orientation.
    pub fn slice(&self, idx: impl Into<Indices>) -> Result<SX> {
        match self.shape() {
            (_, 1) => self.get(idx, 0usize),
            (1, _) => self.get(0usize, idx),
            (r, c) => Err(Error::InvalidArgument(format!("slice needs a vector, got a {r}x{c} matrix"))),
        }
    }

    /// Entry `i` of a vector.
    pub fn at(&self, i: usize) -> Result<SX> {
        self.slice(i)
    }

    /// Structural nonzeros by position in CCS order, as a column vector.
    pub fn nonzeros_at(&self, idx: impl Into<Indices>) -> Result<SX> {
        let i = idx.into().resolve(self.nnz(), "nonzero")?;
        Ok(SX::wrap(ffi::sx_get_nz(&self.inner, &i)?))
    }

    /// Assigns `value` to the submatrix of the given rows and columns.
    pub fn set(&mut self, value: &SX, rows: impl Into<Indices>, cols: impl Into<Indices>) -> Result<()> {
        let r = rows.into().resolve(self.nrow(), "row")?;
        let c = cols.into().resolve(self.ncol(), "column")?;
        Ok(ffi::sx_set(self.inner.pin_mut(), &value.inner, &r, &c)?)
    }

    /// Jacobian `∂f/∂x` (`x` symbolic), sparse.
    pub fn jacobian(f: &SX, x: &SX) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_jacobian(&f.inner, &x.inner)?))
    }

    /// Gradient of a scalar `f` with respect to `x`, shaped like `x`.
    pub fn gradient(f: &SX, x: &SX) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_gradient(&f.inner, &x.inner)?))
    }

    /// Hessian of a scalar `f` with respect to the vector `x` (symmetric, sparse).
    pub fn hessian(f: &SX, x: &SX) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_hessian(&f.inner, &x.inner)?))
    }

    /// Directional derivative `(∂f/∂x) v`, or `(∂f/∂x)ᵀ v` if `transpose`.
    pub fn jtimes(f: &SX, x: &SX, v: &SX, transpose: bool) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_jtimes(&f.inner, &x.inner, &v.inner, transpose)?))
    }

    /// Replaces the symbols `v` by `vdef` in `ex`.
    pub fn substitute(ex: &SX, v: &SX, vdef: &SX) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_substitute(&ex.inner, &v.inner, &vdef.inner)?))
    }

    /// CasADi's string serialization (`SX::serialize`).
    pub fn serialize(&self) -> Result<String> {
        Ok(ffi::sx_serialize(&self.inner)?)
    }

    /// Reads a string written by [`SX::serialize`] (or CasADi in any language).
    pub fn deserialize(s: &str) -> Result<SX> {
        Ok(SX::wrap(ffi::sx_deserialize(s)?))
    }
}

impl Clone for SX {
    fn clone(&self) -> Self {
        SX::wrap(ffi::sx_clone(&self.inner))
    }
}

impl From<f64> for SX {
    fn from(v: f64) -> Self {
        SX::scalar(v)
    }
}

impl From<&[f64]> for SX {
    fn from(v: &[f64]) -> Self {
        SX::from_slice(v)
    }
}

impl fmt::Display for SX {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match ffi::sx_to_string(&self.inner) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<SX {}x{}: {}>", self.nrow(), self.ncol(), e.what()),
        }
    }
}

impl fmt::Debug for SX {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SX({self})")
    }
}

impl Neg for &SX {
    type Output = SX;
    fn neg(self) -> SX {
        self.elementwise(UnOp::Neg)
    }
}

impl Neg for SX {
    type Output = SX;
    fn neg(self) -> SX {
        -&self
    }
}

/// Implements an arithmetic operator for every owned/borrowed and `f64` combination.
macro_rules! arith {
    ($Trait:ident, $method:ident, $op:expr) => {
        impl $Trait<&SX> for &SX {
            type Output = SX;
            /// Panics with CasADi's message if the shapes are incompatible.
            fn $method(self, rhs: &SX) -> SX {
                match self.binary($op, rhs) {
                    Ok(v) => v,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        impl $Trait<SX> for &SX {
            type Output = SX;
            fn $method(self, rhs: SX) -> SX {
                self.$method(&rhs)
            }
        }
        impl $Trait<&SX> for SX {
            type Output = SX;
            fn $method(self, rhs: &SX) -> SX {
                (&self).$method(rhs)
            }
        }
        impl $Trait<SX> for SX {
            type Output = SX;
            fn $method(self, rhs: SX) -> SX {
                (&self).$method(&rhs)
            }
        }
        impl $Trait<f64> for &SX {
            type Output = SX;
            fn $method(self, rhs: f64) -> SX {
                self.$method(&SX::scalar(rhs))
            }
        }
        impl $Trait<f64> for SX {
            type Output = SX;
            fn $method(self, rhs: f64) -> SX {
                (&self).$method(&SX::scalar(rhs))
            }
        }
        impl $Trait<&SX> for f64 {
            type Output = SX;
            fn $method(self, rhs: &SX) -> SX {
                (&SX::scalar(self)).$method(rhs)
            }
        }
        impl $Trait<SX> for f64 {
            type Output = SX;
            fn $method(self, rhs: SX) -> SX {
                (&SX::scalar(self)).$method(&rhs)
            }
        }
    };
}

arith!(Add, add, BinOp::Add);
arith!(Sub, sub, BinOp::Sub);
arith!(Mul, mul, BinOp::Mul);
arith!(Div, div, BinOp::Div);
