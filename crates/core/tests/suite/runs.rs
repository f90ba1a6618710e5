//! Ops in (`hearth_core::Runs`, docs/architecture.md "Who owns a run"):
//! what a front end does to runs goes through one object, which refuses
//! what cannot run before anything is kept and before the front end is
//! asked for the agent (where the desktop pins the session's host).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hearth_core::{Enqueued, Profile, RunError, Runs, UserInput, tools::builtin_registry};
use hearth_protocol::EventKind;
use pretty_assertions::assert_eq;

use crate::fake::{FakeBackend, agent, done, text};

fn notes() -> hearth_core::Attachment {
    hearth_core::Attachment {
        sha256: "b".repeat(64),
        name: "notes.txt".into(),
        kind: hearth_core::AttachmentKind::Text,
        mime: "text/plain".into(),
        size: 5,
        given: None,
        chars: None,
        body: Some(hearth_core::Body(b"notes".as_slice().into())),
    }
}

#[tokio::test]
async fn what_cannot_run_is_refused_before_the_agent_is_asked_for() {
    let backend = FakeBackend::new();
    let (agent, _) = agent(backend.clone(), builtin_registry(), Profile::new("A", "m"));
    let runs = Runs::new(Arc::default());
    let asked = AtomicUsize::new(0);
    let refusals = [
        (UserInput::text("  \n"), RunError::EmptyMessage),
        (
            UserInput {
                text: "/plan fix the test".into(),
                files: vec![notes()],
            },
            RunError::PlanWithFiles,
        ),
    ];
    for (input, refusal) in refusals {
        let got = runs
            .send("s", input, "page", async || {
                asked.fetch_add(1, Ordering::SeqCst);
                Ok::<_, RunError>(agent.clone())
            })
            .await;
        assert_eq!(got.err(), Some(refusal));
    }
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "the agent was never asked for"
    );
    assert!(agent.store().history("s").await.unwrap().is_empty());
    assert!(backend.requests().is_empty());
    // `/plan` is a run of its own, never queued; with no run going a
    // message is sent as a new one.
    assert_eq!(
        runs.queue("s", "/plan fix it"),
        Err(RunError::PlanNotQueueable)
    );
    assert_eq!(runs.queue("s", "and this"), Ok(Enqueued::RunEnded));
}

#[tokio::test]
async fn a_second_run_in_a_session_is_refused_and_the_first_takes_what_is_queued() {
    let backend = FakeBackend::new();
    *backend.open_delay.lock().unwrap() = Duration::from_millis(300);
    backend.push(vec![text("first answer"), done()]);
    backend.push(vec![text("second answer"), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), Profile::new("A", "m"));
    let runs = Runs::new(Arc::default());
    let asked = AtomicUsize::new(0);
    let ask = async || {
        asked.fetch_add(1, Ordering::SeqCst);
        Ok::<_, RunError>(agent.clone())
    };
    let mut first = runs
        .send("s", UserInput::text("hello"), "page", ask)
        .await
        .unwrap();
    assert_eq!(first.prompt.as_deref(), Some("hello"));
    assert!(runs.live().is_live("s"));
    let second = runs
        .send("s", UserInput::text("again"), "other", async || {
            asked.fetch_add(1, Ordering::SeqCst);
            Ok::<_, RunError>(agent.clone())
        })
        .await;
    assert_eq!(second.err(), Some(RunError::RunGoing));
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "asked for the first run only"
    );
    let Ok(Enqueued::Queued(id)) = runs.queue("s", "and also this") else {
        panic!("the run going on takes the message");
    };
    let mut sent = false;
    let mut end = None;
    while let Some(e) = tokio::time::timeout(Duration::from_secs(20), first.events.recv())
        .await
        .expect("the run's events")
    {
        match &e.kind {
            EventKind::QueuedMessageSent { queue_id, .. } => sent |= *queue_id == id,
            k if k.is_terminal() && !e.scope.is_subagent => end = Some(k.clone()),
            _ => {}
        }
    }
    assert!(sent, "the queued message joined the run");
    assert!(
        matches!(end, Some(EventKind::StreamEnd { iterations: 2 })),
        "{end:?}"
    );
    assert!(!runs.live().is_live("s"));
    assert_eq!(runs.queue("s", "late"), Ok(Enqueued::RunEnded));
    // A store that keeps one line of messages cannot answer again on a
    // branch of its own: refused, nothing started.
    let again = runs
        .regenerate("s", Some(1), "page", async || {
            Ok::<_, RunError>(agent.clone())
        })
        .await;
    assert!(
        matches!(again, Err(RunError::Store(_))),
        "{:?}",
        again.err()
    );
    assert!(!runs.live().is_live("s"));
}

#[tokio::test]
async fn stop_reaches_the_run_and_says_when_it_had_ended() {
    let backend = FakeBackend::new();
    *backend.open_delay.lock().unwrap() = Duration::from_secs(30);
    backend.push(vec![text("never"), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), Profile::new("A", "m"));
    let runs = Runs::new(Arc::default());
    let mut run = runs
        .send("s", UserInput::text("hello"), "page", async || {
            Ok::<_, RunError>(agent.clone())
        })
        .await
        .unwrap();
    assert!(runs.stop(&run.run_id));
    let mut end = None;
    while let Some(e) = tokio::time::timeout(Duration::from_secs(20), run.events.recv())
        .await
        .expect("the run's events")
    {
        if e.kind.is_terminal() && !e.scope.is_subagent {
            end = Some(e.kind.clone());
        }
    }
    assert!(
        matches!(end, Some(EventKind::StreamStopped { .. })),
        "{end:?}"
    );
    assert!(!runs.stop(&run.run_id), "it had ended");
}
