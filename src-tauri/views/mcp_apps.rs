//! What the page gets to show an MCP server's app under a tool call
//! (docs/security.md, "MCP Apps").

use serde::{Deserialize, Serialize};
use specta::Type;

/// An app to show under the tool call that made it, with that call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct McpAppView {
    /// The server's name in the configuration.
    pub server: String,
    /// The tool's own name on that server.
    pub tool: String,
    /// The app's `ui://` resource.
    pub resource_uri: String,
    /// The app's document: shown only in the sandboxed frame.
    pub html: String,
    /// Origins the app asked to reach; Hearth grants none of them.
    pub asked_domains: Vec<String>,
    /// Whether it asked for a border (`None`: it did not say).
    pub prefers_border: Option<bool>,
    /// What the model called the tool with.
    pub arguments: serde_json::Value,
    /// The server's whole `CallToolResult` (`None`: not kept, `note` says
    /// why).
    pub result: Option<serde_json::Value>,
    /// The server said the call failed.
    pub is_error: bool,
    /// A sentence to show with the app, when there is one.
    pub note: Option<String>,
}
