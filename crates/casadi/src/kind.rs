//! The two symbolic backends of CasADi behind one generic [`Matrix`](crate::Matrix):
//! [`Sx`] (scalar expression graphs; fastest to evaluate and differentiate) and
//! [`Mx`] (matrix expression graphs that can call functions, e.g. a `map` of an
//! element kernel, so repeated structure stays one kernel in generated code).

use crate::ffi::bridge as ffi;
use cxx::memory::UniquePtrTarget;
use cxx::UniquePtr;
use std::pin::Pin;

type Res<T> = Result<T, cxx::Exception>;

mod sealed {
    pub trait Sealed {}
}

/// A CasADi matrix backend: [`Sx`] or [`Mx`]. Sealed; its methods are internal.
#[allow(missing_docs)]
pub trait Kind: sealed::Sealed + Sized + 'static {
    /// The C++ matrix type.
    #[doc(hidden)]
    type Raw: UniquePtrTarget;
    /// The C++ list-of-matrices type.
    #[doc(hidden)]
    type List: UniquePtrTarget;
    /// `"SX"` or `"MX"`.
    const NAME: &'static str;
    #[doc(hidden)]
    fn sym(name: &str, nrow: usize, ncol: usize) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn constant(nrow: usize, ncol: usize, value: f64) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn from_column_major(nrow: usize, ncol: usize, data: &[f64]) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn from_sparsity(sp: &ffi::Sparsity, nonzeros: &[f64]) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn clone_raw(a: &Self::Raw) -> UniquePtr<Self::Raw>;
    #[doc(hidden)]
    fn nrow(a: &Self::Raw) -> usize;
    #[doc(hidden)]
    fn ncol(a: &Self::Raw) -> usize;
    #[doc(hidden)]
    fn nnz(a: &Self::Raw) -> usize;
    #[doc(hidden)]
    fn is_symbolic(a: &Self::Raw) -> bool;
    #[doc(hidden)]
    fn is_constant(a: &Self::Raw) -> bool;
    #[doc(hidden)]
    fn n_nodes(a: &Self::Raw) -> Res<usize>;
    #[doc(hidden)]
    fn to_string(a: &Self::Raw) -> Res<String>;
    #[doc(hidden)]
    fn sparsity(a: &Self::Raw) -> UniquePtr<ffi::Sparsity>;
    #[doc(hidden)]
    fn evalf(a: &Self::Raw) -> Res<Vec<f64>>;
    #[doc(hidden)]
    fn binary(op: u8, a: &Self::Raw, b: &Self::Raw) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn unary(op: u8, a: &Self::Raw) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn if_else(c: &Self::Raw, a: &Self::Raw, b: &Self::Raw) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn vertcat(v: &Self::List) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn horzcat(v: &Self::List) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn reshape(a: &Self::Raw, nrow: usize, ncol: usize) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn get(a: &Self::Raw, rows: &[i64], cols: &[i64]) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn get_nz(a: &Self::Raw, idx: &[i64]) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn split(a: &Self::Raw) -> Res<Vec<UniquePtr<Self::Raw>>>;
    #[doc(hidden)]
    fn set(a: Pin<&mut Self::Raw>, value: &Self::Raw, rows: &[i64], cols: &[i64]) -> Res<()>;
    #[doc(hidden)]
    fn jacobian(f: &Self::Raw, x: &Self::Raw) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn gradient(f: &Self::Raw, x: &Self::Raw) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn hessian(f: &Self::Raw, x: &Self::Raw) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn jtimes(f: &Self::Raw, x: &Self::Raw, v: &Self::Raw, transpose: bool) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn substitute(ex: &Self::Raw, v: &Self::Raw, vdef: &Self::Raw) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn solve(a: &Self::Raw, b: &Self::Raw) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn inv(a: &Self::Raw) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn list_new() -> UniquePtr<Self::List>;
    #[doc(hidden)]
    fn list_push(v: Pin<&mut Self::List>, a: &Self::Raw);
    #[doc(hidden)]
    fn list_len(v: &Self::List) -> usize;
    #[doc(hidden)]
    fn list_get(v: &Self::List, i: usize) -> Res<UniquePtr<Self::Raw>>;
    #[doc(hidden)]
    fn function_new(
        name: &str,
        in_names: &[String],
        inputs: &Self::List,
        out_names: &[String],
        outputs: &Self::List,
    ) -> Res<UniquePtr<ffi::Function>>;
    #[doc(hidden)]
    fn function_call(f: &ffi::Function, args: &Self::List) -> Res<UniquePtr<Self::List>>;
}

/// Marker of CasADi's `SX` backend (scalar expression graphs).
#[derive(Clone, Copy, Debug)]
pub enum Sx {}

/// Marker of CasADi's `MX` backend (matrix expression graphs with function calls).
#[derive(Clone, Copy, Debug)]
pub enum Mx {}

