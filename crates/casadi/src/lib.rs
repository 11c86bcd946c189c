//! Safe Rust bindings to the CasADi 3.8.2 C++ API.
//!
//! - [`SX`] and [`MX`]: symbolic matrices over scalar (`SX`) or matrix (`MX`)
//!   expression graphs, both the generic [`Matrix`] (construction, arithmetic,
//!   concatenation, indexing, exact derivatives; `SX` also serialization).
//! - [`Sparsity`]: compressed-column sparsity patterns.
//! - [`Function`]: functions of named symbolic inputs and outputs; numeric and
//!   symbolic evaluation, `jacobian`, `map`, serialization.
//! - [`CodeGenerator`]: CasADi's C code generator.
//!
//! Every call that CasADi may reject returns [`Result`] carrying CasADi's message;
//! no input reaches CasADi in a way that could abort the process. Arithmetic
//! operators (`+ - * /`) on two matrices panic on a dimension mismatch (like
//! shape-mismatch panics of other matrix libraries); use [`SX::try_add`] and friends
//! when the shapes come from user input.
//!
//! The types are neither `Send` nor `Sync`. Separate threads may build separate
//! graphs: every call into CasADi and every destructor runs under one process-wide
//! reentrant lock (CasADi's symbolic core corrupts memory under concurrent use, even
//! in its thread-safe build; `tests/threads.rs` shows it).

mod error;
mod ffi;
mod function;
mod generator;
mod kind;
mod lock;
mod matrix;
mod payload;
mod sparsity;

pub use error::{Error, Result};
pub use function::{Function, Parallelization};
pub use generator::{CodeGenerator, CodegenOptions};
pub use kind::{Kind, Mx, Sx};
pub use matrix::{Indices, Matrix, MX, SX};
pub use sparsity::Sparsity;

/// The CasADi version these bindings are built against.
pub const CASADI_VERSION: &str = "3.8.2";
