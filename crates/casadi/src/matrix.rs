//! Symbolic matrices (CasADi `SX` and `MX`), one generic implementation for both.

use crate::error::{Error, Result};
use crate::ffi::{BinOp, UnOp};
use crate::kind::{Kind, Mx, Sx};
use crate::sparsity::Sparsity;
use cxx::UniquePtr;
use std::fmt;
use std::ops::{Add, Div, Mul, Neg, Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, Sub};

/// A sparse symbolic matrix of backend `K` ([`SX`] or [`MX`]).
///
/// Column vectors are `n × 1`. Arithmetic with `f64` works on either side;
/// elementwise operations between matrices need equal shapes or a scalar operand.
pub struct Matrix<K: Kind> {
    pub(crate) inner: UniquePtr<K::Raw>,
}

/// Scalar expression graphs (CasADi `SX`): the fastest to differentiate and evaluate.
pub type SX = Matrix<Sx>;

/// Matrix expression graphs (CasADi `MX`): can call [`Function`](crate::Function)s,
/// e.g. a `map` of one element kernel, which keeps generated code small.
pub type MX = Matrix<Mx>;

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

impl<K: Kind> Matrix<K> {
    pub(crate) fn wrap(inner: UniquePtr<K::Raw>) -> Self {
        Matrix { inner }
    }

    /// Unwraps results of calls that only fail if CasADi cannot allocate memory.
    fn infallible(r: std::result::Result<UniquePtr<K::Raw>, cxx::Exception>) -> Self {
        match r {
            Ok(p) => Self::wrap(p),
            Err(e) => panic!("CasADi failed in an operation that cannot fail for valid shapes: {}", e.what()),
        }
    }

    /// A column vector of `n` symbols named `name_0 … name_{n-1}` (or `name` if `n == 1`).
    pub fn sym(name: &str, n: usize) -> Self {
        Self::infallible(K::sym(name, n, 1))
    }

    /// An `nrow × ncol` matrix of symbols.
    pub fn sym_matrix(name: &str, nrow: usize, ncol: usize) -> Self {
        Self::infallible(K::sym(name, nrow, ncol))
    }

    /// A `1 × 1` constant.
    pub fn scalar(value: f64) -> Self {
        Self::infallible(K::constant(1, 1, value))
    }

    /// A dense `nrow × ncol` matrix filled with `value`.
    pub fn constant(nrow: usize, ncol: usize, value: f64) -> Self {
        Self::infallible(K::constant(nrow, ncol, value))
    }

    /// A dense `nrow × ncol` matrix of zeros.
    pub fn zeros(nrow: usize, ncol: usize) -> Self {
        Self::constant(nrow, ncol, 0.0)
    }

    /// A dense `nrow × ncol` matrix of ones.
    pub fn ones(nrow: usize, ncol: usize) -> Self {
        Self::constant(nrow, ncol, 1.0)
    }

    /// An all-structural-zero (empty pattern) `nrow × ncol` matrix.
    pub fn sparse_zeros(nrow: usize, ncol: usize) -> Result<Self> {
        let sp = Sparsity::triplet(nrow, ncol, &[], &[])?;
        Self::from_nonzeros(&sp, &[])
    }

    /// A column vector of constants.
    pub fn from_slice(values: &[f64]) -> Self {
        Self::infallible(K::from_column_major(values.len(), 1, values))
    }

    /// A dense matrix from column-major data.
    pub fn from_column_major(nrow: usize, ncol: usize, data: &[f64]) -> Result<Self> {
        Ok(Self::wrap(K::from_column_major(nrow, ncol, data)?))
    }

    /// A dense matrix from rows (each row a slice of equal length).
    pub fn from_rows(rows: &[&[f64]]) -> Result<Self> {
        let nrow = rows.len();
        let ncol = rows.first().map_or(0, |r| r.len());
        if let Some(bad) = rows.iter().position(|r| r.len() != ncol) {
            return Err(Error::InvalidArgument(format!("from_rows: row {bad} has {} entries, row 0 has {ncol}", rows[bad].len())));
        }
        let mut data = Vec::with_capacity(nrow * ncol);
        for c in 0..ncol {
            data.extend(rows.iter().map(|r| r[c]));
        }
        Self::from_column_major(nrow, ncol, &data)
    }

