//! Errors of the MPCC layer (a solve that does not converge is a status, not an error).

use std::path::PathBuf;

/// Why an MPCC could not be built, read or set up.
#[derive(Debug, thiserror::Error)]
pub enum MpccError {
    /// A symbolic operation failed (CasADi's message).
    #[error(transparent)]
    #[cfg(feature = "symbolic")]
    Casadi(#[from] casadi::Error),
    /// Building or compiling the relaxed NLP failed.
    #[error(transparent)]
    Nlp(#[from] fesd_nlp::NlpError),
    /// Ipopt rejected the problem or an option.
    #[error(transparent)]
    Ipopt(#[from] ipopt::IpoptError),
    /// Sizes that must agree do not.
    #[error("{what}: expected {expected}, got {got}")]
    Dimension {
        /// What was checked.
        what: String,
        /// The size required.
        expected: String,
        /// The size found.
        got: String,
    },
    /// A lower bound exceeds its upper bound, or a bound is NaN or infeasible (±∞ on the wrong side).
    #[error("{what}[{index}]: bounds [{lower}, {upper}] are empty or invalid")]
    Bounds {
        /// `w` or `g`.
        what: &'static str,
        /// Entry index.
        index: usize,
        /// Lower bound.
        lower: f64,
        /// Upper bound.
        upper: f64,
    },
    /// A number that must be finite is not (initial guess, parameter value).
    #[error("{what}[{index}] is {value}, must be finite")]
    NotFinite {
        /// `w0` or `p0`.
        what: &'static str,
        /// Entry index.
        index: usize,
        /// The value.
        value: f64,
    },
    /// Homotopy options out of range.
    #[error("invalid option {name}: {reason}")]
    InvalidOption {
        /// Option name.
        name: &'static str,
        /// Why.
        reason: String,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {err}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        err: std::io::Error,
    },
    /// A problem file is not valid JSON or misses a field.
    #[error("malformed MPCC file: {0}")]
    Format(String),
}

/// Result alias of the MPCC layer.
pub type Result<T> = std::result::Result<T, MpccError>;
