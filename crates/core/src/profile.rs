//! Profiles: named bundles of model, prompt, tools and loop settings
//! (docs/design.md §8). Load-time options are not here: they belong to the
//! model.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::RwLock;

use serde::{Deserialize, Serialize};

/// How much a model reasons before it answers, as Ollama's `think` takes
/// it: a switch (`true`/`false`), or a level for models that take one
/// (`"low"`, `"medium"`, `"high"`: gpt-oss, which cannot switch it off).
/// A profile stored with a plain `true`/`false` reads as a switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Think {
    /// On or off.
    Switch(bool),
    /// How hard.
    Level(ThinkLevel),
}

/// A reasoning level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkLevel {
    /// Least.
    Low,
    /// The usual.
    Medium,
    /// Most.
    High,
}

impl Think {
    /// Reasoning off.
    pub const OFF: Self = Self::Switch(false);

    /// Whether the model is asked to reason.
    pub fn is_on(self) -> bool {
        self != Self::OFF
    }

    /// The least reasoning this setting allows, for a short side request
    /// (a plan, a title): off, or the lowest level for a model that cannot
    /// switch it off.
    pub fn least(self) -> Self {
        match self {
            Self::Switch(_) => Self::OFF,
            Self::Level(_) => Self::Level(ThinkLevel::Low),
        }
    }

    /// Reads `on`, `off`, `low`, `medium` or `high`.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "on" | "true" => Self::Switch(true),
            "off" | "false" => Self::OFF,
            "low" => Self::Level(ThinkLevel::Low),
            "medium" => Self::Level(ThinkLevel::Medium),
            "high" => Self::Level(ThinkLevel::High),
            _ => return None,
        })
    }
}

impl std::fmt::Display for Think {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Switch(true) => "on",
            Self::Switch(false) => "off",
            Self::Level(ThinkLevel::Low) => "low",
            Self::Level(ThinkLevel::Medium) => "medium",
            Self::Level(ThinkLevel::High) => "high",
        })
    }
}

/// A profile. Re-read before every model call, so a switch takes effect at
/// the next call even in the middle of a tool loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Unique name ("Chat", "Agent", …).
    pub name: String,
    /// Model to use.
    pub model: String,
    /// Profile prompt (after the persona and `---`).
    pub system_prompt: String,
    /// Tools enabled: `None` = every registered tool, `Some(vec![])` = none.
    pub tools: Option<Vec<String>>,
    /// Run the planning phase before the tool loop (streaming path only).
    pub planning_enabled: bool,
    /// Cap on model calls per run.
    pub max_iterations: u32,
    /// Sampling temperature (`None` = model default).
    pub temperature: Option<f64>,
    /// Reasoning: on, off, or a level for models that take one (`None` =
    /// don't send the field: a thinking model then thinks).
    pub think: Option<Think>,
    /// Folder file tools are confined to.
    pub workspace: Option<PathBuf>,
    /// Which configured backend serves this profile (`None` = the default,
    /// Ollama). Names are registered with `AgentBuilder::named_backend`.
    #[serde(default)]
    pub backend: Option<String>,
    /// Hosts tried in order when `backend` cannot be reached before any
    /// output (`hosts.rs`); each move is announced in the answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failover: Vec<String>,
    /// Tools that run without asking (the user pre-approved them).
    #[serde(default)]
    pub auto_approve: Vec<String>,
    /// Tool servers (MCP, by their configured names) whose tools this
    /// profile offers; a server starts when a profile naming it first
    /// runs. `tools`, when set, filters their tools too.
    #[serde(default)]
    pub mcp_servers: Vec<String>,
    /// Skills (the user's `SKILL.md` folders, by name) offered to the
    /// model through `load_skill`: `None` = every skill in the folder,
    /// `Some(vec![])` = none. `tools`, when set, must enable `load_skill`
    /// too.
    #[serde(default)]
    pub skills: Option<Vec<String>>,
    /// Send only the last N user turns (docs/background.md §3.5 stage 1);
    /// `None` = all (the budget and compaction still apply).
    #[serde(default)]
    pub history_turns: Option<u32>,
    /// What the input guard does (docs/background.md §3.4); `warn` by default.
    #[serde(default)]
    pub input_guard: hearth_protocol::GuardMode,
    /// Whether facts learned from the conversation are kept at once,
    /// proposed to the user first, or not learned at all.
    #[serde(default)]
    pub memory: hearth_protocol::MemoryMode,
    /// Run shell commands without the sandbox. Off by default; the user
    /// turns it on, knowingly, where the machine cannot sandbox (the
    /// approval then says the command is not confined).
    #[serde(default)]
    pub sandbox_off: bool,
    /// Most tokens one answer may generate (sent as `num_predict` /
    /// `max_tokens`): a small model that never stops must not fill memory
    /// and disk.
    #[serde(default = "Profile::default_max_output_tokens")]
    pub max_output_tokens: u32,
    /// How many times a `/plan` review that finds the work unfinished may
    /// send it back for another implement pass (docs/plan.md).
    #[serde(default = "Profile::default_review_cycles")]
    pub review_cycles: u32,
    /// Read its answers aloud as they stream, on the text-to-speech
    /// server (docs/voice.md, "Read aloud"). Off by default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_aloud: bool,
}

