//! What a simulation reports about its pieces, the same for every model kind: one
//! [`StepReport`] per piece with its [`Attempt`]s, and the time split.

use fesd_mpcc::{MpccResult, MpccStatus};
use serde::{Deserialize, Serialize};

/// What to do when a step's MPCC fails or misses comp_tol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum OnStepFailure {
    /// Stop the simulation after the failed step (the default of switched systems); the
    /// result says why.
    #[default]
    Stop,
    /// Record the failure and go on from the step's last iterate (the default of rigid
    /// bodies).
    Continue,
}

/// How one simulation step (or a halved part of one) went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    /// Index of the planned step.
    pub step: usize,
    /// Start time.
    pub t_start: f64,
    /// Length (the planned step length over 2^halvings).
    pub length: f64,
    /// How many times the planned step was halved to get here.
    pub halvings: usize,
    /// The MPCC status.
    pub status: MpccStatus,
    /// Homotopy NLPs solved in all attempts (the same attempts `iterations` counts).
    pub homotopy_steps: usize,
    /// Ipopt iterations.
    pub iterations: usize,
    /// Complementarity residual reached.
    pub comp_residual: f64,
    /// Wall time of all homotopy attempts on this piece (s).
    pub wall_time: f64,
    /// The homotopy's messages.
    pub messages: Vec<String>,
    /// Every homotopy attempt on this piece, in order (the last one's outcome is
    /// `status`).
    pub attempts: Vec<Attempt>,
    /// True if the piece failed and was retried as two halves (its failure was not
    /// accepted).
    #[serde(default)]
    pub halved: bool,
    /// True if a switch was predicted inside the piece (the neutral start went first;
    /// see [`SwitchDetection::predict_switches`](crate::SwitchDetection::predict_switches)):
    /// `predicted_switch.is_some()`, kept as a field of its own for readers of reports
    /// written before that field.
    #[serde(default)]
    pub switch_predicted: bool,
    /// The predicted time of the switch (or sliding exit) after the piece's start.
    #[serde(default)]
    pub predicted_switch: Option<f64>,
    /// True if the piece's length was chosen to put a predicted switch in the middle
    /// of one of two parts (see
    /// [`SwitchDetection::align_switches`](crate::SwitchDetection::align_switches)), or
    /// the piece is a halved part of such a piece.
    #[serde(default)]
    pub aligned_to_switch: bool,
    /// True if the piece converged with a switch next to a stretched element and was
    /// solved again as two parts with the switch on an element boundary (see
    /// [`SwitchDetection::max_switch_element_ratio`](crate::SwitchDetection::max_switch_element_ratio));
    /// its solution was not kept.
    #[serde(default)]
    pub recut_at_switch: bool,
}

impl StepReport {
    /// The report of one piece from its last homotopy result and all its attempts.
    pub(crate) fn new(step: usize, t_start: f64, length: f64, halvings: usize, r: &MpccResult, attempts: Vec<Attempt>) -> StepReport {
        let mut messages: Vec<String> = attempts[..attempts.len().saturating_sub(1)]
            .iter()
            .map(|a| format!("homotopy {} ended {:?} after {} Ipopt iterations", a.tier, a.status, a.iterations))
            .collect();
        messages.extend(r.messages.iter().cloned());
        StepReport {
            step,
            t_start,
            length,
            halvings,
            status: r.status,
            homotopy_steps: attempts.iter().map(|a| a.nlps).sum(),
            iterations: attempts.iter().map(|a| a.iterations).sum(),
            comp_residual: r.comp_residual,
            wall_time: attempts.iter().map(|a| a.wall_time).sum(),
            messages,
            attempts,
            halved: false,
            switch_predicted: false,
            predicted_switch: None,
            aligned_to_switch: false,
            recut_at_switch: false,
        }
    }

    /// The tier (index into the schedules tried: `homotopies`, then the fallback)
    /// whose attempt solved this piece, if one did.
    pub fn solved_by(&self) -> Option<usize> {
        self.attempts.iter().find(|a| a.status.is_converged()).map(|a| a.tier)
    }

    /// True if the start from the previous solution failed and a fresh start solved
    /// the piece (the next piece then tries the fresh start first).
    pub fn needed_neutral_start(&self) -> bool {
        !self.halved
            && self.attempts.iter().any(|a| a.neutral_start && a.status.is_converged())
            && self.attempts.iter().any(|a| !a.neutral_start && !a.status.is_converged())
    }

