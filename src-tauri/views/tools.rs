//! The Tools panel's shapes: each MCP server with its state and tools.

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
    /// The configuration.
    pub config: String,
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