impl Profile {
    /// Default cap on model calls per run.
    pub const DEFAULT_MAX_ITERATIONS: u32 = 20;

    /// Default cap on tokens per answer: room for a long reasoning trace
    /// and a long answer, far below what fills a disk.
    pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 16_384;

    fn default_max_output_tokens() -> u32 {
        Self::DEFAULT_MAX_OUTPUT_TOKENS
    }

    /// Default number of `/plan` fix passes after a review.
    pub const DEFAULT_REVIEW_CYCLES: u32 = 2;

    fn default_review_cycles() -> u32 {
        Self::DEFAULT_REVIEW_CYCLES
    }

    /// A profile with defaults: every tool, no planning, 20 iterations.
    pub fn new(name: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            model: model.into(),
            system_prompt:
                "You are Hearth, a helpful assistant running on the user's own computer.".into(),
            tools: None,
            planning_enabled: false,
            max_iterations: Self::DEFAULT_MAX_ITERATIONS,
            temperature: None,
            think: None,
            workspace: None,
            backend: None,
            failover: Vec::new(),
            auto_approve: Vec::new(),
            mcp_servers: Vec::new(),
            skills: None,
            history_turns: None,
            input_guard: hearth_protocol::GuardMode::default(),
            memory: hearth_protocol::MemoryMode::default(),
            sandbox_off: false,
            max_output_tokens: Self::DEFAULT_MAX_OUTPUT_TOKENS,
            review_cycles: Self::DEFAULT_REVIEW_CYCLES,
            read_aloud: false,
        }
    }
}

/// Where the loop gets the persona and the active profile.
pub trait ProfileProvider: Send + Sync {
    /// The global persona, prepended to every profile prompt.
    fn persona(&self) -> String;
    /// The profile a session uses now.
    fn active(&self, session_id: &str) -> Profile;
    /// A profile by name (for sub-agents).
    fn by_name(&self, name: &str) -> Option<Profile>;
    /// Every profile's name, sorted (offered to `spawn_agent`).
    fn names(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Profiles held in memory: one active profile for every session.
#[derive(Debug)]
pub struct StaticProfiles {
    persona: String,
    active: RwLock<String>,
    profiles: RwLock<BTreeMap<String, Profile>>,
}

impl StaticProfiles {
    /// Profiles with `active` as the only one.
    pub fn single(persona: impl Into<String>, active: Profile) -> Self {
        let name = active.name.clone();
        Self {
            persona: persona.into(),
            active: RwLock::new(name.clone()),
            profiles: RwLock::new(BTreeMap::from([(name, active)])),
        }
    }

    /// Add or replace a profile.
    pub fn upsert(&self, profile: Profile) {
        if let Ok(mut p) = self.profiles.write() {
            p.insert(profile.name.clone(), profile);
        }
    }

    /// Make `name` the active profile; false when there is no such profile.
    pub fn switch(&self, name: &str) -> bool {
        let exists = self.profiles.read().is_ok_and(|p| p.contains_key(name));
        if exists && let Ok(mut a) = self.active.write() {
            *a = name.to_owned();
        }
        exists
    }
}

impl ProfileProvider for StaticProfiles {
    fn persona(&self) -> String {
        self.persona.clone()
    }

    fn active(&self, _session_id: &str) -> Profile {
        let name = self.active.read().map(|a| a.clone()).unwrap_or_default();
        self.by_name(&name)
            .unwrap_or_else(|| Profile::new(name, "llama3.2"))
    }

    fn by_name(&self, name: &str) -> Option<Profile> {
        self.profiles.read().ok().and_then(|p| p.get(name).cloned())
    }

    fn names(&self) -> Vec<String> {
        self.profiles
            .read()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::{Think, ThinkLevel};
    use serde_json::json;

    #[test]
    fn think_reads_a_stored_switch_or_a_level_and_a_side_request_gets_the_least() {
        let read = |v: serde_json::Value| serde_json::from_value::<Think>(v).unwrap();
        assert_eq!(read(json!(true)), Think::Switch(true));
        assert_eq!(read(json!(false)), Think::OFF);
        assert_eq!(read(json!("high")), Think::Level(ThinkLevel::High));
        assert!(serde_json::from_value::<Think>(json!("max")).is_err());
        assert_eq!(
            serde_json::to_value(Think::Level(ThinkLevel::Low)).unwrap(),
            json!("low")
        );
        assert_eq!(
            Think::Level(ThinkLevel::High).least(),
            Think::Level(ThinkLevel::Low)
        );
        assert_eq!(Think::Switch(true).least(), Think::OFF);
        for s in ["on", "off", "low", "medium", "high"] {
            assert_eq!(Think::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(Think::parse("loud"), None);
    }
}
