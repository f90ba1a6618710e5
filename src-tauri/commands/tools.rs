//! The Tools panel: MCP servers the user brings. The configuration is the
//! `mcpServers` JSON other apps use, checked whole before it is saved; a
//! saved change stops the servers it removed or changed (they start again,
//! as configured now, when a profile next needs them).

use hearth_core::ToolSource;
use hearth_protocol::ErrorInfo;
use tauri::State;

use crate::state::{AppState, invalid, store_error};
use crate::views::{McpServerView, McpView};

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
        config: hearth_mcp::to_json(&servers),
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
    let servers = hearth_mcp::parse(&config).map_err(|e| invalid(e.to_string()))?;
    state
        .store
        .set_mcp_servers_json(&hearth_mcp::to_json(&servers))
        .await
        .map_err(store_error)?;
    state.mcp.configure(servers).await;
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
