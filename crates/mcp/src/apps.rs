//! MCP Apps (the `io.modelcontextprotocol/ui` extension, spec 2026-01-26;
//! docs/security.md, "MCP Apps"): a tool may name a `ui://` HTML resource
//! of its server in `_meta.ui.resourceUri`; when the model called it, the
//! desktop shows that HTML under the call, sandboxed, and hands it the
//! call's arguments and result. This module holds what the desktop needs
//! for that and no more: which tools have an app and who may call them
//! (`_meta.ui.visibility`), the calls whose app can be shown (kept in
//! memory, bounded), and the resource read and checked.
//!
//! Everything here comes from the server, untrusted: the HTML is only ever
//! shown in the sandboxed frame, the result only handed to that frame, and
//! an app's own tool calls go back to its own server only, through the
//! person's approval (src-tauri/commands/mcp_apps.rs).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use base64::Engine as _;
use rmcp::model::{CallToolResult, ReadResourceResult, ResourceContents};
use serde::Serialize;

/// The extension's name in `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The one kind of app the spec defines: a whole HTML document.
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// The largest app document shown (the official examples are 0.2 to 1 MB:
/// one file with its scripts inlined).
pub const MAX_APP_BYTES: usize = 4 * 1024 * 1024;
/// The largest result kept for an app, as JSON: beyond it the app is told
/// the result was not kept (the model still got its text).
pub const MAX_KEPT_RESULT_BYTES: usize = 1024 * 1024;
/// Calls whose app can still be shown: the oldest is forgotten first.
pub const MAX_VIEWS: usize = 64;
/// The largest arguments an app may send with a call, as JSON.
pub const MAX_APP_ARGUMENT_BYTES: usize = 64 * 1024;

/// A tool's app and who may call it, from its `_meta`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiLink {
    /// The `ui://` resource to show, when the tool names one.
    pub resource_uri: Option<String>,
    /// The model may see and call it (`visibility` holds "model"; the
    /// default).
    pub model: bool,
    /// An app of the same server may call it (`visibility` holds "app";
    /// the default).
    pub app: bool,
}

impl UiLink {
    /// What `meta` (a tool's `_meta`) says: `ui.resourceUri` (or the
    /// deprecated flat `ui/resourceUri`) and `ui.visibility`. A resource
    /// that is not `ui://` is no app; a `visibility` that is not a list of
    /// strings leaves the default (both), as the spec's default is.
    pub fn of(meta: Option<&serde_json::Map<String, serde_json::Value>>) -> Self {
        let ui = meta.and_then(|m| m.get("ui")).and_then(|u| u.as_object());
        let resource_uri = ui
            .and_then(|u| u.get("resourceUri"))
            .or_else(|| meta.and_then(|m| m.get("ui/resourceUri")))
            .and_then(|u| u.as_str())
            .filter(|u| u.starts_with("ui://") && u.len() <= 2048)
            .map(str::to_owned);
        let visibility: Option<Vec<&str>> = ui
            .and_then(|u| u.get("visibility"))
            .and_then(|v| v.as_array())
            .and_then(|v| v.iter().map(|x| x.as_str()).collect());
        match visibility {
            Some(v) => Self {
                resource_uri,
                model: v.contains(&"model"),
                app: v.contains(&"app"),
            },
            None => Self {
                resource_uri,
                model: true,
                app: true,
            },
        }
    }
}

/// A call the model made of a tool with an app, kept so the app can be
/// shown with it.
#[derive(Debug, Clone, Serialize)]
pub struct AppCall {
    /// The run (with the call id, the key).
    pub run_id: String,
    /// The call's id in that run.
    pub call_id: String,
    /// The server's name in the configuration.
    pub server: String,
    /// Which start of the configured server made the call
    /// ([`crate::Server::id`]): the app is shown, and may call tools, only
    /// while the server of that name is that one (any change of its
    /// configuration — program, arguments, environment, headers — makes a
    /// new one).
    pub server_id: u64,
    /// The tool's own name on that server.
    pub tool: String,
    /// The app: a `ui://` resource of the server.
    pub resource_uri: String,
    /// What the model called it with.
    pub arguments: serde_json::Value,
    /// The server's `CallToolResult`, as JSON; `None` when it was larger
    /// than [`MAX_KEPT_RESULT_BYTES`] or the call failed before a result.
    pub result: Option<serde_json::Value>,
    /// The server said the call failed (`isError`).
    pub is_error: bool,
    /// Why there is no result, when there is none.
    pub note: Option<String>,
}

