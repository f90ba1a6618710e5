//! One MCP tool as a Hearth tool. The server is someone else's program:
//! its name, description, annotations and results are untrusted. Every
//! call asks the user unless the profile pre-approved the tool — a
//! server's claim that a tool only reads never skips that (it only lets
//! the call run beside other read-only ones and softens the wording).
//! Results are turned into text the model can read, capped with a notice;
//! images and other binary parts are described, never passed on raw.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use hearth_core::{Tool, ToolContext, ToolEffect, ToolError, ToolSpec};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ResourceContents};
use rmcp::service::{Peer, ServiceError};

use crate::apps::{AppCall, AppViews, UiLink};
use crate::log::ServerLog;

/// Characters of a server's description shown to the model (a server
/// could otherwise fill the prompt with its tool list).
const MAX_DESCRIPTION_CHARS: usize = 1_024;

/// The most a tool's input schema may take, as JSON (security review N4:
/// a 212 KB schema filled a 8,192-token window 6 times over, and every
/// profile that named the server failed). Real servers' schemas are a few
/// hundred bytes; the largest of `server-everything`'s is under 2 KB.
pub(crate) const MAX_SCHEMA_BYTES: usize = 8 * 1024;

/// The most tools one server offers the model: each costs the prompt its
/// description and schema.
pub(crate) const MAX_TOOLS_PER_SERVER: usize = 64;

/// Why the model must not see `tool`, or `None` when it may. A server's
/// tool list is untrusted text that goes into every prompt: screened as a
/// skill's front matter is (no control or invisible characters, which
/// would show the model something the user cannot see in the Tools panel),
/// and bounded in size.
pub(crate) fn screen(tool: &rmcp::model::Tool) -> Option<String> {
    use hearth_core::visible::is_deceptive;
    let hidden = |text: &str, newlines: bool| text.chars().any(|c| is_deceptive(c, newlines));
    if hidden(&tool.name, false) || tool.title.as_deref().is_some_and(|t| hidden(t, false)) {
        return Some("its name or title holds control or invisible characters".into());
    }
    if tool.description.as_deref().is_some_and(|d| hidden(d, true)) {
        return Some(
            "its description holds control or invisible characters, which would show the model something the Tools panel does not".into(),
        );
    }
    let schema = serde_json::Value::Object((*tool.input_schema).clone());
    let size = serde_json::to_string(&schema).map_or(usize::MAX, |s| s.len());
    if size > MAX_SCHEMA_BYTES {
        return Some(format!(
            "its input schema takes {size} bytes, more than the {MAX_SCHEMA_BYTES} a tool may take of the model's window"
        ));
    }
    if strings_of(&schema).any(|t| hidden(t, true)) {
        return Some("its input schema holds control or invisible characters".into());
    }
    // The input guard's patterns, as on a tool result: a description that
    // tells the model to ignore its instructions is an injection.
    let text = std::iter::once(tool.description.as_deref().unwrap_or_default())
        .chain(strings_of(&schema))
        .collect::<Vec<_>>()
        .join("\n");
    let found = hearth_core::guard::scan(&text);
    if !found.is_empty() {
        return Some(format!(
            "its description or schema looks like a prompt injection ({})",
            found.join(", ")
        ));
    }
    None
}

/// Every string in `value`, keys included.
fn strings_of(value: &serde_json::Value) -> Box<dyn Iterator<Item = &str> + '_> {
    use serde_json::Value;
    match value {
        Value::String(s) => Box::new(std::iter::once(s.as_str())),
        Value::Array(items) => Box::new(items.iter().flat_map(strings_of)),
        Value::Object(map) => Box::new(
            map.iter()
                .flat_map(|(k, v)| std::iter::once(k.as_str()).chain(strings_of(v))),
        ),
        _ => Box::new(std::iter::empty()),
    }
}

/// The name the model calls: `server__tool`, in the characters every
/// model server's tool-name rules accept, at most 64 of them.
pub fn tool_name(server: &str, tool: &str) -> String {
    let clean: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut name = format!("{server}__{clean}");
    name.truncate(64);
    name
}

