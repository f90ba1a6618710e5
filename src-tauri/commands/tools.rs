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

/// The panel's view; `kept` is what a save just did with the values
/// (otherwise it is read from the saved configuration, which never asks
/// the secret store: every value is hidden anyway).
async fn view(
    state: &AppState,
    kept: Option<hearth_compose::SecretsKept>,
) -> Result<McpView, ErrorInfo> {
    use hearth_compose::SecretsKept;
    let servers = hearth_compose::mcp_servers_as_stored(&state.store)
        .await
        .unwrap_or_default();
    let kept = kept.unwrap_or_else(|| {
        if hearth_mcp::any_in_secret_store(&servers) {
            SecretsKept::SecretStore
        } else if servers
            .values()
            .any(|c| !c.env.is_empty() || !c.headers.is_empty())
        {
            SecretsKept::Database("no secret store took them when they were saved".to_owned())
        } else {
            SecretsKept::NoneToKeep
        }
    });
    Ok(McpView {
        values_kept: kept.note(),
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
    view(&state, None).await
}

/// Replace the MCP configuration with `config` (an `mcpServers` object, VS
/// Code's `servers`, or the bare object of servers). Nothing is saved when
/// any entry is wrong; the error names it.
#[tauri::command]
#[specta::specta]
pub async fn save_mcp_config(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    config: String,
) -> Result<McpView, ErrorInfo> {
    let mut servers = hearth_mcp::parse(&config).map_err(|e| invalid(e.to_string()))?;
    let saved = hearth_compose::mcp_servers(&state.store)
        .await
        .map_err(|e| crate::state::internal(e.to_string()))?;
    hearth_mcp::keep_hidden(&mut servers, &saved).map_err(|e| invalid(e.to_string()))?;
    // A program started by this save is confirmed outside the page
    // (review N11): the page cannot answer a native dialog.
    let starts = crate::confirm::servers_to_start(&servers, &saved);
    if !starts.is_empty()
        && !crate::confirm::ask(
            &app,
            crate::confirm::START_SERVERS_TITLE,
            crate::confirm::start_servers_text(&starts),
            "_Start",
        )
        .await
    {
        return Err(invalid(
            "not saved: starting the MCP servers was declined".to_owned(),
        ));
    }
    // Values go to the desktop's secret store when one takes them.
    let kept = hearth_compose::save_mcp_servers(&state.store, &servers)
        .await
        .map_err(|e| invalid(e.to_string()))?;
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
    view(&state, Some(kept)).await
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
    // Its values could not be read from the secret store when the app
    // loaded them (a locked keyring): read them again now.
    let server = if server.config().waits_for_secret_store() {
        if let Ok(servers) = hearth_compose::mcp_servers(&state.store).await {
            state.mcp.configure(servers).await;
        }
        state.mcp.server(&name).unwrap_or(server)
    } else {
        server
    };
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
        Some(Err(e)) => (hearth_tools::HookConfig::default(), Some(e.to_string())),
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