/// The calls whose apps can be shown, newest last, at most [`MAX_VIEWS`].
/// In memory only: after a restart a call's card shows its text result,
/// not its app (an app is live: it calls its server, which may have
/// changed or gone).
#[derive(Default)]
pub struct AppViews {
    calls: Mutex<VecDeque<AppCall>>,
    /// The person's answers to each app's requests (by run and call).
    asking: Mutex<HashMap<(String, String), Asking>>,
}

/// What one app has asked the person so far.
#[derive(Default, Clone, Copy)]
struct Asking {
    /// A question of this app is open.
    pending: bool,
    /// How often the person said no.
    refused: u32,
}

/// After this many "no"s an app's requests are refused without a
/// question: an app could otherwise ask again the moment it is told no,
/// and keep the person in a loop of dialogs whose only way out is "Allow".
pub const MAX_REFUSALS: u32 = 3;

impl AppViews {
    /// Keep `call` (replacing one with the same key).
    pub fn keep(&self, call: AppCall) {
        if let Ok(mut calls) = self.calls.lock() {
            calls.retain(|c| !(c.run_id == call.run_id && c.call_id == call.call_id));
            calls.push_back(call);
            while calls.len() > MAX_VIEWS {
                calls.pop_front();
            }
        }
    }

    /// Whether the app of call `call_id` of run `run_id` may put a question
    /// to the person now: one question at a time, and none after
    /// [`MAX_REFUSALS`] refusals. On `Ok` the question is open until
    /// [`AppViews::answered`].
    pub fn may_ask(&self, run_id: &str, call_id: &str) -> Result<(), String> {
        let Ok(mut asking) = self.asking.lock() else {
            return Err("Hearth could not keep track of this app's questions".into());
        };
        let a = asking
            .entry((run_id.to_owned(), call_id.to_owned()))
            .or_default();
        if a.pending {
            return Err("the app already asked something that you have not answered".into());
        }
        if a.refused >= MAX_REFUSALS {
            return Err(format!(
                "you said no to this app {MAX_REFUSALS} times, so Hearth no longer asks you for it (until Hearth restarts)"
            ));
        }
        a.pending = true;
        Ok(())
    }

    /// The person answered the app's open question.
    pub fn answered(&self, run_id: &str, call_id: &str, allowed: bool) {
        if let Ok(mut asking) = self.asking.lock()
            && let Some(a) = asking.get_mut(&(run_id.to_owned(), call_id.to_owned()))
        {
            a.pending = false;
            if !allowed {
                a.refused += 1;
            }
        }
    }

    /// The call `call_id` of run `run_id`, if its app can be shown.
    pub fn get(&self, run_id: &str, call_id: &str) -> Option<AppCall> {
        self.calls.lock().ok().and_then(|calls| {
            calls
                .iter()
                .find(|c| c.run_id == run_id && c.call_id == call_id)
                .cloned()
        })
    }

    /// The result to keep for an app: the whole `CallToolResult`, or a
    /// note when it is too large.
    pub fn result_of(result: &CallToolResult) -> (Option<serde_json::Value>, Option<String>) {
        match serde_json::to_value(result) {
            Ok(v) if v.to_string().len() <= MAX_KEPT_RESULT_BYTES => (Some(v), None),
            Ok(_) => (
                None,
                Some(format!(
                    "the tool's result is larger than the {} MB Hearth keeps for an app",
                    MAX_KEPT_RESULT_BYTES / (1024 * 1024)
                )),
            ),
            Err(e) => (
                None,
                Some(format!("the tool's result could not be kept: {e}")),
            ),
        }
    }
}

/// An app's document, checked, with what its `_meta.ui` asked for.
#[derive(Debug, Clone, Serialize)]
pub struct AppDocument {
    /// The whole document, shown only in the sandboxed frame.
    pub html: String,
    /// Origins its `csp` asked to reach (connect, resources, frames, base
    /// URIs), for the person to read: Hearth grants none of them.
    pub asked_domains: Vec<String>,
    /// Whether it asked for a border and background (`prefersBorder`).
    pub prefers_border: Option<bool>,
}

