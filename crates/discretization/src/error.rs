//! Errors of the discretization layer.

/// Why a discretization could not be built.
#[derive(Debug, thiserror::Error)]
pub enum DiscretizationError {
    /// The model is invalid.
    #[error(transparent)]
    Model(#[from] fesd_model::ModelError),
    /// A symbolic operation failed (CasADi's message).
    #[error(transparent)]
    Casadi(#[from] casadi::Error),
    /// Invalid number of RK stages.
    #[error(transparent)]
    Stages(fesd_rk::StageCountError),
    /// The system's own layer failed (e.g. a rigid body's element kernel).
    #[error(transparent)]
    System(Box<dyn std::error::Error + Send + Sync>),
    /// An option out of range.
    #[error("invalid option {name}: {reason}")]
    InvalidOption {
        /// Option name.
        name: &'static str,
        /// Why.
        reason: String,
    },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, DiscretizationError>;
