//! The Tools panel's shapes: each MCP server with its state and tools, the
//! user's skills, and the hooks.

use serde::{Deserialize, Serialize};
use specta::Type;

/// One MCP tool as the panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct McpToolView {
    /// The name the model calls (`server__tool`); what a profile's tool
    /// list and pre-approvals name.
    pub name: String,
    /// What it does, as the server describes it.
    pub description: String,
    /// The server says it only reads (`None`: it did not say).
    pub read_only: Option<bool>,
    /// The server says it may delete or overwrite.
    pub destructive: Option<bool>,
    /// The server says it reaches outside this computer.
    pub open_world: Option<bool>,
    /// It shows an app of its server under its calls (MCP Apps).
    pub has_app: bool,
    /// The server keeps it for its apps: never offered to the model.
    pub app_only: bool,
}

/// One configured MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct McpServerView {
    /// Its configured name.
    pub name: String,
    /// What runs (the command line or the URL; never its environment or
    /// headers, which may hold secrets).
    pub runs: String,
    /// `stopped`, `starting`, `running`, `failed` or `disabled`.
    pub state: String,
    /// The server's own name and version while running; what went wrong
    /// and what to do when failed.
    pub detail: String,
    /// Seconds until Hearth tries a failed server again.
    pub retry_in_secs: Option<u32>,
    /// Its tools while running.
    pub tools: Vec<McpToolView>,
}

/// The Tools panel: the servers, and the configuration as `mcpServers`
/// JSON (what the editor shows and other apps read).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct McpView {
    /// Every configured server, by name.
    pub servers: Vec<McpServerView>,
    /// The configuration, each environment and header value shown as
    /// `hearth_mcp::HIDDEN` (saved back so, it keeps its value).
    pub config: String,
    /// Where the environment and header values are kept (the desktop's
    /// secret store, or the database and why); `None` when there are none.
    pub values_kept: Option<String>,
}

impl From<&hearth_mcp::Server> for McpServerView {
    fn from(s: &hearth_mcp::Server) -> Self {
        use hearth_core::Tool;
        use hearth_mcp::Status;
        let (state, detail, retry_in_secs) = match s.status() {
            Status::Stopped => ("stopped", String::new(), None),
            Status::Starting => ("starting", String::new(), None),
            Status::Running { server, .. } => ("running", server, None),
            Status::Failed {
                reason,
                retry_in_secs,
                ..
            } => (
                "failed",
                reason,
                Some(u32::try_from(retry_in_secs).unwrap_or(u32::MAX)),
            ),
            Status::Disabled => ("disabled", String::new(), None),
        };
        let tools = s
            .tools()
            .iter()
            .map(|t| {
                let (read_only, destructive, open_world) = t.hints();
                McpToolView {
                    name: t.spec().name,
                    description: t.spec().description,
                    read_only,
                    destructive,
                    open_world,
                    has_app: t.ui().resource_uri.is_some(),
                    app_only: !t.ui().model,
                }
            })
            .collect();
        Self {
            name: s.name().to_owned(),
            runs: s.config().describe(),
            state: state.to_owned(),
            detail,
            retry_in_secs,
            tools,
        }
    }
}

/// One skill the model can be offered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SkillView {
    /// Its name (and its folder's).
    pub name: String,
    /// What it does and when to use it: what the model is shown.
    pub description: String,
    /// Its folder.
    pub folder: String,
    /// Its licence, when it names one.
    pub license: Option<String>,
    /// What it needs of the machine, when it says.
    pub compatibility: Option<String>,
}

/// A folder in the skills folder that is not offered, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SkillProblemView {
    /// The folder.
    pub path: String,
    /// What is wrong and what to do.
    pub reason: String,
}

/// The skills folder as read now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SkillsView {
    /// Where skills live (a sub-folder with a `SKILL.md` each).
    pub folder: String,
    /// The usable skills, by name.
    pub skills: Vec<SkillView>,
    /// The folders that are not.
    pub problems: Vec<SkillProblemView>,
}

impl From<&hearth_tools::skills::Catalog> for SkillsView {
    fn from(c: &hearth_tools::skills::Catalog) -> Self {
        Self {
            folder: c.folder.display().to_string(),
            skills: c
                .skills
                .values()
                .map(|s| SkillView {
                    name: s.name.clone(),
                    description: s.description.clone(),
                    folder: s.folder.display().to_string(),
                    license: s.license.clone(),
                    compatibility: s.compatibility.clone(),
                })
                .collect(),
            problems: c
                .problems
                .iter()
                .map(|p| SkillProblemView {
                    path: p.path.display().to_string(),
                    reason: p.reason.clone(),
                })
                .collect(),
        }
    }
}

/// The hooks as saved, and whether they are in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct HooksView {
    /// The configuration as JSON (`{}` when none was saved).
    pub config: String,
    /// How many commands run before tool calls, after them, and before
    /// model calls.
    pub before_tool_call: u32,
    /// See `before_tool_call`.
    pub after_tool_call: u32,
    /// See `before_tool_call`.
    pub before_model_call: u32,
    /// Why the saved configuration cannot be used (then every tool call
    /// is blocked until it is fixed).
    pub problem: Option<String>,
    /// Hooks a model could rewrite: their scripts lie in a profile's
    /// workspace (they still run).
    pub warnings: Vec<String>,
}
