//! The Tools panel: MCP servers the user brings. The configuration is the
//! `mcpServers` JSON other apps use, checked whole before it is saved; a
//! saved change stops the servers it removed or changed (they start again,
//! as configured now, when a profile next needs them). Also the user's
//! skills (read from their folder again) and the hooks (shown; they are
//! set with `hearth hooks`, since the running agent keeps the hooks it
//! was built with).

use hearth_core::ToolSource;
use hearth_protocol::ErrorInfo;
use tauri::State;

use crate::state::{AppState, invalid, store_error};
use crate::views::{HooksView, McpServerView, McpView, SkillsView};

async fn view(state: &AppState) -> Result<McpView, ErrorInfo> {
    let servers = hearth_compose::mcp_servers(&state.store)
        .await
        .unwrap_or_default();
    Ok(McpView {
        servers: state
            .mcp
            .servers()
            .iter()
            .map(|s| McpServerView::from(s.as_ref()))
            .collect(),
        // Tokens in environments and headers stay out of the page
        // (security review N7); a save keeps the saved values.
        config: hearth_mcp::to_json(&hearth_mcp::hide_secrets(&servers)),
    })
}

/// The configured MCP servers with their state and tools.
#[tauri::command]
#[specta::specta]
pub async fn list_mcp_servers(state: State<'_, AppState>) -> Result<McpView, ErrorInfo> {
    view(&state).await
}

/// Replace the MCP configuration with `config` (an `mcpServers` object, VS
/// Code's `servers`, or the bare object of servers). Nothing is saved when
/// any entry is wrong; the error names it.
#[tauri::command]
#[specta::specta]
pub async fn save_mcp_config(
    state: State<'_, AppState>,
    config: String,
) -> Result<McpView, ErrorInfo> {
    let mut servers = hearth_mcp::parse(&config).map_err(|e| invalid(e.to_string()))?;
    let saved = hearth_compose::mcp_servers(&state.store)
        .await
        .map_err(crate::state::internal)?;
    hearth_mcp::keep_hidden(&mut servers, &saved).map_err(|e| invalid(e.to_string()))?;
    state
        .store
        .set_mcp_servers_json(&hearth_mcp::to_json(&servers))
        .await
        .map_err(store_error)?;
    // What was added or changed starts now: usable at once, its state and
    // tools shown as it comes up (the panel watches it while it starts).
    // Servers the save left as they were start when a run needs them.
    let changed: Vec<String> = servers
        .iter()
        .filter(|(name, config)| saved.get(*name) != Some(*config))
        .map(|(name, _)| name.clone())
        .collect();
    state.mcp.configure(servers).await;
    state.mcp.start_soon(&changed);
    view(&state).await
}

/// Stop a server and start it again now (past failures forgotten): its
/// state after the start.
#[tauri::command]
#[specta::specta]
pub async fn restart_mcp_server(
    state: State<'_, AppState>,
    name: String,
) -> Result<McpServerView, ErrorInfo> {
    let server = state
        .mcp
        .server(&name)
        .ok_or_else(|| invalid(format!("no MCP server named {name:?}")))?;
    server.stop().await;
    // The outcome is in the server's state (a failure included).
    state.mcp.prepare(&[name]).await;
    Ok(McpServerView::from(server.as_ref()))
}

/// What a server wrote to stderr, oldest line first (the last 400).
#[tauri::command]
#[specta::specta]
pub async fn mcp_server_log(
    state: State<'_, AppState>,
    name: String,
) -> Result<Vec<String>, ErrorInfo> {
    let server = state
        .mcp
        .server(&name)
        .ok_or_else(|| invalid(format!("no MCP server named {name:?}")))?;
    Ok(server.log())
}

/// The skills folder read again: each skill, and each folder that is not
/// one with the reason.
#[tauri::command]
#[specta::specta]
pub async fn list_skills(state: State<'_, AppState>) -> Result<SkillsView, ErrorInfo> {
    let skills = state.skills.clone();
    let catalog = tokio::task::spawn_blocking(move || skills.reload())
        .await
        .map_err(|e| crate::state::internal(format!("reading the skills failed: {e}")))?;
    Ok(SkillsView::from(catalog.as_ref()))
}

/// The hooks as saved, with why they cannot be used if they cannot.
#[tauri::command]
#[specta::specta]
pub async fn show_hooks(state: State<'_, AppState>) -> Result<HooksView, ErrorInfo> {
    let config = state.store.hooks_json().await.map_err(store_error)?;
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let (parsed, problem) = match config.as_deref().map(hearth_tools::HookConfig::parse) {
        None => (hearth_tools::HookConfig::default(), None),
        Some(Ok(c)) => (c, None),
        Some(Err(e)) => (hearth_tools::HookConfig::default(), Some(e)),
    };
    let warnings = hearth_compose::hook_warnings(&state.store, &parsed).await;
    Ok(HooksView {
        config: config.unwrap_or_else(|| "{}".into()),
        before_tool_call: count(parsed.before_tool_call.len()),
        after_tool_call: count(parsed.after_tool_call.len()),
        before_model_call: count(parsed.before_model_call.len()),
        problem,
        warnings,
    })
}
