//! Post-turn work: what a worker gets ([`WorkerContext`]), the trait
//! ([`PostTurnWorker`]), and the workers shipped with the core. The agent
//! runs them after an answered run (`Agent::run_workers`).

use std::sync::Arc;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::backend::{BackendError, ModelBackend};
use crate::memory::MemoryWriter;
use crate::message::ChatMessage;
use crate::profile::Profile;
use crate::settings::LoadOptions;
use crate::store::{SessionStore, StoreError, StoreFailure};

pub mod facts;
pub(crate) mod memory;
mod passing;
pub mod statements;
mod title;

pub use crate::compaction::CompactionWorker;
pub use memory::{MEMORY_PROMPT, MemoryWorker};
pub use title::{TITLE_PROMPT, TitleWorker, clean_title};

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
    /// At most one summarizer per session.
    pub summarizers: Arc<crate::compaction::Summarizers>,
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

/// Why background work (a post-turn worker, a summary) failed, by what
/// can be done about it: the server or the store say so themselves; an
/// answer that cannot be used is the model's.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkerError {
    /// The model server failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The session or the memory could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The model's answer cannot be used (it broke off, came back empty,
    /// took too long).
    #[error("{0}")]
    Answer(String),
}

impl WorkerError {
    /// Expected when the server is gone or the user's data is busy: the
    /// next turn tries again, nothing to warn about.
    pub fn is_passing(&self) -> bool {
        match self {
            Self::Backend(BackendError::Unreachable { .. }) => true,
            Self::Store(e) => e.failure == StoreFailure::SessionBusy,
            Self::Backend(_) | Self::Answer(_) => false,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that is gone or a session busy elsewhere is passing (logged
    /// quietly, tried again after the next turn); anything else is a
    /// failure worth a warning.
    #[test]
    fn passing_failures_are_told_from_real_ones() {
        let gone = BackendError::Unreachable {
            url: "http://127.0.0.1:11434".into(),
            detail: "connection refused".into(),
        };
        let failed = BackendError::Server {
            status: Some(500),
            message: "boom".into(),
        };
        for (e, passing) in [
            (WorkerError::Backend(gone), true),
            (WorkerError::Backend(failed), false),
            (
                WorkerError::Store(StoreError::new(StoreFailure::SessionBusy, "busy")),
                true,
            ),
            (
                WorkerError::Store(StoreError::transient("disk full")),
                false,
            ),
            (WorkerError::Answer("the answer broke off".into()), false),
        ] {
            assert_eq!(e.is_passing(), passing, "{e}");
        }
    }
}
