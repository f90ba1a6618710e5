//! What the UI receives about conversations: messages, sessions, search
//! hits, live runs, sub-agent transcripts. Converted at the edge from the
//! crates' own types (which know nothing of specta).

use hearth_protocol::AgentEvent;
pub use hearth_protocol::{MessageView, RoleView, StatusView, ToolCallView};
use hearth_store::{ProfileSwitch, SearchHit, SessionSummary, StoredMessage};
use serde::{Deserialize, Serialize};
use specta::Type;

/// A session in the sidebar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SessionInfo {
    /// Id.
    pub id: String,
    /// Title ("" until one is generated or set).
    pub title: String,
    /// While untitled, the start of its first question (at most 60
    /// characters, one line): the sidebar shows it instead of "New chat".
    pub opening: String,
    /// Messages on the current branch.
    pub messages: u64,
    /// Created, ms since the epoch.
    pub created_at: i64,
    /// Last change, ms since the epoch.
    pub updated_at: i64,
    /// A run is going in it now.
    pub live: bool,
    /// The project it is in (an id).
    pub project: Option<String>,
}

impl SessionInfo {
    pub(crate) fn new(s: SessionSummary, live: bool) -> Self {
        Self {
            id: s.id,
            title: s.title,
            opening: s.opening,
            messages: s.messages,
            created_at: s.created_at,
            updated_at: s.updated_at,
            live,
            project: s.project,
        }
    }
}

/// A piece of a search snippet: matched words have `hit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SnippetPart {
    /// The text.
    pub text: String,
    /// True for a matched word.
    pub hit: bool,
}

/// One message that matched a search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SearchHitView {
    /// Session.
    pub session_id: String,
    /// Its title.
    pub session_title: String,
    /// The message (possibly on another branch: switch_branch goes there).
    pub message_id: i64,
    /// Who wrote it.
    pub role: RoleView,
    /// The extract, split at the matched words.
    pub parts: Vec<SnippetPart>,
}

impl From<SearchHit> for SearchHitView {
    fn from(h: SearchHit) -> Self {
        Self {
            session_id: h.session_id,
            session_title: h.session_title,
            message_id: h.message_id,
            role: h.role.into(),
            parts: super::snippet::snippet_parts(&h.snippet),
        }
    }
}

/// A change of profile within a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SwitchView {
    /// Profile switched to.
    pub profile: String,
    /// The last message before the switch (`None`: before the first).
    pub after_message_id: Option<i64>,
    /// When, ms since the epoch.
    pub at: i64,
}

impl From<ProfileSwitch> for SwitchView {
    fn from(s: ProfileSwitch) -> Self {
        Self {
            profile: s.profile,
            after_message_id: s.after_message_id,
            at: s.at,
        }
    }
}

/// A message queued during a run, not sent yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct QueuedView {
    /// Its id.
    pub queue_id: String,
    /// Its text.
    pub text: String,
}

/// The run going on in a session, for a UI that comes back to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct LiveRunView {
    /// The run.
    pub run_id: String,
    /// The user message that started it (`None` for a regenerate).
    pub prompt: Option<String>,
    /// Its events so far, in order; new ones keep arriving on the channel
    /// the run was started with.
    pub events: Vec<AgentEvent>,
    /// Messages queued and not yet sent.
    pub queued: Vec<QueuedView>,
}

/// What a sub-agent did for a `spawn_agent` call, kept with the parent's
/// turn so its nested cards survive a restart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct SubagentView {
    /// The session of the parent run (the user's, or for a nested
    /// sub-agent its parent's `subagent_…` id).
    pub parent_session_id: String,
    /// The parent run (call ids are unique only within a run).
    pub parent_run_id: String,
    /// The parent's `spawn_agent` call.
    pub parent_call_id: String,
    /// The sub-agent's own session id (`subagent_…`).
    pub session_id: String,
    /// Profile it ran with.
    pub profile: String,
    /// Its conversation: the task, its answers, tool calls and results.
    pub messages: Vec<MessageView>,
}

