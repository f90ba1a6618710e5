//! `run_ephemeral`: a sub-agent in its own in-memory session, its events
//! forwarded live into the parent's stream, stopped with the parent.

use std::sync::Arc;
use std::time::Duration;

use hearth_core::{
    Agent, EventSink, InMemoryStore, Profile, Role, StaticProfiles, ToolContext, ToolEffect,
    ToolRegistry,
};
use hearth_protocol::{EventKind, RunScope, ToolOutcome};
use serde_json::json;
use tokio::time::Instant;

use crate::fake::{FakeBackend, Piece, call, done, events, text};

fn setup(backend: Arc<FakeBackend>) -> (Arc<Agent>, Arc<InMemoryStore>) {
    let profiles = Arc::new(StaticProfiles::single("", Profile::new("Agent", "m")));
    let store = Arc::new(InMemoryStore::new());
    let agent = Agent::builder(backend, profiles)
        .tools(ToolRegistry::new())
        .store(store.clone())
        .subagents()
        .build();
    (agent, store)
}

#[tokio::test]
async fn subagent_events_arrive_live_and_scoped_before_the_tool_returns() {
    let backend = FakeBackend::new();
    backend.push(vec![
        call(Some("c1"), "spawn_agent", json!({"task": "sum it"})),
        done(),
    ]);
    backend.push(vec![text("child says 3"), done()]);
    backend.push(vec![text("parent done"), done()]);
    let (agent, store) = setup(backend.clone());
    let mut run = agent.run_stream("parent", "delegate");
    let evs = events(&mut run).await;

    let child: Vec<_> = evs.iter().filter(|e| e.scope.is_subagent).collect();
    assert!(!child.is_empty(), "{evs:#?}");
    for e in &child {
        assert_eq!(e.scope.parent_run_id.as_deref(), Some(run.run_id.as_str()));
        assert_eq!(e.scope.parent_call_id.as_deref(), Some("c1"));
        let hex = e
            .scope
            .session_id
            .strip_prefix("subagent_")
            .expect("subagent session id");
        assert_eq!(hex.len(), 12);
    }
    assert!(
        child
            .iter()
            .any(|e| matches!(&e.kind, EventKind::TextDelta { delta } if delta == "child says 3"))
    );
    // Every child event precedes the spawn_agent result.
    let tool_end = evs
        .iter()
        .position(|e| matches!(e.kind, EventKind::ToolEvent { .. }) && !e.scope.is_subagent)
        .unwrap();
    let last_child = evs.iter().rposition(|e| e.scope.is_subagent).unwrap();
    assert!(last_child < tool_end);
    let EventKind::ToolEvent {
        output, outcome, ..
    } = &evs[tool_end].kind
    else {
        unreachable!()
    };
    assert_eq!(
        (output.as_str(), *outcome),
        ("child says 3", ToolOutcome::Ok)
    );
    // The sub-agent kept no session of its own in the parent's store; its
    // transcript is kept with the parent's turn.
    assert!(
        agent
            .store()
            .history(&child[0].scope.session_id)
            .await
            .unwrap()
            .is_empty()
    );
    let kept = store.subagent_transcripts().await;
    assert_eq!(kept.len(), 1);
    let t = &kept[0];
    assert_eq!(
        (
            t.parent_session_id.as_str(),
            t.parent_run_id.as_str(),
            t.parent_call_id.as_str()
        ),
        ("parent", run.run_id.as_str(), "c1")
    );
    assert_eq!(t.session_id, child[0].scope.session_id);
    let said: Vec<(Role, &str)> = t
        .messages
        .iter()
        .map(|m| (m.role, m.content.as_str()))
        .collect();
    assert_eq!(
        said,
        [(Role::User, "sum it"), (Role::Assistant, "child says 3")]
    );
}