    /// A sparse matrix with the given pattern and nonzeros (CCS order).
    pub fn from_nonzeros(sp: &Sparsity, nonzeros: &[f64]) -> Result<Self> {
        Ok(Self::wrap(K::from_sparsity(&sp.inner, nonzeros)?))
    }

    /// Number of rows.
    pub fn nrow(&self) -> usize {
        K::nrow(&self.inner)
    }

    /// Number of columns.
    pub fn ncol(&self) -> usize {
        K::ncol(&self.inner)
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
        K::nnz(&self.inner)
    }

    /// True if every nonzero is a distinct free symbol (a valid `Function` input).
    pub fn is_symbolic(&self) -> bool {
        K::is_symbolic(&self.inner)
    }

    /// True if the expression holds no symbols (every entry is a number).
    pub fn is_constant(&self) -> bool {
        K::is_constant(&self.inner)
    }

    /// Number of nodes in the expression graph.
    pub fn n_nodes(&self) -> Result<usize> {
        Ok(K::n_nodes(&self.inner)?)
    }

    /// The sparsity pattern.
    pub fn sparsity(&self) -> Sparsity {
        Sparsity::wrap(K::sparsity(&self.inner))
    }

    /// Numeric value of a constant expression, dense column-major; `Err` if it has free symbols.
    pub fn evalf(&self) -> Result<Vec<f64>> {
        Ok(K::evalf(&self.inner)?)
    }

    fn binary(&self, op: BinOp, other: &Self) -> Result<Self> {
        Ok(Self::wrap(K::binary(op as u8, &self.inner, &other.inner)?))
    }

    fn unary(&self, op: UnOp) -> Result<Self> {
        Ok(Self::wrap(K::unary(op as u8, &self.inner)?))
    }

    fn elementwise(&self, op: UnOp) -> Self {
        Self::infallible(K::unary(op as u8, &self.inner))
    }

