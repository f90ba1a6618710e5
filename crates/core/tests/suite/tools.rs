//! The tool loop: round trip, batches, ordering, errors, the iteration cap,
//! profile reloads.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hearth_core::{
    Agent, MessageStatus, Profile, Role, StaticProfiles, ToolRegistry, tools::builtin_registry,
};
use hearth_protocol::{ErrorCode, EventKind, ToolOutcome};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::probe::{Probe, Switch};
use crate::fake::{FakeBackend, agent, call, done, events, kinds, text};

/// The agent profile, with the mutating test tools pre-approved (the
/// approval round trip has its own tests).
fn profile() -> Profile {
    Profile {
        auto_approve: vec!["probe".into(), "other".into()],
        ..Profile::new("Agent", "m")
    }
}

#[tokio::test]
async fn a_tool_round_trip_sends_the_result_back_in_call_order() {
    let backend = FakeBackend::new();
    backend.push(vec![
        call(None, "calculator", json!({"expression": "6*7"})),
        call(Some("id-b"), "current_time", json!({})),
        done(),
    ]);
    backend.push(vec![text("It is "), text("42."), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), profile());
    let mut run = agent.run_stream("s", "what is 6*7?");
    let evs = events(&mut run).await;
    assert_eq!(
        kinds(&evs),
        vec![
            "run_started",
            "tool_started",
            "tool_started",
            "usage",
            "tool_event",
            "tool_event",
            "text",
            "text",
            "usage",
            "end"
        ]
    );

    let reqs = backend.requests();
    assert_eq!(reqs.len(), 2);
    let second = &reqs[1].messages;
    // system, user, assistant(tool calls), tool, tool
    let roles: Vec<Role> = second.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Tool
        ]
    );
    assert_eq!(
        second[0].content,
        "Persona\n\n---\n\n".to_owned() + &profile().system_prompt
    );
    let calls = &second[2].tool_calls;
    assert!(
        calls[0].id.starts_with("call_"),
        "minted id: {}",
        calls[0].id
    );
    assert_eq!(calls[1].id, "id-b");
    assert_eq!(
        second[3].tool_call_id.as_deref(),
        Some(calls[0].id.as_str())
    );
    assert_eq!(second[3].content, "42");
    assert_eq!(second[4].tool_call_id.as_deref(), Some("id-b"));
    // Tool specs are identical on every call (prompt prefix stability).
    assert_eq!(reqs[0].tools, reqs[1].tools);
    assert_eq!(reqs[0].messages[0], reqs[1].messages[0]);

    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history.last().unwrap().content, "It is 42.");
    assert_eq!(history.last().unwrap().status, MessageStatus::Complete);
}

#[tokio::test]
async fn read_only_batches_run_in_parallel_mutating_ones_in_order() {
    for mutating in [false, true] {
        let backend = FakeBackend::new();
        let slow = Probe::new("slow", false);
        let other = Probe::new("other", mutating);
        backend.push(vec![
            call(None, "slow", json!({"ms": 150, "tag": "a"})),
            call(None, "other", json!({"ms": 10, "tag": "b"})),
            call(None, "slow", json!({"ms": 100, "tag": "c"})),
            done(),
        ]);
        backend.push(vec![text("ok"), done()]);
        let mut reg = ToolRegistry::new();
        reg.register(slow.clone()).register(other.clone());
        let (agent, _) = agent(backend.clone(), reg, profile());
        let mut run = agent.run_stream("s", "go");
        let evs = events(&mut run).await;
        let max =
            slow.max_in_flight.load(Ordering::SeqCst) + other.max_in_flight.load(Ordering::SeqCst);
        let finished: Vec<String> = evs
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ToolEvent { output, .. } => Some(output.clone()),
                _ => None,
            })
            .collect();
        if mutating {
            assert_eq!(slow.max_in_flight.load(Ordering::SeqCst), 1);
            assert_eq!(
                finished,
                vec!["slow:a", "other:b", "slow:c"],
                "sequential, in call order"
            );
        } else {
            assert_eq!(max, 3, "all three overlapped");
            assert_eq!(
                finished,
                vec!["other:b", "slow:c", "slow:a"],
                "events in completion order"
            );
        }
        // Whatever the completion order, the model gets results in call order.
        let next = &backend.requests()[1].messages;
        let results: Vec<&str> = next
            .iter()
            .filter(|m| m.role == Role::Tool)
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(results, vec!["slow:a", "other:b", "slow:c"]);
    }
}