impl From<hearth_core::SubagentTranscript> for SubagentView {
    fn from(t: hearth_core::SubagentTranscript) -> Self {
        Self {
            parent_session_id: t.parent_session_id,
            parent_run_id: t.parent_run_id,
            parent_call_id: t.parent_call_id,
            session_id: t.session_id,
            profile: t.profile,
            // Ids in the order said: these messages live in no table.
            messages: t
                .messages
                .into_iter()
                .zip(1..)
                .map(|(message, id)| {
                    StoredMessage {
                        id,
                        parent_id: None,
                        run_id: None,
                        message,
                        created_at: 0,
                    }
                    .view()
                })
                .collect(),
        }
    }
}

/// A session opened in the transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct SessionView {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Its active profile.
    pub profile: String,
    /// The current branch, oldest first.
    pub messages: Vec<MessageView>,
    /// Groups of sibling messages (other answers, other versions of an
    /// edited message): the UI shows "k/n" on each.
    pub forks: Vec<Vec<i64>>,
    /// Profile changes, oldest first.
    pub switches: Vec<SwitchView>,
    /// Sub-agent transcripts of the branch's `spawn_agent` calls.
    pub subagents: Vec<SubagentView>,
    /// The run going on now, if any.
    pub live: Option<LiveRunView>,
    /// The model this session uses instead of its profile's (the model
    /// picker), if any.
    pub model: Option<String>,
    /// The host the session stays on (`ollama` for the default server);
    /// `None` before its first run, when its profile's host applies.
    pub host: Option<String>,
    /// What each answer says about its run (model, host, cut off), by run.
    pub answer_runs: Vec<AnswerRunView>,
    /// What each answer showed besides its messages (plan and progress,
    /// tool outcomes and times, approvals, speed, the error), by run.
    pub answers_shown: Vec<AnswerShownView>,
    /// What was typed in its composer and not sent (kept across restarts).
    pub unsent: Option<String>,
    /// Each message carries the best passages of the knowledge folders
    /// (a chat without tools that asked for them).
    pub knowledge: bool,
    /// The project it is in (an id).
    pub project: Option<String>,
}

/// The events one run's answer showed besides its messages, kept with the
/// run (no text, tool output or arguments: the messages hold those).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct AnswerShownView {
    /// The run.
    pub run_id: String,
    /// Its events, in order (the kinds this build knows).
    pub events: Vec<hearth_protocol::EventKind>,
}

/// What one run's answer says about its run beside its messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct AnswerRunView {
    /// The run.
    pub run_id: String,
    /// The model that wrote it (its first model call's, else the one it
    /// started on); `None` when neither was recorded.
    pub model: Option<String>,
    /// The host it started on (`ollama` for the default server); `None`
    /// for runs from before that was recorded. A failover the answer
    /// shows names where it went on.
    pub host: Option<String>,
    /// Hearth stopped (a crash or a kill) before the run ended: what it
    /// wrote was kept, but nobody stopped it.
    pub cut_off: bool,
}

/// The answer to queueing a message during a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueueResult {
    /// Queued: it joins the conversation at the next turn boundary.
    Queued {
        /// Id to show and to cancel by.
        queue_id: String,
    },
    /// The run is over (or ending): send the message as a new turn.
    RunEnded,
}

/// What importing another app's export did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ImportView {
    /// The app the file came from ("ChatGPT", "Open WebUI", "Hearth").
    pub source: String,
    /// The new sessions, in the file's order.
    pub sessions: Vec<String>,
    /// Messages imported.
    pub messages: u32,
    /// Messages left out (system prompts, tool messages, pictures).
    pub skipped: u32,
    /// The project they came in (a project's export), by name.
    pub project: Option<String>,
    /// What of the project could not come along.
    pub note: Option<String>,
}

impl From<hearth_store::ImportReport> for ImportView {
    fn from(r: hearth_store::ImportReport) -> Self {
        let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Self {
            source: r.source.name().to_owned(),
            sessions: r.sessions,
            messages: small(r.messages),
            skipped: small(r.skipped),
            project: None,
            note: None,
        }
    }
}

/// The format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// Markdown, for reading.
    Markdown,
    /// JSON, for tools (Hearth's export format).
    Json,
}

/// What an artifact of an answer (a diagram, a picture, a page) is saved as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactFormat {
    /// SVG: the picture's source, as text.
    Svg,
    /// PNG: the picture drawn by the page, as base64.
    Png,
    /// HTML: the page's source, as text.
    Html,
}