    /// Elementwise `self + other`; `Err` on incompatible shapes.
    pub fn try_add(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Add, other)
    }
    /// Elementwise `self - other`; `Err` on incompatible shapes.
    pub fn try_sub(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Sub, other)
    }
    /// Elementwise `self * other`; `Err` on incompatible shapes.
    pub fn try_mul(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Mul, other)
    }
    /// Elementwise `self / other`; `Err` on incompatible shapes.
    pub fn try_div(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Div, other)
    }
    /// Elementwise power `self ^ other`.
    pub fn pow(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Pow, other)
    }
    /// Elementwise power with a constant exponent.
    pub fn powf(&self, exponent: f64) -> Self {
        Self::infallible(K::binary(BinOp::Pow as u8, &self.inner, &Self::scalar(exponent).inner))
    }
    /// Elementwise minimum.
    pub fn fmin(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Fmin, other)
    }
    /// Elementwise maximum.
    pub fn fmax(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Fmax, other)
    }
    /// Elementwise two-argument arctangent `atan2(self, other)`.
    pub fn atan2(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Atan2, other)
    }
    /// Elementwise `self < other` as 0/1 expressions.
    pub fn lt(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Lt, other)
    }
    /// Elementwise `self <= other` as 0/1 expressions.
    pub fn le(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Le, other)
    }
    /// Elementwise `self == other` as 0/1 expressions.
    pub fn eq_elem(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Eq, other)
    }
    /// Matrix product.
    pub fn mtimes(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Mtimes, other)
    }
    /// Inner product `Σ self_ij other_ij`.
    pub fn dot(&self, other: &Self) -> Result<Self> {
        self.binary(BinOp::Dot, other)
    }

    /// Elementwise sine.
    pub fn sin(&self) -> Self {
        self.elementwise(UnOp::Sin)
    }
    /// Elementwise cosine.
    pub fn cos(&self) -> Self {
        self.elementwise(UnOp::Cos)
    }
    /// Elementwise tangent.
    pub fn tan(&self) -> Self {
        self.elementwise(UnOp::Tan)
    }
    /// Elementwise exponential.
    pub fn exp(&self) -> Self {
        self.elementwise(UnOp::Exp)
    }
    /// Elementwise natural logarithm.
    pub fn log(&self) -> Self {
        self.elementwise(UnOp::Log)
    }
    /// Elementwise square root.
    pub fn sqrt(&self) -> Self {
        self.elementwise(UnOp::Sqrt)
    }
    /// Elementwise hyperbolic tangent.
    pub fn tanh(&self) -> Self {
        self.elementwise(UnOp::Tanh)
    }
    /// Elementwise absolute value.
    pub fn abs(&self) -> Self {
        self.elementwise(UnOp::Abs)
    }
    /// Elementwise sign (−1, 0, 1).
    pub fn sign(&self) -> Self {
        self.elementwise(UnOp::Sign)
    }
    /// Transpose.
    pub fn t(&self) -> Self {
        self.elementwise(UnOp::Transpose)
    }
    /// Sum of all entries (a `1 × 1` expression).
    pub fn sum(&self) -> Self {
        self.elementwise(UnOp::Sum)
    }
    /// Euclidean norm of a vector; `Err` for a matrix.
    pub fn norm_2(&self) -> Result<Self> {
        self.unary(UnOp::Norm2)
    }
    /// The same matrix with every structural zero made an explicit zero entry.
    pub fn densify(&self) -> Self {
        self.elementwise(UnOp::Densify)
    }
    /// Lower triangular part (including the diagonal).
    pub fn tril(&self) -> Self {
        self.elementwise(UnOp::Tril)
    }

    /// `if_else(c, a, b)`: `a` where `c ≠ 0`, else `b` (elementwise).
    pub fn if_else(c: &Self, a: &Self, b: &Self) -> Result<Self> {
        Ok(Self::wrap(K::if_else(&c.inner, &a.inner, &b.inner)?))
    }

    pub(crate) fn to_vec(items: &[&Self]) -> UniquePtr<K::List> {
        let mut v = K::list_new();
        for x in items {
            K::list_push(v.pin_mut(), &x.inner);
        }
        v
    }

    /// Vertical concatenation (equal column counts).
    pub fn vertcat(items: &[&Self]) -> Result<Self> {
        let _g = crate::lock::guard();
        Ok(Self::wrap(K::vertcat(&Self::to_vec(items))?))
    }

    /// Horizontal concatenation (equal row counts).
    pub fn horzcat(items: &[&Self]) -> Result<Self> {
        let _g = crate::lock::guard();
        Ok(Self::wrap(K::horzcat(&Self::to_vec(items))?))
    }

    /// Column-major reshape to `nrow × ncol` (same number of entries).
    pub fn reshape(&self, nrow: usize, ncol: usize) -> Result<Self> {
        Ok(Self::wrap(K::reshape(&self.inner, nrow, ncol)?))
    }

    /// Submatrix of the given rows and columns.
    pub fn get(&self, rows: impl Into<Indices>, cols: impl Into<Indices>) -> Result<Self> {
        let r = rows.into().resolve(self.nrow(), "row")?;
        let c = cols.into().resolve(self.ncol(), "column")?;
        Ok(Self::wrap(K::get(&self.inner, &r, &c)?))
    }

    /// Entries of a vector (row or column) by position; the result keeps its orientation.
    pub fn slice(&self, idx: impl Into<Indices>) -> Result<Self> {
        match self.shape() {
            (_, 1) => self.get(idx, 0usize),
            (1, _) => self.get(0usize, idx),
            (r, c) => Err(Error::InvalidArgument(format!("slice needs a vector, got a {r}x{c} matrix"))),
        }
    }

    /// Entry `i` of a vector.
    pub fn at(&self, i: usize) -> Result<Self> {
        self.slice(i)
    }

    /// Every entry of a vector (row or column), in order: `let [q, v] = ...` style
    /// access without collecting `Result`s.
    pub fn entries(&self) -> Result<Vec<Self>> {
        let n = match self.shape() {
            (n, 1) | (1, n) => n,
            (r, c) => return Err(Error::InvalidArgument(format!("entries needs a vector, got a {r}x{c} matrix"))),
        };
        if n == 0 {
            return Ok(Vec::new());
        }
        Ok(K::split(&self.inner)?.into_iter().map(Self::wrap).collect())
    }

    /// A column vector of scalar expressions (an empty list gives a 0×1 vector).
    pub fn column(items: &[Self]) -> Result<Self> {
        if items.is_empty() {
            return Ok(Self::zeros(0, 1));
        }
        Self::vertcat(&items.iter().collect::<Vec<_>>())
    }

    /// Structural nonzeros by position in CCS order, as a column vector.
    pub fn nonzeros_at(&self, idx: impl Into<Indices>) -> Result<Self> {
        let i = idx.into().resolve(self.nnz(), "nonzero")?;
        Ok(Self::wrap(K::get_nz(&self.inner, &i)?))
    }

    /// Assigns `value` to the submatrix of the given rows and columns.
    pub fn set(&mut self, value: &Self, rows: impl Into<Indices>, cols: impl Into<Indices>) -> Result<()> {
        let r = rows.into().resolve(self.nrow(), "row")?;
        let c = cols.into().resolve(self.ncol(), "column")?;
        Ok(K::set(self.inner.pin_mut(), &value.inner, &r, &c)?)
    }

    /// Jacobian `∂f/∂x` (`x` symbolic), sparse.
    pub fn jacobian(f: &Self, x: &Self) -> Result<Self> {
        Ok(Self::wrap(K::jacobian(&f.inner, &x.inner)?))
    }

    /// Gradient of a scalar `f` with respect to `x`, shaped like `x`.
    pub fn gradient(f: &Self, x: &Self) -> Result<Self> {
        Ok(Self::wrap(K::gradient(&f.inner, &x.inner)?))
    }

    /// Hessian of a scalar `f` with respect to the vector `x` (symmetric, sparse).
    pub fn hessian(f: &Self, x: &Self) -> Result<Self> {
        Ok(Self::wrap(K::hessian(&f.inner, &x.inner)?))
    }

    /// Directional derivative `(∂f/∂x) v`, or `(∂f/∂x)ᵀ v` if `transpose`.
    pub fn jtimes(f: &Self, x: &Self, v: &Self, transpose: bool) -> Result<Self> {
        Ok(Self::wrap(K::jtimes(&f.inner, &x.inner, &v.inner, transpose)?))
    }

    /// Replaces the symbols `v` by `vdef` in `ex`.
    pub fn substitute(ex: &Self, v: &Self, vdef: &Self) -> Result<Self> {
        Ok(Self::wrap(K::substitute(&ex.inner, &v.inner, &vdef.inner)?))
    }

    /// `Σ_j coeffs[j] · items[j]` of n × 1 columns, zero coefficients left out (an
    /// n × 1 zero if nothing remains): the Runge–Kutta sums of the discretizations.
    /// Panics like the operators if the items are not n × 1.
    pub fn weighted_sum(coeffs: &[f64], items: &[Self], n: usize) -> Self {
        coeffs.iter().zip(items).filter(|(c, _)| **c != 0.0).fold(Self::zeros(n, 1), |acc, (c, v)| acc + v * *c)
    }

    /// The solution `x` of the linear system `A x = b` (symbolic for SX, a linear
    /// solve node for MX); `A` square with as many rows as `b`.
    pub fn solve(a: &Self, b: &Self) -> Result<Self> {
        Ok(Self::wrap(K::solve(&a.inner, &b.inner)?))
    }

    /// The inverse of the square matrix `a`.
    pub fn inv(&self) -> Result<Self> {
        Ok(Self::wrap(K::inv(&self.inner)?))
    }
}

