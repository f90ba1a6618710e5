//! What the crates' integration tests share, instead of a copy in each:
//! the simulator's usual model, a run's events drained to its end (every
//! wait bounded), and readings of them; a tool call's context outside a
//! run ([`tool_context`]); the speech tests' word error rate and test tools
//! ([`speech`]). A dev-dependency only; nothing that ships
//! depends on it.

// Test code: a failed expectation is a failed test, said where it failed.
#![allow(clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::Duration;

pub mod speech;

use hearth_core::{EventSink, RunHandle, ToolContext};
use hearth_protocol::{AgentEvent, EventKind, RunScope};
use hearth_sim::{ModelSpec, Script, Sim, SimHandle};

/// The model the simulator serves in these tests.
pub const MODEL: &str = "m:latest";

/// [`MODEL`], able to complete and to call tools.
pub fn model() -> ModelSpec {
    ModelSpec::new(MODEL).with_capabilities(&["completion", "tools"])
}

/// A simulator on loopback playing `script`.
pub async fn sim(script: Script) -> SimHandle {
    Sim::start(script).await.expect("sim starts")
}

/// The context of a tool called directly, outside any run: session
/// `session` (run `r`, call `c`), confined to `workspace` when given, the
/// sandbox required, nothing read-only, no approver.
pub fn tool_context(session: &str, workspace: Option<&Path>) -> ToolContext {
    ToolContext {
        session_id: session.into(),
        conversation: session.into(),
        run_id: "r".into(),
        call_id: "c".into(),
        cancel: Default::default(),
        events: EventSink::discard(RunScope::top(session, "r")),
        workspace: workspace.map(Path::to_path_buf),
        scope: Default::default(),
        approver: None,
        depth: 0,
        sandbox_off: false,
        read_only: false,
        window: 0,
    }
}

/// How long a test waits for a run's next event before it fails.
pub const EVENT_WITHIN: Duration = Duration::from_secs(10);

/// A run's events until its own terminal event (a sub-agent's end is not
/// the run's), each waited for at most [`EVENT_WITHIN`].
pub async fn events(run: &mut RunHandle) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    loop {
        match tokio::time::timeout(EVENT_WITHIN, run.next_event()).await {
            Ok(Some(e)) => {
                let end = e.kind.is_terminal() && !e.scope.is_subagent;
                out.push(e);
                if end {
                    return out;
                }
            }
            Ok(None) => return out,
            Err(_) => panic!("run did not end; events so far: {out:#?}"),
        }
    }
}

/// The last event's kind.
pub fn last(events: &[AgentEvent]) -> &EventKind {
    &events.last().expect("some events").kind
}

/// The answer's text as its deltas brought it.
pub fn text_of(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TextDelta { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}