    /// Ipopt iterations of attempts that did not solve the piece, or of all its
    /// attempts if its solution was not kept (`recut_at_switch`).
    pub fn wasted_iterations(&self) -> usize {
        self.attempts.iter().filter(|a| self.recut_at_switch || !a.status.is_converged()).map(|a| a.iterations).sum()
    }

    /// True if the piece converged from the previous solution without trouble: its
    /// last attempt did not start fresh and took at most
    /// [`DUAL_START_AFTER`](fesd_mpcc::presets::DUAL_START_AFTER) Ipopt iterations
    /// (the first condition of a start with multipliers, `warm_start_duals`).
    pub fn calm(&self) -> bool {
        self.status.is_converged()
            && self.attempts.last().is_some_and(|a| !a.neutral_start && a.iterations <= fesd_mpcc::presets::DUAL_START_AFTER)
    }
}

/// One homotopy attempt on a piece of a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// Index of the schedule: `0..homotopies.len()`, then the fallback.
    pub tier: usize,
    /// True if it started fresh at the current state instead of from the previous
    /// step's solution: the neutral guess of switched systems, the resting or the
    /// predicted contact-free guess of rigid bodies.
    #[serde(default)]
    pub neutral_start: bool,
    /// True if it started with the previous solve's multipliers
    /// ([`SimulatorOptions::warm_start_duals`](crate::SimulatorOptions::warm_start_duals)).
    #[serde(default)]
    pub with_duals: bool,
    /// How it ended.
    pub status: MpccStatus,
    /// Ipopt iterations.
    pub iterations: usize,
    /// Homotopy NLPs solved (recoveries included).
    #[serde(default)]
    pub nlps: usize,
    /// Complementarity residual `max_i |G_i H_i|` at the attempt's last iterate.
    #[serde(default)]
    pub comp_residual: f64,
    /// Wall time in seconds.
    pub wall_time: f64,
}

/// Wall-time split of a simulation in seconds (excluding the one-time compilation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SimulationTiming {
    /// All steps.
    pub total: f64,
    /// Inside Ipopt (excluding kernels).
    pub ipopt: f64,
    /// Compiled kernel evaluations.
    pub kernels: f64,
    /// Our own code.
    pub own: f64,
    /// Building and compiling (or loading) the step problem, once.
    pub build: f64,
}

/// What the engine keeps in every kind's simulation record: the piece reports, whether
/// every piece converged, the time split.
pub trait Record {
    /// One report per piece that ran.
    fn steps(&self) -> &[StepReport];
    /// See [`Record::steps`].
    fn steps_mut(&mut self) -> &mut Vec<StepReport>;
    /// The time split.
    fn timing_mut(&mut self) -> &mut SimulationTiming;
    /// Marks the simulation as not completed (a piece failed or the state diverged).
    fn set_incomplete(&mut self);
}

/// Implements [`Record`] for a kind's record with the fields `steps`, `completed` and
/// `timing`, and gives it the queries on its reports (the same for every kind).
macro_rules! record_with_reports {
    ($record:ty) => {
        impl $crate::report::Record for $record {
            fn steps(&self) -> &[$crate::report::StepReport] {
                &self.steps
            }

            fn steps_mut(&mut self) -> &mut Vec<$crate::report::StepReport> {
                &mut self.steps
            }

            fn timing_mut(&mut self) -> &mut $crate::report::SimulationTiming {
                &mut self.timing
            }

            fn set_incomplete(&mut self) {
                self.completed = false;
            }
        }

        impl $record {
            /// Pieces whose failure stands: their MPCC did not converge and they were not
            /// retried as halves (their last iterate was kept).
            pub fn failed_steps(&self) -> Vec<&$crate::report::StepReport> {
                self.steps.iter().filter(|s| !s.status.is_converged() && !s.halved).collect()
            }

            /// Ipopt iterations of every piece, halved ones included.
            pub fn total_iterations(&self) -> usize {
                self.steps.iter().map(|s| s.iterations).sum()
            }

            /// Ipopt iterations spent in attempts that failed (pieces that were then
            /// halved, or solved by a later tier or start).
            pub fn wasted_iterations(&self) -> usize {
                self.steps.iter().map(|s| s.wasted_iterations()).sum()
            }

            /// Ipopt iterations of the pieces given up and halved.
            pub fn halved_iterations(&self) -> usize {
                self.steps.iter().filter(|s| s.halved).map(|s| s.iterations).sum()
            }
        }
    };
}
pub(crate) use record_with_reports;
