//! What a live answer showed besides its messages — the plan and which of
//! its steps were marked done, each tool call's outcome and time, the
//! approval asked and the answer given, how long each call reasoned, the
//! speed of each model call, a
//! failover, a compaction, the error with its details — kept with the run
//! so a stored answer, also after a restart, shows the same. The events
//! themselves are kept (the front end folds them as it folds live ones),
//! without what the messages already hold: no text, thinking or plan
//! pieces, no tool output or arguments.

use std::sync::{Arc, Mutex};

use hearth_protocol::EventKind;

/// Most events one answer keeps (a runaway loop of tool calls stops being
/// recorded here, not the run).
const MAX_EVENTS: usize = 2_000;

/// The events of one top-level run that its stored answer shows again.
#[derive(Debug, Clone, Default)]
pub struct AnswerRecord {
    events: Arc<Mutex<Vec<EventKind>>>,
    /// How many of them were handed to the store last.
    written: Arc<std::sync::atomic::AtomicUsize>,
}

impl AnswerRecord {
    /// Keep `kind` if a stored answer shows it, trimmed of what the
    /// messages already hold.
    pub(crate) fn keep(&self, kind: &EventKind) {
        let Some(kept) = shown(kind) else { return };
        // The end of the run is kept even past the cap: it carries the error.
        if let Ok(mut events) = self.events.lock()
            && (events.len() < MAX_EVENTS || kept.is_terminal())
        {
            events.push(kept);
        }
    }

    /// The events kept so far, in order (noted as handed to the store).
    pub(crate) fn events(&self) -> Vec<EventKind> {
        let events = self.events.lock().map(|e| e.clone()).unwrap_or_default();
        self.written
            .store(events.len(), std::sync::atomic::Ordering::Relaxed);
        events
    }

    /// How many events are kept.
    pub(crate) fn len(&self) -> usize {
        self.events.lock().map(|e| e.len()).unwrap_or_default()
    }

    /// How many were handed to the store last ([`AnswerRecord::events`]).
    pub(crate) fn written(&self) -> usize {
        self.written.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// `kind` as a stored answer keeps it, or `None` for what it does not.
fn shown(kind: &EventKind) -> Option<EventKind> {
    use EventKind as E;
    Some(match kind {
        E::RunStarted { .. }
        | E::PlanReady { .. }
        | E::PlanProgress { .. }
        | E::ThinkingEnded { .. }
        | E::ApprovalResolved { .. }
        | E::Usage { .. }
        | E::HostFailover { .. }
        | E::ToolsUnavailable { .. }
        | E::ContextCompacted { .. }
        | E::InputFlagged { .. }
        | E::StreamEnd { .. }
        // A `/plan` run's phases, with what each produced: nothing of
        // them is in the session's messages but the approved plan.
        | E::PhaseStarted { .. }
        | E::PhaseEnded { .. }
        | E::PlanProposed { .. }
        | E::PlanAnswered { .. }
        | E::ReviewVerdict { .. }
        // What memory kept from the turn (sent after the run's end). Not its
        // proposals: nothing is kept of those until the user adds one.
        | E::MemoryLearned { .. } => kind.clone(),
        E::ToolEvent {
            call_id,
            name,
            outcome,
            duration_ms,
            ..
        } => E::ToolEvent {
            call_id: call_id.clone(),
            name: name.clone(),
            outcome: *outcome,
            output: String::new(),
            duration_ms: *duration_ms,
        },
        // Which call asked (its reach text may quote the arguments).
        E::ApprovalRequested {
            request_id,
            call_id,
            tool,
            session_allowed,
            ..
        } => E::ApprovalRequested {
            request_id: request_id.clone(),
            call_id: call_id.clone(),
            tool: tool.clone(),
            arguments: serde_json::Value::Null,
            reach: String::new(),
            session_allowed: *session_allowed,
            warning: None,
        },
        E::StreamStopped { reason, .. } => E::StreamStopped {
            reason: *reason,
            partial_text: String::new(),
        },
        E::Error { error, .. } => E::Error {
            error: error.clone(),
            partial_text: String::new(),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use hearth_protocol::{ApprovalDecision, ToolOutcome};
    use serde_json::json;

    use super::*;

    #[test]
    fn what_the_messages_hold_is_left_out_and_the_rest_kept_in_order() {
        let record = AnswerRecord::default();
        for kind in [
            EventKind::PlanReady {
                plan: "1. a".into(),
            },
            EventKind::TextDelta {
                delta: "secret text".into(),
            },
            EventKind::ApprovalRequested {
                request_id: "q".into(),
                call_id: "c".into(),
                tool: "write_file".into(),
                arguments: json!({"content": "secret content"}),
                reach: "writes a.txt".into(),
                session_allowed: true,
                warning: None,
            },
            EventKind::ApprovalResolved {
                request_id: "q".into(),
                decision: ApprovalDecision::AllowOnce,
            },
            EventKind::ToolEvent {
                call_id: "c".into(),
                name: "write_file".into(),
                outcome: ToolOutcome::Ok,
                output: "secret output".into(),
                duration_ms: 45,
            },
            EventKind::PlanProgress { done: vec![1] },
            EventKind::StreamEnd { iterations: 2 },
        ] {
            record.keep(&kind);
        }
        let kept = serde_json::to_value(record.events()).unwrap();
        let kinds: Vec<&str> = kept
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "plan_ready",
                "approval_requested",
                "approval_resolved",
                "tool_event",
                "plan_progress",
                "stream_end"
            ]
        );
        assert_eq!(kept[3]["duration_ms"], 45);
        assert_eq!(kept[1]["reach"], "");
        assert!(!kept.to_string().contains("secret"), "{kept}");
    }
}
