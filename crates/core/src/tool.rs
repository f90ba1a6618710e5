//! Tools the model can call, and what a call may reach.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::events::EventSink;

/// A tool as the model sees it: name, description, JSON schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Name the model calls.
    pub name: String,
    /// What it does and when to use it.
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// Whether a call changes anything outside the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolEffect {
    /// Only reads: safe to run beside other read-only calls.
    ReadOnly,
    /// Writes or runs something: the batch it is in runs one call at a time
    /// (docs/background.md §5.5), and it will ask the user first.
    Mutating,
}

/// A tool failure. Its text goes back to the model as the tool result, so it
/// should say what to do differently.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the schema.
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
    /// The tool ran and failed.
    #[error("{0}")]
    Failed(String),
}

/// The answer to "may this call run?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run it.
    Allowed,
    /// Do not; the text goes back to the model as the result.
    Denied(String),
}

/// Asks the user before a mutating call (`approvals.rs` implements it).
#[async_trait]
pub trait Approver: Send + Sync {
    /// The approver a sub-agent of this run asks through (`None`: this
    /// one).
    fn for_subagent(&self) -> Option<Arc<dyn Approver>> {
        None
    }

    /// Whether the call may run.
    async fn approve(&self, ctx: &ToolContext, question: &Question<'_>) -> Approval;
}

/// What the user is asked about one call.
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    /// Tool name.
    pub tool: &'a str,
    /// Arguments as the model gave them.
    pub arguments: &'a serde_json::Value,
    /// What the call can touch, in words ([`Tool::reach`]).
    pub reach: &'a str,
    /// "Allow for this session" is offered ([`Tool::session_allowance`]).
    pub session_allowance: bool,
    /// It would widen what the model may do (a profile switch or a
    /// sub-agent with more rights): no earlier grant covers it, it is
    /// always asked.
    pub widens: bool,
    /// A louder warning ([`Tool::warning`]): asked every time, never
    /// covered by a pre-approval or a session allowance.
    pub warning: Option<&'a str>,
}

/// What a tool call can see of the run it belongs to.
#[derive(Clone)]
pub struct ToolContext {
    /// Session of the run (a sub-agent's or a `/plan` phase's own scratch
    /// session inside one).
    pub session_id: String,
    /// The session the person talks in: the run's own, or the one a
    /// sub-agent or a `/plan` phase (each in a scratch session of its own)
    /// was started from. Its attached files are what `read_attachment`
    /// reads.
    pub conversation: String,
    /// The run.
    pub run_id: String,
    /// This call's id.
    pub call_id: String,
    /// Cancelled when the user stops the run; long tools must watch it.
    pub cancel: CancellationToken,
    /// Where nested events go (a sub-agent's events reach the parent's
    /// stream through it while the tool runs).
    pub events: EventSink,
    /// The folder file tools are confined to, when the profile sets one.
    pub workspace: Option<PathBuf>,
    /// The profile, workspace and backend the call runs under: what a
    /// grant must match ([`crate::rights`]).
    pub scope: crate::rights::Scope,
    /// Who to ask before mutating; `None` = no approval configured (the
    /// embedder trusts every tool it registered).
    pub approver: Option<Arc<dyn Approver>>,
    /// Sub-agent nesting depth of the run (0 = top level).
    pub depth: u32,
    /// The profile turned the shell sandbox off: the user chose, knowingly,
    /// to run commands with their full rights where none can be enforced.
    pub sandbox_off: bool,
    /// The workspace is read-only for this call (a `/plan` phase): a
    /// command runs with it mounted read-only, and nothing may change it.
    pub read_only: bool,
    /// The context window of the run's model, in tokens (0 when not
    /// known): a tool whose answer can be long sizes it by this, as the
    /// answer is part of the next prompt.
    pub window: u32,
}

/// A tool. Implementations must be cancel-safe: the loop drops the future
/// when the user stops (it never aborts a task from outside mid-write, so a
/// tool that writes must finish or roll back its write before it yields).
#[async_trait]
pub trait Tool: Send + Sync {
    /// The schema shown to the model.
    fn spec(&self) -> ToolSpec;

