//! Shared setup: a simulator, an agent over the real client, event helpers.

use std::sync::Arc;

use hearth_core::{Agent, Profile, StaticProfiles, ToolRegistry, tools::builtin_registry};
use hearth_ollama::{Client, ClientOptions, OllamaBackend};
use hearth_sim::SimHandle;

pub use hearth_test_support::{MODEL, events, last, model, sim, text_of};

pub fn client(sim: &SimHandle) -> Client {
    client_with(sim, ClientOptions::default())
}

pub fn client_with(sim: &SimHandle, opts: ClientOptions) -> Client {
    Client::new(&sim.url(), opts).unwrap()
}

pub fn agent_with(
    sim: &SimHandle,
    tools: ToolRegistry,
    max_iterations: u32,
    opts: ClientOptions,
) -> Arc<Agent> {
    let mut p = Profile::new("Agent", MODEL);
    p.max_iterations = max_iterations;
    let profiles = Arc::new(StaticProfiles::single("", p));
    Agent::builder(
        Arc::new(OllamaBackend::new(client_with(sim, opts))),
        profiles,
    )
    .tools(tools)
    .build()
}

pub fn agent(sim: &SimHandle) -> Arc<Agent> {
    agent_with(sim, builtin_registry(), 20, ClientOptions::default())
}
