//! What one run carries besides the agent ([`RunCtx`]), and the guard
//! that gives a run dropped mid-flight its one terminal event.

use std::sync::Arc;

use hearth_protocol::{EventKind, StopReason};
use tokio_util::sync::CancellationToken;

use crate::events::EventSink;
use crate::message::ChatMessage;
use crate::profile::Profile;
use crate::steering::SteeringQueue;
use crate::store::{SessionStore, StoreError};
use crate::tool::Approver;

/// Emits `stream_stopped` if a run's future is dropped before it ended.
pub(crate) struct TerminalGuard<'a> {
    pub(crate) sink: &'a EventSink,
    pub(crate) armed: bool,
}

impl Drop for TerminalGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.sink.emit(EventKind::StreamStopped {
                reason: StopReason::User,
                partial_text: String::new(),
            });
        }
    }
}

/// Everything one run needs besides the agent.
pub(crate) struct RunCtx {
    pub(crate) session_id: String,
    pub(crate) run_id: String,
    pub(crate) text: String,
    pub(crate) cancel: CancellationToken,
    pub(crate) sink: EventSink,
    pub(crate) store: Arc<dyn SessionStore>,
    /// A fixed profile (sub-agents); `None` = the session's active profile,
    /// re-read before every model call.
    pub(crate) profile: Option<Profile>,
    pub(crate) memory: Option<String>,
    pub(crate) depth: u32,
    /// Answer the branch's last user message again instead of appending
    /// `text` (regenerate, retry after an error).
    pub(crate) regenerate: bool,
    /// The background root current when the run started: its post-turn
    /// workers are cancelled when the next turn starts.
    pub(crate) background: CancellationToken,
    /// Messages the user queued during the run (docs/background.md §5.2).
    pub(crate) steering: SteeringQueue,
    /// Someone watches the events and can answer approval requests.
    pub(crate) interactive: bool,
    /// A sub-agent asks through its parent's approver.
    pub(crate) parent_approver: Option<Arc<dyn Approver>>,
    /// The streaming entry point: the planning phase may run.
    pub(crate) planning: bool,
    /// Tools pre-approved by the profile the user chose when the run
    /// started, bound to its scope: a profile the model switches to mid-run
    /// grants nothing.
    pub(crate) preapproved: crate::rights::Preapproved,
}

impl RunCtx {
    /// Append `message` to the run's session, then announce it.
    pub(crate) async fn keep(&self, message: ChatMessage) -> Result<(), StoreError> {
        let appended = self
            .store
            .append(&self.session_id, &self.run_id, message)
            .await?;
        self.sink.stored(appended);
        Ok(())
    }
}
