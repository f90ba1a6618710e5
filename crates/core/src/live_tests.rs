//! The registry's catch-up: whatever number a follower asks from, what it
//! gets (missed, then live) is exactly the rest of the run.

use std::time::Duration;

use hearth_protocol::{AgentEvent, EventKind, RunScope, StopReason};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::handle::{RunHandle, RunOutcome};

fn ev(kind: EventKind) -> AgentEvent {
    AgentEvent {
        scope: RunScope::top("s1", "r1"),
        kind,
        seq: 0,
    }
}

fn text(t: &str) -> AgentEvent {
    ev(EventKind::TextDelta { delta: t.into() })
}

/// The run as a follower would rebuild it: stream pieces joined, other
/// events as they are.
fn rebuild(events: &[AgentEvent]) -> Vec<EventKind> {
    let mut out: Vec<EventKind> = Vec::new();
    for e in events {
        if let (Some(EventKind::TextDelta { delta: a }), EventKind::TextDelta { delta: b }) =
            (out.last_mut(), &e.kind)
        {
            a.push_str(b);
            continue;
        }
        out.push(e.kind.clone());
    }
    out
}

/// A run's events: a started event, an answer in pieces, a tool card, more
/// answer, the end.
fn a_run() -> Vec<AgentEvent> {
    let mut run = vec![ev(EventKind::RunStarted {
        model: "m".into(),
        profile: "p".into(),
        host: "ollama".into(),
        context_window: 4096,
        protocol: hearth_protocol::PROTOCOL_VERSION,
    })];
    run.extend((0..30).map(|i| text(&format!("w{i} "))));
    run.push(ev(EventKind::ToolStarted {
        call_id: "c".into(),
        name: "t".into(),
        arguments: serde_json::json!({}),
    }));
    run.extend((0..10).map(|i| text(&format!("v{i} "))));
    run.push(ev(EventKind::StreamEnd { iterations: 2 }));
    run
}

#[test]
fn after_any_number_the_log_gives_exactly_the_rest() {
    let run = a_run();
    let mut log = RunLog::default();
    let numbered: Vec<AgentEvent> = run.iter().cloned().map(|e| log.push(e)).collect();
    assert_eq!(log.last_seq() as usize, run.len());
    assert!(
        numbered
            .iter()
            .enumerate()
            .all(|(i, e)| e.seq as usize == i + 1)
    );
    // Joined: a started event, two answer entries, the card, the end.
    assert_eq!(log.after(0).len(), 5);
    for n in 0..=run.len() {
        let n32 = u32::try_from(n).unwrap();
        let got = log.after(n32);
        assert_eq!(rebuild(&got), rebuild(&run[n..]), "after {n}");
        // The last number a follower holds after the catch-up is the log's.
        if let Some(last) = got.last() {
            assert_eq!(last.seq, log.last_seq(), "after {n}");
        }
    }
}

/// A handle over a channel the test writes into, as `Agent::start` makes.
fn handle(session: &str) -> (RunHandle, UnboundedSender<AgentEvent>, CancellationToken) {
    let (tx, rx) = unbounded_channel();
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let task = tokio::spawn(async move {
        stop.cancelled().await;
        RunOutcome::Stopped {
            partial_text: String::new(),
        }
    });
    let handle = RunHandle {
        run_id: "r1".into(),
        session_id: session.into(),
        cancel: cancel.clone(),
        steering: SteeringQueue::default(),
        events: rx,
        task,
    };
    (handle, tx, cancel)
}

async fn collect(mut f: Following) -> Vec<AgentEvent> {
    let mut got = f.missed;
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(20), f.events.recv()).await {
        got.push(e);
    }
    got
}

