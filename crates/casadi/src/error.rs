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
    /// A serialized payload was refused before CasADi read it: it would load native
    /// code (an `external` function, a plugin, JIT compilation) or is not of the
    /// expected kind.
    #[error("refused serialized data: {0}")]
    Refused(String),
}

impl Error {
    /// The symbols CasADi named as free when a `Function` was built from expressions
    /// using symbols that are not among its inputs, as `[a, b]`; `None` for any other
    /// error. (CasADi: "… since variables [a, b] are free …".)
    pub fn free_symbols(&self) -> Option<String> {
        let Error::Casadi(msg) = self else { return None };
        let end = msg.find("] are free")?;
        msg[..end].rfind('[').map(|a| msg[a..=end].to_string())
    }

    /// True if CasADi refused a `Function` because the same symbol is among its inputs
    /// twice ("the input expressions are not independent").
    pub fn is_repeated_input(&self) -> bool {
        matches!(self, Error::Casadi(msg) if msg.contains("not independent") || msg.contains("duplicate"))
    }
}

/// Result alias of the bindings.
pub type Result<T> = std::result::Result<T, Error>;

impl From<cxx::Exception> for Error {
    fn from(e: cxx::Exception) -> Self {
        Error::Casadi(e.what().to_string())
    }
}

/// Unwraps a bridged call that can only fail when C++ cannot allocate memory (copying a
/// handle, an empty list). Out of memory is not recoverable here; every call that can
/// fail on its input returns `Result` instead.
pub(crate) fn allocated<T>(r: std::result::Result<T, cxx::Exception>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("CasADi failed to allocate: {}", e.what()),
    }
}
