//! One composition of the agent, shared by the desktop app, the CLI and the
//! benchmarks (docs/architecture.md, "One composition"): the same tools,
//! post-turn workers, memory and settings over the model servers the front
//! end names. Ollama is the default backend; an OpenAI-compatible server
//! (llama.cpp, LM Studio, vLLM, LocalAI) is registered under the name
//! [`OPENAI`], and a profile whose `backend` says so uses it. What the
//! agent is composed from is read from the database in one call, [`open`].

pub mod first_run;
pub mod hosts;
pub mod keys;
mod knowledge;
mod mcp_store;
mod open;

pub use knowledge::{
    KNOWLEDGE_FILE, KnowledgeTools, PASSAGES_FILE, PASSAGES_PER_MESSAGE, answer_citations,
    knowledge_path, open_knowledge, passages_for,
};
pub use open::{Inputs, OpenError, UnusableHooks, open};

use std::path::PathBuf;
use std::sync::Arc;

use hearth_core::compaction::CompactionWorker;
use hearth_core::tools::{ReadAttachment, Remember, SwitchProfile, builtin_registry};
use hearth_core::workers::fact_vote::{ChosenModel, FactVote};
use hearth_core::workers::{MemoryWorker, TitleWorker};
use hearth_core::{
    Agent, Approvals, BackendError, Hosts, ModelBackend, ModelSettings, ProfileProvider,
    ToolRegistry,
};
use hearth_openai::ApiKey;
use hearth_store::{Host, HostKind, Profiles, Store};

/// The name the OpenAI-compatible backend is registered under (what a
/// profile's `backend` says to use it).
pub const OPENAI: &str = "openai";

/// An Ollama server: its base URL, the client for the models panel (tags,
/// ps, show, pull), and the backend the agent talks to.
#[derive(Clone)]
pub struct Ollama {
    /// The base URL in use.
    pub url: String,
    /// The client, for what is not the agent's (the models panel).
    pub client: hearth_ollama::Client,
    /// The same client as the agent's backend.
    pub backend: Arc<dyn ModelBackend>,
}

/// Ollama at `url` (`$OLLAMA_HOST`, then the default, when `None`).
pub fn ollama(url: Option<&str>) -> Result<Ollama, BackendError> {
    let url = hearth_ollama::resolve_base_url(url);
    let client = hearth_ollama::Client::new(&url, hearth_ollama::ClientOptions::default())?;
    let backend = Arc::new(hearth_ollama::OllamaBackend::new(client.clone()));
    Ok(Ollama {
        url,
        client,
        backend,
    })
}

/// An OpenAI-compatible server at `url` (its root or its `/v1`), with
/// `key` sent as a bearer token when given.
pub fn openai(
    url: Option<&str>,
    key: Option<ApiKey>,
) -> Result<Arc<dyn ModelBackend>, BackendError> {
    let client = hearth_openai::Client::new(
        &hearth_openai::resolve_base_url(url),
        key,
        hearth_openai::ClientOptions::default(),
    )?;
    Ok(Arc::new(hearth_openai::OpenAiBackend::new(client)))
}

/// The backend for a host the user added, its requests carrying `key`
/// (see [`keys::of`]). Ollama itself takes no key.
pub fn host_backend(
    host: &Host,
    key: Option<ApiKey>,
) -> Result<Arc<dyn ModelBackend>, BackendError> {
    match host.kind {
        HostKind::Ollama => Ok(ollama(Some(&host.url))?.backend),
        HostKind::Openai => openai(Some(&host.url), key),
    }
}

/// The hosts saved in `store`, ready for the agent, each with its key
/// from the secret store. One that cannot be built (a URL a newer build
/// wrote) is reported and left out: a profile naming it says so when it
/// runs.
pub async fn saved_hosts(store: &Store) -> Arc<Hosts> {
    let hosts = Hosts::new();
    match store.hosts().await {
        Ok(saved) => {
            // Read at once: a keyring that does not answer delays the start
            // by one wait, not one per host.
            let keys = futures::future::join_all(saved.iter().map(keys::of)).await;
            for (h, key) in saved.into_iter().zip(keys) {
                match host_backend(&h, key) {
                    Ok(b) => hosts.set(h.name, b),
                    Err(e) => tracing::warn!("host `{}` is unusable: {e}", h.name),
                }
            }
        }
        Err(e) => tracing::warn!("the saved hosts cannot be read: {e}"),
    }
    hosts
}

