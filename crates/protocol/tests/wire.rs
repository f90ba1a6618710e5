//! The JSON shape of events is a contract with the UI and with `--json`
//! consumers: these tests pin it.
#![allow(clippy::unwrap_used)]

use hearth_protocol::{AgentEvent, ErrorCode, ErrorInfo, EventKind, Recovery, RunScope};
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn events_are_flat_and_tagged() {
    let ev = AgentEvent {
        scope: RunScope::top("s1", "r1"),
        kind: EventKind::TextDelta {
            delta: "hé".into()
        },
        seq: 0,
    };
    let v = serde_json::to_value(&ev).unwrap();
    assert_eq!(
        v,
        json!({"session_id":"s1","run_id":"r1","is_subagent":false,"type":"text_delta","delta":"hé"})
    );
    let back: AgentEvent = serde_json::from_value(v).unwrap();
    assert_eq!(back, ev);
}

#[test]
fn subagent_scope_and_error_round_trip() {
    let ev = AgentEvent {
        scope: RunScope {
            session_id: "subagent_0123456789ab".into(),
            run_id: "r2".into(),
            parent_run_id: Some("r1".into()),
            parent_call_id: Some("call_1".into()),
            is_subagent: true,
        },
        kind: EventKind::Error {
            error: ErrorInfo {
                code: ErrorCode::ModelNotFound,
                recovery: Recovery::PullModel,
                message: "run `ollama pull x`".into(),
                details: None,
            },
            partial_text: String::new(),
        },
        seq: 0,
    };
    let v = serde_json::to_value(&ev).unwrap();
    assert_eq!(v["type"], "error");
    assert_eq!(v["parent_run_id"], "r1");
    assert_eq!(v["error"]["code"], "model_not_found");
    assert_eq!(v["error"]["recovery"], "pull_model");
    assert!(ev.kind.is_terminal());
    let back: AgentEvent = serde_json::from_value(v).unwrap();
    assert_eq!(back, ev);
}

#[test]
fn a_numbered_event_carries_its_number() {
    let ev = AgentEvent {
        scope: RunScope::top("s1", "r1"),
        kind: EventKind::StreamEnd { iterations: 1 },
        seq: 7,
    };
    let v = serde_json::to_value(&ev).unwrap();
    assert_eq!(v["seq"], 7);
    let back: AgentEvent = serde_json::from_value(v).unwrap();
    assert_eq!(back, ev);
}

#[test]
fn run_started_says_which_wire_format_follows() {
    let ev = AgentEvent {
        scope: RunScope::top("s1", "r1"),
        kind: EventKind::RunStarted {
            model: "m".into(),
            profile: "p".into(),
            host: "ollama".into(),
            context_window: 4096,
            protocol: hearth_protocol::PROTOCOL_VERSION,
        },
        seq: 1,
    };
    let v = serde_json::to_value(&ev).unwrap();
    assert_eq!(v["protocol"], hearth_protocol::PROTOCOL_VERSION);
    assert_eq!(v["host"], "ollama");
    // An older core's event, without it, still reads (as 0: unknown).
    let old = json!({"session_id":"s1","run_id":"r1","is_subagent":false,"type":"run_started","model":"m","profile":"p","context_window":4096});
    let back: AgentEvent = serde_json::from_value(old).unwrap();
    assert!(matches!(
        back.kind,
        EventKind::RunStarted { protocol: 0, ref host, .. } if host.is_empty()
    ));
}
