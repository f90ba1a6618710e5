//! Where sessions live. The core appends; it never rewrites a session.
//! crates/store implements this on SQLite; [`InMemoryStore`] serves tests,
//! the CLI without a database, and sub-agents (which keep no database
//! context of their own).

use std::collections::HashMap;

use async_trait::async_trait;
use tokio::sync::Mutex;

use hearth_protocol::SpanKind;

use crate::attachment::{Attachment, Body};
use crate::message::{ChatMessage, MessageStatus, Role};
use crate::summary::Summary;

/// One step of a run, for its trace (docs/background.md §3.12).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Span {
    /// A model call, a tool call, a compaction or an input-guard finding.
    pub kind: SpanKind,
    /// The model's or the tool's name.
    pub name: String,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// Prompt tokens evaluated (model calls).
    pub tokens_in: Option<u32>,
    /// Of `tokens_in`, those the server reused from its prompt cache.
    pub tokens_cached: Option<u32>,
    /// Tokens generated (model calls).
    pub tokens_out: Option<u32>,
    /// How it failed, if it did.
    pub error: Option<String>,
    /// Model calls: the server's own timings, in milliseconds (load,
    /// prompt evaluation, generation).
    pub load_ms: Option<u64>,
    /// See `load_ms`.
    pub prompt_eval_ms: Option<u64>,
    /// See `load_ms`.
    pub eval_ms: Option<u64>,
    /// A line of context (what a guard finding was in, what a compaction
    /// summarized).
    pub detail: Option<String>,
}

/// A message with its place in the session's tree.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMessage {
    /// Its id (grows with time: above its parent's).
    pub id: i64,
    /// The message it answers or follows; `None` for a first message.
    pub parent_id: Option<i64>,
    /// The run that wrote it (`None` for messages imported or written
    /// outside a run).
    pub run_id: Option<String>,
    /// The message.
    pub message: ChatMessage,
    /// Stored at, ms since the epoch.
    pub created_at: i64,
}

/// What [`SessionStore::append`] stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Appended {
    /// The message, where it landed.
    pub stored: StoredMessage,
    /// When it starts a new branch (its parent has other children): it and
    /// its siblings, oldest first. Empty otherwise.
    pub siblings: Vec<i64>,
}

/// What a storage failure leaves the user to do: how it reaches a front end
/// ([`crate::RunError::to_info`]) depends on it, never on its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreFailure {
    /// The session has a run going, in this process or another (the app and
    /// the CLI share a database): stop it or wait for its end.
    SessionBusy,
    /// Failed now and may work on a retry: the database was locked, the
    /// disk full, a read failed.
    Transient,
    /// What was asked for does not exist (a deleted session, an unknown
    /// message).
    NotFound,
    /// What is stored cannot be used as it is (corrupt, or written by a
    /// newer Hearth): retrying does not help.
    Unusable,
}

/// A storage failure: what kind, and what happened in words.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreError {
    /// What the user can do about it.
    pub failure: StoreFailure,
    /// What happened.
    pub message: String,
}

impl StoreError {
    /// A failure of `failure`'s kind.
    pub fn new(failure: StoreFailure, message: impl Into<String>) -> Self {
        Self {
            failure,
            message: message.into(),
        }
    }

    /// A failure a retry may get past.
    pub fn transient(message: impl Into<String>) -> Self {
        Self::new(StoreFailure::Transient, message)
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.failure {
            // Already a sentence for the user.
            StoreFailure::SessionBusy | StoreFailure::NotFound => f.write_str(&self.message),
            StoreFailure::Transient | StoreFailure::Unusable => {
                write!(f, "session storage failed: {}", self.message)
            }
        }
    }
}

impl std::error::Error for StoreError {}

/// The refusal of a store that keeps one line of messages.
fn no_branches() -> StoreError {
    StoreError::new(
        StoreFailure::Unusable,
        "this conversation keeps no branches",
    )
}