#[tokio::test]
async fn a_window_that_joins_mid_run_misses_nothing_and_sees_nothing_twice() {
    let run = a_run();
    let runs = LiveRuns::default();
    let (handle, tx, _cancel) = handle("s1");
    let owner = runs.adopt(handle, Some("hi".into()), "main").unwrap();
    let owner = tokio::spawn(collect(owner));
    // Joins at every point of the run, each asking after a different
    // number it "already had" (what the owner window saw before a reload).
    let mut late = Vec::new();
    for (i, e) in run.iter().enumerate() {
        if i < run.len() - 1 {
            // A window holds numbers the registry gave: at most the last.
            let probe = runs.follow("s1", 0).unwrap();
            let had = probe.missed.last().map_or(0, |e| e.seq) / 2;
            let f = runs.follow("s1", had).unwrap();
            assert_eq!(f.prompt.as_deref(), Some("hi"));
            late.push((had as usize, tokio::spawn(collect(f))));
        }
        tx.send(e.clone()).unwrap();
        // Let the registry publish some events before the next join.
        if i % 7 == 0 {
            tokio::task::yield_now().await;
        }
    }
    let owner = owner.await.unwrap();
    assert_eq!(rebuild(&owner), rebuild(&run));
    assert!(owner.windows(2).all(|w| w[0].seq < w[1].seq));
    for (after, f) in late {
        let got = f.await.unwrap();
        assert_eq!(
            rebuild(&got),
            rebuild(&run[after..]),
            "joined after {after}"
        );
    }
    // The terminal event freed the session.
    assert!(!runs.is_live("s1"));
    assert!(runs.follow("s1", 0).is_none());
}

#[tokio::test]
async fn one_run_per_session_and_stops_by_owner() {
    let runs = LiveRuns::default();
    let (first, tx, first_stop) = handle("s1");
    let _owner = runs.adopt(first, None, "main").unwrap();
    // Said before anything is kept, as a refusal the user answers by
    // waiting or queueing (no Retry, which would answer the last message
    // again); another session is free.
    let busy = runs.ensure_idle("s1").unwrap_err().to_info();
    assert_eq!(
        (busy.code, busy.recovery),
        (
            hearth_protocol::ErrorCode::InvalidInput,
            hearth_protocol::Recovery::None
        )
    );
    assert!(busy.message.contains("still being written"), "{busy:?}");
    assert!(runs.ensure_idle("s2").is_ok());
    let (second, _tx2, second_stop) = handle("s1");
    assert_eq!(
        runs.adopt(second, None, "main").err(),
        Some(RunError::SessionBusy)
    );
    assert!(second_stop.is_cancelled(), "the refused run is stopped");
    assert_eq!(runs.sessions(), vec!["s1".to_owned()]);
    assert_eq!(runs.stop_owned_by("other"), 0);
    assert!(!first_stop.is_cancelled());
    assert_eq!(runs.stop_owned_by("main"), 1);
    assert!(first_stop.is_cancelled());
    tx.send(ev(EventKind::StreamStopped {
        reason: StopReason::User,
        partial_text: String::new(),
    }))
    .unwrap();
    let mut f = None;
    for _ in 0..2000 {
        if !runs.is_live("s1") {
            f = Some(());
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(f.is_some(), "the run left the registry at its end");
}

/// The terminal event frees the session at once; what the post-turn work
/// reports after it (a title) still reaches the run's followers, numbered
/// on, and the owner learns when the work is done.
#[tokio::test]
async fn what_the_workers_report_after_the_end_still_reaches_the_followers() {
    let runs = LiveRuns::default();
    let (handle, tx, _cancel) = handle("s1");
    let mut owner = runs.adopt(handle, Some("hi".into()), "main").unwrap();
    let settled = owner.settled.take().unwrap();
    let follower = runs.follow("s1", 0).unwrap();
    assert!(
        follower.settled.is_none(),
        "only the owner waits on the work"
    );
    tx.send(text("Hello")).unwrap();
    tx.send(ev(EventKind::StreamEnd { iterations: 1 })).unwrap();
    // The end was published: the session takes the next run.
    let first = owner.events.recv().await.unwrap();
    let end = owner.events.recv().await.unwrap();
    assert_eq!((first.seq, end.seq), (1, 2));
    assert!(!runs.is_live("s1"));
    tx.send(ev(EventKind::SessionTitled {
        title: "Greetings".into(),
    }))
    .unwrap();
    drop(tx);
    let titled = owner.events.recv().await.unwrap();
    assert_eq!(titled.seq, 3);
    assert!(matches!(titled.kind, EventKind::SessionTitled { .. }));
    assert!(
        owner.events.recv().await.is_none(),
        "closed when the work is done"
    );
    tokio::time::timeout(Duration::from_secs(20), settled)
        .await
        .unwrap()
        .unwrap();
    let seen = collect(follower).await;
    assert_eq!(seen.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
}
