//! `message_stored`: every message a run appends is announced once, right
//! after the store has it and before the event that refers to it, with the
//! id the store gave it and the text as front ends show it. What lets a UI
//! patch its copy of the session instead of reading it again.

use std::time::Duration;

use hearth_core::{MessageStatus, Profile, Role, ToolRegistry, tools::builtin_registry};
use hearth_protocol::{AgentEvent, EventKind, MessageView, RoleView, StatusView};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::fake::{FakeBackend, Piece, agent, call, done, events, text};

/// The announced messages, in order.
fn stored(evs: &[AgentEvent]) -> Vec<&MessageView> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::MessageStored { message, .. } if !e.scope.is_subagent => Some(message),
            _ => None,
        })
        .collect()
}

/// Position of the first event that `is` matches.
fn at(evs: &[AgentEvent], is: impl Fn(&EventKind) -> bool) -> usize {
    evs.iter()
        .position(|e| is(&e.kind))
        .unwrap_or_else(|| panic!("no such event in {evs:#?}"))
}

#[tokio::test]
async fn every_appended_message_is_announced_once_before_what_refers_to_it() {
    let backend = FakeBackend::new();
    backend.push(vec![
        text("Let me work it out."),
        call(None, "calculator", json!({"expression": "6*7"})),
        done(),
    ]);
    backend.push(vec![text("It is 42."), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), Profile::new("A", "m"));
    let mut run = agent.run_stream("s", "what is 6*7?");
    let evs = events(&mut run).await;
    let announced = stored(&evs);
    let history = agent.store().history("s").await.unwrap();
    // One announcement per message, in the store's order, ids from the store.
    assert_eq!(announced.len(), history.len());
    let roles: Vec<RoleView> = announced.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            RoleView::User,
            RoleView::Assistant,
            RoleView::Tool,
            RoleView::Assistant
        ]
    );
    for (i, (m, h)) in announced.iter().zip(&history).enumerate() {
        assert_eq!(m.id, i64::try_from(i).unwrap() + 1);
        assert_eq!(m.parent_id, (i > 0).then(|| m.id - 1));
        assert_eq!(m.run_id.as_deref(), Some(run.run_id.as_str()));
        assert_eq!(m.content, h.content);
        assert_eq!(m.status, StatusView::Complete);
    }
    assert_eq!(announced[1].tool_calls[0].name, "calculator");
    assert_eq!(
        announced[2].tool_call_id.as_deref(),
        Some(announced[1].tool_calls[0].id.as_str())
    );
    // Before the events that refer to it: the user's message before any
    // text; the calling answer before its card opens; the result before
    // the card fills in; the last answer before the run's end.
    let stored_at = |n: usize| {
        at(
            &evs,
            |k| matches!(k, EventKind::MessageStored { message, .. } if message.id == announced[n].id),
        )
    };
    assert!(stored_at(0) < at(&evs, |k| matches!(k, EventKind::TextDelta { .. })));
    assert!(stored_at(1) < at(&evs, |k| matches!(k, EventKind::ToolStarted { .. })));
    assert!(stored_at(2) < at(&evs, |k| matches!(k, EventKind::ToolEvent { .. })));
    assert!(stored_at(3) < at(&evs, |k| matches!(k, EventKind::StreamEnd { .. })));
}

#[tokio::test]
async fn an_answer_is_announced_as_shown_and_kept_as_written() {
    let backend = FakeBackend::new();
    backend.push(vec![
        text("<think>weigh it</think><final>Hi.</final>"),
        done(),
    ]);
    let (agent, _) = agent(backend.clone(), ToolRegistry::new(), Profile::new("A", "m"));
    let mut run = agent.run_stream("s", "hello");
    let evs = events(&mut run).await;
    let answer = stored(&evs)[1];
    assert_eq!(answer.content, "Hi.");
    assert_eq!(answer.thinking.as_deref(), Some("weigh it"));
    let kept = &agent.store().history("s").await.unwrap()[1];
    assert_eq!(
        kept.content, "<final>Hi.</final>",
        "the store keeps what was written"
    );
}

#[tokio::test]
async fn a_queued_message_is_announced_before_it_is_said_to_be_sent() {
    let backend = FakeBackend::new();
    *backend.open_delay.lock().unwrap() = Duration::from_millis(150);
    backend.push(vec![text("first answer"), done()]);
    backend.push(vec![text("second answer"), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), Profile::new("A", "m"));
    let mut run = agent.run_stream("s", "hello");
    run.steering().push("and also this").unwrap();
    let evs = events(&mut run).await;
    let queued = stored(&evs)
        .into_iter()
        .find(|m| m.content == "and also this")
        .expect("the queued message is announced");
    assert_eq!(queued.role, RoleView::User);
    let stored_at = at(
        &evs,
        |k| matches!(k, EventKind::MessageStored { message, .. } if message.id == queued.id),
    );
    assert!(stored_at < at(&evs, |k| matches!(k, EventKind::QueuedMessageSent { .. })));
}

#[tokio::test(start_paused = true)]
async fn a_stopped_answer_is_announced_interrupted_before_the_stop() {
    let backend = FakeBackend::new();
    backend.push(vec![text("Once "), text("upon"), Piece::Stall]);
    let (agent, _) = agent(backend.clone(), ToolRegistry::new(), Profile::new("A", "m"));
    let mut run = agent.run_stream("s", "tell a story");
    tokio::time::sleep(Duration::from_millis(100)).await;
    run.stop();
    let evs = events(&mut run).await;
    let announced = stored(&evs);
    assert_eq!(announced.len(), 2);
    assert_eq!(announced[1].content, "Once upon");
    assert_eq!(announced[1].status, StatusView::Interrupted);
    let kept = &agent.store().history("s").await.unwrap()[1];
    assert_eq!(
        (kept.role, kept.status),
        (Role::Assistant, MessageStatus::Interrupted)
    );
    assert!(matches!(
        evs.last().unwrap().kind,
        EventKind::StreamStopped { .. }
    ));
}
