//! fesd: Finite Elements with Switch Detection.
pub use casadi;
