//! Steering (docs/background.md §5.2): a message typed during a run joins
//! the conversation at the next turn boundary, in this run; after the run
//! ends it is refused (the front end sends it as a new turn) rather than
//! lost.

use std::time::Duration;

use hearth_core::{Profile, QueueError, Role, tools::builtin_registry};
use hearth_protocol::EventKind;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::fake::{FakeBackend, agent, call, done, events, kinds, text};

#[tokio::test]
async fn a_message_queued_during_an_answer_is_answered_in_the_same_run() {
    let backend = FakeBackend::new();
    *backend.open_delay.lock().unwrap() = Duration::from_millis(150);
    backend.push(vec![text("first answer"), done()]);
    backend.push(vec![text("second answer"), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), Profile::new("A", "m"));
    let mut run = agent.run_stream("s", "hello");
    let steering = run.steering();
    let id = steering.push("and also this").unwrap();
    let evs = events(&mut run).await;
    assert_eq!(
        kinds(&evs),
        vec![
            "run_started",
            "text",
            "usage",
            "queued_sent",
            "text",
            "usage",
            "end"
        ]
    );
    assert!(evs.iter().any(|e| matches!(
        &e.kind,
        EventKind::QueuedMessageSent { queue_id, text } if *queue_id == id && text == "and also this"
    )));
    let reqs = backend.requests();
    assert_eq!(reqs.len(), 2);
    let last = reqs[1].messages.last().unwrap();
    assert_eq!(
        (last.role, last.content.as_str()),
        (Role::User, "and also this")
    );
    let roles: Vec<Role> = reqs[1].messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![Role::System, Role::User, Role::Assistant, Role::User]
    );
    // The run is over: a late message is refused, not dropped silently.
    assert_eq!(steering.push("too late"), Err(QueueError::Closed));
}

#[tokio::test]
async fn a_message_queued_during_tools_goes_after_the_tool_results() {
    let backend = FakeBackend::new();
    *backend.open_delay.lock().unwrap() = Duration::from_millis(150);
    backend.push(vec![
        call(None, "calculator", json!({"expression": "1+1"})),
        done(),
    ]);
    backend.push(vec![text("2, and noted"), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), Profile::new("A", "m"));
    let mut run = agent.run_stream("s", "1+1?");
    let steering = run.steering();
    let cancelled = steering.push("never mind this").unwrap();
    steering.push("use words").unwrap();
    assert!(steering.cancel(&cancelled));
    let evs = events(&mut run).await;
    assert!(matches!(
        evs.last().unwrap().kind,
        EventKind::StreamEnd { iterations: 2 }
    ));
    let reqs = backend.requests();
    let roles: Vec<(Role, String)> = reqs[1]
        .messages
        .iter()
        .map(|m| (m.role, m.content.clone()))
        .collect();
    assert_eq!(roles[1], (Role::User, "1+1?".to_owned()));
    assert_eq!(roles[2].0, Role::Assistant);
    assert_eq!(roles[3], (Role::Tool, "2".to_owned()));
    assert_eq!(roles[4], (Role::User, "use words".to_owned()));
    assert_eq!(roles.len(), 5, "the cancelled message was never sent");
}

// Paused clock: the sleep below ends only once the run waits in the
// stalled answer, whatever the machine's speed.
#[tokio::test(start_paused = true)]
async fn a_stopped_run_leaves_queued_messages_unsent() {
    let backend = FakeBackend::new();
    backend.push(vec![text("partial"), crate::fake::Piece::Stall]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), Profile::new("A", "m"));
    let mut run = agent.run_stream("s", "hello");
    let steering = run.steering();
    steering.push("queued").unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    run.stop();
    let evs = events(&mut run).await;
    assert!(!kinds(&evs).contains(&"queued_sent"));
    assert!(matches!(
        evs.last().unwrap().kind,
        EventKind::StreamStopped { .. }
    ));
    assert_eq!(backend.requests().len(), 1);
    assert!(steering.is_closed());
}
