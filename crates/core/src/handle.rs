//! A run in progress, and how it ended.

use hearth_protocol::AgentEvent;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::RunError;
use crate::steering::SteeringQueue;

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    /// The model answered.
    Answered {
        /// The final answer's text.
        text: String,
        /// Model calls made.
        iterations: u32,
    },
    /// The user stopped it.
    Stopped {
        /// Text of the answer in progress when it stopped.
        partial_text: String,
    },
    /// It failed.
    Failed {
        /// Why.
        error: RunError,
        /// Text of the answer in progress when it failed (kept, flagged).
        partial_text: String,
    },
}

impl RunOutcome {
    pub(crate) fn fail(error: impl Into<RunError>) -> Self {
        Self::Failed {
            error: error.into(),
            partial_text: String::new(),
        }
    }

    pub(crate) fn into_result(self) -> Result<String, RunError> {
        match self {
            Self::Answered { text, .. } => Ok(text),
            Self::Stopped { .. } => Err(RunError::Stopped),
            Self::Failed { error, .. } => Err(error),
        }
    }
}

/// A run in progress: its events, and the means to stop it.
pub struct RunHandle {
    /// The run's id.
    pub run_id: String,
    /// The session it belongs to.
    pub session_id: String,
    pub(crate) cancel: CancellationToken,
    pub(crate) steering: SteeringQueue,
    pub(crate) events: mpsc::UnboundedReceiver<AgentEvent>,
    pub(crate) task: JoinHandle<RunOutcome>,
}

impl RunHandle {
    /// Stop the run at once (cooperative: the loop drops the request,
    /// answers open tool calls, stores the partial text, emits
    /// `stream_stopped`). The model stays loaded.
    pub fn stop(&self) {
        self.cancel.cancel();
    }

    /// The run's steering queue: messages pushed on it are added to the
    /// conversation at the next turn boundary (see [`SteeringQueue`]).
    pub fn steering(&self) -> SteeringQueue {
        self.steering.clone()
    }

    /// A token that stops the run when cancelled (for signal handlers).
    pub fn stop_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// The next event; `None` once the run has ended and all were read.
    pub async fn next_event(&mut self) -> Option<AgentEvent> {
        self.events.recv().await
    }

    /// Wait for the end of the run (remaining events are dropped).
    pub async fn outcome(self) -> RunOutcome {
        match self.task.await {
            Ok(o) => o,
            Err(e) => RunOutcome::fail(RunError::Internal(e.to_string())),
        }
    }
}