#[tokio::test]
async fn unknown_tools_bad_arguments_and_failures_go_back_to_the_model() {
    let backend = FakeBackend::new();
    let probe = Probe::new("probe", false);
    backend.push(vec![
        call(None, "does_not_exist", json!({})),
        call(None, "probe", json!("not an object")),
        call(None, "probe", json!({"fail": true})),
        done(),
    ]);
    backend.push(vec![text("sorry"), done()]);
    let mut reg = ToolRegistry::new();
    reg.register(probe);
    let (agent, _) = agent(backend.clone(), reg, profile());
    let mut run = agent.run_stream("s", "go");
    let evs = events(&mut run).await;
    assert_eq!(kinds(&evs).last(), Some(&"end"));
    let next = &backend.requests()[1].messages;
    let results: Vec<&str> = next
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(results.len(), 3);
    assert!(
        results[0].contains("unknown tool `does_not_exist`") && results[0].contains("probe"),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("arguments must be a JSON object"),
        "{}",
        results[1]
    );
    assert_eq!(results[2], "error: probe asked to fail");
    let outcomes: Vec<ToolOutcome> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolEvent { outcome, .. } => Some(*outcome),
            _ => None,
        })
        .collect();
    assert_eq!(outcomes, vec![ToolOutcome::Error; 3]);
    // Stored as failures too: a card drawn from the store says "failed".
    let stored = agent.store().history("s").await.unwrap();
    let statuses: Vec<MessageStatus> = stored
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.status)
        .collect();
    assert_eq!(statuses, vec![MessageStatus::Error; 3]);
}

#[tokio::test]
async fn a_model_that_keeps_calling_tools_hits_the_cap_with_a_valid_history() {
    let backend = FakeBackend::new();
    for _ in 0..10 {
        backend.push(vec![call(None, "current_time", json!({})), done()]);
    }
    let mut p = profile();
    p.max_iterations = 4;
    let (agent, _) = agent(backend.clone(), builtin_registry(), p);
    let mut run = agent.run_stream("s", "loop forever");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = &evs.last().unwrap().kind else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::MaxIterations);
    assert!(error.message.contains("4 model calls"), "{}", error.message);
    assert_eq!(backend.requests().len(), 4);
    // Every call has its result: the last one says it was not run.
    let history = agent.store().history("s").await.unwrap();
    let calls: usize = history.iter().map(|m| m.tool_calls.len()).sum();
    let results: Vec<_> = history.iter().filter(|m| m.role == Role::Tool).collect();
    assert_eq!(calls, results.len());
    assert!(results.last().unwrap().content.starts_with("not run"));
}

#[tokio::test]
async fn a_profile_switch_mid_loop_applies_at_the_next_model_call() {
    let backend = FakeBackend::new();
    backend.push(vec![
        call(None, "switch_profile", json!({"name": "Coder"})),
        done(),
    ]);
    backend.push(vec![text("now coding"), done()]);
    let mut coder = Profile::new("Coder", "coder-model");
    coder.system_prompt = "You write code.".into();
    coder.tools = Some(vec![]);
    let profiles = Arc::new(StaticProfiles::single("Persona", profile()));
    profiles.upsert(coder);
    let mut reg = ToolRegistry::new();
    reg.register(Arc::new(Switch(profiles.clone())));
    let agent = Agent::builder(backend.clone(), profiles).tools(reg).build();
    let mut run = agent.run_stream("s", "switch please");
    let evs = events(&mut run).await;
    assert_eq!(kinds(&evs).last(), Some(&"end"));
    let reqs = backend.requests();
    assert_eq!(reqs[0].model, "m");
    assert_eq!(reqs[1].model, "coder-model");
    assert_eq!(
        reqs[1].messages[0].content,
        "Persona\n\n---\n\nYou write code."
    );
    assert!(reqs[1].tools.is_empty(), "the new profile enables no tools");
    assert_eq!(
        backend.preloads.load(Ordering::SeqCst),
        2,
        "the new model is preloaded too"
    );
}

