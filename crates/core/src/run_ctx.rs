//! What one run carries besides the agent ([`RunCtx`]), built by one
//! constructor per kind of run (interactive, headless, sub-agent); storing
//! a message and announcing it (`keep`); and the guard that gives a run
//! dropped mid-flight its one terminal event.

use std::sync::Arc;

use hearth_protocol::{EventKind, StopReason};
use tokio_util::sync::CancellationToken;

use crate::events::EventSink;
use crate::ids::new_run_id;
use crate::message::ChatMessage;
use crate::profile::Profile;
use crate::steering::SteeringQueue;
use crate::store::{SessionStore, StoreError};
use crate::tool::{Approver, ToolContext};

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
    /// The session the person talks in ([`ToolContext::conversation`]):
    /// `session_id`, but for a sub-agent or a `/plan` phase.
    pub(crate) conversation: String,
    pub(crate) run_id: String,
    pub(crate) text: String,
    /// Files attached to `text` (already in the store).
    pub(crate) attachments: Vec<crate::attachment::Attachment>,
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
    /// The `/plan` workflow this run carries (`workflow/`), if any.
    pub(crate) workflow: Option<Arc<crate::workflow::PlanFlow>>,
    /// The workspace is read-only for this run's tools (a `/plan` phase).
    pub(crate) read_only: bool,
}

/// What a run starts from: its session, message, stop, events and store.
pub(crate) struct TopRun {
    pub(crate) session_id: String,
    pub(crate) run_id: String,
    pub(crate) text: String,
    pub(crate) attachments: Vec<crate::attachment::Attachment>,
    pub(crate) cancel: CancellationToken,
    pub(crate) sink: EventSink,
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) memory: Option<String>,
    /// Bound to the profile active when the run starts.
    pub(crate) preapproved: crate::rights::Preapproved,
}

impl RunCtx {
    /// A run a person watches (the app, the CLI's chat): it may plan, asks
    /// before a call that writes or runs, takes queued messages; its
    /// post-turn workers hang from `background`, which the next run
    /// cancels. `regenerate`: answer the branch's last user message again.
    pub(crate) fn interactive(
        top: TopRun,
        background: CancellationToken,
        regenerate: bool,
    ) -> Self {
        Self {
            planning: true,
            interactive: true,
            background,
            regenerate,
            ..Self::headless(top)
        }
    }

    /// A run nobody watches (`Agent::run`): no planning, and a call that
    /// writes or runs is denied (nobody can be asked).
    pub(crate) fn headless(top: TopRun) -> Self {
        Self {
            conversation: top.session_id.clone(),
            session_id: top.session_id,
            run_id: top.run_id,
            text: top.text,
            attachments: top.attachments,
            cancel: top.cancel,
            sink: top.sink,
            store: top.store,
            profile: None,
            memory: top.memory,
            depth: 0,
            regenerate: false,
            background: CancellationToken::new(),
            steering: SteeringQueue::default(),
            interactive: false,
            parent_approver: None,
            planning: false,
            preapproved: top.preapproved,
            workflow: None,
            read_only: false,
        }
    }

    /// A sub-agent's run of `task` with `profile` for the parent's
    /// `spawn_agent` call (`parent`), in scratch session `session_id` held
    /// by `scratch`: its events go to the parent's stream marked as its
    /// own, the parent's Stop stops it, the parent's approver asks for it,
    /// and nothing is pre-approved (a grant is the user's, for the run they
    /// started).
    pub(crate) fn subagent(
        parent: &ToolContext,
        session_id: String,
        task: &str,
        profile: Profile,
        scratch: Arc<dyn SessionStore>,
    ) -> Self {
        let run_id = new_run_id();
        let top = TopRun {
            sink: parent
                .events
                .for_subagent(&session_id, &run_id, &parent.call_id),
            session_id,
            run_id,
            text: task.to_owned(),
            attachments: Vec::new(),
            cancel: parent.cancel.child_token(),
            store: scratch,
            memory: None,
            preapproved: crate::rights::Preapproved::default(),
        };
        Self {
            conversation: parent.conversation.clone(),
            profile: Some(profile),
            depth: parent.depth + 1,
            interactive: parent.approver.is_some(),
            parent_approver: parent
                .approver
                .as_ref()
                .map(|a| a.for_subagent().unwrap_or_else(|| a.clone())),
            ..Self::headless(top)
        }
    }

    /// Append `message` to the run's session, then announce it.
    pub(crate) async fn keep(&self, message: ChatMessage) -> Result<(), StoreError> {
        self.keep_id(message).await.map(drop)
    }

    /// [`RunCtx::keep`], returning the stored message's id.
    pub(crate) async fn keep_id(&self, message: ChatMessage) -> Result<i64, StoreError> {
        let appended = self
            .store
            .append(&self.session_id, &self.run_id, message)
            .await?;
        let id = appended.stored.id;
        self.sink.stored(appended);
        Ok(id)
    }
}
