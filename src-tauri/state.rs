//! What the commands share: the store, profiles, per-model settings, the
//! model servers and the one agent composed over them
//! (`hearth_compose::agent`, as the CLI builds it), and the live runs.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use hearth_core::{Agent, Approvals, BackendError, BackendSlot, ModelSettings, StoreFailure};
use hearth_ollama::{Client, OllamaError};
use hearth_protocol::{ErrorCode, ErrorInfo, Recovery};
use hearth_store::{Profiles, Store, StoreError};

use crate::runs::LiveRuns;

/// The Ollama server in use and the agent every run goes through. A URL
/// change replaces the client inside the agent's backend slot; the agent
/// stays.
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
    /// The agent's default backend: Ollama at the URL in use.
    ollama: Arc<BackendSlot>,
    /// The OpenAI-compatible server a profile selects with `backend:
    /// "openai"` (llama.cpp, LM Studio, vLLM…).
    openai: Arc<BackendSlot>,
    /// Its base URL.
    openai_url: RwLock<String>,
    /// Someone chose that URL (the user, or `$HEARTH_OPENAI_URL`): until
    /// then the default (llama.cpp on port 8080) is no host of theirs.
    openai_chosen: std::sync::atomic::AtomicBool,
    /// Runs going on.
    pub runs: LiveRuns,
    /// Model pulls, queued and going on.
    pub pulls: crate::pulls::Pulls,
    /// Voice input: at most one speech-to-text session listens.
    pub voice: Arc<hearth_core::voice::Voice>,
    /// Read aloud, on the text-to-speech server named `speaker`.
    pub speaking: Arc<crate::speaking::Speaking>,
    /// Approval requests of every run, shared by the agent and `runs` (a URL
    /// change swaps the client in the agent's backend slot, not the agent).
    pub approvals: Arc<Approvals>,
    /// The MCP servers the user configured (stopped when the app quits).
    pub mcp: Arc<hearth_mcp::Hub>,
    /// The hosts the user added, shared with the agent (a host added or
    /// removed applies to the next request).
    pub hosts: Arc<hearth_core::Hosts>,
    /// The user's skills (the Tools panel reads them again on demand).
    pub skills: Arc<hearth_tools::Skills>,
    /// Started by `make demo` against the simulator.
    pub demo: bool,
    /// The database file.
    pub db_path: PathBuf,
    /// Knowledge folders: the index the agent's tool searches, and its
    /// sync.
    pub knowledge: Arc<crate::knowledge::KnowledgeDesk>,
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
        let inputs = hearth_compose::open(Arc::new(store), hearth_compose::UnusableHooks::Block)
            .await
            .map_err(|e| e.to_string())?;
        let server = hearth_compose::ollama(Some(url)).map_err(|e| e.to_string())?;
        let ollama = BackendSlot::new(server.backend);
        let openai_url = hearth_openai::resolve_base_url(None);
        let openai = BackendSlot::new(
            hearth_compose::openai(Some(&openai_url), api_key()).map_err(|e| e.to_string())?,
        );
        probe_sandbox();
        let agent = inputs.agent(
            ollama.clone(),
            vec![(hearth_compose::OPENAI.to_owned(), openai.clone() as _)],
            None,
        );
        let backend = Backend {
            url: server.url,
            client: server.client,
            agent,
        };
        let runs = LiveRuns::new(inputs.runs());
        let hearth_compose::Inputs {
            store,
            profiles,
            settings,
            hosts,
            mcp,
            skills,
            approvals,
            knowledge,
            ..
        } = inputs;
        let knowledge = Arc::new(crate::knowledge::KnowledgeDesk::new(
            knowledge,
            ollama.clone(),
        ));
        // Changes made while the app was closed are read now; later ones
        // as they happen.
        knowledge.watch_folders();
        if knowledge
            .index()
            .is_ok_and(|i| i.has_folders().unwrap_or(false))
            && let Err(e) = knowledge.start_sync()
        {
            tracing::warn!("the knowledge folders cannot be synced: {e}");
        }
        Ok(Self {
            approvals,
            mcp,
            hosts,
            skills,
            store,
            profiles,
            settings,
            backend: RwLock::new(backend),
            ollama,
            openai,
            openai_url: RwLock::new(openai_url),
            openai_chosen: std::sync::atomic::AtomicBool::new(false),
            runs,
            pulls: crate::pulls::Pulls::default(),
            voice: hearth_core::voice::Voice::new(hearth_core::voice::Timing::default()),
            speaking: Arc::default(),
            demo,
            db_path,
            knowledge,
        })
    }

    /// The backend in use now.
    pub fn backend(&self) -> Result<Backend, ErrorInfo> {
        self.backend
            .read()
            .map(|b| b.clone())
            .map_err(|_| internal("the backend lock is poisoned"))
    }

    /// Point the app at another Ollama: the agent's backend slot gets the
    /// new client, so the next request of every run goes there.
    pub fn set_url(&self, url: &str) -> Result<Backend, ErrorInfo> {
        let server = hearth_compose::ollama(Some(url)).map_err(|e| e.to_info())?;
        let mut slot = self
            .backend
            .write()
            .map_err(|_| internal("the backend lock is poisoned"))?;
        self.ollama.replace(server.backend);
        slot.url = server.url;
        slot.client = server.client;
        Ok(slot.clone())
    }

    /// Point the `openai` backend at another OpenAI-compatible server;
    /// returns its base URL as resolved (`/v1` added when no path is given).
    pub fn set_openai_url(&self, url: &str) -> Result<String, ErrorInfo> {
        let resolved = hearth_openai::resolve_base_url(Some(url));
        let backend =
            hearth_compose::openai(Some(&resolved), api_key()).map_err(|e| e.to_info())?;
        self.openai.replace(backend);
        let mut slot = self
            .openai_url
            .write()
            .map_err(|_| internal("the server lock is poisoned"))?;
        slot.clone_from(&resolved);
        self.openai_chosen
            .store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(resolved)
    }

    /// Whether the OpenAI-compatible server is one the person uses: its
    /// URL was chosen, or a profile names it. Otherwise the host lists
    /// leave it out (user pass 2026-12, defect 15: a server never set up
    /// showed as "Not reachable" to everyone).
    pub fn openai_in_use(&self) -> bool {
        self.openai_chosen
            .load(std::sync::atomic::Ordering::Relaxed)
            || self
                .profiles
                .list()
                .iter()
                .any(|p| p.backend.as_deref() == Some(hearth_compose::OPENAI))
    }

    /// The OpenAI-compatible server's base URL.
    pub fn openai_url(&self) -> String {
        self.openai_url
            .read()
            .map(|u| u.clone())
            .unwrap_or_default()
    }

    /// Save `host` and make it usable from the next request.
    pub async fn add_host(
        &self,
        host: hearth_store::Host,
        key: Option<hearth_openai::ApiKey>,
    ) -> Result<hearth_store::Host, ErrorInfo> {
        use hearth_compose::hosts::SaveError;
        let (host, backend) = hearth_compose::hosts::save(&self.store, host, key)
            .await
            .map_err(|e| match e {
                SaveError::Refused(m) => invalid(m),
                // The secret store is locked or absent, or the disk failed:
                // trying again after fixing it may pass.
                SaveError::Failed(m) => ErrorInfo {
                    code: ErrorCode::Storage,
                    recovery: Recovery::Retry,
                    message: m,
                    details: None,
                },
            })?;
        self.hosts.set(host.name.clone(), backend);
        Ok(host)
    }

    /// Forget host `name` and its key: the sessions on it go back to the
    /// default server from their next request.
    pub async fn remove_host(&self, name: &str) -> Result<(), ErrorInfo> {
        let removed = hearth_compose::hosts::remove(&self.store, &self.profiles, name)
            .await
            .map_err(crate::commands::profiles::profile_error)?;
        if !removed {
            return Err(invalid(format!("there is no host `{name}`")));
        }
        self.hosts.remove(name);
        Ok(())
    }

    /// Names of the tools a profile can enable: the agent's own registry,
    /// so tools the builder adds (spawn_agent) are listed too.
    pub fn tool_names(&self) -> Result<Vec<String>, ErrorInfo> {
        let mut names = self.backend()?.agent.tool_registry().names();
        // Offered once there is a skill; a profile's tool list names it
        // like any other tool.
        if !self.skills.catalog().skills.is_empty() {
            names.push(hearth_tools::LOAD_SKILL.to_owned());
            names.sort();
        }
        Ok(names)
    }
}

