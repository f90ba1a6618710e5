//! Shared setup: a simulator, an agent over the real client, event helpers.

use std::sync::Arc;

use hearth_core::{Agent, Profile, StaticProfiles, ToolRegistry, tools::builtin_registry};
use hearth_openai::{ApiKey, Client, ClientOptions, OpenAiBackend};
use hearth_sim::SimHandle;

pub use hearth_test_support::{MODEL, events, last, model, sim, text_of};

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