/// What a front end brings to the composition.
pub struct Parts {
    /// The default backend (Ollama; the app's is a `BackendSlot`, so a URL
    /// change swaps the client inside the agent).
    pub backend: Arc<dyn ModelBackend>,
    /// Backends a profile selects by name (`profile.backend`) that the
    /// front end brings (the settings' OpenAI-compatible server, `--backend`).
    pub named: Vec<(String, Arc<dyn ModelBackend>)>,
    /// The hosts the user added ([`saved_hosts`]), shared so the front end
    /// can add and remove them while the agent runs; `named` joins them.
    pub hosts: Arc<Hosts>,
    /// The profiles runs read (the CLI wraps the store's with its flags).
    pub provider: Arc<dyn ProfileProvider>,
    /// The store's profiles, for the `switch_profile` tool.
    pub profiles: Arc<Profiles>,
    /// Sessions, memory, traces.
    pub store: Arc<Store>,
    /// Per-model load options.
    pub settings: Arc<ModelSettings>,
    /// Approval requests, shared with whatever answers them.
    pub approvals: Arc<Approvals>,
    /// The MCP servers the user configured ([`mcp_hub`]).
    pub mcp: Arc<hearth_mcp::Hub>,
    /// The user's hooks ([`hooks`]).
    pub hooks: Arc<dyn hearth_core::hooks::Hooks>,
    /// The user's skills ([`skills`]).
    pub skills: Arc<hearth_tools::Skills>,
    /// The knowledge index ([`open_knowledge`]): `search_knowledge` is
    /// offered while it has a folder.
    pub knowledge: Option<hearth_knowledge::Index>,
}

/// The variable that names another skills folder.
pub const SKILLS_DIR_ENV: &str = "HEARTH_SKILLS_DIR";

/// The user's skills folder: `$HEARTH_SKILLS_DIR`, else `skills` beside
/// the database (`~/.local/share/hearth/skills` on Linux). It sits inside
/// Hearth's data folder, which sandboxed commands can only read, so the
/// model cannot write itself a skill.
pub fn skills_folder(store: &Store) -> PathBuf {
    match std::env::var_os(SKILLS_DIR_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => store
            .path()
            .parent()
            .unwrap_or_else(|| std::path::Path::new("."))
            .join("skills"),
    }
}

/// The user's skills, read from [`skills_folder`] now and again before
/// each model call; one linked in from a profile's workspace is not
/// offered (the model could rewrite it there).
pub fn skills(store: &Store, profiles: &Arc<Profiles>) -> Arc<hearth_tools::Skills> {
    let profiles = profiles.clone();
    Arc::new(hearth_tools::Skills::outside(
        skills_folder(store),
        move || workspaces(&profiles),
    ))
}

/// Every profile's workspace.
pub fn workspaces(profiles: &Profiles) -> Vec<PathBuf> {
    profiles
        .list()
        .into_iter()
        .filter_map(|p| p.workspace)
        .collect()
}

/// The hooks saved in `store`, or, when they cannot be used, hooks that
/// block every tool call with the reason (the app still opens and chats;
/// no tool runs unchecked).
pub async fn hooks_or_blocking(store: &Store) -> Arc<dyn hearth_core::hooks::Hooks> {
    match hooks(store).await {
        Ok(h) => h,
        Err(e) => {
            tracing::warn!("the hooks cannot be used, so tool calls are blocked: {e}");
            Arc::new(Unusable(e.to_string()))
        }
    }
}

/// Why a hook in `config` can be rewritten by a model: it runs a script
/// inside a profile's workspace (security review N13). Shown by `hearth
/// hooks` and the Tools panel; the hooks still run.
pub async fn hook_warnings(store: &Store, config: &hearth_tools::HookConfig) -> Vec<String> {
    let workspaces: Vec<PathBuf> = match Profiles::load(store).await {
        Ok(p) => workspaces(&p),
        Err(e) => {
            return vec![format!(
                "the profiles could not be read to check the hooks: {e}"
            )];
        }
    };
    config.in_workspaces(&workspaces)
}

/// Hooks whose configuration cannot be used: every tool call is blocked.
struct Unusable(String);

#[async_trait::async_trait]
impl hearth_core::hooks::Hooks for Unusable {
    async fn before_tool_call(
        &self,
        _call: &hearth_core::ToolCall,
        _ctx: &hearth_core::ToolContext,
    ) -> hearth_core::hooks::Before {
        hearth_core::hooks::Before::Block(format!(
            "blocked: the user's hook configuration cannot be used ({}); no tool runs until it is fixed",
            self.0
        ))
    }
}

