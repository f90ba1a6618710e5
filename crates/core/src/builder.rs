//! Building an [`Agent`]: backends, store, tools, settings, memory, workers.

use std::sync::Arc;

use crate::agent::Agent;
use crate::approvals::Approvals;
use crate::backend::ModelBackend;
use crate::memory::{MemorySource, MemoryWriter};
use crate::profile::ProfileProvider;
use crate::settings::ModelSettings;
use crate::store::{InMemoryStore, SessionStore};
use crate::tool::ToolRegistry;
use crate::tools::SpawnAgent;
use crate::workers::PostTurnWorker;

/// Builds an [`Agent`].
pub struct AgentBuilder {
    pub(crate) backend: Arc<dyn ModelBackend>,
    pub(crate) hosts: Arc<crate::hosts::Hosts>,
    pub(crate) profiles: Arc<dyn ProfileProvider>,
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) tools: ToolRegistry,
    pub(crate) hooks: Arc<dyn crate::hooks::Hooks>,
    pub(crate) settings: Arc<ModelSettings>,
    pub(crate) memory: Option<String>,
    pub(crate) memory_source: Option<Arc<dyn MemorySource>>,
    pub(crate) workers: Vec<Arc<dyn PostTurnWorker>>,
    pub(crate) max_depth: u32,
    pub(crate) approvals: Arc<Approvals>,
    pub(crate) subagents: bool,
    pub(crate) memory_writer: Option<Arc<dyn MemoryWriter>>,
    pub(crate) memory_vote: Option<Arc<crate::workers::fact_vote::FactVote>>,
}

impl Agent {
    /// Start building an agent over `backend` with `profiles`.
    pub fn builder(
        backend: Arc<dyn ModelBackend>,
        profiles: Arc<dyn ProfileProvider>,
    ) -> AgentBuilder {
        AgentBuilder {
            backend,
            hosts: crate::hosts::Hosts::new(),
            profiles,
            store: Arc::new(InMemoryStore::new()),
            tools: ToolRegistry::new(),
            hooks: Arc::new(crate::hooks::NoHooks),
            settings: Arc::new(ModelSettings::default()),
            memory: None,
            memory_source: None,
            workers: Vec::new(),
            max_depth: 2,
            approvals: Arc::default(),
            subagents: false,
            memory_writer: None,
            memory_vote: None,
        }
    }
}

impl AgentBuilder {
    /// Where each session's memory snapshot comes from (overrides
    /// [`AgentBuilder::memory`] for top-level runs).
    pub fn memory_source(mut self, source: Arc<dyn MemorySource>) -> Self {
        self.memory_source = Some(source);
        self
    }

    /// Where the memory flush before a compaction writes durable facts
    /// (docs/background.md §3.8); without one, compaction summarizes only.
    pub fn memory_writer(mut self, writer: Arc<dyn MemoryWriter>) -> Self {
        self.memory_writer = Some(writer);
        self
    }

    /// Which of the user's sentences memory asks the model about, by their
    /// nearest labelled examples (`workers::fact_vote`); without it, all.
    pub fn memory_vote(mut self, vote: Arc<crate::workers::fact_vote::FactVote>) -> Self {
        self.memory_vote = Some(vote);
        self
    }

    /// A worker run after each completed streaming turn, in the order added.
    pub fn worker(mut self, worker: Arc<dyn PostTurnWorker>) -> Self {
        self.workers.push(worker);
        self
    }

    /// Sessions in `store` (default: in memory).
    pub fn store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.store = store;
        self
    }

    /// A further backend that profiles select by `name` (`Profile::backend`);
    /// profiles without one use the default backend.
    pub fn named_backend(self, name: impl Into<String>, backend: Arc<dyn ModelBackend>) -> Self {
        self.hosts.set(name, backend);
        self
    }

    /// Share `hosts` with the front end, which may add and remove hosts
    /// while the agent runs (replaces the hosts named so far).
    pub fn hosts(mut self, hosts: Arc<crate::hosts::Hosts>) -> Self {
        self.hosts = hosts;
        self
    }

    /// Tools the model may call (default: none).
    pub fn tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = tools;
        self
    }

    /// Per-model load options (default: [`ModelSettings::default`]).
    pub fn settings(mut self, settings: Arc<ModelSettings>) -> Self {
        self.settings = settings;
        self
    }

    /// The user memory summary given to sessions (a snapshot: docs/design.md §5).
    pub fn memory(mut self, memory: Option<String>) -> Self {
        self.memory = memory;
        self
    }

    /// Where approval requests wait (default: the agent's own). Share one
    /// between agents when a front end may rebuild its agent while runs of
    /// the old one still ask.
    pub fn approvals(mut self, approvals: Arc<Approvals>) -> Self {
        self.approvals = approvals;
        self
    }

    /// Offer the `spawn_agent` tool (sub-agents with a named profile, up
    /// to the depth limit).
    pub fn subagents(mut self) -> Self {
        self.subagents = true;
        self
    }

    /// Hooks around every tool call and before every model call.
    pub fn hooks(mut self, hooks: Arc<dyn crate::hooks::Hooks>) -> Self {
        self.hooks = hooks;
        self
    }

    /// The agent.
    pub fn build(self) -> Arc<Agent> {
        // The agent owns its tools and spawn_agent needs the agent: it gets
        // a weak reference to the agent being built.
        Arc::new_cyclic(|agent| {
            let mut tools = self.tools;
            if self.subagents {
                tools.register(Arc::new(SpawnAgent::new(agent.clone())));
            }
            Agent {
                deps: crate::deps::Deps {
                    backend: self.backend,
                    hosts: self.hosts,
                    profiles: self.profiles,
                    store: self.store,
                    tools,
                    hooks: self.hooks,
                    settings: self.settings,
                    memory: self.memory,
                    memory_source: self.memory_source,
                    workers: self.workers,
                    background: std::sync::Mutex::new(tokio_util::sync::CancellationToken::new()),
                    max_depth: self.max_depth,
                    approvals: self.approvals,
                    memory_writer: self.memory_writer,
                    memory_vote: self.memory_vote,
                    counter: crate::budget::TokenCounter::default(),
                    summarizers: Arc::default(),
                    speeds: crate::answer_cap::Speeds::default(),
                    reported_windows: std::sync::Mutex::default(),
                    loads: crate::loads::Loads::default(),
                    stale_runs: crate::run_end::StaleRuns::default(),
                },
            }
        })
    }
}