/// A tool of a running MCP server.
pub struct McpTool {
    server: String,
    /// What runs, for the approval text ("npx -y @…/server-everything").
    runs: String,
    tool: rmcp::model::Tool,
    spec: ToolSpec,
    peer: Peer<RoleClient>,
    log: Arc<ServerLog>,
    call_timeout: Duration,
    /// Raised when a call finds the connection gone, so the next run
    /// restarts the server without waiting for the connection's own task
    /// to notice.
    broken: Arc<AtomicBool>,
    /// The server changed this tool's description or schema since it
    /// first listed it: no pre-approval covers it.
    changed: bool,
    /// Its app and who may call it (`_meta.ui`; `apps.rs`).
    ui: UiLink,
    /// Where a call of a tool with an app is kept for the app to show.
    views: Arc<AppViews>,
    /// Which start of its configured server listed it ([`crate::Server::id`]).
    server_id: u64,
}

/// What a pre-approval of a tool was given for: its description and input
/// schema as the server listed them, as a SHA-256 (kept in the database
/// across restarts: `listings.rs`).
pub(crate) fn fingerprint(tool: &rmcp::model::Tool) -> String {
    use sha2::{Digest, Sha256};
    let schema = serde_json::Value::Object((*tool.input_schema).clone());
    let mut hash = Sha256::new();
    hash.update(tool.description.as_deref().unwrap_or_default());
    hash.update([0]);
    hash.update(schema.to_string());
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl McpTool {
    /// `tool` of `server`, called through `peer`.
    pub(crate) fn new(
        server: &str,
        runs: String,
        tool: rmcp::model::Tool,
        peer: Peer<RoleClient>,
        log: Arc<ServerLog>,
        call_timeout: Duration,
        broken: Arc<AtomicBool>,
        (views, server_id): (Arc<AppViews>, u64),
    ) -> Self {
        let ui = UiLink::of(tool.meta.as_ref().map(|m| &m.0));
        let mut description: String = tool
            .description
            .as_deref()
            .unwrap_or_default()
            .chars()
            .take(MAX_DESCRIPTION_CHARS)
            .collect();
        if description.is_empty() {
            description = tool.title.clone().unwrap_or_else(|| tool.name.to_string());
        }
        let spec = ToolSpec {
            name: tool_name(server, &tool.name),
            description: format!("[MCP server {server}] {description}"),
            parameters: serde_json::Value::Object((*tool.input_schema).clone()),
        };
        Self {
            server: server.to_owned(),
            runs,
            tool,
            spec,
            peer,
            log,
            call_timeout,
            broken,
            changed: false,
            ui,
            views,
            server_id,
        }
    }

    /// Its app and who may call it.
    pub fn ui(&self) -> &UiLink {
        &self.ui
    }

    /// Marked as changed since the server first listed it (security review
    /// N4: a server could list a harmless tool, be pre-approved, then
    /// change what the tool tells the model).
    #[must_use]
    pub(crate) fn changed(mut self, changed: bool) -> Self {
        self.changed = changed;
        self
    }

    /// The server's name for the tool (what it is called on the wire).
    pub fn remote_name(&self) -> &str {
        &self.tool.name
    }

    /// The server's hints, for the panel: (read-only, destructive, open
    /// world), each `None` when the server did not say.
    pub fn hints(&self) -> (Option<bool>, Option<bool>, Option<bool>) {
        let a = self.tool.annotations.as_ref();
        (
            a.and_then(|a| a.read_only_hint),
            a.and_then(|a| a.destructive_hint),
            a.and_then(|a| a.open_world_hint),
        )
    }
}

#[async_trait]
impl Tool for McpTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    /// Read-only only on the server's word, and only for scheduling.
    fn effect(&self, _arguments: &serde_json::Value) -> ToolEffect {
        match self.hints().0 {
            Some(true) => ToolEffect::ReadOnly,
            _ => ToolEffect::Mutating,
        }
    }

    /// Always asked (or pre-approved by the user): the server's program
    /// runs with the user's full rights, whatever it says of itself.
    fn needs_approval(&self, _arguments: &serde_json::Value) -> bool {
        true
    }

    fn warning(&self, _arguments: &serde_json::Value, _ctx: &ToolContext) -> Option<String> {
        self.changed.then(|| {
            format!(
                "the MCP server \"{}\" changed this tool's description or input schema since it first listed it, so a pre-approval does not cover it; check the Tools panel",
                self.server
            )
        })
    }

    fn reach(&self, arguments: &serde_json::Value, _ctx: &ToolContext) -> String {
        self.reach_text(arguments)
    }

    async fn call(
        &self,
        arguments: serde_json::Value,
        ctx: &ToolContext,
    ) -> Result<String, ToolError> {
        let serde_json::Value::Object(arguments) = arguments else {
            return Err(ToolError::InvalidArguments(
                "the arguments must be a JSON object".into(),
            ));
        };
        // Dropping the request (Stop drops this future) sends the server
        // `notifications/cancelled`.
        let kept = arguments.clone();
        let raw = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => return Err(ToolError::Failed("stopped by the user".into())),
            r = self.send_raw(arguments) => r?,
        };
        if let Some(resource_uri) = &self.ui.resource_uri {
            let (result, note) = AppViews::result_of(&raw);
            self.views.keep(AppCall {
                run_id: ctx.run_id.clone(),
                call_id: ctx.call_id.clone(),
                server: self.server.clone(),
                server_id: self.server_id,
                tool: self.tool.name.to_string(),
                resource_uri: resource_uri.clone(),
                arguments: serde_json::Value::Object(kept),
                result,
                is_error: raw.is_error == Some(true),
                note,
            });
        }
        self.text_of(&raw)
    }
}

