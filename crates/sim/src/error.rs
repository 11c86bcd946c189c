//! Errors of the discretization and simulation layer (a step whose MPCC fails is
//! reported in the result, not as an error).

/// Why a discretization or simulation could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The model is invalid.
    #[error(transparent)]
    Model(#[from] fesd_model::ModelError),
    /// A symbolic operation failed (CasADi's message).
    #[error(transparent)]
    Casadi(#[from] casadi::Error),
    /// Building the MPCC solver failed.
    #[error(transparent)]
    Mpcc(#[from] fesd_mpcc::MpccError),
    /// Invalid number of RK stages.
    #[error(transparent)]
    Stages(fesd_rk::StageCountError),
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
        /// `x0`, `u`, `p`, …
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// The discretization layer failed for a system of another layer.
    #[error(transparent)]
    Discretization(fesd_discretization::DiscretizationError),
    /// The rigid-body layer refused a model or its discretization.
    #[error(transparent)]
    RigidBody(fesd_cls::ClsError),
    /// Writing an output (table, JSON, plot) failed.
    #[error(transparent)]
    Output(#[from] fesd_output::OutputError),
}

impl From<fesd_discretization::DiscretizationError> for SimError {
    fn from(e: fesd_discretization::DiscretizationError) -> Self {
        use fesd_discretization::DiscretizationError as D;
        match e {
            D::Model(e) => SimError::Model(e),
            D::Casadi(e) => SimError::Casadi(e),
            D::Stages(e) => SimError::Stages(e),
            D::InvalidOption { name, reason } => SimError::InvalidOption { name, reason },
            other @ D::System(_) => SimError::Discretization(other),
        }
    }
}

impl From<fesd_cls::ClsError> for SimError {
    /// Options and inputs keep their typed variants; the rest is wrapped.
    fn from(e: fesd_cls::ClsError) -> Self {
        use fesd_cls::ClsError as C;
        match e {
            C::InvalidOption { name, reason } => SimError::InvalidOption { name, reason },
            C::BadInput { what, reason } => SimError::BadInput { what, reason },
            C::Casadi(e) => SimError::Casadi(e),
            C::Mpcc(e) => SimError::Mpcc(e),
            C::Stages(e) => SimError::Stages(e),
            C::Discretization(e) => SimError::from(e),
            other => SimError::RigidBody(other),
        }
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, SimError>;
