//! Errors of the optimal control layer.

/// Why an optimal control problem could not be set up (a solve that fails is a
/// status in the result, not an error).
#[derive(Debug, thiserror::Error)]
pub enum OcpError {
    /// The model is invalid.
    #[error(transparent)]
    Model(#[from] fesd_model::ModelError),
    /// A symbolic operation failed (CasADi's message).
    #[error(transparent)]
    Casadi(#[from] casadi::Error),
    /// The MPCC layer rejected the transcription or an option.
    #[error(transparent)]
    Mpcc(#[from] fesd_mpcc::MpccError),
    /// The discretization layer refused the horizon or its options.
    #[error(transparent)]
    Discretization(#[from] fesd_discretization::DiscretizationError),
    /// A simulation (re-simulation, simulated guess) could not be set up.
    #[error(transparent)]
    Simulation(#[from] fesd_sim::SimError),
    /// The rigid-body layer refused the model or its options.
    #[error(transparent)]
    RigidBody(#[from] fesd_cls::ClsError),
    /// Writing an output (table, JSON, plot) failed.
    #[error(transparent)]
    Output(#[from] fesd_output::OutputError),
    /// A size, bound or value of the problem is wrong.
    #[error("{what}: {reason}")]
    Invalid {
        /// Which part of the problem.
        what: &'static str,
        /// What is wrong.
        reason: String,
    },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, OcpError>;

pub(crate) fn invalid<T>(what: &'static str, reason: impl Into<String>) -> Result<T> {
    Err(OcpError::Invalid { what, reason: reason.into() })
}
