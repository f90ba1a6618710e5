//! Per-profile backends (`Profile::backend` + `AgentBuilder::named_backend`):
//! a profile picks the server, a switch mid-turn moves the next call to the
//! other one, and an unknown name is an error the user can fix. Failover:
//! a host that cannot be reached before any output hands the run to the
//! next one, announced; one lost mid-answer ends the answer.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hearth_core::{
    Agent, BackendError, LoadOptions, ModelBackend, ModelRequest, ModelStream, Profile,
    StaticProfiles, ToolRegistry,
};
use hearth_protocol::{ErrorCode, EventKind};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::probe::Switch;
use crate::fake::{FakeBackend, Piece, call, done, events, kinds, text};

fn with_backend(name: &str, model: &str, backend: Option<&str>) -> Profile {
    let mut p = Profile::new(name, model);
    p.backend = backend.map(str::to_owned);
    p
}

#[tokio::test]
async fn a_profile_names_its_backend_and_a_switch_moves_the_next_call() {
    let default = FakeBackend::new();
    let other = FakeBackend::new();
    default.push(vec![
        call(None, "switch_profile", json!({"name": "Local"})),
        done(),
    ]);
    other.push(vec![text("from the other server"), done()]);
    let profiles = Arc::new(StaticProfiles::single("", Profile::new("Chat", "m")));
    profiles.upsert(with_backend("Local", "m", Some("openai")));
    let mut tools = ToolRegistry::new();
    tools.register(Arc::new(Switch(profiles.clone())));
    let agent = Agent::builder(default.clone(), profiles)
        .named_backend("openai", other.clone())
        .tools(tools)
        .build();
    let mut run = agent.run_stream("s", "switch");
    let evs = events(&mut run).await;
    assert_eq!(kinds(&evs).last(), Some(&"end"), "{evs:#?}");
    assert_eq!(default.requests().len(), 1);
    assert_eq!(other.requests().len(), 1);
    // Same model name, other server: it is preloaded there too.
    assert_eq!(other.preloads.load(Ordering::SeqCst), 1);
    // The other server sees the whole conversation, tool result included.
    let msgs = &other.requests()[0].messages;
    assert_eq!(msgs.last().unwrap().content, "switched to Local");
}

#[tokio::test]
async fn an_unknown_backend_name_is_an_error_to_fix_in_the_profile() {
    let default = FakeBackend::new();
    let profiles = Arc::new(StaticProfiles::single(
        "",
        with_backend("Remote", "m", Some("vllm")),
    ));
    let agent = Agent::builder(default.clone(), profiles).build();
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = &evs.last().unwrap().kind else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::InvalidInput);
    assert!(
        error
            .message
            .contains("host `vllm`, which is not configured"),
        "{}",
        error.message
    );
    assert!(default.requests().is_empty(), "no fallback to the default");
}

/// A host that refuses every connection.
#[derive(Default)]
struct Down {
    tries: std::sync::atomic::AtomicUsize,
}

fn unreachable() -> BackendError {
    BackendError::Unreachable {
        url: "http://gpu1:11434".into(),
        detail: "connection refused".into(),
    }
}

#[async_trait::async_trait]
impl ModelBackend for Down {
    async fn chat(&self, _request: ModelRequest) -> Result<ModelStream, BackendError> {
        self.tries.fetch_add(1, Ordering::SeqCst);
        Err(unreachable())
    }

    async fn preload(&self, _model: &str, _load: &LoadOptions) -> Result<(), BackendError> {
        self.tries.fetch_add(1, Ordering::SeqCst);
        Err(unreachable())
    }

    async fn unload(&self, _model: &str) -> Result<(), BackendError> {
        Err(unreachable())
    }
}

fn failing_over(to: &[&str]) -> Profile {
    let mut p = with_backend("Chat", "m", Some("gpu1"));
    p.failover = to.iter().map(|s| (*s).to_owned()).collect();
    p
}

#[tokio::test]
async fn an_unreachable_host_hands_the_run_to_its_failover_and_says_so() {
    let (down, spare) = (Arc::new(Down::default()), FakeBackend::new());
    spare.push(vec![text("from the spare"), done()]);
    let profiles = Arc::new(StaticProfiles::single("", failing_over(&["gone", "gpu2"])));
    let agent = Agent::builder(FakeBackend::new(), profiles)
        .named_backend("gpu1", down.clone())
        .named_backend("gpu2", spare.clone())
        .build();
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    assert_eq!(kinds(&evs).last(), Some(&"end"), "{evs:#?}");
    let moves: Vec<_> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::HostFailover { from, to, reason } => Some((from, to, reason)),
            _ => None,
        })
        .collect();
    // Once, from the profile's host to the first configured failover
    // ("gone" is not configured), before any text.
    assert_eq!(moves.len(), 1, "{evs:#?}");
    assert_eq!((moves[0].0.as_str(), moves[0].1.as_str()), ("gpu1", "gpu2"));
    assert!(moves[0].2.contains("connection refused"), "{}", moves[0].2);
    let first_move = kinds(&evs).iter().position(|k| *k == "host_failover");
    let first_text = kinds(&evs).iter().position(|k| *k == "text");
    assert!(first_move < first_text, "{evs:#?}");
    assert_eq!(spare.requests().len(), 1);
    // The preload found gpu1 down; the call went straight to gpu2.
    assert_eq!(down.tries.load(Ordering::SeqCst), 1);
}

/// Runs "hi" on a profile on `gpu1` failing over to `to` (`gpu2` is
/// `spare`); the run's events, which must end with an unreachable error.
async fn unreachable_end(
    gpu1: Arc<dyn ModelBackend>,
    spare: Arc<FakeBackend>,
    to: &[&str],
) -> Vec<hearth_protocol::AgentEvent> {
    let profiles = Arc::new(StaticProfiles::single("", failing_over(to)));
    let agent = Agent::builder(FakeBackend::new(), profiles)
        .named_backend("gpu1", gpu1)
        .named_backend("gpu2", spare)
        .build();
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = &evs.last().unwrap().kind else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::BackendUnreachable, "{error:?}");
    evs
}

#[tokio::test]
async fn a_host_lost_mid_answer_ends_the_answer_without_a_switch() {
    let (primary, spare) = (FakeBackend::new(), FakeBackend::new());
    primary.push(vec![text("half an answer"), Piece::Fail(unreachable())]);
    let evs = unreachable_end(primary, spare.clone(), &["gpu2"]).await;
    assert!(!kinds(&evs).contains(&"host_failover"), "{evs:#?}");
    assert!(spare.requests().is_empty(), "no silent switch mid-answer");
    assert_eq!(spare.preloads.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn without_failover_an_unreachable_host_is_the_error() {
    let (down, spare) = (Arc::new(Down::default()), FakeBackend::new());
    unreachable_end(down, spare.clone(), &[]).await;
    assert!(spare.requests().is_empty());
}