/// The app `uri` out of a `resources/read` answer: the content for that
/// URI, of the app type, as text or base64, UTF-8, at most
/// [`MAX_APP_BYTES`]. Each refusal is a sentence for the person.
pub fn app_document(uri: &str, read: &ReadResourceResult) -> Result<AppDocument, String> {
    let Some(content) = read.contents.iter().find(|c| match c {
        ResourceContents::TextResourceContents { uri: u, .. }
        | ResourceContents::BlobResourceContents { uri: u, .. } => u == uri,
        _ => false,
    }) else {
        return Err(format!(
            "the server's answer for {uri} holds no content for it"
        ));
    };
    let (mime, meta, bytes) = match content {
        ResourceContents::TextResourceContents {
            mime_type,
            text,
            meta,
            ..
        } => (mime_type, meta, text.clone().into_bytes()),
        ResourceContents::BlobResourceContents {
            mime_type,
            blob,
            meta,
            ..
        } => {
            if blob.len() / 4 * 3 > MAX_APP_BYTES + 3 {
                return Err(too_large());
            }
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob.as_bytes())
                .map_err(|e| format!("its base64 content does not decode: {e}"))?;
            (mime_type, meta, bytes)
        }
        _ => return Err("it is of a kind Hearth does not read".into()),
    };
    // The spec's type, parameters compared without case or spaces.
    let normal = |m: &str| m.to_ascii_lowercase().replace(' ', "");
    if mime.as_deref().map(normal).as_deref() != Some(APP_MIME) {
        return Err(format!(
            "it is of type {}, not an MCP app ({APP_MIME})",
            mime.as_deref().unwrap_or("(none)")
        ));
    }
    if bytes.len() > MAX_APP_BYTES {
        return Err(too_large());
    }
    let html = String::from_utf8(bytes).map_err(|_| "its HTML is not UTF-8 text".to_owned())?;
    let ui = meta
        .as_ref()
        .and_then(|m| m.0.get("ui"))
        .and_then(|u| u.as_object());
    let mut asked_domains: Vec<String> = ui
        .and_then(|u| u.get("csp"))
        .and_then(|c| c.as_object())
        .map(|csp| {
            [
                "connectDomains",
                "resourceDomains",
                "frameDomains",
                "baseUriDomains",
            ]
            .iter()
            .filter_map(|k| csp.get(*k).and_then(|v| v.as_array()))
            .flatten()
            .filter_map(|d| d.as_str())
            .map(|d| {
                hearth_core::visible::visible(d, false)
                    .chars()
                    .take(200)
                    .collect()
            })
            .collect()
        })
        .unwrap_or_default();
    asked_domains.sort();
    asked_domains.dedup();
    asked_domains.truncate(20);
    Ok(AppDocument {
        html,
        asked_domains,
        prefers_border: ui
            .and_then(|u| u.get("prefersBorder"))
            .and_then(|b| b.as_bool()),
    })
}

