//! Post-turn work: what a worker gets ([`WorkerContext`]), the trait
//! ([`PostTurnWorker`]), and the workers shipped with the core. The agent
//! runs them after an answered run (`Run::run_workers`).

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::backend::ModelBackend;
use crate::memory::MemoryWriter;
use crate::message::ChatMessage;
use crate::profile::Profile;
use crate::settings::LoadOptions;
use crate::store::SessionStore;

pub mod fact_vote;
pub mod facts;
mod happened;
pub(crate) mod memory;
mod passing;
pub mod statements;
mod title;

pub use crate::error::WorkerError;
pub use crate::side::{MEMORY_PROMPT, TITLE_PROMPT};
pub use memory::MemoryWorker;
pub use title::{TitleWorker, clean_title};

/// What a post-turn worker gets.
pub struct WorkerContext {
    /// The session the turn belongs to.
    pub session_id: String,
    /// The turn's run.
    pub run_id: String,
    /// The session's conversation after the turn.
    pub history: Vec<ChatMessage>,
    /// What the conversation's next chat request starts with: a worker's
    /// request sends it first, its own instruction last, so the server's
    /// prompt cache serves both (docs/design.md §5).
    pub prefix: crate::side::ChatPrefix,
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
    /// Which of the user's sentences memory asks about (`fact_vote`).
    pub memory_vote: Option<Arc<fact_vote::FactVote>>,
    /// At most one summarizer per session.
    pub summarizers: Arc<Summarizers>,
    /// The run's events, for what the work changed that a front end shows
    /// (a new title); they come after the run's terminal event.
    pub events: crate::events::EventSink,
}

impl WorkerContext {
    /// What a worker's request of `instruction` (up to `max_tokens` of
    /// answer) sends first: the conversation's prefix when all of it fits
    /// the window, so the server's cache serves it; else nothing, and the
    /// instruction must quote what it asks about.
    pub fn prefix_for(&self, instruction: &str, max_tokens: u32) -> crate::side::ChatPrefix {
        self.prefix.within(
            &self.profile,
            instruction,
            max_tokens,
            self.window,
            self.ratio,
        )
    }
}

/// At most one summarizer per session (docs/background.md §3.7): the background
/// worker skips a session that is being summarized; the budget before a request
/// waits for it.
#[derive(Debug, Default)]
pub struct Summarizers(std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>);

impl Summarizers {
    pub(crate) fn lock_of(&self, session_id: &str) -> Arc<tokio::sync::Mutex<()>> {
        match self.0.lock() {
            Ok(mut m) => m.entry(session_id.to_owned()).or_default().clone(),
            // A poisoned map only loses the exclusion, never a summary.
            Err(_) => Arc::default(),
        }
    }
}

/// Work done after a turn completes (memory, titles, compaction).
#[async_trait]
pub trait PostTurnWorker: Send + Sync {
    /// Name, for logs.
    fn name(&self) -> &'static str;
    /// Do the work. Errors are logged, never shown as a failed turn.
    async fn run(&self, ctx: &WorkerContext) -> Result<(), WorkerError>;
}