#[tokio::test]
async fn the_repeat_guard_asks_once_to_pivot_then_ends_a_runaway_loop() {
    let backend = FakeBackend::new();
    for _ in 0..20 {
        backend.push(vec![
            call(None, "calculator", json!({"expression": "7006652"})),
            done(),
        ]);
    }
    let (agent, _) = agent(backend.clone(), builtin_registry(), profile());
    let mut run = agent.run_stream("s", "multiply");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = &evs.last().unwrap().kind else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::RepeatedToolCalls);
    assert_eq!(
        backend.requests().len(),
        4,
        "two runs, one reflection, then the end — not 20"
    );
    let history = agent.store().history("s").await.unwrap();
    let results: Vec<&str> = history
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(results.len(), 4, "every call has a result");
    assert_eq!(&results[..2], &["7006652", "7006652"]);
    assert_eq!(results[2], hearth_core::REFLECT_PROMPT);
    assert!(results[3].starts_with("Not run"));
    // The model saw the reflect prompt before its last call.
    let last = backend.requests().last().unwrap().messages.clone();
    assert_eq!(last.last().unwrap().content, hearth_core::REFLECT_PROMPT);
}

#[tokio::test]
async fn a_pivot_after_the_reflect_prompt_is_allowed() {
    let backend = FakeBackend::new();
    for _ in 0..3 {
        backend.push(vec![
            call(None, "calculator", json!({"expression": "1+1"})),
            done(),
        ]);
    }
    backend.push(vec![call(None, "current_time", json!({})), done()]);
    backend.push(vec![text("Done differently."), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), profile());
    let mut run = agent.run_stream("s", "go");
    let evs = events(&mut run).await;
    assert_eq!(kinds(&evs).last(), Some(&"end"), "{evs:#?}");
}

#[tokio::test]
async fn tool_calls_written_as_text_run_and_their_arguments_are_repaired() {
    let backend = FakeBackend::new();
    // Four shapes small models write, one per answer.
    backend.push(vec![
        text("<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2+3\"}}</tool_call>"),
        done(),
    ]);
    backend.push(vec![text("```json\n{\"name\": \"calculator\", \"arguments\": \"{\\\"expression\\\": \\\"4*4\\\"}\"}\n```"), done()]);
    backend.push(vec![
        text("[Tool Call: current_time({\"utc\": \"true\"})]"),
        done(),
    ]);
    backend.push(vec![
        text("{\"name\": \"calculator\", \"parameters\": {\"expression\": \"10-1\"}}"),
        done(),
    ]);
    backend.push(vec![text("5, 16, a time, and 9."), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), profile());
    let mut run = agent.run_stream("s", "compute");
    let evs = events(&mut run).await;
    let results: Vec<(String, ToolOutcome)> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolEvent {
                output, outcome, ..
            } => Some((output.clone(), *outcome)),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 4, "{results:?}");
    assert_eq!(results[0], ("5".to_owned(), ToolOutcome::Ok));
    assert_eq!(results[1], ("16".to_owned(), ToolOutcome::Ok));
    // "true" as a string was repaired to a boolean: UTC time, no error.
    assert_eq!(results[2].1, ToolOutcome::Ok, "{:?}", results[2]);
    assert!(results[2].0.contains("UTC+00:00"), "{:?}", results[2]);
    assert_eq!(results[3], ("9".to_owned(), ToolOutcome::Ok));
    // The stored answers carry real calls, not the text.
    let history = agent.store().history("s").await.unwrap();
    let first = history.iter().find(|m| m.role == Role::Assistant).unwrap();
    assert_eq!(first.tool_calls.len(), 1);
    assert_eq!(first.content, "");
}