fn too_large() -> String {
    format!(
        "it is larger than the {} MB Hearth shows of an app",
        MAX_APP_BYTES / (1024 * 1024)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_tools_meta_says_its_app_and_who_may_call_it() {
        let both = UiLink::of(Some(&meta(json!({"ui": {"resourceUri": "ui://a/b.html"}}))));
        assert_eq!(both.resource_uri.as_deref(), Some("ui://a/b.html"));
        assert!(both.model && both.app);
        let app_only = UiLink::of(Some(&meta(
            json!({"ui": {"resourceUri": "ui://a", "visibility": ["app"]}}),
        )));
        assert!(!app_only.model && app_only.app);
        let model_only = UiLink::of(Some(&meta(json!({"ui": {"visibility": ["model"]}}))));
        assert!(model_only.model && !model_only.app && model_only.resource_uri.is_none());
        // The deprecated flat key still names the app.
        let flat = UiLink::of(Some(&meta(json!({"ui/resourceUri": "ui://x"}))));
        assert_eq!(flat.resource_uri.as_deref(), Some("ui://x"));
        // Only ui:// is an app: a server cannot have Hearth load a page.
        let web = UiLink::of(Some(&meta(
            json!({"ui": {"resourceUri": "https://evil.example/"}}),
        )));
        assert!(web.resource_uri.is_none());
        let none = UiLink::of(None);
        assert!(none.model && none.app && none.resource_uri.is_none());
    }

    fn read(v: serde_json::Value) -> ReadResourceResult {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn an_app_document_is_checked() {
        let ok = read(
            json!({"contents": [{"uri": "ui://a", "mimeType": "text/html;profile=mcp-app",
            "text": "<!doctype html><p>hi</p>",
            "_meta": {"ui": {"prefersBorder": false, "csp": {"connectDomains": ["https://api.example"], "resourceDomains": ["https://cdn.example", "https://api.example"]}}}}]}),
        );
        let doc = app_document("ui://a", &ok).unwrap();
        assert_eq!(doc.html, "<!doctype html><p>hi</p>");
        assert_eq!(
            doc.asked_domains,
            ["https://api.example", "https://cdn.example"]
        );
        assert_eq!(doc.prefers_border, Some(false));

        let blob = read(
            json!({"contents": [{"uri": "ui://a", "mimeType": "text/html; profile=mcp-app",
            "blob": base64::engine::general_purpose::STANDARD.encode("<p>b</p>")}]}),
        );
        assert_eq!(app_document("ui://a", &blob).unwrap().html, "<p>b</p>");

        let plain =
            read(json!({"contents": [{"uri": "ui://a", "mimeType": "text/html", "text": "<p>"}]}));
        assert!(
            app_document("ui://a", &plain)
                .unwrap_err()
                .contains("not an MCP app")
        );
        let other =
            read(json!({"contents": [{"uri": "ui://b", "mimeType": APP_MIME, "text": "<p>"}]}));
        assert!(
            app_document("ui://a", &other)
                .unwrap_err()
                .contains("no content for it")
        );
        let huge = read(
            json!({"contents": [{"uri": "ui://a", "mimeType": APP_MIME, "text": "x".repeat(MAX_APP_BYTES + 1)}]}),
        );
        assert!(
            app_document("ui://a", &huge)
                .unwrap_err()
                .contains("larger than")
        );
        let not_utf8 = read(json!({"contents": [{"uri": "ui://a", "mimeType": APP_MIME,
            "blob": base64::engine::general_purpose::STANDARD.encode([0xff, 0xfe])}]}));
        assert!(
            app_document("ui://a", &not_utf8)
                .unwrap_err()
                .contains("UTF-8")
        );
    }

    #[test]
    fn views_are_bounded_and_replace_by_key() {
        let views = AppViews::default();
        let call = |run: &str, id: usize| AppCall {
            run_id: run.into(),
            call_id: id.to_string(),
            server: "s".into(),
            server_id: 1,
            tool: "t".into(),
            resource_uri: "ui://a".into(),
            arguments: json!({}),
            result: None,
            is_error: false,
            note: None,
        };
        for i in 0..MAX_VIEWS + 5 {
            views.keep(call("r", i));
        }
        assert!(views.get("r", "0").is_none());
        assert!(views.get("r", &(MAX_VIEWS + 4).to_string()).is_some());
        // The same call id in another run is another call.
        assert!(views.get("other", &(MAX_VIEWS + 4).to_string()).is_none());
        let mut again = call("r", MAX_VIEWS + 4);
        again.is_error = true;
        views.keep(again);
        assert!(
            views
                .get("r", &(MAX_VIEWS + 4).to_string())
                .unwrap()
                .is_error
        );
    }

    #[test]
    fn an_app_asks_one_question_at_a_time_and_stops_after_refusals() {
        let views = AppViews::default();
        views.may_ask("r", "c").unwrap();
        assert!(
            views
                .may_ask("r", "c")
                .unwrap_err()
                .contains("not answered")
        );
        // Another app is another question.
        views.may_ask("r", "other").unwrap();
        views.answered("r", "c", true);
        for _ in 0..MAX_REFUSALS {
            views.may_ask("r", "c").unwrap();
            views.answered("r", "c", false);
        }
        assert!(
            views
                .may_ask("r", "c")
                .unwrap_err()
                .contains("no longer asks")
        );
        views.answered("r", "other", true);
        views.may_ask("r", "other").unwrap();
    }

    #[test]
    fn a_huge_result_is_not_kept() {
        let big: CallToolResult = serde_json::from_value(json!({
            "content": [{"type": "text", "text": "x".repeat(MAX_KEPT_RESULT_BYTES)}]
        }))
        .unwrap();
        let (kept, note) = AppViews::result_of(&big);
        assert!(kept.is_none());
        assert!(note.unwrap().contains("larger than"));
        let small: CallToolResult =
            serde_json::from_value(json!({"content": [], "structuredContent": {"time": "t"}}))
                .unwrap();
        let (kept, note) = AppViews::result_of(&small);
        assert_eq!(kept.unwrap()["structuredContent"]["time"], "t");
        assert!(note.is_none());
    }
}
