//! MCP Apps (docs/security.md, "MCP Apps"): the page shows a server's app
//! under the tool call that made it, in a sandboxed frame, and passes on
//! what the app asks for. The page names a call (run and call id), never a
//! server: the server is the one whose tool made that call, still running
//! what it ran then (`Hub::app_call`), so an app reaches its own server
//! only. What the app asks that acts — a tool call, opening a link — is
//! asked in a native dialog, which neither the app nor the page can
//! answer.

use hearth_mcp::apps::{MAX_APP_ARGUMENT_BYTES, MAX_APP_BYTES, app_document};
use hearth_protocol::ErrorInfo;
use tauri::State;

use crate::state::{AppState, invalid};
use crate::views::McpAppView;

/// The window title of an app's tool call question.
pub const APP_CALL_TITLE: &str = "Hearth: let an app call a tool?";
/// The window title of an app's link question.
pub const APP_LINK_TITLE: &str = "Hearth: open a link for an app?";

/// The call and its server, or why the app cannot act for it.
fn call_of(
    state: &AppState,
    run_id: &str,
    call_id: &str,
) -> Result<
    (
        hearth_mcp::apps::AppCall,
        std::sync::Arc<hearth_mcp::Server>,
    ),
    ErrorInfo,
> {
    state
        .mcp
        .app_call(run_id, call_id)
        .map_err(invalid)?
        .ok_or_else(|| {
            invalid(
                "this tool call has no app that can be shown now (apps are kept while Hearth runs)",
            )
        })
}

/// The app of tool call `call_id` of run `run_id`, with the call's
/// arguments and result; `None` when the call has no app (or was made
/// before Hearth started).
#[tauri::command]
#[specta::specta]
pub async fn mcp_app_view(
    state: State<'_, AppState>,
    run_id: String,
    call_id: String,
) -> Result<Option<McpAppView>, ErrorInfo> {
    let Some((call, server)) = state.mcp.app_call(&run_id, &call_id).map_err(invalid)? else {
        return Ok(None);
    };
    let read = server
        .read_resource(&call.resource_uri)
        .await
        .map_err(invalid)?;
    let doc = app_document(&call.resource_uri, &read).map_err(|why| {
        invalid(format!(
            "the app {} of the MCP server \"{}\" is not shown: {why}",
            call.resource_uri, call.server
        ))
    })?;
    tracing::info!(
        "showing the app {} of MCP server {} ({} bytes; asked to reach {:?}, granted none)",
        call.resource_uri,
        call.server,
        doc.html.len(),
        doc.asked_domains
    );
    Ok(Some(McpAppView {
        server: call.server,
        tool: call.tool,
        resource_uri: call.resource_uri,
        html: doc.html,
        asked_domains: doc.asked_domains,
        prefers_border: doc.prefers_border,
        arguments: call.arguments,
        result: call.result,
        is_error: call.is_error,
        note: call.note,
    }))
}

/// The most of an app's arguments its question shows (the rest is
/// counted): up to 64 KB could push the server's own claims off the dialog.
const SHOWN_ARGUMENT_CHARS: usize = 1_000;

/// `arguments` as a question shows them: JSON, cut to
/// [`SHOWN_ARGUMENT_CHARS`] with the rest counted.
pub fn shown_arguments(arguments: &serde_json::Value) -> serde_json::Value {
    let text = arguments.to_string();
    let n = text.chars().count();
    if n <= SHOWN_ARGUMENT_CHARS {
        return arguments.clone();
    }
    let head: String = text.chars().take(SHOWN_ARGUMENT_CHARS).collect();
    serde_json::Value::String(format!(
        "{head} … ({} more characters)",
        n - SHOWN_ARGUMENT_CHARS
    ))
}

/// The question for an app's call (`reach`: what the call does, as a
/// run's approval says it), with every invisible or direction character
/// made visible, as a run's approval is: the arguments are the app's text.
pub fn app_call_text(server: &str, reach: &str) -> String {
    let text = format!(
        "The app that the MCP server \"{server}\" shows in this chat asks Hearth to call one of \
         that server's tools. You did not type this: the app asks, whether or not you used it.\n\n\
         The call {reach}\n\nAllow it this once?"
    );
    hearth_core::visible::visible(&text, true).into_owned()
}

/// Calls `name` of the app's own server with `input` (its arguments; not
/// named `arguments`, which the generated TypeScript could not take as a
/// parameter in strict mode), when the person
/// allows it in a native dialog: the server's whole result (an app reads
/// its structured content), or why not.
#[tauri::command]
#[specta::specta]
pub async fn mcp_app_call_tool(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    run_id: String,
    call_id: String,
    name: String,
    input: serde_json::Value,
) -> Result<serde_json::Value, ErrorInfo> {
    let (call, server) = call_of(&state, &run_id, &call_id)?;
    let serde_json::Value::Object(arguments) = input else {
        return Err(invalid(
            "an app's tool call needs its arguments as a JSON object",
        ));
    };
    if serde_json::to_string(&arguments).map_or(usize::MAX, |s| s.len()) > MAX_APP_ARGUMENT_BYTES {
        return Err(invalid(format!(
            "an app's tool call may carry at most {} KB of arguments",
            MAX_APP_ARGUMENT_BYTES / 1024
        )));
    }
    tracing::info!("an app of MCP server {} asks to call `{name}`", call.server);
    let tool = server.app_tool(&name).map_err(invalid)?;
    let reach = tool.reach_text(&shown_arguments(&serde_json::Value::Object(
        arguments.clone(),
    )));
    let question = Question {
        title: APP_CALL_TITLE,
        text: app_call_text(&call.server, &reach),
        yes: "_Allow",
        what: format!("call `{name}`"),
    };
    if !ask(&app, &server, (&run_id, &call_id), question).await? {
        return Err(invalid(format!(
            "you did not allow the app to call `{name}`, so it was not called"
        )));
    }
    let result = tool
        .call_for_app(arguments)
        .await
        .map_err(|e| invalid(e.to_string()))?;
    bounded(result, "the tool's result")
}

