//! What the commands share: the store, profiles, per-model settings, the
//! Ollama client and the agent built over them, and the live runs.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use hearth_core::tools::{Remember, SwitchProfile, builtin_registry};
use hearth_core::workers::{CompactionWorker, MemoryWorker, TitleWorker};
use hearth_core::{Agent, Approvals, BackendError, LoadOptions, ModelSettings};
use hearth_ollama::{Client, ClientOptions, OllamaBackend, OllamaError};
use hearth_protocol::{ErrorCode, ErrorInfo, Recovery};
use hearth_store::{Profiles, Store, StoreError};

use crate::runs::LiveRuns;

/// The model server and the agent that talks to it; replaced as a whole
/// when the user changes the Ollama URL.
#[derive(Clone)]
pub struct Backend {
    /// The URL in use.
    pub url: String,
    /// Client for the models panel (tags, ps, show, pull, load, unload).
    pub client: Client,
    /// The agent every run of the app goes through.
    pub agent: Arc<Agent>,
}

/// Shared by every command (`tauri::State<AppState>`).
pub struct AppState {
    /// Sessions, memory, profiles, settings.
    pub store: Arc<Store>,
    /// Profiles (write-through cache over the store).
    pub profiles: Arc<Profiles>,
    /// Per-model load options, shared with the agent so a change applies
    /// to the next request.
    pub settings: Arc<ModelSettings>,
    backend: RwLock<Backend>,
    /// Runs going on.
    pub runs: LiveRuns,
    /// Approval requests of every run, shared by the agents the app builds
    /// (a run of an agent replaced by a URL change can still be answered).
    pub approvals: Arc<Approvals>,
    /// Started by `make demo` against the simulator.
    pub demo: bool,
    /// The database file.
    pub db_path: PathBuf,
}

impl AppState {
    /// Open the database at `db_path` and build the agent for `url`.
    pub async fn open(db_path: PathBuf, url: &str, demo: bool) -> Result<Self, String> {
        let (store, report) = Store::open(&db_path).await.map_err(|e| e.to_string())?;
        if report.recovered_runs > 0 {
            tracing::info!(
                "{} answer(s) cut by a crash were recovered as interrupted",
                report.recovered_runs
            );
        }
        let store = Arc::new(store);
        let profiles = Profiles::load(&store).await.map_err(|e| e.to_string())?;
        let settings = Arc::new(
            store
                .model_settings(LoadOptions::default())
                .await
                .map_err(|e| e.to_string())?,
        );
        let approvals = Arc::new(Approvals::default());
        let backend =
            build_backend(url, &store, &profiles, &settings, &approvals).map_err(|e| e.message)?;
        Ok(Self {
            approvals,
            store,
            profiles,
            settings,
            backend: RwLock::new(backend),
            runs: LiveRuns::default(),
            demo,
            db_path,
        })
    }

    /// The backend in use now.
    pub fn backend(&self) -> Result<Backend, ErrorInfo> {
        self.backend
            .read()
            .map(|b| b.clone())
            .map_err(|_| internal("the backend lock is poisoned"))
    }

    /// Point the app at another Ollama. Runs in progress keep the old one.
    pub fn set_url(&self, url: &str) -> Result<Backend, ErrorInfo> {
        let backend = build_backend(
            url,
            &self.store,
            &self.profiles,
            &self.settings,
            &self.approvals,
        )?;
        let mut slot = self
            .backend
            .write()
            .map_err(|_| internal("the backend lock is poisoned"))?;
        *slot = backend.clone();
        Ok(backend)
    }

    /// Names of the tools a profile can enable: the agent's own registry,
    /// so tools the builder adds (spawn_agent) are listed too.
    pub fn tool_names(&self) -> Result<Vec<String>, ErrorInfo> {
        Ok(self.backend()?.agent.tool_registry().names())
    }
}

fn tools(store: &Arc<Store>, profiles: &Arc<Profiles>) -> hearth_core::ToolRegistry {
    let mut tools = builtin_registry();
    let exe = std::env::current_exe().ok();
    // Find what this machine can enforce now, off the async workers, so the
    // first approval question does not wait on it.
    if let Some(exe) = exe.clone() {
        std::thread::spawn(move || {
            let found = hearth_tools::sandbox::confinement(&exe);
            tracing::info!("run_shell sandbox: {}", found.mechanism());
        });
    }
    // Hearth's own data stays read-only to sandboxed commands: one that
    // edited it could turn its own sandbox off.
    let data = store.path().parent().map(std::path::Path::to_path_buf);
    hearth_tools::register(&mut tools, exe, data.into_iter().collect());
    tools
        .register(Arc::new(SwitchProfile(profiles.clone())))
        .register(Arc::new(Remember(store.clone())));
    tools
}

/// The agent as the CLI builds it (same tools, workers, settings), over
/// Ollama at `url`.
fn build_backend(
    url: &str,
    store: &Arc<Store>,
    profiles: &Arc<Profiles>,
    settings: &Arc<ModelSettings>,
    approvals: &Arc<Approvals>,
) -> Result<Backend, ErrorInfo> {
    let url = hearth_ollama::resolve_base_url(Some(url));
    let client = Client::new(&url, ClientOptions::default()).map_err(ollama_error)?;
    let agent = Agent::builder(
        Arc::new(OllamaBackend::new(client.clone())),
        profiles.clone(),
    )
    .tools(tools(store, profiles))
    .settings(settings.clone())
    .memory_source(store.clone())
    .worker(Arc::new(TitleWorker))
    .memory_writer(store.clone())
    .worker(Arc::new(MemoryWorker(store.clone())))
    .worker(Arc::new(CompactionWorker))
    .store(store.clone())
    .approvals(approvals.clone())
    .subagents()
    .build();
    Ok(Backend { url, client, agent })
}

/// An Ollama failure as the UI receives it (codes the UI branches on:
/// unreachable → banner, model not found → pull).
pub fn ollama_error(e: OllamaError) -> ErrorInfo {
    BackendError::from(e).to_info()
}

/// A storage failure.
pub fn store_error(e: StoreError) -> ErrorInfo {
    let (code, recovery) = match &e {
        StoreError::RunInProgress(_) => (ErrorCode::InvalidInput, Recovery::None),
        StoreError::NoMessage(_) | StoreError::NotInSession { .. } => {
            (ErrorCode::InvalidInput, Recovery::None)
        }
        _ => (ErrorCode::Storage, Recovery::Retry),
    };
    ErrorInfo {
        code,
        recovery,
        message: e.to_string(),
        details: None,
    }
}

/// A request the UI should not have made (unknown id, empty text, …).
pub fn invalid(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo {
        code: ErrorCode::InvalidInput,
        recovery: Recovery::None,
        message: message.into(),
        details: None,
    }
}

/// A bug.
pub fn internal(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo {
        code: ErrorCode::Internal,
        recovery: Recovery::None,
        message: message.into(),
        details: None,
    }
}