/// Why the saved hooks cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum HooksError {
    /// The database failed; [`hearth_store::StoreError::failure`] says
    /// whether a retry may pass.
    #[error(transparent)]
    Store(#[from] hearth_store::StoreError),
    /// The saved configuration does not parse: the user fixes it.
    #[error(transparent)]
    Config(#[from] hearth_tools::HookConfigError),
    /// This program cannot be found to run the hooks' sandbox.
    #[error("cannot find this program for the hooks' sandbox: {0}")]
    NoLauncher(std::io::Error),
}

/// The hooks saved in `store`, run as sandboxed commands through this
/// binary (none when never saved). A saved configuration that no longer
/// parses is an error: running tools without the hooks the user set would
/// skip the checks they rely on.
pub async fn hooks(store: &Store) -> Result<Arc<dyn hearth_core::hooks::Hooks>, HooksError> {
    let config = match store.hooks_json().await? {
        Some(json) => hearth_tools::HookConfig::parse(&json)?,
        None => hearth_tools::HookConfig::default(),
    };
    if config.is_empty() {
        return Ok(Arc::new(hearth_core::hooks::NoHooks));
    }
    let launcher = std::env::current_exe().map_err(HooksError::NoLauncher)?;
    let mut protected = data_folder(store);
    protected.push(skills_folder(store));
    Ok(Arc::new(
        hearth_tools::CommandHooks::new(config, launcher).protecting(protected),
    ))
}

/// The MCP servers saved in `store`, none started (a profile that names
/// one starts it). A saved configuration that no longer parses is reported
/// and treated as empty: the app must still open.
pub async fn mcp_hub(store: &Store) -> Arc<hearth_mcp::Hub> {
    let servers = mcp_servers(store).await.unwrap_or_else(|e| {
        tracing::warn!("the saved MCP configuration is unusable: {e}");
        Default::default()
    });
    hearth_mcp::Hub::with_listings(servers, Arc::new(mcp_store::KeptListings(store.clone())))
}

pub use mcp_store::{
    McpStoreError, SecretsKept, mcp_servers, mcp_servers_as_stored, save_mcp_servers,
};

/// The tools every front end offers: the core's, the file and shell tools
/// (Hearth's data folder stays read-only to sandboxed commands: one that
/// edited it could turn its own sandbox off; the skills folder too: one
/// that wrote a skill would instruct every later session), `switch_profile`,
/// `remember`, `read_attachment`, the tools of the MCP servers a profile names, and
/// `load_skill` over the skills it enables.
pub fn tools(
    store: &Arc<Store>,
    profiles: &Arc<Profiles>,
    mcp: &Arc<hearth_mcp::Hub>,
    skills: &Arc<hearth_tools::Skills>,
) -> ToolRegistry {
    let mut tools = builtin_registry();
    tools.add_source(mcp.clone());
    tools.add_source(skills.clone());
    let mut protected = data_folder(store);
    protected.push(skills.folder().to_path_buf());
    hearth_tools::register(&mut tools, std::env::current_exe().ok(), protected);
    tools
        .register(Arc::new(SwitchProfile(profiles.clone())))
        .register(Arc::new(Remember(store.clone())))
        .register(Arc::new(ReadAttachment(store.clone())));
    tools
}

/// The folder that holds Hearth's database.
pub fn data_folder(store: &Store) -> Vec<PathBuf> {
    store
        .path()
        .parent()
        .map(std::path::Path::to_path_buf)
        .into_iter()
        .collect()
}

/// The agent: tools, the title, memory and compaction workers, memory
/// snapshots and the memory flush, sub-agents, over `parts`.
pub fn agent(parts: Parts) -> Arc<Agent> {
    let Parts {
        backend,
        named,
        hosts,
        provider,
        profiles,
        store,
        settings,
        approvals,
        mcp,
        hooks,
        skills,
        knowledge,
    } = parts;
    let mut tools = tools(&store, &profiles, &mcp, &skills);
    // Memory's vote uses the embedding model chosen for knowledge folders,
    // on the host serving the conversation (`workers::fact_vote`); none
    // chosen, no vote.
    let vote = knowledge.as_ref().map(|index| {
        let index = index.clone();
        let chosen: ChosenModel = Arc::new(move || index.model().ok().flatten());
        let vote = FactVote::new(chosen);
        // Beside the database: one embedding of the examples per model.
        Arc::new(match data_folder(&store).pop() {
            Some(folder) => vote.cached_in(folder),
            None => vote,
        })
    });
    if let Some(index) = knowledge {
        tools.add_source(Arc::new(KnowledgeTools::new(
            index,
            backend.clone(),
            profiles.clone(),
        )));
    }
    let mut builder = Agent::builder(backend, provider)
        .tools(tools)
        .hooks(hooks)
        .settings(settings)
        .memory_source(store.clone())
        .worker(Arc::new(TitleWorker))
        .memory_writer(store.clone())
        .worker(Arc::new(MemoryWorker(store.clone())))
        .worker(Arc::new(CompactionWorker))
        .approvals(approvals)
        .subagents()
        .store(store)
        .hosts(hosts);
    for (name, backend) in named {
        builder = builder.named_backend(name, backend);
    }
    if let Some(vote) = vote {
        builder = builder.memory_vote(vote);
    }
    builder.build()
}
