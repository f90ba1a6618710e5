//! What the UI edits and inspects besides conversations: profiles, memory,
//! summaries, models and their settings, the app and its preferences.

use hearth_core::Profile;
use hearth_protocol::ErrorInfo;
use hearth_store::{Memory, MemoryVersion, SummaryRecord};
use serde::{Deserialize, Serialize};
use specta::Type;

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
    pub think: Option<ThinkView>,
    /// Folder file tools are confined to.
    pub workspace: Option<String>,
    /// Host name (`None`: the default Ollama).
    pub backend: Option<String>,
    /// Hosts tried in order when `backend` cannot be reached before any
    /// output.
    #[serde(default)]
    pub failover: Vec<String>,
    /// Tools that run without asking.
    pub auto_approve: Vec<String>,
    /// Send only the last N user turns (`None`: all).
    pub history_turns: Option<u32>,
    /// What the input guard does with a suspected prompt injection.
    pub input_guard: hearth_protocol::GuardMode,
    /// Run shell commands without the sandbox (the user's knowing choice).
    pub sandbox_off: bool,
    /// Most tokens one answer may generate.
    pub max_output_tokens: u32,
    /// MCP servers whose tools this profile offers.
    #[serde(default)]
    pub mcp_servers: Vec<String>,
    /// Skills offered through `load_skill`: `None` every skill, `[]` none.
    #[serde(default)]
    pub skills: Option<Vec<String>>,
    /// Facts learned from conversations: kept, proposed first, or not.
    #[serde(default)]
    pub memory: hearth_protocol::MemoryMode,
    /// How many times a `/plan` review may send unfinished work back.
    #[serde(default = "default_review_cycles")]
    pub review_cycles: u32,
    /// Read its answers aloud as they stream.
    #[serde(default)]
    pub read_aloud: bool,
}

fn default_review_cycles() -> u32 {
    Profile::DEFAULT_REVIEW_CYCLES
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
            think: p.think.map(ThinkView::from),
            workspace: p.workspace.map(|w| w.display().to_string()),
            backend: p.backend,
            failover: p.failover,
            auto_approve: p.auto_approve,
            history_turns: p.history_turns,
            input_guard: p.input_guard,
            sandbox_off: p.sandbox_off,
            max_output_tokens: p.max_output_tokens,
            mcp_servers: p.mcp_servers,
            skills: p.skills,
            memory: p.memory,
            review_cycles: p.review_cycles,
            read_aloud: p.read_aloud,
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
            think: v.think.map(hearth_core::Think::from),
            workspace: blank(v.workspace).map(Into::into),
            backend: blank(v.backend),
            failover: v.failover,
            auto_approve: v.auto_approve,
            history_turns: v.history_turns.filter(|&n| n > 0),
            input_guard: v.input_guard,
            sandbox_off: v.sandbox_off,
            max_output_tokens: v.max_output_tokens.max(1),
            mcp_servers: v.mcp_servers,
            skills: v.skills,
            memory: v.memory,
            review_cycles: v.review_cycles,
            read_aloud: v.read_aloud,
        }
    }
}

/// A model server profiles and sessions can name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct HostView {
    /// What profiles and sessions call it.
    pub name: String,
    /// `ollama` or `openai`.
    pub kind: String,
    /// Its base URL.
    pub url: String,
    /// One of the servers of the settings (`ollama`, `openai`): its URL is
    /// set there, and it cannot be removed.
    pub builtin: bool,
    /// It answered just now.
    pub reachable: bool,
    /// Its version, when it says (Ollama does).
    pub version: Option<String>,
    /// The models it serves.
    pub models: Vec<String>,
    /// Why it could not be asked.
    pub error: Option<String>,
    /// Its requests carry an API key, kept in the desktop's secret store
    /// (the key itself never reaches the page).
    pub keyed: bool,
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
    /// Its category, when the memory worker learned it.
    pub category: Option<String>,
    /// The user's own words it rests on, when the memory worker learned it.
    pub quote: Option<String>,
    /// How many sessions were given it in their memory summary.
    pub uses: i64,
    /// The title of the session it was learned in, while that session
    /// exists.
    pub session_title: Option<String>,
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
            category: m.category,
            quote: m.quote,
            uses: m.uses,
            session_title: None,
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

/// Where a pull is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum PullState {
    /// Waiting for the pulls before it.
    Queued,
    /// Downloading.
    Running,
    /// Installed.
    Done,
    /// Ended with an error.
    Failed,
    /// Cancelled by the user.
    Cancelled,
}

