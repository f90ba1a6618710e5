//! `run_ephemeral`: a sub-agent in its own in-memory session, its events
//! forwarded live into the parent's stream, stopped with the parent.

use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use hearth_core::{
    Agent, EventSink, Profile, StaticProfiles, Tool, ToolContext, ToolError, ToolRegistry, ToolSpec,
};
use hearth_protocol::{EventKind, RunScope, ToolOutcome};
use serde_json::{Value, json};

use crate::fake::{FakeBackend, Piece, call, done, events, text};

/// A minimal `spawn_agent` (the real one, with its transcript kept, is the
/// agent-skills issue's).
struct Spawn(OnceLock<Weak<Agent>>);

#[async_trait]
impl Tool for Spawn {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "spawn_agent".into(),
            description: "run a task in a sub-agent".into(),
            parameters: json!({"type": "object", "properties": {"task": {"type": "string"}}}),
        }
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let agent = self
            .0
            .get()
            .and_then(Weak::upgrade)
            .ok_or(ToolError::Failed("no agent".into()))?;
        let task = args["task"].as_str().unwrap_or_default();
        agent
            .run_ephemeral(task, "Agent", ctx)
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))
    }
}

fn setup(backend: Arc<FakeBackend>) -> Arc<Agent> {
    let spawn = Arc::new(Spawn(OnceLock::new()));
    let mut reg = ToolRegistry::new();
    reg.register(spawn.clone());
    let profiles = Arc::new(StaticProfiles::single("", Profile::new("Agent", "m")));
    let agent = Agent::builder(backend, profiles).tools(reg).build();
    spawn.0.set(Arc::downgrade(&agent)).ok();
    agent
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
    let agent = setup(backend.clone());
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
    // The sub-agent kept nothing in the parent's store.
    assert!(
        agent
            .store()
            .history(&child[0].scope.session_id)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn stop_reaches_the_subagent() {
    let backend = FakeBackend::new();
    backend.push(vec![
        call(Some("c1"), "spawn_agent", json!({"task": "slow"})),
        done(),
    ]);
    backend.push(vec![text("child working"), Piece::Stall]);
    let agent = setup(backend.clone());
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
    assert!(
        t.elapsed() < Duration::from_millis(100),
        "{:?}",
        t.elapsed()
    );
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
}

#[tokio::test]
async fn nesting_beyond_the_depth_limit_is_refused() {
    let agent = setup(FakeBackend::new());
    let ctx = ToolContext {
        session_id: "s".into(),
        run_id: "r".into(),
        call_id: "c".into(),
        cancel: Default::default(),
        events: EventSink::discard(RunScope::top("s", "r")),
        workspace: None,
        approver: None,
        depth: 2,
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
