//! A scripted model backend: each call pops the next script, the test
//! inspects every request the loop made.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use hearth_core::{
    Agent, BackendError, DoneInfo, LoadOptions, ModelBackend, ModelDelta, ModelRequest,
    ModelStream, Profile, RawToolCall, StaticProfiles, ToolRegistry,
};
use hearth_protocol::{AgentEvent, EventKind};
use serde_json::Value;

/// One step of a scripted answer.
#[derive(Clone)]
pub enum Piece {
    Delta(ModelDelta),
    Fail(BackendError),
    /// Never yield again (until dropped).
    Stall,
    /// Panic inside the stream (a bug anywhere in the loop's path).
    Panic(&'static str),
}

#[derive(Default)]
pub struct FakeBackend {
    scripts: Mutex<VecDeque<Vec<Piece>>>,
    pub requests: Mutex<Vec<ModelRequest>>,
    pub preloads: AtomicUsize,
    pub preloads_done: AtomicUsize,
    pub preload_delay: Mutex<Duration>,
    pub open_delay: Mutex<Duration>,
    /// Streams dropped before their end (connection closed by Stop).
    pub dropped: Arc<AtomicUsize>,
    /// The model's parameter count, as a server would say it.
    pub parameters: Mutex<Option<u64>>,
    /// The server never says the model's size (a listing that hangs).
    pub size_hangs: std::sync::atomic::AtomicBool,
}

pub fn text(s: &str) -> Piece {
    Piece::Delta(ModelDelta::Text(s.into()))
}

pub fn done() -> Piece {
    Piece::Delta(ModelDelta::Done(DoneInfo::default()))
}

pub fn call(id: Option<&str>, name: &str, args: Value) -> Piece {
    Piece::Delta(ModelDelta::ToolCalls(vec![RawToolCall {
        id: id.map(str::to_owned),
        name: name.into(),
        arguments: args,
    }]))
}

impl FakeBackend {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn push(&self, pieces: Vec<Piece>) {
        self.scripts.lock().unwrap().push_back(pieces);
    }

    pub fn requests(&self) -> Vec<ModelRequest> {
        self.requests.lock().unwrap().clone()
    }
}

/// Counts streams dropped before their end (as a closed connection).
struct DropGuard(Arc<AtomicUsize>, bool);
impl DropGuard {
    fn finish(&mut self) {
        self.1 = true;
    }
}
impl Drop for DropGuard {
    fn drop(&mut self) {
        if !self.1 {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[async_trait]
impl ModelBackend for FakeBackend {
    async fn chat(&self, request: ModelRequest) -> Result<ModelStream, BackendError> {
        self.requests.lock().unwrap().push(request);
        let delay = *self.open_delay.lock().unwrap();
        let guard = DropGuard(self.dropped.clone(), false);
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let pieces = self
            .scripts
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| vec![text("(no script)"), done()]);
        let s = futures::stream::unfold(
            (pieces.into_iter(), guard),
            |(mut it, mut guard)| async move {
                loop {
                    match it.next() {
                        None => {
                            guard.finish();
                            return None;
                        }
                        Some(Piece::Stall) => futures::future::pending::<()>().await,
                        Some(Piece::Panic(why)) => panic!("{why}"),
                        Some(Piece::Fail(e)) => {
                            guard.finish();
                            return Some((Err(e), (it, guard)));
                        }
                        Some(Piece::Delta(d)) => {
                            if matches!(d, ModelDelta::Done(_)) {
                                guard.finish();
                            }
                            return Some((Ok(d), (it, guard)));
                        }
                    }
                }
            },
        );
        Ok(s.boxed())
    }

    async fn preload(&self, _model: &str, _load: &LoadOptions) -> Result<(), BackendError> {
        self.preloads.fetch_add(1, Ordering::SeqCst);
        let d = *self.preload_delay.lock().unwrap();
        tokio::time::sleep(d).await;
        self.preloads_done.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    async fn unload(&self, _model: &str) -> Result<(), BackendError> {
        Ok(())
    }

    async fn parameter_count(&self, _model: &str) -> Option<u64> {
        if self.size_hangs.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        *self.parameters.lock().unwrap()
    }
}

pub fn agent(
    backend: Arc<FakeBackend>,
    tools: ToolRegistry,
    profile: Profile,
) -> (Arc<Agent>, Arc<StaticProfiles>) {
    let profiles = Arc::new(StaticProfiles::single("Persona", profile));
    let agent = Agent::builder(backend, profiles.clone())
        .tools(tools)
        .build();
    (agent, profiles)
}

pub use hearth_test_support::events;

/// The kinds of `events`, in order, without `context_usage` (a status
/// sent before every model call; the budget tests read it themselves) and
/// `message_stored` (sent after every append; suite::stored reads it).
pub fn kinds(events: &[AgentEvent]) -> Vec<&'static str> {
    events
        .iter()
        .filter(|e| {
            // Progress (the context gauge, a load, a call being written)
            // and storage notices are not the run's story.
            !matches!(
                e.kind,
                EventKind::ContextUsage { .. }
                    | EventKind::MessageStored { .. }
                    | EventKind::ModelLoading { .. }
                    | EventKind::ModelLoaded { .. }
                    | EventKind::ToolCallWriting { .. }
            )
        })
        .map(|e| match e.kind {
            EventKind::RunStarted { .. } => "run_started",
            EventKind::PlanReady { .. } => "plan_ready",
            EventKind::PlanDelta { .. } => "plan_delta",
            EventKind::PlanProgress { .. } => "plan_progress",
            EventKind::ThinkingDelta { .. } => "thinking",
            EventKind::TextDelta { .. } => "text",
            EventKind::ToolStarted { .. } => "tool_started",
            EventKind::ToolEvent { .. } => "tool_event",
            EventKind::Usage { .. } => "usage",
            EventKind::QueuedMessageSent { .. } => "queued_sent",
            EventKind::ApprovalRequested { .. } => "approval_requested",
            EventKind::ApprovalResolved { .. } => "approval_resolved",
            EventKind::StreamEnd { .. } => "end",
            EventKind::StreamStopped { .. } => "stopped",
            EventKind::Error { .. } => "error",
            EventKind::ContextUsage { .. } => "context_usage",
            EventKind::ContextCompacted { .. } => "context_compacted",
            EventKind::InputFlagged { .. } => "input_flagged",
            EventKind::MessageStored { .. } => "message_stored",
            EventKind::ProfileSwitched { .. } => "profile_switched",
            EventKind::HostFailover { .. } => "host_failover",
            // A kind this helper does not know yet: a test that sees it
            // fails on the name.
            _ => "unknown",
        })
        .collect()
}