impl McpTool {
    /// What a call with `arguments` does, for an approval (a run's, or an
    /// app's in the desktop).
    pub fn reach_text(&self, arguments: &serde_json::Value) -> String {
        let (read_only, destructive, open_world) = self.hints();
        let mut says = Vec::new();
        if read_only == Some(true) {
            says.push("only reads");
        } else if destructive != Some(false) {
            says.push("may change or delete things");
        } else {
            says.push("may change things (nothing destructive)");
        }
        if open_world != Some(false) {
            says.push("may reach outside this computer");
        }
        format!(
            "calls `{}` on the MCP server \"{}\" ({}) with {arguments}. The server says it {}. \
             Hearth does not confine MCP servers: it runs with your full rights, so this is \
             only as safe as the server.",
            self.tool.name,
            self.server,
            self.runs,
            says.join(" and "),
        )
    }

    /// Call it outside a run: the voice runtime's session tools, which the
    /// user starts with the microphone button (no model asks for them, so
    /// no approval is asked either).
    pub async fn invoke(&self, arguments: serde_json::Value) -> Result<String, ToolError> {
        let serde_json::Value::Object(arguments) = arguments else {
            return Err(ToolError::InvalidArguments(
                "the arguments must be a JSON object".into(),
            ));
        };
        let raw = self.send_raw(arguments).await?;
        self.text_of(&raw)
    }

