//! Stop semantics with the fake backend (docs/design.md §3): raced against
//! opening the request, every chunk and every tool; partial text kept and
//! flagged; unanswered calls answered; the preload never cancelled.

use std::sync::atomic::Ordering;
use std::time::Duration;

use hearth_core::{BackendError, CANCELLED_RESULT, MessageStatus, Profile, Role, ToolRegistry};
use hearth_protocol::{ErrorCode, EventKind};
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio::time::Instant;

use super::probe::Probe;
use crate::fake::{FakeBackend, Piece, agent, call, done, events, kinds, text};

/// The agent profile, with the mutating test tools pre-approved (the
/// approval round trip has its own tests).
fn profile() -> Profile {
    Profile {
        auto_approve: vec!["probe".into(), "other".into()],
        ..Profile::new("Agent", "m")
    }
}

// These tests run on tokio's paused clock: it moves only when every task
// waits on a timer, straight to the next one. So `stop_after(ms)` stops at
// that point of the script whatever the machine's speed, and "ends at once"
// is exact: no timer fired between the stop and the run's last event.

/// Stops `run` when the clock reaches `ms`; returns that instant.
async fn stop_after(run: &hearth_core::RunHandle, ms: u64) -> Instant {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    let t = Instant::now();
    run.stop();
    t
}

/// The stop waited for no timer: the run ended at the instant of the stop.
fn at_once(t: Instant) {
    assert_eq!(t.elapsed(), Duration::ZERO, "the stop waited on a timer");
}

#[tokio::test(start_paused = true)]
async fn stop_while_the_request_is_opening_ends_at_once() {
    let backend = FakeBackend::new();
    *backend.open_delay.lock().unwrap() = Duration::from_secs(5);
    let (agent, _) = agent(backend.clone(), ToolRegistry::new(), profile());
    let mut run = agent.run_stream("s", "hi");
    let t = stop_after(&run, 50).await;
    let evs = events(&mut run).await;
    at_once(t);
    assert_eq!(kinds(&evs), vec!["run_started", "stopped"]);
    assert_eq!(
        backend.dropped.load(Ordering::SeqCst),
        1,
        "the request future was dropped"
    );
}

#[tokio::test(start_paused = true)]
async fn stop_mid_stream_keeps_the_partial_text_flagged_interrupted() {
    let backend = FakeBackend::new();
    backend.push(vec![text("Once "), text("upon"), Piece::Stall]);
    let (agent, _) = agent(backend.clone(), ToolRegistry::new(), profile());
    let mut run = agent.run_stream("s", "tell a story");
    stop_after(&run, 100).await;
    let evs = events(&mut run).await;
    let EventKind::StreamStopped { partial_text, .. } = &evs.last().unwrap().kind else {
        panic!("{evs:#?}")
    };
    assert_eq!(partial_text, "Once upon");
    assert_eq!(
        backend.dropped.load(Ordering::SeqCst),
        1,
        "stream dropped = connection closed"
    );
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[1].content, "Once upon");
    assert_eq!(history[1].status, MessageStatus::Interrupted);
}

#[tokio::test(start_paused = true)]
async fn stop_during_tools_answers_every_open_call_and_keeps_history_valid() {
    let backend = FakeBackend::new();
    let probe = Probe::new("probe", true);
    backend.push(vec![
        call(None, "probe", json!({"ms": 10, "tag": "fast"})),
        call(None, "probe", json!({"ms": 5000, "tag": "slow"})),
        call(None, "probe", json!({"ms": 10, "tag": "never"})),
        done(),
    ]);
    let mut reg = ToolRegistry::new();
    reg.register(probe.clone());
    let (agent, _) = agent(backend.clone(), reg, profile());
    let mut run = agent.run_stream("s", "go");
    // At 200 ms the fast call is done and the slow one is running.
    let t = stop_after(&run, 200).await;
    let evs = events(&mut run).await;
    at_once(t);
    assert_eq!(kinds(&evs).last(), Some(&"stopped"));
    assert_eq!(
        probe.calls.load(Ordering::SeqCst),
        2,
        "the third call never started"
    );
    let history = agent.store().history("s").await.unwrap();
    let results: Vec<&str> = history
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(results.len(), 3, "{history:#?}");
    assert_eq!(results[0], "probe:fast");
    assert!(
        results[1].starts_with(CANCELLED_RESULT) && results[1].contains("may have partly"),
        "{}",
        results[1]
    );
    assert_eq!(results[2], CANCELLED_RESULT);
    assert_eq!(backend.requests().len(), 1, "no model call after the stop");
}

#[tokio::test(start_paused = true)]
async fn stop_during_the_preload_does_not_cancel_it() {
    let backend = FakeBackend::new();
    *backend.preload_delay.lock().unwrap() = Duration::from_millis(300);
    let (agent, _) = agent(backend.clone(), ToolRegistry::new(), profile());
    let mut run = agent.run_stream("s", "hi");
    let t = stop_after(&run, 50).await;
    let evs = events(&mut run).await;
    at_once(t);
    assert_eq!(kinds(&evs), vec!["run_started", "stopped"]);
    assert_eq!(backend.requests().len(), 0, "no chat was sent");
    // The load goes on in its own task, and the agent counts it until its
    // end (a front end about to exit waits for it).
    assert_eq!(agent.loads().in_flight(), 1);
    assert_eq!(backend.preloads_done.load(Ordering::SeqCst), 0);
    tokio::time::timeout(Duration::from_secs(10), agent.loads().settled())
        .await
        .expect("the load ends");
    assert_eq!(
        backend.preloads_done.load(Ordering::SeqCst),
        1,
        "the load ran to its end"
    );
}

