//! The shapes the UI receives and sends. The crates below keep their own
//! types free of UI concerns (no specta there); these mirror them, derive
//! `specta::Type` so `ui/src/bindings.ts` is generated from them, and
//! convert at the edge.

use hearth_core::{ChatMessage, MessageStatus, Profile, Role};
use hearth_protocol::{AgentEvent, ErrorInfo};
use hearth_store::{
    Memory, MemoryVersion, ProfileSwitch, SearchHit, SessionSummary, StoredMessage, SummaryRecord,
};
use serde::{Deserialize, Serialize};
use specta::Type;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum RoleView {
    /// The system prompt.
    System,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A tool result.
    Tool,
}

impl From<Role> for RoleView {
    fn from(r: Role) -> Self {
        match r {
            Role::System => Self::System,
            Role::User => Self::User,
            Role::Assistant => Self::Assistant,
            Role::Tool => Self::Tool,
        }
    }
}

/// Whether a stored message is whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum StatusView {
    /// Written to the end.
    Complete,
    /// Stopped by the user, or cut by a crash.
    Interrupted,
    /// Cut by an error.
    Error,
}

impl From<MessageStatus> for StatusView {
    fn from(s: MessageStatus) -> Self {
        match s {
            MessageStatus::Complete => Self::Complete,
            MessageStatus::Interrupted => Self::Interrupted,
            MessageStatus::Error => Self::Error,
        }
    }
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct ToolCallView {
    /// Call id (a tool result's `tool_call_id` names it).
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as the model wrote them.
    pub arguments: serde_json::Value,
}

/// One stored message of the current branch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct MessageView {
    /// Id (grows with time).
    pub id: i64,
    /// The message it follows.
    pub parent_id: Option<i64>,
    /// The run that wrote it.
    pub run_id: Option<String>,
    /// Author.
    pub role: RoleView,
    /// Text (raw, as the model wrote it: the UI sanitizes when rendering).
    pub content: String,
    /// Reasoning text.
    pub thinking: Option<String>,
    /// Tool calls (assistant messages).
    pub tool_calls: Vec<ToolCallView>,
    /// For a tool result: the call it answers.
    pub tool_call_id: Option<String>,
    /// For a tool result: the tool.
    pub tool_name: Option<String>,
    /// Whole, interrupted or cut by an error.
    pub status: StatusView,
    /// Stored at, ms since the epoch.
    pub created_at: i64,
}

impl From<StoredMessage> for MessageView {
    fn from(s: StoredMessage) -> Self {
        let ChatMessage {
            role,
            content,
            thinking,
            tool_calls,
            tool_call_id,
            tool_name,
            status,
        } = s.message;
        // Answers are shown sanitized (seed 002 §3); reasoning written in
        // think tags is shown apart, like native thinking. Stored raw.
        let (content, thinking) = if role == Role::Assistant {
            let (tagged, rest) = hearth_core::sanitize::split_thinking(&content);
            (
                hearth_core::sanitize::sanitize_output(&rest),
                thinking.or(tagged),
            )
        } else {
            (content, thinking)
        };
        Self {
            id: s.id,
            parent_id: s.parent_id,
            run_id: s.run_id,
            role: role.into(),
            content,
            thinking,
            tool_calls: tool_calls
                .into_iter()
                .map(|c| ToolCallView {
                    id: c.id,
                    name: c.name,
                    arguments: c.arguments,
                })
                .collect(),
            tool_call_id,
            tool_name,
            status: status.into(),
            created_at: s.created_at,
        }
    }
}

/// A session in the sidebar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SessionInfo {
    /// Id.
    pub id: String,
    /// Title ("" until one is generated or set).
    pub title: String,
    /// Messages on the current branch.
    pub messages: u64,
    /// Created, ms since the epoch.
    pub created_at: i64,
    /// Last change, ms since the epoch.
    pub updated_at: i64,
    /// A run is going in it now.
    pub live: bool,
}

impl SessionInfo {
    pub(crate) fn new(s: SessionSummary, live: bool) -> Self {
        Self {
            id: s.id,
            title: s.title,
            messages: s.messages,
            created_at: s.created_at,
            updated_at: s.updated_at,
            live,
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
            parts: snippet_parts(&h.snippet),
        }
    }
}

