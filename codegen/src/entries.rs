//! The kernel table every module carries: its kernels' entry points by name, so a
//! program that links the module statically hands them to
//! [`KernelLibrary::from_table`](crate::KernelLibrary::from_table) without a dynamic
//! loader.
//!
//! [`CodegenContext::render`](crate::CodegenContext::render) appends to each module a
//! function `const fesd_kernel_table* <module>_kernel_table(void)` and declares it,
//! with the two C structs below, in the module's header.

use std::ffi::{c_char, c_int};

/// `casadi_int` of the generated code (pinned to `long long int` by the options).
pub(crate) type CInt = i64;
pub(crate) type EvalFn = unsafe extern "C" fn(*mut *const f64, *mut *mut f64, *mut CInt, *mut f64, c_int) -> c_int;
pub(crate) type WorkFn = unsafe extern "C" fn(*mut CInt, *mut CInt, *mut CInt, *mut CInt) -> c_int;
pub(crate) type SparsityFn = unsafe extern "C" fn(CInt) -> *const CInt;
pub(crate) type CountFn = unsafe extern "C" fn() -> CInt;
pub(crate) type CheckoutFn = unsafe extern "C" fn() -> c_int;
pub(crate) type ReleaseFn = unsafe extern "C" fn(c_int);
pub(crate) type RefFn = unsafe extern "C" fn();
pub(crate) type SizeFn = unsafe extern "C" fn() -> c_int;

/// `<module>_bind_tables(ints, n_ints, reals, n_reals)` of a module whose constant
/// tables were moved out of its C ([`split_tables`](crate::split_tables)); 0 on success.
pub type BindTablesFn = unsafe extern "C" fn(*const CInt, CInt, *const f64, CInt) -> c_int;

/// Version of the two structs below; a table of another version is refused.
pub const KERNEL_TABLE_ABI: c_int = 1;

/// One kernel's entry points in CasADi's generated C API (`fesd_kernel_entry`).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct KernelEntry {
    pub(crate) name: *const c_char,
    pub(crate) eval: EvalFn,
    pub(crate) work: WorkFn,
    pub(crate) sparsity_in: SparsityFn,
    pub(crate) sparsity_out: SparsityFn,
    pub(crate) n_in: CountFn,
    pub(crate) n_out: CountFn,
    pub(crate) checkout: CheckoutFn,
    pub(crate) release: ReleaseFn,
    pub(crate) incref: RefFn,
    pub(crate) decref: RefFn,
}

/// A module's kernels (`fesd_kernel_table`), as `<module>_kernel_table()` returns it.
/// Only ever read through a pointer from generated C.
#[repr(C)]
pub struct KernelTable {
    pub(crate) abi_version: c_int,
    pub(crate) module: *const c_char,
    pub(crate) casadi_int_size: SizeFn,
    pub(crate) casadi_real_size: SizeFn,
    pub(crate) n_kernels: CInt,
    pub(crate) kernels: *const KernelEntry,
}

// SAFETY: a table and its entries are immutable static data of the generated module
// (function pointers and string literals); the kernels they point to keep their state
// per checked-out memory slot, as the dynamic path's.
unsafe impl Sync for KernelTable {}
// SAFETY: as above.
unsafe impl Send for KernelTable {}

#[cfg(feature = "symbolic")]
/// The C declarations of the table, guarded so that several modules' headers can be
/// included in one translation unit.
const TYPES: &str = "#ifndef FESD_KERNEL_TABLE_ABI
#define FESD_KERNEL_TABLE_ABI 1
/* One kernel's entry points in CasADi's generated C API. */
typedef struct {
  const char* name;
  int (*eval)(const double** arg, double** res, long long int* iw, double* w, int mem);
  int (*work)(long long int* sz_arg, long long int* sz_res, long long int* sz_iw, long long int* sz_w);
  const long long int* (*sparsity_in)(long long int i);
  const long long int* (*sparsity_out)(long long int i);
  long long int (*n_in)(void);
  long long int (*n_out)(void);
  int (*checkout)(void);
  void (*release)(int mem);
  void (*incref)(void);
  void (*decref)(void);
} fesd_kernel_entry;
/* A module's kernels by name. */
typedef struct {
  int abi_version;
  const char* module;
  int (*casadi_int_size)(void);
  int (*casadi_real_size)(void);
  long long int n_kernels;
  const fesd_kernel_entry* kernels;
} fesd_kernel_table;
#endif
";

#[cfg(feature = "symbolic")]
/// The name of the function that returns `module`'s table.
pub(crate) fn table_symbol(module: &str) -> String {
    format!("{module}_kernel_table")
}

#[cfg(feature = "symbolic")]
/// Adds the table of `kernels` to CasADi's rendering of `module`: its definition to
/// `c_source` and its declaration to `header`, each before the closing
/// `extern "C"` guard.
pub(crate) fn add_kernel_table(module: &str, kernels: &[String], c_source: &mut String, header: &mut String) {
    let mut c = format!("\n{TYPES}static const fesd_kernel_entry {module}_kernel_entries[{}] = {{\n", kernels.len().max(1));
    for k in kernels {
        c.push_str(&format!(
            "  {{\"{k}\", {k}, {k}_work, {k}_sparsity_in, {k}_sparsity_out, {k}_n_in, {k}_n_out, \
             {k}_checkout, {k}_release, {k}_incref, {k}_decref}},\n"
        ));
    }
    if kernels.is_empty() {
        c.push_str("  {0}\n");
    }
    c.push_str(&format!(
        "}};\nstatic const fesd_kernel_table {module}_table = {{FESD_KERNEL_TABLE_ABI, \"{module}\", \
         {module}_casadi_int_size, {module}_casadi_real_size, {n}, {module}_kernel_entries}};\n\
         CASADI_SYMBOL_EXPORT const fesd_kernel_table* {sym}(void) {{ return &{module}_table; }}\n",
        n = kernels.len(),
        sym = table_symbol(module),
    ));
    insert_before_guard(c_source, &c);
    insert_before_guard(header, &format!("{TYPES}const fesd_kernel_table* {}(void);\n", table_symbol(module)));
}

/// Inserts `text` before the closing `extern "C"` guard at the end of generated C (or
/// appends it if there is none).
pub(crate) fn insert_before_guard(source: &mut String, text: &str) {
    match source.rfind("#ifdef __cplusplus") {
        Some(tail) if tail > source.len() / 2 => source.insert_str(tail, text),
        _ => source.push_str(text),
    }
}
