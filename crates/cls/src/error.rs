//! Errors of the rigid-body layer (a step whose MPCC fails is reported in the
//! result, not as an error).

/// Why a rigid-body model, discretization or simulation could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ClsError {
    /// The model is invalid: `what` names the part (mass matrix, contact 2, …).
    #[error("invalid rigid-body model: {what}: {reason}")]
    Model {
        /// The part of the model.
        what: String,
        /// Why.
        reason: String,
    },
    /// A symbolic operation failed (CasADi's message).
    #[error(transparent)]
    Casadi(#[from] casadi::Error),
    /// Building the MPCC solver failed.
    #[error(transparent)]
    Mpcc(#[from] fesd_mpcc::MpccError),
    /// The discretization layer refused the element (its message).
    #[error(transparent)]
    Discretization(fesd_discretization::DiscretizationError),
    /// Invalid number of RK stages.
    #[error(transparent)]
    Stages(#[from] fesd_rk::StageCountError),
    /// An option out of range.
    #[error("invalid option {name}: {reason}")]
    InvalidOption {
        /// Option name.
        name: &'static str,
        /// Why.
        reason: String,
    },
    /// A numeric input has the wrong size or is not finite.
    #[error("{what}: {reason}")]
    BadInput {
        /// `q0`, `v0`, `u`, `p`, …
        what: &'static str,
        /// Why.
        reason: String,
    },
}

impl From<fesd_discretization::DiscretizationError> for ClsError {
    /// Options, stage counts and CasADi errors keep their typed variants; the rest is
    /// wrapped.
    fn from(e: fesd_discretization::DiscretizationError) -> Self {
        use fesd_discretization::DiscretizationError as D;
        match e {
            D::InvalidOption { name, reason } => ClsError::InvalidOption { name, reason },
            D::Stages(e) => ClsError::Stages(e),
            D::Casadi(e) => ClsError::Casadi(e),
            other => ClsError::Discretization(other),
        }
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, ClsError>;

pub(crate) fn model_error(what: impl Into<String>, reason: impl Into<String>) -> ClsError {
    ClsError::Model { what: what.into(), reason: reason.into() }
}