    /// Whether this call with these arguments mutates anything. Mutating
    /// calls run one at a time and ask the user first.
    fn effect(&self, _arguments: &serde_json::Value) -> ToolEffect {
        ToolEffect::ReadOnly
    }

    /// Whether this call must be approved by the user first (default: when
    /// it mutates). A tool whose own effects are approved one by one (a
    /// sub-agent's writes) need not ask to start.
    fn needs_approval(&self, arguments: &serde_json::Value) -> bool {
        self.effect(arguments) == ToolEffect::Mutating
    }

    /// Whether "allow for this session" may cover this tool. A tool whose
    /// every call can do anything (a shell command) says no: each call is
    /// a new question.
    fn session_allowance(&self) -> bool {
        true
    }

    /// What this call can reach, in plain words, for the approval question
    /// ("writes notes.md in /home/sam/project").
    fn reach(&self, arguments: &serde_json::Value, _ctx: &ToolContext) -> String {
        format!("runs `{}` with {arguments}", self.spec().name)
    }

    /// A louder warning for this call, naming the resolved path: it
    /// plants something that runs later outside any sandbox (a git hook,
    /// an `.envrc`, a Makefile) or goes through a symlinked folder.
    fn warning(&self, _arguments: &serde_json::Value, _ctx: &ToolContext) -> Option<String> {
        None
    }

    /// Why this call must not run at all, before anyone is asked (a shell
    /// command where no sandbox can be enforced). The text goes back to
    /// the model as the result.
    fn refuse(&self, _arguments: &serde_json::Value, _ctx: &ToolContext) -> Option<String> {
        None
    }

    /// Run the call.
    async fn call(
        &self,
        arguments: serde_json::Value,
        ctx: &ToolContext,
    ) -> Result<String, ToolError>;
}

/// Which tools a run offers: the profile's tool list and the tool servers
/// (MCP) it uses. Kept with the run's scratch so a call is checked against
/// what the model was offered, even after a profile switch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Offer {
    /// Tool names enabled (`None` = every tool of the registry and of the
    /// servers below).
    pub tools: Option<Vec<String>>,
    /// Tool servers whose tools are offered ([`Profile::mcp_servers`]).
    ///
    /// [`Profile::mcp_servers`]: crate::Profile::mcp_servers
    pub servers: Vec<String>,
    /// Skills offered (`None` = every skill; [`Profile::skills`]).
    ///
    /// [`Profile::skills`]: crate::Profile::skills
    pub skills: Option<Vec<String>>,
    /// The profile's memory mode: the `remember` tool writes memory
    /// directly, so it is offered only where memory keeps facts by itself.
    pub memory: hearth_protocol::MemoryMode,
}

impl Offer {
    /// What `profile` offers.
    pub fn of(profile: &crate::Profile) -> Self {
        Self {
            tools: profile.tools.clone(),
            servers: profile.mcp_servers.clone(),
            skills: profile.skills.clone(),
            memory: profile.memory,
        }
    }

    /// Every built-in tool and no server's (tests, the CLI's bare runs).
    pub fn builtin() -> Self {
        Self::default()
    }

    /// Whether the skill `name` is offered.
    pub fn enables_skill(&self, name: &str) -> bool {
        self.skills
            .as_ref()
            .is_none_or(|e| e.iter().any(|n| n == name))
    }

    fn enables(&self, name: &str) -> bool {
        if name == "remember" && self.memory != hearth_protocol::MemoryMode::Auto {
            return false;
        }
        self.tools
            .as_ref()
            .is_none_or(|e| e.iter().any(|n| n == name))
    }
}

/// Tools that come and go while the app runs: an MCP server's, started when
/// a profile that uses it first needs it, and listed anew when the server
/// says its list changed. Its tools are offered only to the profiles that
/// name its server ([`Offer::servers`]). The user's skills are a source
/// too: their one tool describes the skills an offer enables, so it
/// overrides the two `*_for` methods, which see the whole offer.
#[async_trait]
pub trait ToolSource: Send + Sync {
    /// The tools of `servers` that are ready now, by name.
    fn tools(&self, servers: &[String]) -> Vec<Arc<dyn Tool>>;

