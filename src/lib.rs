//! fesd: Finite Elements with Switch Detection for nonsmooth systems.
//!
//! This facade re-exports the layers of the toolkit:
//!
//! | layer | crate | job |
//! |---|---|---|
//! | [`casadi`] | `casadi-rs` | symbolic expressions and exact derivatives (CasADi through cxx) |
//! | [`codegen`] | `fesd-codegen` | C kernels: generate, compile with a disk cache, load, call |
//! | [`ipopt`] | `fesd-ipopt` | Ipopt through its C++ application: sparse NLPs, options, warm start, fesd's linear solver |
//! | [`kkt`] | `fesd-kkt` | sparse LDLᵀ of KKT systems with exact inertia (`linear_solver = ldl`) |
//! | [`nlp`] | `fesd-nlp` | symbolic NLPs lowered to compiled kernels and solved with Ipopt |
//! | [`mpcc`] | `fesd-mpcc` | MPCCs by relaxation homotopy over one compiled NLP; NOSBENCH files |
//! | [`rk`] | `fesd-rk` | Butcher tableaus for any number of stages |
//! | [`model`] | `fesd-model` | PSS models; Stewart and Step DCS lowering |
//! | [`discretization`] | `fesd-discretization` | FESD element kernels mapped over a horizon, couplings, the variable table |
//! | [`sim`] | `fesd-sim` | the simulator (one interval of the element grid per step) |
//! | [`ocp`] | `fesd-ocp` | direct optimal control on FESD |
//! | [`cls`] | `fesd-cls` | FESD-J: rigid bodies with impacts and friction |
//!
//! Symbolic arithmetic: the operators `+ - * /` on two matrices panic on a shape
//! mismatch (as other matrix libraries do); `try_add`, `try_sub`, `try_mul`,
//! `try_div` return the error instead. `SX::entries` splits a vector into its
//! scalars, `SX::vertcat(&[&a, &b])` stacks them.
//!
//! ```no_run
//! use fesd::casadi::SX;
//! use fesd::nlp::{CompiledNlp, SymbolicNlp};
//! use fesd::ipopt::{IpoptSolver, StartPoint};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x = SX::sym("x", 2);
//! let (a, b) = (x.at(0)?, x.at(1)?);
//! let f = (1.0 - &a).powf(2.0) + 100.0 * (&b - a.powf(2.0)).powf(2.0);
//! let nlp = SymbolicNlp::new(x, f, SX::zeros(0, 1));
//! let mut compiled = CompiledNlp::build(&nlp, "rosenbrock", &Default::default())?;
//! let inf = f64::INFINITY;
//! let structure = compiled.structure(vec![-inf; 2], vec![inf; 2], vec![], vec![])?;
//! let solution = IpoptSolver::new(structure)?.solve(&mut compiled, &StartPoint::primal(vec![-1.2, 1.0]), None)?;
//! assert!(solution.status.is_success());
//! # Ok(()) }
//! ```

/// The README's code blocks, compiled and run by `cargo test` as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use casadi;
pub use fesd_cls as cls;
pub use fesd_codegen as codegen;
pub use fesd_discretization as discretization;
pub use fesd_export as export;
pub use fesd_kkt as kkt;
pub use fesd_model as model;
pub use fesd_mpcc as mpcc;
pub use fesd_nlp as nlp;
pub use fesd_ocp as ocp;
pub use fesd_output as output;
pub use fesd_rk as rk;
pub use fesd_sim as sim;
pub use ipopt;

pub mod dsl;
