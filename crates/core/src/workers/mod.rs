//! Post-turn work: what a worker gets ([`WorkerContext`]), the trait
//! ([`PostTurnWorker`]), and the workers shipped with the core. The agent
//! runs them after an answered run (`Agent::run_workers`).

use std::sync::Arc;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::backend::ModelBackend;
use crate::memory::MemoryWriter;
use crate::message::ChatMessage;
use crate::profile::Profile;
use crate::settings::LoadOptions;
use crate::store::SessionStore;

pub(crate) mod memory;
mod title;

pub use crate::compaction::CompactionWorker;
pub use memory::{MemoryWorker, parse_facts};
pub use title::{TitleWorker, clean_title};

/// What a post-turn worker gets.
pub struct WorkerContext {
    /// The session the turn belongs to.
    pub session_id: String,
    /// The turn's run.
    pub run_id: String,
    /// The session's conversation after the turn.
    pub history: Vec<ChatMessage>,
    /// The profile the turn ended with.
    pub profile: Profile,
    /// The backend serving that profile.
    pub backend: Arc<dyn ModelBackend>,
    /// The session store (titles, summaries).
    pub store: Arc<dyn SessionStore>,
    /// The model's load options: a worker must send these, so it never
    /// forces a reload (docs/design.md §4).
    pub load: LoadOptions,
    /// Cancelled when a new user turn starts or the user stops: background
    /// work never competes with the user's stream.
    pub cancel: CancellationToken,
    /// The context window in effect for the model (tokens).
    pub window: u32,
    /// The budget's calibration of the token estimate for the model.
    pub ratio: f64,
    /// Raw token estimate of what is sent besides the history (system
    /// prompt, memory, tool schemas).
    pub fixed_tokens: usize,
    /// Where the memory flush before a compaction writes.
    pub memory: Option<Arc<dyn MemoryWriter>>,
    /// At most one summarizer per session.
    pub summarizers: Arc<crate::compaction::Summarizers>,
}

/// Work done after a turn completes (memory, titles, compaction).
#[async_trait]
pub trait PostTurnWorker: Send + Sync {
    /// Name, for logs.
    fn name(&self) -> &'static str;
    /// Do the work. Errors are logged, never shown as a failed turn.
    async fn run(&self, ctx: &WorkerContext) -> Result<(), String>;
}