/// A pull the app runs (queued, going on, or recently finished).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct PullView {
    /// The model pulled.
    pub model: String,
    /// Where it is.
    pub state: PullState,
    /// The server's last word ("pulling 3f2a…", "verifying sha256 digest").
    pub status: String,
    /// Bytes of the current layer.
    pub total: Option<u64>,
    /// Bytes of it done.
    pub completed: Option<u64>,
    /// Download speed over the last few seconds, while it runs.
    pub bytes_per_sec: Option<f64>,
    /// Time left for the current layer at that speed, in seconds.
    pub seconds_left: Option<f64>,
    /// Why it failed.
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
    /// The OpenAI-compatible server (llama.cpp, LM Studio, vLLM…) that a
    /// profile whose backend is `openai` talks to.
    pub openai_url: String,
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
    /// Its models (empty when it did not answer): what a profile whose
    /// model is missing is offered, and whether the first run needs a pull.
    pub models: Vec<InstalledModelView>,
    /// The model a new database's seeded profiles were just moved to (the
    /// seed is not installed here), and which profiles: said once.
    pub adopted: Option<AdoptedModelView>,
}

/// A model the server holds, as the first run weighs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct InstalledModelView {
    /// Name with tag.
    pub name: String,
    /// `completion`, `tools`, `vision`, `thinking`… (empty when unknown).
    pub capabilities: Vec<String>,
    /// Size on disk, bytes.
    pub size: u64,
}

/// The seeded profiles moved to an installed model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct AdoptedModelView {
    /// The model they use now.
    pub model: String,
    /// The profiles moved.
    pub profiles: Vec<String>,
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

/// UI preferences (kept in tauri-plugin-store, docs/design.md §7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(default)]
pub struct Prefs {
    /// Colour theme.
    pub theme: Theme,
    /// Session to reopen at start.
    pub last_session: Option<String>,
    /// Sidebar shown.
    pub sidebar_open: bool,
    /// What is said is sent at once; off, it waits in the composer to be
    /// edited and sent.
    pub voice_send: bool,
    /// A system notification when an approval waits or a long answer
    /// ends while the window is in the background.
    pub notify: bool,
    /// An HTML block in an answer offers a preview (no scripts, no network:
    /// docs/security.md, "Artifacts"). Off until the user turns it on.
    pub html_preview: bool,
}

/// Voice input: whether it can be used, and what it is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Type)]
pub struct VoiceView {
    /// A speech-to-text server named `voice` is configured.
    pub configured: bool,
    /// How to set one up, for the page to show.
    pub setup: String,
    /// The runtime's state.
    pub state: hearth_protocol::VoiceState,
    /// The source listened to.
    pub source: Option<hearth_protocol::VoiceSource>,
    /// Why, in the error state.
    pub detail: Option<String>,
}

/// Read aloud: whether it can be used, and what it is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Type)]
pub struct SpeakingView {
    /// A text-to-speech server named `speaker` is configured.
    pub configured: bool,
    /// It is speaking now.
    pub speaking: bool,
    /// The last failure of a call to it, said once.
    pub failure: Option<String>,
    /// How to set one up, for the page to show.
    pub setup: String,
}

impl Default for Prefs {
    /// A first start shows the sidebar: the sessions are how people find
    /// their way back.
    fn default() -> Self {
        Self {
            theme: Theme::System,
            last_session: None,
            sidebar_open: true,
            voice_send: true,
            notify: true,
            html_preview: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_workspace_is_none() {
        let mut v = ProfileView::from(Profile::new("A", "m"));
        v.workspace = Some("  ".into());
        v.backend = Some(String::new());
        let p = Profile::from(v);
        assert_eq!((p.workspace, p.backend), (None, None));
    }
}

/// A profile's reasoning setting: a switch, or a level for models that take
/// one (gpt-oss).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "lowercase")]
pub enum ThinkView {
    /// Reason.
    On,
    /// Do not (`think: false` is sent: a thinking model thinks when the
    /// field is absent).
    Off,
    /// Least.
    Low,
    /// The usual.
    Medium,
    /// Most.
    High,
}

impl From<hearth_core::Think> for ThinkView {
    fn from(t: hearth_core::Think) -> Self {
        use hearth_core::{Think, ThinkLevel};
        match t {
            Think::Switch(true) => Self::On,
            Think::Switch(false) => Self::Off,
            Think::Level(ThinkLevel::Low) => Self::Low,
            Think::Level(ThinkLevel::Medium) => Self::Medium,
            Think::Level(ThinkLevel::High) => Self::High,
        }
    }
}

impl From<ThinkView> for hearth_core::Think {
    fn from(t: ThinkView) -> Self {
        use hearth_core::ThinkLevel;
        match t {
            ThinkView::On => Self::Switch(true),
            ThinkView::Off => Self::OFF,
            ThinkView::Low => Self::Level(ThinkLevel::Low),
            ThinkView::Medium => Self::Level(ThinkLevel::Medium),
            ThinkView::High => Self::Level(ThinkLevel::High),
        }
    }
}