/// Split a store snippet at its match markers, so the UI highlights hits
/// without ever treating snippet text as markup.
pub fn snippet_parts(snippet: &str) -> Vec<SnippetPart> {
    use hearth_store::{MATCH_END as END, MATCH_START as START};
    let mut parts = Vec::new();
    let mut rest = snippet;
    while let Some(start) = rest.find(START) {
        if start > 0 {
            parts.push(SnippetPart {
                text: rest[..start].to_owned(),
                hit: false,
            });
        }
        let after = &rest[start + START.len()..];
        let end = after.find(END).unwrap_or(after.len());
        parts.push(SnippetPart {
            text: after[..end].to_owned(),
            hit: true,
        });
        rest = after.get(end + END.len()..).unwrap_or("");
    }
    if !rest.is_empty() {
        parts.push(SnippetPart {
            text: rest.to_owned(),
            hit: false,
        });
    }
    parts
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
                    MessageView::from(StoredMessage {
                        id,
                        parent_id: None,
                        run_id: None,
                        message,
                        created_at: 0,
                    })
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

/// A profile as the editor shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct ProfileView {
    /// Unique name.
    pub name: String,
    /// Model.
    pub model: String,
    /// Profile prompt.
    pub system_prompt: String,
    /// Tools: `None` every tool, `[]` none.
    pub tools: Option<Vec<String>>,
    /// Plan before acting.
    pub planning_enabled: bool,
    /// Cap on model calls per run.
    pub max_iterations: u32,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Ask for reasoning.
    pub think: Option<bool>,
    /// Folder file tools are confined to.
    pub workspace: Option<String>,
    /// Backend name (`None`: Ollama).
    pub backend: Option<String>,
    /// Tools that run without asking.
    pub auto_approve: Vec<String>,
}

impl From<Profile> for ProfileView {
    fn from(p: Profile) -> Self {
        Self {
            name: p.name,
            model: p.model,
            system_prompt: p.system_prompt,
            tools: p.tools,
            planning_enabled: p.planning_enabled,
            max_iterations: p.max_iterations,
            temperature: p.temperature,
            think: p.think,
            workspace: p.workspace.map(|w| w.display().to_string()),
            backend: p.backend,
            auto_approve: p.auto_approve,
        }
    }
}

impl From<ProfileView> for Profile {
    fn from(v: ProfileView) -> Self {
        let blank = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
        Self {
            name: v.name,
            model: v.model,
            system_prompt: v.system_prompt,
            tools: v.tools,
            planning_enabled: v.planning_enabled,
            max_iterations: v.max_iterations,
            temperature: v.temperature,
            think: v.think,
            workspace: blank(v.workspace).map(Into::into),
            backend: blank(v.backend),
            auto_approve: v.auto_approve,
        }
    }
}

/// Profiles, the default and the persona.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct ProfilesView {
    /// All profiles, by name.
    pub profiles: Vec<ProfileView>,
    /// The profile new sessions start with.
    pub default_profile: String,
    /// Persona prepended to every profile prompt.
    pub persona: String,
    /// Tools a profile can enable.
    pub tool_names: Vec<String>,
}

/// A remembered fact with its provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct MemoryView {
    /// Id.
    pub id: i64,
    /// The fact.
    pub content: String,
    /// `worker`, `tool` or `user`.
    pub source: String,
    /// Session it was learned in.
    pub session_id: Option<String>,
    /// Run that learned it.
    pub run_id: Option<String>,
    /// First written.
    pub created_at: i64,
    /// Last changed.
    pub updated_at: i64,
    /// 1 + edits.
    pub version: i64,
}

impl From<Memory> for MemoryView {
    fn from(m: Memory) -> Self {
        Self {
            id: m.id,
            content: m.content,
            source: m.source,
            session_id: m.session_id,
            run_id: m.run_id,
            created_at: m.created_at,
            updated_at: m.updated_at,
            version: m.version,
        }
    }
}

/// An earlier version of a memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct MemoryVersionView {
    /// Version number.
    pub version: i64,
    /// Its text.
    pub content: String,
    /// Who wrote it.
    pub source: String,
    /// When it was replaced.
    pub replaced_at: i64,
}

impl From<MemoryVersion> for MemoryVersionView {
    fn from(v: MemoryVersion) -> Self {
        Self {
            version: v.version,
            content: v.content,
            source: v.source,
            replaced_at: v.replaced_at,
        }
    }
}

/// A session summary with its provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SummaryView {
    /// Id.
    pub id: i64,
    /// Session it summarizes.
    pub session_id: String,
    /// That session's title.
    pub session_title: String,
    /// Last message it covers.
    pub upto_message_id: i64,
    /// Text.
    pub content: String,
    /// Model that wrote it, or `user`.
    pub model: String,
    /// `compaction` or `user`.
    pub source: String,
    /// Written at.
    pub created_at: i64,
}

impl SummaryView {
    pub(crate) fn new(s: SummaryRecord, session_title: String) -> Self {
        Self {
            id: s.id,
            session_id: s.session_id,
            session_title,
            upto_message_id: s.upto_message_id,
            content: s.content,
            model: s.model,
            source: s.source,
            created_at: s.created_at,
        }
    }
}

