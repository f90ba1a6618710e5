//! Where a run's events go. A sink stamps every event with its run's scope,
//! so a sub-agent's sink writes into the parent's channel marked as a
//! sub-agent's (flat `parent_run_id`, not nested boxes: docs/style.md §4).

use crate::answer_record::AnswerRecord;
use crate::store::Appended;
use hearth_protocol::{AgentEvent, EventKind, RunScope};
use tokio::sync::mpsc::UnboundedSender;

/// Sends events of one run to its consumer.
///
/// Unbounded on purpose: the loop must never wait on a slow UI (a stop must
/// not queue behind a full channel). Volume is bounded by the model's speed.
#[derive(Debug, Clone)]
pub struct EventSink {
    scope: RunScope,
    tx: Option<UnboundedSender<AgentEvent>>,
    /// What the stored answer shows again (top-level streaming runs only).
    record: Option<AnswerRecord>,
}

impl EventSink {
    /// A sink for `scope` sending into `tx`.
    pub fn new(scope: RunScope, tx: UnboundedSender<AgentEvent>) -> Self {
        Self {
            scope,
            tx: Some(tx),
            record: None,
        }
    }

    /// A sink that drops everything (for `run`, which returns text only).
    pub fn discard(scope: RunScope) -> Self {
        Self {
            scope,
            tx: None,
            record: None,
        }
    }

    /// This sink, also keeping what the stored answer shows again.
    pub(crate) fn recording(mut self, record: AnswerRecord) -> Self {
        self.record = Some(record);
        self
    }

    /// What this run's stored answer shows again, if it keeps it.
    pub(crate) fn record(&self) -> Option<&AnswerRecord> {
        self.record.as_ref()
    }

    /// The scope stamped on events.
    pub fn scope(&self) -> &RunScope {
        &self.scope
    }

    /// Emit one event. A consumer that went away is not an error: the run
    /// goes on and its results are stored.
    pub fn emit(&self, kind: EventKind) {
        if let Some(record) = &self.record {
            record.keep(&kind);
        }
        if let Some(tx) = &self.tx {
            let _ = tx.send(AgentEvent {
                scope: self.scope.clone(),
                kind,
                seq: 0,
            });
        }
    }

    /// Announce a message the store now holds: `message_stored`, with the
    /// message as front ends show it.
    pub(crate) fn stored(&self, appended: Appended) {
        self.emit(EventKind::MessageStored {
            message: appended.stored.view(),
            siblings: appended.siblings,
        });
    }

    /// A sink for a sub-agent run spawned by tool call `call_id` of this
    /// sink's run: same channel, sub-agent scope.
    pub fn for_subagent(&self, session_id: &str, run_id: &str, call_id: &str) -> Self {
        Self {
            scope: RunScope {
                session_id: session_id.to_owned(),
                run_id: run_id.to_owned(),
                parent_run_id: Some(self.scope.run_id.clone()),
                parent_call_id: Some(call_id.to_owned()),
                is_subagent: true,
            },
            tx: self.tx.clone(),
            // The sub-agent's own events are kept with its transcript.
            record: None,
        }
    }
}