    /// Call it for its app (an app's own `tools/call`, approved by the
    /// person in the desktop): the server's whole result, for the app.
    pub async fn call_for_app(
        &self,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<CallToolResult, ToolError> {
        self.send_raw(arguments).await
    }

    async fn send_raw(
        &self,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<CallToolResult, ToolError> {
        let params =
            CallToolRequestParams::new(self.tool.name.to_string()).with_arguments(arguments);
        let call = self.peer.call_tool(params);
        let result = tokio::time::timeout(self.call_timeout, call).await;
        let result = match result {
            Err(_) => {
                return Err(ToolError::Failed(format!(
                    "the MCP server \"{}\" did not answer within {} s; try again later or \
                     without this tool",
                    self.server,
                    self.call_timeout.as_secs()
                )));
            }
            Ok(Err(e)) => {
                if matches!(
                    e,
                    ServiceError::TransportClosed | ServiceError::TransportSend(_)
                ) {
                    self.broken.store(true, Ordering::SeqCst);
                }
                // Its output stays with the user (the Tools panel), not
                // the model: a server may print what it should not.
                self.log.push(&format!(
                    "[hearth] a call of `{}` failed: {e}",
                    self.tool.name
                ));
                return Err(ToolError::Failed(format!(
                    "the MCP server \"{}\" failed the call: {e}",
                    self.server
                )));
            }
            Ok(Ok(r)) => r,
        };
        Ok(result)
    }

    /// The result as the model reads it: text, capped; an error result is
    /// the tool's failure.
    fn text_of(&self, result: &CallToolResult) -> Result<String, ToolError> {
        let is_error = result.is_error == Some(true);
        let text = result_text(result);
        let text = hearth_tools::cap(
            text,
            hearth_tools::MAX_OUTPUT_CHARS,
            &self.spec.name,
            "Ask the tool for less (a narrower query, a page).",
        );
        if is_error {
            Err(ToolError::Failed(text))
        } else {
            Ok(text)
        }
    }
}

/// A result as text: text parts as they are; images, audio and binary
/// resources described by type and size (a model that reads text cannot
/// use them, and raw base64 would only fill its context); structured
/// content when there is nothing else.
pub fn result_text(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        parts.push(match block {
            ContentBlock::Text(t) => t.text.clone(),
            ContentBlock::Image(i) => binary("image", &i.mime_type, &i.data),
            ContentBlock::Audio(a) => binary("audio", &a.mime_type, &a.data),
            ContentBlock::Resource(r) => match &r.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    format!("[resource {uri}]\n{text}")
                }
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => binary(
                    &format!("resource {uri}"),
                    mime_type.as_deref().unwrap_or("application/octet-stream"),
                    blob,
                ),
                _ => "[a resource of a kind Hearth does not read]".into(),
            },
            ContentBlock::ResourceLink(l) => format!("[link to resource {} ({})]", l.name, l.uri),
            _ => "[a part of a kind Hearth does not read]".into(),
        });
    }
    if parts.is_empty()
        && let Some(structured) = &result.structured_content
    {
        parts.push(structured.to_string());
    }
    if parts.is_empty() {
        return "(the tool returned nothing)".into();
    }
    parts.join("\n")
}

fn binary(what: &str, mime: &str, base64: &str) -> String {
    let bytes = base64.len() / 4 * 3;
    format!(
        "[{what}: {mime}, about {} KB, not shown to the model]",
        bytes.div_ceil(1024)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_to_what_models_accept() {
        assert_eq!(
            tool_name("time", "get_current_time"),
            "time__get_current_time"
        );
        assert_eq!(tool_name("fs", "read.file/v2"), "fs__read_file_v2");
        assert_eq!(tool_name("s", &"x".repeat(100)).len(), 64);
    }

    #[test]
    fn binary_parts_are_described_not_passed_on() {
        let result: CallToolResult = serde_json::from_value(serde_json::json!({
            "content": [
                {"type": "text", "text": "Here it is"},
                {"type": "image", "data": "A".repeat(4096), "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hello"}},
                {"type": "resource_link", "uri": "file:///b", "name": "b"}
            ]
        }))
        .unwrap();
        let text = result_text(&result);
        assert_eq!(
            text,
            "Here it is\n[image: image/png, about 3 KB, not shown to the model]\n\
             [resource file:///a.txt]\nhello\n[link to resource b (file:///b)]"
        );
        let structured: CallToolResult = serde_json::from_value(serde_json::json!({
            "content": [], "structuredContent": {"t": 1}
        }))
        .unwrap();
        assert_eq!(result_text(&structured), r#"{"t":1}"#);
    }
}
