//! Long-term memory seams (docs/design.md §8): where the memory snapshot of a
//! session comes from, where learned facts go, and the post-turn workers
//! that learn them. The store implements the first two; the memory worker
//! lives in `workers`.

use std::sync::Arc;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::backend::ModelBackend;
use crate::message::ChatMessage;
use crate::profile::Profile;
use crate::settings::LoadOptions;
use crate::store::{SessionStore, StoreError};

/// The user memory summary a session sees.
#[async_trait]
pub trait MemorySource: Send + Sync {
    /// The summary for `session_id`, fixed when the session starts (so the
    /// prompt prefix stays stable: docs/design.md §5); `None` when there is
    /// none.
    async fn snapshot(&self, session_id: &str) -> Result<Option<String>, StoreError>;
}

/// Where facts about the user are written.
#[async_trait]
pub trait MemoryWriter: Send + Sync {
    /// The live memories, one fact per entry (for the worker's prompt).
    async fn facts(&self) -> Result<Vec<String>, StoreError>;
    /// Facts the user deleted or edited away: never to be learned again.
    async fn forgotten(&self) -> Result<Vec<String>, StoreError>;
    /// Add facts learned in `session_id`/`run_id` by `source` ("worker",
    /// "tool"). Facts the user deleted or edited away, and duplicates, are
    /// dropped by the store whatever the model says. Returns how many were
    /// added.
    async fn learn(
        &self,
        session_id: &str,
        run_id: &str,
        source: &str,
        facts: &[String],
    ) -> Result<usize, StoreError>;
}

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

/// The longest fact memory keeps (one or two sentences; a fact is shown in
/// every future conversation, so a long one is a standing prompt).
pub const MAX_FACT_CHARS: usize = 300;

/// Whether `fact` may enter long-term memory, and the fact as kept (one
/// line, trimmed). Memory becomes system-level text in every future
/// session, so whatever writes it — the `remember` tool, the memory
/// worker — is held to this: short, one line, no hidden characters,
/// nothing the input guard reads as an injection. The error says why.
pub fn admit(fact: &str) -> Result<String, String> {
    let one_line = fact.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        return Err("the fact is empty".into());
    }
    let n = one_line.chars().count();
    if n > MAX_FACT_CHARS {
        return Err(format!(
            "the fact is {n} characters; memory keeps facts of at most {MAX_FACT_CHARS} (one short sentence about the user)"
        ));
    }
    if one_line
        .chars()
        .any(|c| crate::visible::is_deceptive(c, false))
    {
        return Err("the fact holds control or invisible characters".into());
    }
    let patterns = crate::guard::scan(&one_line);
    if !patterns.is_empty() {
        return Err(format!(
            "the fact reads like instructions to an AI ({}), not a fact about the user",
            patterns.join(", ")
        ));
    }
    Ok(one_line)
}