/// The OpenAI-compatible server's key, for one that asks for it: from
/// `$HEARTH_API_KEY`, as for the CLI (a local server needs none).
fn api_key() -> Option<hearth_openai::ApiKey> {
    std::env::var("HEARTH_API_KEY")
        .ok()
        .and_then(|k| hearth_openai::ApiKey::new(&k))
}

/// Find what this machine can enforce for `run_shell` now, off the async
/// workers, so the first approval question does not wait on it.
fn probe_sandbox() {
    if let Ok(exe) = std::env::current_exe() {
        std::thread::spawn(move || {
            let found = hearth_tools::sandbox::confinement(&exe);
            tracing::info!("run_shell sandbox: {}", found.mechanism());
        });
    }
}

/// An Ollama failure as the UI receives it (codes the UI branches on:
/// unreachable → banner, model not found → pull).
pub fn ollama_error(e: OllamaError) -> ErrorInfo {
    BackendError::from(e).to_info()
}

/// A storage failure.
pub fn store_error(e: StoreError) -> ErrorInfo {
    let (code, recovery) = match e.failure() {
        StoreFailure::SessionBusy => (ErrorCode::SessionBusy, Recovery::Retry),
        StoreFailure::NotFound => (ErrorCode::InvalidInput, Recovery::None),
        StoreFailure::Transient => (ErrorCode::Storage, Recovery::Retry),
        StoreFailure::Unusable => (ErrorCode::Storage, Recovery::None),
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

#[cfg(test)]
mod tests {
    use hearth_core::ProfileProvider as _;

    use super::AppState;

    /// The OpenAI-compatible server is a host of the person's once its URL
    /// is chosen or a profile names it, not before (user pass 2026-12,
    /// defect 15).
    #[tokio::test]
    async fn the_openai_server_is_in_use_once_chosen_or_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        let state = AppState::open(path.clone(), "http://127.0.0.1:9", false)
            .await
            .unwrap();
        assert!(!state.openai_in_use());
        let mut chat = state.profiles.by_name("Chat").unwrap();
        chat.backend = Some(hearth_compose::OPENAI.into());
        state.profiles.upsert(chat).await.unwrap();
        assert!(state.openai_in_use(), "a profile names it");

        let other = tempfile::tempdir().unwrap();
        let state = AppState::open(other.path().join("h.sqlite"), "http://127.0.0.1:9", false)
            .await
            .unwrap();
        state.set_openai_url("http://127.0.0.1:8081").unwrap();
        assert!(state.openai_in_use(), "its URL was chosen");
    }
}
