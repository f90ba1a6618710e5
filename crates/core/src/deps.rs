//! What every run of the agent uses: its backends and hosts, profiles,
//! store, tools, hooks, settings, memory, workers, approvals and the state
//! runs share (token counts, speeds, loads in flight, summarizers). The
//! agent ([`crate::Agent`]) holds it behind its entry points; a run
//! ([`crate::run::Run`]) borrows it for its steps, so a step reaches what
//! it needs without reaching the entry points.

use std::collections::HashMap;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::approvals::Approvals;
use crate::backend::ModelBackend;
use crate::budget::{effective_window, fixed_tokens};
use crate::error::RunError;
use crate::memory::MemorySource;
use crate::profile::{Profile, ProfileProvider};
use crate::settings::ModelSettings;
use crate::store::SessionStore;
use crate::tool::{Offer, ToolRegistry};
use crate::workers::PostTurnWorker;

/// What the agent's runs share.
pub(crate) struct Deps {
    pub(crate) backend: Arc<dyn ModelBackend>,
    /// The named hosts profiles select (`hosts.rs`).
    pub(crate) hosts: Arc<crate::hosts::Hosts>,
    pub(crate) profiles: Arc<dyn ProfileProvider>,
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) tools: ToolRegistry,
    /// Hooks around tool and model calls (`hooks.rs`).
    pub(crate) hooks: Arc<dyn crate::hooks::Hooks>,
    pub(crate) settings: Arc<ModelSettings>,
    pub(crate) memory: Option<String>,
    pub(crate) memory_source: Option<Arc<dyn MemorySource>>,
    pub(crate) workers: Vec<Arc<dyn PostTurnWorker>>,
    /// Root of the post-turn work in progress; every new run cancels it
    /// and installs a fresh one (a user's run pre-empts background work).
    pub(crate) background: std::sync::Mutex<CancellationToken>,
    pub(crate) max_depth: u32,
    /// Approval requests waiting for the user, and standing allowances.
    pub(crate) approvals: Arc<Approvals>,
    /// Where the memory flush before a compaction writes.
    pub(crate) memory_writer: Option<Arc<dyn crate::memory::MemoryWriter>>,
    /// Which of the user's sentences memory asks about.
    pub(crate) memory_vote: Option<Arc<crate::workers::fact_vote::FactVote>>,
    /// The budget's token counts, calibrated per model.
    pub(crate) counter: crate::budget::TokenCounter,
    /// At most one summarizer per session.
    pub(crate) summarizers: Arc<crate::workers::Summarizers>,
    /// Each model's measured writing speed: the default cap per answer
    /// follows it (`answer_cap.rs`).
    pub(crate) speeds: crate::answer_cap::Speeds,
    /// The window the server reported per model at its last preload.
    pub(crate) reported_windows: std::sync::Mutex<HashMap<String, Option<u32>>>,
    /// Model loads in flight in their own tasks (Stop never cancels them).
    pub(crate) loads: crate::loads::Loads,
    /// Runs of this process whose end could not be recorded: repaired
    /// before the next run starts (`run_end.rs`).
    pub(crate) stale_runs: crate::run_end::StaleRuns,
}

impl Deps {
    /// What every request carries besides the history, in tokens.
    pub(crate) fn fixed(&self, profile: &Profile, memory: Option<&str>) -> usize {
        let tools = self.tools.specs(&Offer::of(profile));
        fixed_tokens(&self.profiles.persona(), profile, memory, &tools)
    }

    /// The window in effect for `model`: its `num_ctx`, capped by what the
    /// server reported at the last preload.
    pub(crate) fn window(&self, model: &str) -> u32 {
        let reported = self
            .reported_windows
            .lock()
            .ok()
            .and_then(|w| w.get(model).copied().flatten());
        effective_window(self.settings.load_options(model).num_ctx, reported)
    }

    /// What a load is for: the backend, the model and its load options. A
    /// settings change during the run (the models panel) gives a new key,
    /// so the model is preloaded again, never loaded inside a chat that
    /// Stop could abort.
    pub(crate) fn load_key(&self, profile: &Profile) -> String {
        format!(
            "{}\u{0}{}\u{0}{:?}",
            profile.backend.as_deref().unwrap_or(""),
            profile.model,
            self.settings.load_options(&profile.model)
        )
    }

    /// The host a profile selects (the default backend for none, or for
    /// [`DEFAULT_HOST`](crate::hosts::DEFAULT_HOST) unless a host took that
    /// name); an unknown name is an error the user can fix in the profile.
    pub(crate) fn backend_for(&self, profile: &Profile) -> Result<Arc<dyn ModelBackend>, RunError> {
        self.host(profile.backend.as_deref()).ok_or_else(|| {
            RunError::Misconfigured(format!(
                "profile `{}` uses host `{}`, which is not configured",
                profile.name,
                profile.backend.as_deref().unwrap_or_default()
            ))
        })
    }

    /// The backend of host `name` (`None`: the default).
    pub(crate) fn host(&self, name: Option<&str>) -> Option<Arc<dyn ModelBackend>> {
        match name {
            None => Some(self.backend.clone()),
            Some(n) => self
                .hosts
                .get(n)
                .or_else(|| (n == crate::hosts::DEFAULT_HOST).then(|| self.backend.clone())),
        }
    }
}
