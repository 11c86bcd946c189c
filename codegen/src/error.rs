//! Errors of the code generation layer.

use std::path::PathBuf;

/// What can go wrong while generating, compiling, loading or calling kernels.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    /// CasADi rejected a function or failed to generate code.
    #[error(transparent)]
    #[cfg(feature = "symbolic")]
    Casadi(#[from] casadi::Error),
    /// A name is not a valid C identifier or is used twice.
    #[error("invalid kernel name '{name}': {reason}")]
    InvalidName {
        /// The offending name.
        name: String,
        /// Why it was rejected.
        reason: String,
    },
    /// No C compiler could be found or configured.
    #[error("no usable C compiler: {0}")]
    NoCompiler(String),
    /// The compiler ran and failed.
    #[error("C compiler failed on {source_file}:\n{stderr}")]
    CompileFailed {
        /// The generated file.
        source_file: PathBuf,
        /// What the compiler printed.
        stderr: String,
    },
    /// The compiler ran longer than the timeout and was killed.
    #[error(
        "the C compiler (`{command}`) did not finish within {seconds} s and was stopped (raise CompileOptions::timeout or FESD_CC_TIMEOUT)"
    )]
    CompileTimeout {
        /// The command line.
        command: String,
        /// The timeout.
        seconds: f64,
    },
    /// A cached kernel object failed verification and could not be replaced.
    #[error("damaged kernel cache entry {path}: {reason}")]
    CorruptCache {
        /// The cached object.
        path: PathBuf,
        /// What is wrong, and what to do.
        reason: String,
    },
    /// A file operation failed.
    #[error("{action} {path}: {err}")]
    Io {
        /// What was attempted.
        action: &'static str,
        /// On which path.
        path: PathBuf,
        /// The OS error.
        err: std::io::Error,
    },
    /// The shared object could not be loaded or lacks a symbol.
    #[error("loading {path}: {message}")]
    Load {
        /// The shared object.
        path: PathBuf,
        /// The loader's message.
        message: String,
    },
    /// A kernel's generated code uses other C types than the caller.
    #[error("kernel ABI mismatch: {0}")]
    Abi(String),
    /// Inputs or outputs given to a kernel do not match its sparsity.
    #[error("kernel '{kernel}': {message}")]
    BadArguments {
        /// Kernel name.
        kernel: String,
        /// What is wrong.
        message: String,
    },
    /// The generated code reported a failure (nonzero return code).
    #[error("kernel '{kernel}' returned error code {code}")]
    EvalFailed {
        /// Kernel name.
        kernel: String,
        /// The return code.
        code: i32,
    },
}

/// Result alias of the code generation layer.
pub type Result<T> = std::result::Result<T, CodegenError>;

pub(crate) fn io_err(action: &'static str, path: &std::path::Path) -> impl FnOnce(std::io::Error) -> CodegenError {
    let path = path.to_path_buf();
    move |err| CodegenError::Io { action, path, err }
}