#[tokio::test]
async fn a_failure_mid_stream_keeps_the_partial_text_and_says_what_to_do() {
    let backend = FakeBackend::new();
    backend.push(vec![
        text("Half an ans"),
        Piece::Fail(BackendError::Truncated),
    ]);
    let (agent, _) = agent(backend.clone(), ToolRegistry::new(), profile());
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    let EventKind::Error {
        error,
        partial_text,
    } = &evs.last().unwrap().kind
    else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::StreamTruncated);
    assert_eq!(partial_text, "Half an ans");
    assert_eq!(
        kinds(&evs).iter().filter(|k| **k == "error").count(),
        1,
        "one terminal event"
    );
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history[1].status, MessageStatus::Error);
    // The session still works: the next turn goes through.
    backend.push(vec![text("fine now"), done()]);
    let mut run = agent.run_stream("s", "again?");
    let evs = events(&mut run).await;
    assert_eq!(kinds(&evs).last(), Some(&"end"));
}

#[tokio::test]
async fn run_and_an_empty_message() {
    let backend = FakeBackend::new();
    backend.push(vec![text("plain"), done()]);
    let (agent, _) = agent(backend.clone(), ToolRegistry::new(), profile());
    let answer = agent.run("s", "hi", Default::default()).await.unwrap();
    assert_eq!(answer, "plain");
    let err = agent.run("s", "  ", Default::default()).await.unwrap_err();
    assert!(err.to_string().contains("empty"), "{err}");
}

#[tokio::test]
async fn regenerate_answers_the_last_user_message_without_repeating_it() {
    let backend = FakeBackend::new();
    backend.push(vec![text("first answer"), done()]);
    backend.push(vec![text("second answer"), done()]);
    let (agent, _) = agent(backend.clone(), ToolRegistry::new(), profile());
    let mut run = agent.run_stream("s", "question");
    events(&mut run).await;
    // Nothing to regenerate while the branch ends with an answer.
    let mut run = agent.regenerate_stream("s");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = &evs.last().unwrap().kind else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::InvalidInput);
    // An in-memory "fork": a session whose branch ends with the question.
    let store = agent.store().clone();
    store
        .append("t", "r", hearth_core::ChatMessage::user("question"))
        .await
        .unwrap();
    let agent2 = hearth_core::Agent::builder(
        backend.clone(),
        std::sync::Arc::new(hearth_core::StaticProfiles::single("Persona", profile())),
    )
    .store(store.clone())
    .build();
    let mut run = agent2.regenerate_stream("t");
    let evs = events(&mut run).await;
    assert_eq!(kinds(&evs).last(), Some(&"end"));
    let h = store.history("t").await.unwrap();
    assert_eq!(
        h.iter().map(|m| m.content.as_str()).collect::<Vec<_>>(),
        vec!["question", "second answer"]
    );
    let sent = backend.requests().last().unwrap().messages.clone();
    assert_eq!(
        sent.iter().filter(|m| m.role == Role::User).count(),
        1,
        "the question is not repeated"
    );
}

/// A store that presses Stop the moment an assistant message with tool
/// calls is appended: the window between an answer and its tools.
struct StopAfterAnswer {
    inner: hearth_core::InMemoryStore,
    token: std::sync::OnceLock<tokio_util::sync::CancellationToken>,
}

#[async_trait::async_trait]
impl hearth_core::SessionStore for StopAfterAnswer {
    async fn history(
        &self,
        s: &str,
    ) -> Result<Vec<hearth_core::ChatMessage>, hearth_core::StoreError> {
        self.inner.history(s).await
    }

    async fn append(
        &self,
        s: &str,
        r: &str,
        m: hearth_core::ChatMessage,
    ) -> Result<hearth_core::Appended, hearth_core::StoreError> {
        let stop = !m.tool_calls.is_empty();
        let appended = self.inner.append(s, r, m).await?;
        if stop && let Some(t) = self.token.get() {
            t.cancel();
        }
        Ok(appended)
    }
}

#[tokio::test]
async fn stop_between_an_answer_and_its_tools_still_answers_the_calls() {
    let backend = FakeBackend::new();
    *backend.open_delay.lock().unwrap() = Duration::from_millis(50);
    backend.push(vec![
        text("Let me check."),
        call(None, "current_time", json!({})),
        done(),
    ]);
    let store = std::sync::Arc::new(StopAfterAnswer {
        inner: Default::default(),
        token: Default::default(),
    });
    let agent = hearth_core::Agent::builder(
        backend.clone(),
        std::sync::Arc::new(hearth_core::StaticProfiles::single("", profile())),
    )
    .tools(hearth_core::tools::builtin_registry())
    .store(store.clone())
    .build();
    let mut run = agent.run_stream("s", "time?");
    store.token.set(run.stop_token()).unwrap();
    let evs = events(&mut run).await;
    let EventKind::StreamStopped { partial_text, .. } = &evs.last().unwrap().kind else {
        panic!("{evs:#?}")
    };
    assert_eq!(partial_text, "Let me check.");
    let h = hearth_core::SessionStore::history(store.as_ref(), "s")
        .await
        .unwrap();
    assert_eq!(h.last().unwrap().content, CANCELLED_RESULT, "{h:#?}");
    let started = kinds(&evs).iter().filter(|k| **k == "tool_started").count();
    let ended = kinds(&evs).iter().filter(|k| **k == "tool_event").count();
    assert_eq!((started, ended), (1, 1), "every card that opened is closed");
}