/// A question an app's request puts to the person.
struct Question {
    title: &'static str,
    text: String,
    /// The yes button, with its mnemonic.
    yes: &'static str,
    /// What the app asked, for the server's log ("call `get-time`").
    what: String,
}

/// Asks `q` in a native dialog for the app of `key` (run, call): one
/// question of an app at a time and none after a few "no"s (an error
/// says so, without a dialog), and the answer in the server's log (the
/// Tools panel) either way.
async fn ask(
    app: &tauri::AppHandle,
    server: &hearth_mcp::Server,
    (run_id, call_id): (&str, &str),
    q: Question,
) -> Result<bool, ErrorInfo> {
    let views = server.views();
    views.may_ask(run_id, call_id).map_err(invalid)?;
    let text = hearth_core::visible::visible(&q.text, true).into_owned();
    let allowed = crate::confirm::ask(app, q.title, text, q.yes).await;
    views.answered(run_id, call_id, allowed);
    server.note(&format!(
        "its app asked to {}: {}",
        q.what,
        if allowed { "allowed" } else { "refused" }
    ));
    Ok(allowed)
}

/// `value` as JSON for the app, refused past the size an app may take at
/// once (`what` names it).
fn bounded(value: impl serde::Serialize, what: &str) -> Result<serde_json::Value, ErrorInfo> {
    let value = serde_json::to_value(value).map_err(|e| crate::state::internal(e.to_string()))?;
    if value.to_string().len() > MAX_APP_BYTES {
        return Err(invalid(format!(
            "{what} is larger than the {} MB an app may take at once",
            MAX_APP_BYTES / (1024 * 1024)
        )));
    }
    Ok(value)
}

/// Reads `uri` from the app's own server (a resource the app asks for):
/// the server's `ReadResourceResult`, at most the size of an app.
#[tauri::command]
#[specta::specta]
pub async fn mcp_app_read_resource(
    state: State<'_, AppState>,
    run_id: String,
    call_id: String,
    uri: String,
) -> Result<serde_json::Value, ErrorInfo> {
    let (_, server) = call_of(&state, &run_id, &call_id)?;
    let read = server.read_resource(&uri).await.map_err(invalid)?;
    bounded(read, &uri)
}

/// Opens `url` in the browser for the app, when the person allows it in a
/// native dialog (an app's script could otherwise open pages unasked).
#[tauri::command]
#[specta::specta]
pub async fn mcp_app_open_link(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    run_id: String,
    call_id: String,
    url: String,
) -> Result<(), ErrorInfo> {
    let (call, server) = call_of(&state, &run_id, &call_id)?;
    if url.len() > 2_000 {
        return Err(invalid("an app's link may be at most 2,000 characters"));
    }
    let url = crate::links::openable(&url).map_err(invalid)?;
    let text = format!(
        "The app that the MCP server \"{}\" shows in this chat asks to open this address in \
         your browser:\n\n{url}\n\nOpen it?",
        call.server
    );
    let question = Question {
        title: APP_LINK_TITLE,
        text,
        yes: "_Open",
        what: "open a link".to_owned(),
    };
    if !ask(&app, &server, (&run_id, &call_id), question).await? {
        return Err(invalid("you did not open the link"));
    }
    open::that_detached(url.as_str()).map_err(|e| invalid(format!("cannot open the link: {e}")))
}

/// What the app logged, into its server's log (the Tools panel).
#[tauri::command]
#[specta::specta]
pub fn mcp_app_log(
    state: State<'_, AppState>,
    run_id: String,
    call_id: String,
    level: String,
    text: String,
) {
    if let Ok((_, server)) = call_of(&state, &run_id, &call_id) {
        server.app_log(&level, &text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_says_who_asks_and_what_runs() {
        let text = app_call_text(
            "basic",
            "calls `get-time` on the MCP server \"basic\" (node …) with {}.",
        );
        assert!(text.contains("MCP server \"basic\" shows in this chat"));
        assert!(text.contains("You did not type this"));
        assert!(text.contains("calls `get-time`"));
        // An app's hidden characters are shown, not passed to the dialog.
        let hidden = app_call_text("basic", "with {\"t\":\"a\u{202e}b\u{200b}\"}.");
        assert!(
            !hidden.contains('\u{202e}') && !hidden.contains('\u{200b}'),
            "{hidden}"
        );
    }

    #[test]
    fn long_arguments_are_cut_and_counted() {
        let long = serde_json::json!({"text": "x".repeat(5_000)});
        let shown = shown_arguments(&long).as_str().unwrap().to_owned();
        assert!(shown.ends_with("… (4011 more characters)"), "{shown}");
        let short = serde_json::json!({"a": 1});
        assert_eq!(shown_arguments(&short), short);
    }
}