impl SX {
    /// CasADi's string serialization (`SX::serialize`).
    pub fn serialize(&self) -> Result<String> {
        let _g = crate::lock::guard();
        Ok(crate::ffi::bridge::sx_serialize(&self.inner)?)
    }

    /// Reads a string written by [`SX::serialize`] (or CasADi in any language),
    /// screened like [`Function::deserialize`](crate::Function::deserialize).
    pub fn deserialize(s: &str) -> Result<SX> {
        crate::payload::screen(s, "serialized SX")?;
        let _g = crate::lock::guard();
        Ok(SX::wrap(crate::ffi::bridge::sx_deserialize(s)?))
    }
}

impl<K: Kind> Drop for Matrix<K> {
    fn drop(&mut self) {
        let _g = crate::lock::guard();
        drop(std::mem::replace(&mut self.inner, UniquePtr::null()));
    }
}

impl<K: Kind> Clone for Matrix<K> {
    fn clone(&self) -> Self {
        Matrix::wrap(K::clone_raw(&self.inner))
    }
}

impl<K: Kind> From<f64> for Matrix<K> {
    fn from(v: f64) -> Self {
        Matrix::scalar(v)
    }
}

impl<K: Kind> From<&[f64]> for Matrix<K> {
    fn from(v: &[f64]) -> Self {
        Matrix::from_slice(v)
    }
}

