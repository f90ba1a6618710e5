//! How answers are shaped and which are stored.

use std::collections::HashSet;

use serde_json::json;

use super::super::*;
use super::*;
use crate::backend::RawToolCall;
use crate::message::{ChatMessage, MessageStatus};

fn raw(name: &str, id: Option<&str>) -> RawToolCall {
    RawToolCall {
        id: id.map(str::to_owned),
        name: name.into(),
        arguments: json!({}),
    }
}

fn complete(text: &str) -> ChatMessage {
    ChatMessage::assistant(text)
}

#[test]
fn answers_are_shaped_for_the_conversation() {
    let offered = vec!["get_time".to_owned()];
    let mut used = HashSet::new();

    // Calls the server parsed keep their ids; the plan is joined in front
    // of what is stored, not of what was shown.
    let s = shape_answer(
        complete("Done."),
        vec![raw("get_time", Some("c1"))],
        Some("1. look"),
        &offered,
        &mut used,
    );
    assert_eq!(s.shown, "Done.");
    assert_eq!(s.message.content, "1. look\n\nDone.");
    assert_eq!(s.message.tool_calls[0].id, "c1");

    // A complete answer that writes its call as text gets a real call.
    let s = shape_answer(
        complete(r#"{"name": "get_time", "arguments": {}}"#),
        Vec::new(),
        None,
        &offered,
        &mut used,
    );
    assert_eq!(s.message.tool_calls.len(), 1, "{s:?}");
    assert_eq!(s.message.tool_calls[0].name, "get_time");
    assert_ne!(s.message.tool_calls[0].id, "c1", "ids stay unique in a run");

    // An interrupted one does not: half a call is not a call.
    let cut = ChatMessage {
        status: MessageStatus::Interrupted,
        ..complete(r#"{"name": "get_time", "arguments": {}}"#)
    };
    let s = shape_answer(cut, Vec::new(), None, &offered, &mut used);
    assert!(s.message.tool_calls.is_empty());

    // A tool that was not offered is not called from text.
    let s = shape_answer(
        complete(r#"{"name": "run_shell", "arguments": {}}"#),
        Vec::new(),
        None,
        &offered,
        &mut used,
    );
    assert!(s.message.tool_calls.is_empty());
}

#[test]
fn which_answers_are_stored() {
    let with = |content: &str, status: MessageStatus, calls: usize| ChatMessage {
        status,
        tool_calls: (0..calls).map(|i| call(&i.to_string())).collect(),
        ..ChatMessage::assistant(content)
    };
    let rows = [
        (
            "an empty complete answer",
            with("", MessageStatus::Complete, 0),
            true,
        ),
        (
            "an empty answer with calls",
            with("", MessageStatus::Interrupted, 1),
            true,
        ),
        (
            "a stopped answer with text",
            with("par", MessageStatus::Interrupted, 0),
            true,
        ),
        (
            "a stopped answer with nothing",
            with("", MessageStatus::Interrupted, 0),
            false,
        ),
        (
            "a failed answer with nothing",
            with("", MessageStatus::Error, 0),
            false,
        ),
        (
            "a failed answer with text",
            with("par", MessageStatus::Error, 0),
            true,
        ),
    ];
    for (name, message, keep) in rows {
        assert_eq!(keep_answer(&message), keep, "{name}");
    }
}