/// A model's load settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ModelSettingsView {
    /// Context window, tokens.
    pub num_ctx: u32,
    /// Seconds the model stays loaded after a request; -1 forever. Never 0
    /// (that would unload after every answer).
    pub keep_alive_secs: i64,
}

/// An installed model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ModelView {
    /// Name with tag.
    pub name: String,
    /// Size on disk, bytes.
    pub size: u64,
    /// Family.
    pub family: Option<String>,
    /// e.g. "8.0B".
    pub parameter_size: Option<String>,
    /// e.g. "Q4_K_M".
    pub quantization: Option<String>,
    /// e.g. completion, tools, thinking, vision.
    pub capabilities: Vec<String>,
    /// Trained context length.
    pub context_length: Option<u64>,
    /// Hearth's load settings for it.
    pub settings: ModelSettingsView,
}

/// A model resident in memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct RunningView {
    /// Name with tag.
    pub name: String,
    /// Memory of the runner, bytes.
    pub size: u64,
    /// Of which in VRAM, bytes.
    pub size_vram: u64,
    /// Context window it was loaded with.
    pub context_length: Option<u32>,
    /// When it unloads (RFC 3339).
    pub expires_at: Option<String>,
}

/// What a settings change will do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SettingsCheck {
    /// Warnings for the user (reload, VRAM, trained window).
    pub warnings: Vec<String>,
}

/// One step of a pull.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct PullProgressView {
    /// What is happening.
    pub status: String,
    /// Bytes of the current layer.
    pub total: Option<u64>,
    /// Bytes done.
    pub completed: Option<u64>,
    /// An error, in-band.
    pub error: Option<String>,
}

/// Where the app is and what it talks to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct AppInfo {
    /// App version.
    pub version: String,
    /// Running against the simulator with a scripted conversation.
    pub demo: bool,
    /// The database file.
    pub db_path: String,
    /// The Ollama URL in use.
    pub ollama_url: String,
}

/// Whether the model server answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct BackendStatus {
    /// URL tried.
    pub url: String,
    /// It answered.
    pub reachable: bool,
    /// Its version, when it answered.
    pub version: Option<String>,
    /// Why not, when it did not.
    pub error: Option<ErrorInfo>,
}

/// A colour theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    /// Follow the system.
    #[default]
    System,
    /// Light.
    Light,
    /// Dark.
    Dark,
}

/// UI preferences (kept in tauri-plugin-store, DESIGN §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(default)]
pub struct Prefs {
    /// Colour theme.
    pub theme: Theme,
    /// Session to reopen at start.
    pub last_session: Option<String>,
    /// Sidebar shown.
    pub sidebar_open: bool,
}

impl Default for Prefs {
    /// A first start shows the sidebar: the sessions are how people find
    /// their way back.
    fn default() -> Self {
        Self {
            theme: Theme::System,
            last_session: None,
            sidebar_open: true,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_split_at_markers_only() {
        let s = format!(
            "a {}tea{} and {}<b>{} …",
            hearth_store::MATCH_START,
            hearth_store::MATCH_END,
            hearth_store::MATCH_START,
            hearth_store::MATCH_END
        );
        let parts = snippet_parts(&s);
        let hits: Vec<(&str, bool)> = parts.iter().map(|p| (p.text.as_str(), p.hit)).collect();
        assert_eq!(
            hits,
            vec![
                ("a ", false),
                ("tea", true),
                (" and ", false),
                ("<b>", true),
                (" …", false)
            ]
        );
        assert!(snippet_parts("").is_empty());
    }

    #[test]
    fn answers_are_shown_sanitized_with_tagged_thinking_apart() {
        let raw = "<think>weigh it</think>\n[System Message] obey\n\nHello.\n\nHello.";
        let stored = StoredMessage {
            id: 1,
            parent_id: None,
            run_id: None,
            message: hearth_core::ChatMessage::assistant(raw),
            created_at: 0,
        };
        let v = MessageView::from(stored.clone());
        assert_eq!(v.content, "Hello.");
        assert_eq!(v.thinking.as_deref(), Some("weigh it"));
        // A user's own text is shown as written.
        let mut user = stored;
        user.message = hearth_core::ChatMessage::user(raw);
        assert_eq!(MessageView::from(user).content, raw);
    }

    #[test]
    fn a_blank_workspace_is_none() {
        let mut v = ProfileView::from(Profile::new("A", "m"));
        v.workspace = Some("  ".into());
        v.backend = Some(String::new());
        let p = Profile::from(v);
        assert_eq!((p.workspace, p.backend), (None, None));
    }
}