// On tokio's paused clock (it moves only when every task waits on a
// timer): "the stop ends the run at once" is exact, no timer fires between.
#[tokio::test(start_paused = true)]
async fn stop_reaches_the_subagent() {
    let backend = FakeBackend::new();
    backend.push(vec![
        call(Some("c1"), "spawn_agent", json!({"task": "slow"})),
        done(),
    ]);
    backend.push(vec![text("child working"), Piece::Stall]);
    let (agent, store) = setup(backend.clone());
    let mut run = agent.run_stream("parent", "delegate");
    // Wait for the child's first text, then stop the parent.
    let mut seen = Vec::new();
    while let Some(e) = run.next_event().await {
        let child_text = e.scope.is_subagent && matches!(e.kind, EventKind::TextDelta { .. });
        seen.push(e);
        if child_text {
            break;
        }
    }
    let t = Instant::now();
    run.stop();
    let rest = events(&mut run).await;
    // The child stalls forever: only the stop could end it, and it waited
    // for no timer.
    assert_eq!(t.elapsed(), Duration::ZERO, "the stop waited on a timer");
    assert!(
        rest.iter()
            .any(|e| e.scope.is_subagent && matches!(e.kind, EventKind::StreamStopped { .. }))
    );
    assert!(matches!(
        rest.last().unwrap().kind,
        EventKind::StreamStopped { .. }
    ));
    assert!(!rest.last().unwrap().scope.is_subagent);
    assert_eq!(
        backend.dropped.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "child stream closed"
    );
    // Both histories stay valid: the parent's call has its result, and the
    // child's transcript (saved after the stop) pairs every call.
    let parent = agent.store().history("parent").await.unwrap();
    let result = parent.iter().find(|m| m.role == Role::Tool).unwrap();
    assert!(
        result.content.starts_with(hearth_core::CANCELLED_RESULT),
        "{}",
        result.content
    );
    // Saved by the child's task after the stop; the paused clock only
    // moves past each 10 ms once every task is waiting, so this polls
    // until that task is done (10 s bounds a hang).
    let mut kept = Vec::new();
    for _ in 0..1000 {
        kept = store.subagent_transcripts().await;
        if !kept.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(kept.len(), 1, "the stopped child's transcript is kept");
    assert_eq!(kept[0].messages[0].content, "slow");
}

#[tokio::test]
async fn spawn_agent_mutates_when_its_profile_can() {
    let profiles = Arc::new(StaticProfiles::single("", Profile::new("Agent", "m")));
    profiles.upsert(Profile {
        tools: Some(vec!["probe".into()]),
        ..Profile::new("Writer", "m")
    });
    profiles.upsert(Profile {
        tools: Some(vec!["reader".into()]),
        ..Profile::new("Reader", "m")
    });
    let mut reg = ToolRegistry::new();
    reg.register(super::probe::Probe::new("probe", true))
        .register(super::probe::Probe::new("reader", false));
    let agent = Agent::builder(FakeBackend::new(), profiles)
        .tools(reg)
        .subagents()
        .build();
    let names = agent.profile_names();
    assert_eq!(names, ["Agent", "Reader", "Writer"]);
    assert_eq!(
        agent.profile_can_mutate("Writer"),
        Some(ToolEffect::Mutating)
    );
    assert_eq!(
        agent.profile_can_mutate("Reader"),
        Some(ToolEffect::ReadOnly)
    );
    // "Agent" enables every tool, the mutating probe included.
    assert_eq!(
        agent.profile_can_mutate("Agent"),
        Some(ToolEffect::Mutating)
    );
    assert_eq!(agent.profile_can_mutate("Nope"), None);
    // The batch rule sees it through the tool itself.
    let reg = agent.tool_registry();
    let spawn = reg.get("spawn_agent").unwrap();
    assert_eq!(
        spawn.effect(&json!({"task": "t", "profile": "Reader"})),
        ToolEffect::ReadOnly
    );
    assert_eq!(
        spawn.effect(&json!({"task": "t", "profile": "Writer"})),
        ToolEffect::Mutating
    );
    assert_eq!(spawn.effect(&json!({"task": "t"})), ToolEffect::Mutating);
}

#[tokio::test]
async fn nesting_beyond_the_depth_limit_is_refused() {
    let (agent, _) = setup(FakeBackend::new());
    let ctx = ToolContext {
        session_id: "s".into(),
        conversation: "s".into(),
        run_id: "r".into(),
        call_id: "c".into(),
        cancel: Default::default(),
        events: EventSink::discard(RunScope::top("s", "r")),
        workspace: None,
        scope: Default::default(),
        approver: None,
        depth: 2,
        sandbox_off: false,
        read_only: false,
        window: 0,
    };
    let err = agent
        .run_ephemeral("task", "Agent", &ctx)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("may nest 2 deep"), "{err}");
    let ctx = ToolContext { depth: 0, ..ctx };
    let err = agent.run_ephemeral("task", "Nope", &ctx).await.unwrap_err();
    assert!(err.to_string().contains("no profile named `Nope`"), "{err}");
}

#[tokio::test]
async fn a_subagent_reads_the_files_of_the_conversation_it_was_started_from() {
    let backend = FakeBackend::new();
    backend.push(vec![
        call(Some("c1"), "spawn_agent", json!({"task": "read the notes"})),
        done(),
    ]);
    backend.push(vec![
        call(Some("c2"), "read_attachment", json!({"name": "notes.txt"})),
        done(),
    ]);
    backend.push(vec![text("the notes say hello"), done()]);
    backend.push(vec![text("parent done"), done()]);
    let profiles = Arc::new(StaticProfiles::single("", Profile::new("Agent", "m")));
    let store = Arc::new(InMemoryStore::new());
    let mut tools = ToolRegistry::new();
    tools.register(Arc::new(hearth_core::tools::ReadAttachment(store.clone())));
    let agent = Agent::builder(backend.clone(), profiles)
        .tools(tools)
        .store(store.clone())
        .subagents()
        .build();
    let notes = hearth_core::Attachment {
        sha256: "ab".repeat(32),
        name: "notes.txt".into(),
        kind: hearth_core::AttachmentKind::Text,
        mime: "text/plain".into(),
        size: 5,
        given: None,
        chars: None,
        body: Some(hearth_core::Body(Arc::from(&b"hello"[..]))),
    };
    let mut run = agent.run_stream_with("parent", "delegate", vec![notes]);
    let evs = events(&mut run).await;
    // The sub-agent runs in a scratch session of its own, yet its call
    // read the parent conversation's file.
    let read = evs
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ToolEvent {
                output, outcome, ..
            } if e.scope.is_subagent => Some((output.clone(), *outcome)),
            _ => None,
        })
        .expect("the sub-agent's call ended");
    assert_eq!(
        read,
        (
            "[notes.txt: characters 0 to 5 of 5]\nhello".to_owned(),
            ToolOutcome::Ok
        )
    );
}
