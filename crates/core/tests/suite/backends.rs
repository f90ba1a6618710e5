//! Per-profile backends (`Profile::backend` + `AgentBuilder::named_backend`):
//! a profile picks the server, a switch mid-turn moves the next call to the
//! other one, and an unknown name is an error the user can fix.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hearth_core::{Agent, Profile, StaticProfiles, ToolRegistry};
use hearth_protocol::{ErrorCode, EventKind};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::probe::Switch;
use crate::fake::{FakeBackend, call, done, events, kinds, text};

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
            .contains("backend `vllm`, which is not configured"),
        "{}",
        error.message
    );
    assert!(default.requests().is_empty(), "no fallback to the default");
}