macro_rules! impl_kind {
    ($marker:ident, $raw:ident, $list:ident, $p:ident, $name:literal) => {
        paste::paste! {
            impl sealed::Sealed for $marker {}
            impl Kind for $marker {
                type Raw = ffi::$raw;
                type List = ffi::$list;
                const NAME: &'static str = $name;
                fn sym(name: &str, nrow: usize, ncol: usize) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _sym>](name, nrow, ncol) }
                fn constant(nrow: usize, ncol: usize, value: f64) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _constant>](nrow, ncol, value) }
                fn from_column_major(nrow: usize, ncol: usize, data: &[f64]) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _from_column_major>](nrow, ncol, data) }
                fn from_sparsity(sp: &ffi::Sparsity, nonzeros: &[f64]) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _from_sparsity>](sp, nonzeros) }
                fn clone_raw(a: &Self::Raw) -> UniquePtr<Self::Raw> { let _g = crate::lock::guard(); crate::error::allocated(ffi::[<$p _clone>](a)) }
                fn nrow(a: &Self::Raw) -> usize { let _g = crate::lock::guard(); ffi::[<$p _nrow>](a).unwrap_or_default() }
                fn ncol(a: &Self::Raw) -> usize { let _g = crate::lock::guard(); ffi::[<$p _ncol>](a).unwrap_or_default() }
                fn nnz(a: &Self::Raw) -> usize { let _g = crate::lock::guard(); ffi::[<$p _nnz>](a).unwrap_or_default() }
                fn is_symbolic(a: &Self::Raw) -> bool { let _g = crate::lock::guard(); ffi::[<$p _is_symbolic>](a).unwrap_or_default() }
                fn is_constant(a: &Self::Raw) -> bool { let _g = crate::lock::guard(); ffi::[<$p _is_constant>](a).unwrap_or_default() }
                fn n_nodes(a: &Self::Raw) -> Res<usize> { let _g = crate::lock::guard(); ffi::[<$p _n_nodes>](a) }
                fn to_string(a: &Self::Raw) -> Res<String> { let _g = crate::lock::guard(); ffi::[<$p _to_string>](a) }
                fn sparsity(a: &Self::Raw) -> UniquePtr<ffi::Sparsity> { let _g = crate::lock::guard(); crate::error::allocated(ffi::[<$p _sparsity>](a)) }
                fn evalf(a: &Self::Raw) -> Res<Vec<f64>> { let _g = crate::lock::guard(); ffi::[<$p _evalf>](a) }
                fn binary(op: u8, a: &Self::Raw, b: &Self::Raw) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _binary>](op, a, b) }
                fn unary(op: u8, a: &Self::Raw) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _unary>](op, a) }
                fn if_else(c: &Self::Raw, a: &Self::Raw, b: &Self::Raw) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _if_else>](c, a, b) }
                fn vertcat(v: &Self::List) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _vertcat>](v) }
                fn horzcat(v: &Self::List) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _horzcat>](v) }
                fn reshape(a: &Self::Raw, nrow: usize, ncol: usize) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _reshape>](a, nrow, ncol) }
                fn get(a: &Self::Raw, rows: &[i64], cols: &[i64]) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _get>](a, rows, cols) }
                fn get_nz(a: &Self::Raw, idx: &[i64]) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _get_nz>](a, idx) }
                fn split(a: &Self::Raw) -> Res<Vec<UniquePtr<Self::Raw>>> {
                    let _g = crate::lock::guard();
                    let v = ffi::[<$p _split>](a)?;
                    let n = ffi::[<$p vec_len>](&v)?;
                    (0..n).map(|i| ffi::[<$p vec_get>](&v, i)).collect()
                }
                fn set(a: Pin<&mut Self::Raw>, value: &Self::Raw, rows: &[i64], cols: &[i64]) -> Res<()> { let _g = crate::lock::guard(); ffi::[<$p _set>](a, value, rows, cols) }
                fn jacobian(f: &Self::Raw, x: &Self::Raw) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _jacobian>](f, x) }
                fn gradient(f: &Self::Raw, x: &Self::Raw) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _gradient>](f, x) }
                fn hessian(f: &Self::Raw, x: &Self::Raw) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _hessian>](f, x) }
                fn jtimes(f: &Self::Raw, x: &Self::Raw, v: &Self::Raw, transpose: bool) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _jtimes>](f, x, v, transpose) }
                fn substitute(ex: &Self::Raw, v: &Self::Raw, vdef: &Self::Raw) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _substitute>](ex, v, vdef) }
                fn solve(a: &Self::Raw, b: &Self::Raw) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _solve>](a, b) }
                fn inv(a: &Self::Raw) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p _inv>](a) }
                fn list_new() -> UniquePtr<Self::List> { let _g = crate::lock::guard(); crate::error::allocated(ffi::[<$p vec_new>]()) }
                fn list_push(v: Pin<&mut Self::List>, a: &Self::Raw) { let _g = crate::lock::guard(); crate::error::allocated(ffi::[<$p vec_push>](v, a)) }
                fn list_len(v: &Self::List) -> usize { let _g = crate::lock::guard(); ffi::[<$p vec_len>](v).unwrap_or_default() }
                fn list_get(v: &Self::List, i: usize) -> Res<UniquePtr<Self::Raw>> { let _g = crate::lock::guard(); ffi::[<$p vec_get>](v, i) }
                fn function_new(name: &str, in_names: &[String], inputs: &Self::List, out_names: &[String], outputs: &Self::List) -> Res<UniquePtr<ffi::Function>> {
                    let _g = crate::lock::guard();
                    ffi::[<fn_new_ $p>](name, in_names, inputs, out_names, outputs)
                }
                fn function_call(f: &ffi::Function, args: &Self::List) -> Res<UniquePtr<Self::List>> { let _g = crate::lock::guard(); ffi::[<fn_call_ $p>](f, args) }
            }
        }
    };
}

impl_kind!(Sx, SX, SXVec, sx, "SX");
impl_kind!(Mx, MX, MXVec, mx, "MX");
