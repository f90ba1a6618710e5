//! Shared setup: a simulator, an agent over the real client, event helpers.

use std::sync::Arc;
use std::time::Duration;

use hearth_core::{
    Agent, Profile, RunHandle, StaticProfiles, ToolRegistry, tools::builtin_registry,
};
use hearth_openai::{ApiKey, Client, ClientOptions, OpenAiBackend};
use hearth_protocol::{AgentEvent, EventKind};
use hearth_sim::{ModelSpec, Script, Sim, SimHandle};

pub const MODEL: &str = "m:latest";

pub fn model() -> ModelSpec {
    ModelSpec::new(MODEL).with_capabilities(&["completion", "tools"])
}

pub async fn sim(script: Script) -> SimHandle {
    Sim::start(script).await.expect("sim starts")
}

/// The simulator's OpenAI root.
pub fn base(sim: &SimHandle) -> String {
    format!("{}/v1", sim.url())
}

pub fn client(sim: &SimHandle) -> Client {
    client_with(sim, None, ClientOptions::default())
}

pub fn client_with(sim: &SimHandle, key: Option<&str>, opts: ClientOptions) -> Client {
    Client::new(&base(sim), key.and_then(ApiKey::new), opts).unwrap()
}

pub fn agent_over(client: Client, tools: ToolRegistry, max_iterations: u32) -> Arc<Agent> {
    let mut p = Profile::new("Agent", MODEL);
    p.max_iterations = max_iterations;
    let profiles = Arc::new(StaticProfiles::single("", p));
    Agent::builder(Arc::new(OpenAiBackend::new(client)), profiles)
        .tools(tools)
        .build()
}

pub fn agent_with(sim: &SimHandle, max_iterations: u32, opts: ClientOptions) -> Arc<Agent> {
    agent_over(
        client_with(sim, None, opts),
        builtin_registry(),
        max_iterations,
    )
}

pub fn agent(sim: &SimHandle) -> Arc<Agent> {
    agent_with(sim, 20, ClientOptions::default())
}

/// Events until the run's terminal event (10 s timeout).
pub async fn events(run: &mut RunHandle) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(10), run.next_event()).await {
            Ok(Some(e)) => {
                let end = e.kind.is_terminal();
                out.push(e);
                if end {
                    return out;
                }
            }
            Ok(None) => return out,
            Err(_) => panic!("run did not end: {out:#?}"),
        }
    }
}

pub fn last(events: &[AgentEvent]) -> &EventKind {
    &events.last().expect("some events").kind
}

pub fn text_of(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TextDelta { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}
