//! C kernels from CasADi functions: generate, compile, cache, load, call.
//!
//! The pipeline is *collect, then emit*: a [`CodegenContext`] gathers every
//! [`casadi::Function`] of a model (objective, constraints, Jacobians, Hessians …),
//! renders them into one C translation unit with CasADi's code generator
//! ([`CodegenContext::render`]), and [`GeneratedSource::compile`] turns that into a
//! shared object, compiled with `$CC` (default `cc`). Compiled objects
//! are cached on disk under a hash of the source, the compiler and its flags, so the
//! second run of the same model compiles nothing ([`KernelLibrary::cache_hit`]).
//! Large constant tables (sparsity patterns and index lists, which grow with the
//! size of an assembled problem while its code does not) are stored beside the
//! object as data rather than compiled ([`split_tables`]), so the compiled C of a
//! discretization mapped over N elements is the same size for every N.
//! A loaded [`KernelLibrary`] hands out [`Kernel`]s: typed handles with preallocated
//! work arrays that evaluate one generated function on CCS nonzeros.
//!
//! For binaries that embed kernels without compiling at run time, [`build_support`]
//! compiles a [`GeneratedSource`] into a static library from a user's `build.rs`;
//! every module carries a table of its kernels (`<module>_kernel_table()`), from which
//! [`KernelLibrary::from_table`] binds a module linked into the program.

mod compile;
#[cfg(feature = "symbolic")]
mod context;
mod entries;
mod error;
mod library;
mod source;
mod tables;

pub mod build_support;

pub use compile::{compiler_runs, CompileOptions, OptLevel, DEFAULT_COMPILE_TIMEOUT, DEFAULT_TABLES_OUT_OF_LINE};
#[cfg(feature = "symbolic")]
pub use context::CodegenContext;
pub use entries::{BindTablesFn, KernelTable, KERNEL_TABLE_ABI};
pub use error::{CodegenError, Result};
pub use library::{Ccs, Kernel, KernelLibrary};
pub use source::GeneratedSource;
pub use tables::{split_tables, ConstantTables};