/// Sessions as the loop needs them.
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// The session's conversation (its current branch), oldest first.
    /// An unknown session is empty.
    async fn history(&self, session_id: &str) -> Result<Vec<ChatMessage>, StoreError>;

    /// The files attached to the session's current branch, oldest first,
    /// for a tool that reads one of them. A store may leave their bytes
    /// out ([`Attachment::body`] `None`) and give them through
    /// [`Self::attachment_body`]: reading every picture to find one text
    /// file is work thrown away. The default takes them from
    /// [`Self::history`], bytes and all.
    async fn branch_attachments(&self, session_id: &str) -> Result<Vec<Attachment>, StoreError> {
        Ok(self
            .history(session_id)
            .await?
            .into_iter()
            .filter(|m| m.role == Role::User)
            .flat_map(|m| m.attachments)
            .collect())
    }

    /// The bytes of attached file `sha256`, for one
    /// [`Self::branch_attachments`] gave without them; `None` when they
    /// are gone (a file removed by hand). The default has none to give:
    /// its list came with the bytes.
    async fn attachment_body(&self, _sha256: &str) -> Result<Option<Body>, StoreError> {
        Ok(None)
    }

    /// The files user message `message_id` of the session carries, bytes
    /// and all (an edit of it keeps them). A store without message ids has
    /// none to give.
    async fn message_files(
        &self,
        _session_id: &str,
        _message_id: i64,
    ) -> Result<Vec<Attachment>, StoreError> {
        Ok(Vec::new())
    }

    /// Start a new branch at message `at_message_id`: the head moves to its
    /// parent, so the next message appended becomes its sibling and the
    /// old branch stays stored. A store without branches (a sub-agent's
    /// scratch) refuses.
    async fn fork(&self, _session_id: &str, _at_message_id: i64) -> Result<(), StoreError> {
        Err(no_branches())
    }

    /// Make the branch end at its last user message so it can be answered
    /// again; what followed stays on the old branch. `false` when nothing
    /// followed it, or there is no user message.
    async fn fork_before_last_answer(&self, _session_id: &str) -> Result<bool, StoreError> {
        Err(no_branches())
    }

    /// Append one message as the new tip of the session's branch. Durable
    /// when this returns: the loop appends the user's message before any
    /// request leaves, and emits an event only after what it announces is
    /// appended (`message_stored` carries what this returns).
    async fn append(
        &self,
        session_id: &str,
        run_id: &str,
        message: ChatMessage,
    ) -> Result<Appended, StoreError>;

    /// A run begins (before its user message is appended). A durable store
    /// records it so that a run a crash left unfinished can be repaired.
    async fn begin_run(&self, _session_id: &str, _run_id: &str) -> Result<(), StoreError> {
        Ok(())
    }

    /// The model and host a run begun with [`Self::begin_run`] starts on,
    /// recorded before any request leaves so that an answer cut off by a
    /// crash still says what wrote it.
    async fn describe_run(
        &self,
        _run_id: &str,
        _model: &str,
        _host: &str,
    ) -> Result<(), StoreError> {
        Ok(())
    }

    /// A run ended: complete, interrupted (stopped) or error.
    async fn end_run(&self, _run_id: &str, _status: MessageStatus) -> Result<(), StoreError> {
        Ok(())
    }

    /// End a run whose own end could not be recorded (it crashed, or its
    /// end failed to write) the way a crashed process's run is repaired:
    /// its checkpointed answer kept as interrupted, its unanswered tool
    /// calls given an "outcome unknown" result. Nothing when it has ended.
    async fn repair_run(&self, run_id: &str) -> Result<(), StoreError> {
        self.end_run(run_id, MessageStatus::Interrupted).await
    }

    /// The latest compaction summary of the session's current branch: it
    /// stands for the first `covered` messages. `None` when there is none.
    async fn summary(&self, _session_id: &str) -> Result<Option<Summary>, StoreError> {
        Ok(None)
    }

    /// Add a summary of the branch's first `covered` messages. Compaction
    /// only ever adds summaries; messages are never deleted.
    async fn add_summary(
        &self,
        _session_id: &str,
        _summary: &Summary,
        _model: &str,
    ) -> Result<(), StoreError> {
        Ok(())
    }

    /// The session's title (`Some("")` when untitled); `None` when this
    /// store keeps no titles.
    async fn title(&self, _session_id: &str) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    /// Set a generated title, unless the session got one meanwhile.
    async fn set_generated_title(&self, _session_id: &str, _title: &str) -> Result<(), StoreError> {
        Ok(())
    }

    /// Record one step of a run for its trace (a model call or a tool call).
    async fn record_span(&self, _run_id: &str, _span: &Span) -> Result<(), StoreError> {
        Ok(())
    }

    /// Keep what a run's answer showed besides its messages (the plan and
    /// its progress, tool outcomes and times, approvals, speed, the error),
    /// as the events that showed it, so the stored answer shows it again.
    async fn record_answer(
        &self,
        _run_id: &str,
        _events: &[hearth_protocol::EventKind],
    ) -> Result<(), StoreError> {
        Ok(())
    }

    /// Keep a sub-agent's transcript with the parent's turn: `messages` is
    /// everything the sub-agent for tool call `transcript.parent_call_id`
    /// said and did, so its nested cards survive a restart.
    async fn record_subagent(&self, _transcript: &SubagentTranscript) -> Result<(), StoreError> {
        Ok(())
    }

    /// Save the answer streamed so far, so a crash loses at most its last
    /// moments. Replaced by the final message when it is appended.
    async fn checkpoint(
        &self,
        _session_id: &str,
        _run_id: &str,
        _partial: &ChatMessage,
    ) -> Result<(), StoreError> {
        Ok(())
    }
}

