//! The error type of the bindings.

/// An error from CasADi or from checks done before calling it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// CasADi threw an exception; the message is CasADi's own.
    #[error("CasADi: {0}")]
    Casadi(String),
    /// An argument was rejected before it reached CasADi.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// Result alias of the bindings.
pub type Result<T> = std::result::Result<T, Error>;

impl From<cxx::Exception> for Error {
    fn from(e: cxx::Exception) -> Self {
        Error::Casadi(e.what().to_string())
    }
}