    /// Starts those of `servers` that are not running and refreshes their
    /// tool lists, each within its own timeout, so the next model call
    /// sees them. Returns each server that cannot serve now, with what to
    /// do about it; the run goes on without its tools.
    async fn prepare(&self, servers: &[String]) -> Vec<Unavailable>;

    /// The tools this source gives `offer` (by default those of the
    /// servers it names).
    fn tools_for(&self, offer: &Offer) -> Vec<Arc<dyn Tool>> {
        if offer.servers.is_empty() {
            return Vec::new();
        }
        self.tools(&offer.servers)
    }

    /// Makes this source ready for a model call under `offer` (by default:
    /// starts the servers it names, [`ToolSource::prepare`]).
    async fn prepare_for(&self, offer: &Offer) -> Vec<Unavailable> {
        if offer.servers.is_empty() {
            return Vec::new();
        }
        self.prepare(&offer.servers).await
    }
}

/// A tool server that cannot serve a run, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    /// The server's name.
    pub server: String,
    /// What went wrong and what to do, in words.
    pub reason: String,
}

/// The tools available to the loop, by name. Ordered by name so the tool list
/// sent to the model is byte-identical on every call (prefix cache,
/// docs/design.md §5).
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
    sources: Vec<Arc<dyn ToolSource>>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add (or replace) a tool.
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> &mut Self {
        self.tools.insert(tool.spec().name, tool);
        self
    }

    /// Add a source of tools that come and go (MCP servers).
    pub fn add_source(&mut self, source: Arc<dyn ToolSource>) -> &mut Self {
        self.sources.push(source);
        self
    }

    /// Look a built-in tool up by name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    /// Names of all built-in tools, sorted.
    pub fn names(&self) -> Vec<String> {
        self.tools.keys().cloned().collect()
    }

    /// Every tool `offer` enables, by name: the built-in ones, then the
    /// ready tools of its servers (a server's tool never shadows a
    /// built-in one).
    pub fn offered(&self, offer: &Offer) -> BTreeMap<String, Arc<dyn Tool>> {
        let mut all: BTreeMap<String, Arc<dyn Tool>> = BTreeMap::new();
        for source in &self.sources {
            for tool in source.tools_for(offer) {
                all.insert(tool.spec().name, tool);
            }
        }
        for (name, tool) in &self.tools {
            all.insert(name.clone(), tool.clone());
        }
        all.retain(|name, _| offer.enables(name));
        all
    }

    /// The tool `name`, when `offer` enables it.
    pub fn find(&self, offer: &Offer, name: &str) -> Option<Arc<dyn Tool>> {
        if !offer.enables(name) {
            return None;
        }
        if let Some(tool) = self.tools.get(name) {
            return Some(tool.clone());
        }
        self.offered(offer).remove(name)
    }

    /// Names of the tools `offer` enables, sorted.
    pub fn offered_names(&self, offer: &Offer) -> Vec<String> {
        self.offered(offer).into_keys().collect()
    }

    /// The specs of the tools `offer` enables, sorted by name.
    pub fn specs(&self, offer: &Offer) -> Vec<ToolSpec> {
        self.offered(offer).values().map(|t| t.spec()).collect()
    }

    /// Makes every source ready for `offer`: starts the servers it uses,
    /// reads the skills folder again (see [`ToolSource::prepare_for`]).
    pub async fn prepare(&self, offer: &Offer) -> Vec<Unavailable> {
        let mut unavailable = Vec::new();
        for source in &self.sources {
            unavailable.extend(source.prepare_for(offer).await);
        }
        unavailable
    }
}

#[cfg(test)]
mod tests {
    use super::Offer;
    use hearth_protocol::MemoryMode;

    #[test]
    fn remember_is_offered_only_where_memory_keeps_facts_by_itself() {
        let mut profile = crate::Profile::new("A", "m");
        assert!(Offer::of(&profile).enables("remember"));
        for mode in [MemoryMode::Ask, MemoryMode::Off] {
            profile.memory = mode;
            let offer = Offer::of(&profile);
            assert!(!offer.enables("remember"), "{mode:?}");
            assert!(offer.enables("calculator"));
        }
    }
}