/// What a sub-agent did for one `spawn_agent` call.
#[derive(Debug, Clone, PartialEq)]
pub struct SubagentTranscript {
    /// The session the parent run belongs to (for a nested sub-agent, its
    /// parent's `subagent_…` id).
    pub parent_session_id: String,
    /// The parent run.
    pub parent_run_id: String,
    /// The parent's `spawn_agent` call.
    pub parent_call_id: String,
    /// The sub-agent's own session id (`subagent_…`).
    pub session_id: String,
    /// Profile it ran with.
    pub profile: String,
    /// Its conversation: the task, answers, tool calls and results.
    pub messages: Vec<ChatMessage>,
}

/// Sessions in memory.
#[derive(Debug, Default)]
pub struct InMemoryStore {
    sessions: Mutex<HashMap<String, Vec<ChatMessage>>>,
    subagents: Mutex<Vec<SubagentTranscript>>,
    /// Every summary added, per session, oldest first (added, never
    /// replaced: the newest one is in force).
    summaries: Mutex<HashMap<String, Vec<Summary>>>,
}

impl InMemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sub-agent transcripts recorded so far, oldest first.
    pub async fn subagent_transcripts(&self) -> Vec<SubagentTranscript> {
        self.subagents.lock().await.clone()
    }
}

#[async_trait]
impl SessionStore for InMemoryStore {
    async fn history(&self, session_id: &str) -> Result<Vec<ChatMessage>, StoreError> {
        Ok(self
            .sessions
            .lock()
            .await
            .get(session_id)
            .cloned()
            .unwrap_or_default())
    }

    async fn append(
        &self,
        session_id: &str,
        run_id: &str,
        message: ChatMessage,
    ) -> Result<Appended, StoreError> {
        let mut sessions = self.sessions.lock().await;
        let branch = sessions.entry(session_id.to_owned()).or_default();
        // One branch, never rewritten: a message's id is its position.
        let id = i64::try_from(branch.len()).unwrap_or(i64::MAX - 1) + 1;
        branch.push(message.clone());
        Ok(Appended {
            stored: StoredMessage {
                id,
                parent_id: (id > 1).then_some(id - 1),
                run_id: Some(run_id.to_owned()),
                message,
                created_at: now_ms(),
            },
            siblings: Vec::new(),
        })
    }

    async fn record_subagent(&self, transcript: &SubagentTranscript) -> Result<(), StoreError> {
        self.subagents.lock().await.push(transcript.clone());
        Ok(())
    }

    async fn summary(&self, session_id: &str) -> Result<Option<Summary>, StoreError> {
        Ok(self
            .summaries
            .lock()
            .await
            .get(session_id)
            .and_then(|s| s.last().cloned()))
    }

    async fn add_summary(
        &self,
        session_id: &str,
        summary: &Summary,
        _model: &str,
    ) -> Result<(), StoreError> {
        self.summaries
            .lock()
            .await
            .entry(session_id.to_owned())
            .or_default()
            .push(summary.clone());
        Ok(())
    }
}

/// Now, in ms since the epoch (0 on a clock before 1970).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