impl<K: Kind> fmt::Display for Matrix<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match K::to_string(&self.inner) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<{} {}x{}: {}>", K::NAME, self.nrow(), self.ncol(), e.what()),
        }
    }
}

impl<K: Kind> fmt::Debug for Matrix<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({self})", K::NAME)
    }
}

impl<K: Kind> Neg for &Matrix<K> {
    type Output = Matrix<K>;
    fn neg(self) -> Matrix<K> {
        self.elementwise(UnOp::Neg)
    }
}

impl<K: Kind> Neg for Matrix<K> {
    type Output = Matrix<K>;
    fn neg(self) -> Matrix<K> {
        -&self
    }
}

/// Implements an arithmetic operator for every owned/borrowed and `f64` combination.
macro_rules! arith {
    ($Trait:ident, $method:ident, $op:expr) => {
        impl<K: Kind> $Trait<&Matrix<K>> for &Matrix<K> {
            type Output = Matrix<K>;
            /// Panics with CasADi's message if the shapes are incompatible.
            fn $method(self, rhs: &Matrix<K>) -> Matrix<K> {
                match self.binary($op, rhs) {
                    Ok(v) => v,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        impl<K: Kind> $Trait<Matrix<K>> for &Matrix<K> {
            type Output = Matrix<K>;
            fn $method(self, rhs: Matrix<K>) -> Matrix<K> {
                self.$method(&rhs)
            }
        }
        impl<K: Kind> $Trait<&Matrix<K>> for Matrix<K> {
            type Output = Matrix<K>;
            fn $method(self, rhs: &Matrix<K>) -> Matrix<K> {
                (&self).$method(rhs)
            }
        }
        impl<K: Kind> $Trait<Matrix<K>> for Matrix<K> {
            type Output = Matrix<K>;
            fn $method(self, rhs: Matrix<K>) -> Matrix<K> {
                (&self).$method(&rhs)
            }
        }
        impl<K: Kind> $Trait<f64> for &Matrix<K> {
            type Output = Matrix<K>;
            fn $method(self, rhs: f64) -> Matrix<K> {
                self.$method(&Matrix::scalar(rhs))
            }
        }
        impl<K: Kind> $Trait<f64> for Matrix<K> {
            type Output = Matrix<K>;
            fn $method(self, rhs: f64) -> Matrix<K> {
                (&self).$method(&Matrix::scalar(rhs))
            }
        }
        impl<K: Kind> $Trait<&Matrix<K>> for f64 {
            type Output = Matrix<K>;
            fn $method(self, rhs: &Matrix<K>) -> Matrix<K> {
                (&Matrix::scalar(self)).$method(rhs)
            }
        }
        impl<K: Kind> $Trait<Matrix<K>> for f64 {
            type Output = Matrix<K>;
            fn $method(self, rhs: Matrix<K>) -> Matrix<K> {
                (&Matrix::scalar(self)).$method(&rhs)
            }
        }
    };
}

arith!(Add, add, BinOp::Add);
arith!(Sub, sub, BinOp::Sub);
arith!(Mul, mul, BinOp::Mul);
arith!(Div, div, BinOp::Div);

impl MX {
    /// The same value with derivatives of `order` and higher declared zero
    /// (CasADi's `stop_diff`): 1 treats the expression as a constant for
    /// differentiation, 2 keeps exact first derivatives and drops its second ones (a
    /// Gauss–Newton-type Hessian).
    pub fn stop_diff(&self, order: usize) -> Result<MX> {
        let _g = crate::lock::guard();
        Ok(Self::wrap(crate::ffi::bridge::mx_stop_diff(&self.inner, order as i64)?))
    }
}
