//! The raw cxx bridge. Everything here is private to the crate; the safe wrappers in
//! the sibling modules are the public API.

/// Binary operation codes understood by `sx_binary` (keep in sync with `cpp/shim.cc`).
#[derive(Clone, Copy, Debug)]
#[repr(u8)]
pub(crate) enum BinOp {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
    Pow = 4,
    Fmin = 5,
    Fmax = 6,
    Mtimes = 7,
    Dot = 8,
    Atan2 = 9,
    Lt = 10,
    Le = 11,
    Eq = 12,
}

/// Unary operation codes understood by `sx_unary` (keep in sync with `cpp/shim.cc`).
#[derive(Clone, Copy, Debug)]
#[repr(u8)]
pub(crate) enum UnOp {
    Neg = 0,
    Sin = 1,
    Cos = 2,
    Tan = 3,
    Exp = 4,
    Log = 5,
    Sqrt = 6,
    Tanh = 7,
    Abs = 8,
    Transpose = 9,
    Sum = 10,
    Norm2 = 11,
    Sign = 12,
    Densify = 13,
    Tril = 14,
}

#[cxx::bridge(namespace = "fesd_casadi")]
pub(crate) mod bridge {
    unsafe extern "C++" {
        include!("shim.h");

        type SX;
        type MX;
        type SXVec;
        type MXVec;
        type Sparsity;
        type Function;
        type CodeGenerator;

        // ---- matrix API (SX) ----
        fn sx_sym(name: &str, nrow: usize, ncol: usize) -> Result<UniquePtr<SX>>;
        fn sx_constant(nrow: usize, ncol: usize, value: f64) -> Result<UniquePtr<SX>>;
        fn sx_from_column_major(nrow: usize, ncol: usize, data: &[f64]) -> Result<UniquePtr<SX>>;
        fn sx_from_sparsity(sp: &Sparsity, nonzeros: &[f64]) -> Result<UniquePtr<SX>>;
        fn sx_clone(a: &SX) -> Result<UniquePtr<SX>>;
        fn sx_nrow(a: &SX) -> Result<usize>;
        fn sx_ncol(a: &SX) -> Result<usize>;
        fn sx_nnz(a: &SX) -> Result<usize>;
        fn sx_is_symbolic(a: &SX) -> Result<bool>;
        fn sx_is_constant(a: &SX) -> Result<bool>;
        fn sx_n_nodes(a: &SX) -> Result<usize>;
        fn sx_to_string(a: &SX) -> Result<String>;
        fn sx_sparsity(a: &SX) -> Result<UniquePtr<Sparsity>>;
        fn sx_evalf(a: &SX) -> Result<Vec<f64>>;
        fn sx_binary(op: u8, a: &SX, b: &SX) -> Result<UniquePtr<SX>>;
        fn sx_unary(op: u8, a: &SX) -> Result<UniquePtr<SX>>;
        fn sx_if_else(c: &SX, a: &SX, b: &SX) -> Result<UniquePtr<SX>>;
        fn sx_vertcat(v: &SXVec) -> Result<UniquePtr<SX>>;
        fn sx_horzcat(v: &SXVec) -> Result<UniquePtr<SX>>;
        fn sx_reshape(a: &SX, nrow: usize, ncol: usize) -> Result<UniquePtr<SX>>;
        fn sx_get(a: &SX, rows: &[i64], cols: &[i64]) -> Result<UniquePtr<SX>>;
        fn sx_get_nz(a: &SX, idx: &[i64]) -> Result<UniquePtr<SX>>;
        fn sx_split(a: &SX) -> Result<UniquePtr<SXVec>>;
        fn sx_set(a: Pin<&mut SX>, value: &SX, rows: &[i64], cols: &[i64]) -> Result<()>;
        fn sx_jacobian(f: &SX, x: &SX) -> Result<UniquePtr<SX>>;
        fn sx_gradient(f: &SX, x: &SX) -> Result<UniquePtr<SX>>;
        fn sx_hessian(f: &SX, x: &SX) -> Result<UniquePtr<SX>>;
        fn sx_jtimes(f: &SX, x: &SX, v: &SX, transpose: bool) -> Result<UniquePtr<SX>>;
        fn sx_substitute(ex: &SX, v: &SX, vdef: &SX) -> Result<UniquePtr<SX>>;
        fn sx_solve(a: &SX, b: &SX) -> Result<UniquePtr<SX>>;
        fn sx_inv(a: &SX) -> Result<UniquePtr<SX>>;
        fn sxvec_new() -> Result<UniquePtr<SXVec>>;
        fn sxvec_push(v: Pin<&mut SXVec>, a: &SX) -> Result<()>;
        fn sxvec_len(v: &SXVec) -> Result<usize>;
        fn sxvec_get(v: &SXVec, i: usize) -> Result<UniquePtr<SX>>;
        fn fn_new_sx(name: &str, in_names: &[String], inputs: &SXVec, out_names: &[String], outputs: &SXVec)
            -> Result<UniquePtr<Function>>;
        fn fn_call_sx(f: &Function, args: &SXVec) -> Result<UniquePtr<SXVec>>;

        // ---- matrix API (MX) ----
        fn mx_sym(name: &str, nrow: usize, ncol: usize) -> Result<UniquePtr<MX>>;
        fn mx_constant(nrow: usize, ncol: usize, value: f64) -> Result<UniquePtr<MX>>;
        fn mx_from_column_major(nrow: usize, ncol: usize, data: &[f64]) -> Result<UniquePtr<MX>>;
        fn mx_from_sparsity(sp: &Sparsity, nonzeros: &[f64]) -> Result<UniquePtr<MX>>;
        fn mx_clone(a: &MX) -> Result<UniquePtr<MX>>;
        fn mx_nrow(a: &MX) -> Result<usize>;
        fn mx_ncol(a: &MX) -> Result<usize>;
        fn mx_nnz(a: &MX) -> Result<usize>;
        fn mx_is_symbolic(a: &MX) -> Result<bool>;
        fn mx_is_constant(a: &MX) -> Result<bool>;
        fn mx_n_nodes(a: &MX) -> Result<usize>;
        fn mx_to_string(a: &MX) -> Result<String>;
        fn mx_sparsity(a: &MX) -> Result<UniquePtr<Sparsity>>;
        fn mx_evalf(a: &MX) -> Result<Vec<f64>>;
        fn mx_binary(op: u8, a: &MX, b: &MX) -> Result<UniquePtr<MX>>;
        fn mx_unary(op: u8, a: &MX) -> Result<UniquePtr<MX>>;
        fn mx_if_else(c: &MX, a: &MX, b: &MX) -> Result<UniquePtr<MX>>;
        fn mx_vertcat(v: &MXVec) -> Result<UniquePtr<MX>>;
        fn mx_horzcat(v: &MXVec) -> Result<UniquePtr<MX>>;
        fn mx_reshape(a: &MX, nrow: usize, ncol: usize) -> Result<UniquePtr<MX>>;
        fn mx_get(a: &MX, rows: &[i64], cols: &[i64]) -> Result<UniquePtr<MX>>;
        fn mx_get_nz(a: &MX, idx: &[i64]) -> Result<UniquePtr<MX>>;
        fn mx_split(a: &MX) -> Result<UniquePtr<MXVec>>;
        fn mx_set(a: Pin<&mut MX>, value: &MX, rows: &[i64], cols: &[i64]) -> Result<()>;
        fn mx_jacobian(f: &MX, x: &MX) -> Result<UniquePtr<MX>>;
        fn mx_gradient(f: &MX, x: &MX) -> Result<UniquePtr<MX>>;
        fn mx_hessian(f: &MX, x: &MX) -> Result<UniquePtr<MX>>;
        fn mx_jtimes(f: &MX, x: &MX, v: &MX, transpose: bool) -> Result<UniquePtr<MX>>;
        fn mx_substitute(ex: &MX, v: &MX, vdef: &MX) -> Result<UniquePtr<MX>>;
        fn mx_solve(a: &MX, b: &MX) -> Result<UniquePtr<MX>>;
        fn mx_inv(a: &MX) -> Result<UniquePtr<MX>>;
        fn mxvec_new() -> Result<UniquePtr<MXVec>>;
        fn mxvec_push(v: Pin<&mut MXVec>, a: &MX) -> Result<()>;
        fn mxvec_len(v: &MXVec) -> Result<usize>;
        fn mxvec_get(v: &MXVec, i: usize) -> Result<UniquePtr<MX>>;
        fn fn_new_mx(name: &str, in_names: &[String], inputs: &MXVec, out_names: &[String], outputs: &MXVec)
            -> Result<UniquePtr<Function>>;
        fn fn_call_mx(f: &Function, args: &MXVec) -> Result<UniquePtr<MXVec>>;

        fn sx_serialize(a: &SX) -> Result<String>;
        fn sx_deserialize(s: &str) -> Result<UniquePtr<SX>>;

        fn sp_dense(nrow: usize, ncol: usize) -> Result<UniquePtr<Sparsity>>;
        fn sp_triplet(nrow: usize, ncol: usize, rows: &[i64], cols: &[i64]) -> Result<UniquePtr<Sparsity>>;
        fn sp_clone(s: &Sparsity) -> Result<UniquePtr<Sparsity>>;
        fn sp_nrow(s: &Sparsity) -> Result<usize>;
        fn sp_ncol(s: &Sparsity) -> Result<usize>;
        fn sp_nnz(s: &Sparsity) -> Result<usize>;
        fn sp_colind(s: &Sparsity) -> Result<Vec<i64>>;
        fn sp_row(s: &Sparsity) -> Result<Vec<i64>>;
        fn sp_equal(a: &Sparsity, b: &Sparsity) -> Result<bool>;
        fn sp_to_string(s: &Sparsity) -> Result<String>;

        fn fn_clone(f: &Function) -> Result<UniquePtr<Function>>;
        fn fn_name(f: &Function) -> Result<String>;
        fn fn_n_in(f: &Function) -> Result<usize>;
        fn fn_n_out(f: &Function) -> Result<usize>;
        fn fn_name_in(f: &Function, i: usize) -> Result<String>;
        fn fn_name_out(f: &Function, i: usize) -> Result<String>;
        fn fn_sparsity_in(f: &Function, i: usize) -> Result<UniquePtr<Sparsity>>;
        fn fn_sparsity_out(f: &Function, i: usize) -> Result<UniquePtr<Sparsity>>;
        fn fn_eval(f: &Function, data: &[f64], lens: &[usize], dense: bool) -> Result<Vec<f64>>;
        fn fn_jacobian(f: &Function) -> Result<UniquePtr<Function>>;
        fn mx_stop_diff(e: &MX, order: i64) -> Result<UniquePtr<MX>>;
        fn fn_map(f: &Function, n: usize, parallelization: &str) -> Result<UniquePtr<Function>>;
        fn fn_expand(f: &Function) -> Result<UniquePtr<Function>>;
        fn fn_n_nodes(f: &Function) -> Result<usize>;
        fn fn_serialize(f: &Function) -> Result<String>;
        fn fn_deserialize(s: &str) -> Result<UniquePtr<Function>>;
        fn fn_to_string(f: &Function) -> Result<String>;

        fn cg_new(
            name: &str,
            with_header: bool,
            comments: bool,
            casadi_real: &str,
            casadi_int: &str,
            prefix: &str,
        ) -> Result<UniquePtr<CodeGenerator>>;
        fn cg_add(g: Pin<&mut CodeGenerator>, f: &Function, with_jac_sparsity: bool) -> Result<()>;
        fn cg_dump(g: Pin<&mut CodeGenerator>) -> Result<String>;
        fn cg_generate(g: Pin<&mut CodeGenerator>, dir: &str) -> Result<String>;
    }
}
