//! The app itself: version and paths, UI preferences, links, and the
//! model server's URL and health.

use hearth_protocol::ErrorInfo;
use tauri::ipc::Channel;
use tauri::{AppHandle, State};

use crate::page_events::{PageEvent, PageEvents};
use crate::prefs;
use crate::state::{AppState, invalid, ollama_error};
use crate::views::{AdoptedModelView, AppInfo, BackendStatus, InstalledModelView, Prefs};

/// The app's version (the root Cargo.toml's), e.g. "0.1.0".
#[tauri::command]
#[specta::specta]
pub fn app_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Version, demo mode, database and server in use.
#[tauri::command]
#[specta::specta]
pub fn app_info(state: State<'_, AppState>) -> Result<AppInfo, ErrorInfo> {
    Ok(AppInfo {
        version: app_version().to_owned(),
        demo: state.demo,
        db_path: state.db_path.display().to_string(),
        ollama_url: state.backend()?.url,
        openai_url: state.openai_url(),
    })
}

/// Where the shell's own events for the page go (`page_events.rs`): once
/// when the page starts; a reload calls it again.
#[tauri::command]
#[specta::specta]
pub fn page_events(events: State<'_, PageEvents>, on_event: Channel<PageEvent>) {
    events.listen(on_event);
}

/// UI preferences.
#[tauri::command]
#[specta::specta]
pub fn get_prefs(app: AppHandle) -> Prefs {
    prefs::load(&app)
}

/// Save UI preferences.
#[tauri::command]
#[specta::specta]
pub fn set_prefs(app: AppHandle, prefs: Prefs) -> Result<(), ErrorInfo> {
    prefs::save(&app, &prefs)
}

/// Open a link from an answer in the system browser: the app itself never
/// navigates away from its own page. Only web links, and mail links that
/// set nothing but addresses, subject and body (`links.rs` says why).
#[tauri::command]
#[specta::specta]
pub fn open_link(url: String) -> Result<(), ErrorInfo> {
    let url = crate::links::openable(&url).map_err(invalid)?;
    open::that_detached(url.as_str()).map_err(|e| invalid(format!("cannot open the link: {e}")))
}

/// Whether Ollama answers at the URL in use.
#[tauri::command]
#[specta::specta]
pub async fn backend_status(state: State<'_, AppState>) -> Result<BackendStatus, ErrorInfo> {
    let backend = state.backend()?;
    Ok(status(&state, backend).await)
}

/// Whether the server at `backend` answers, its version and its models;
/// the first time the models are known, the seeded profiles are moved to
/// an installed one where theirs is missing (`first_run`).
async fn status(state: &AppState, backend: crate::state::Backend) -> BackendStatus {
    let url = backend.url;
    let version = match backend.client.version().await {
        Ok(v) => v,
        Err(e) => {
            return BackendStatus {
                url,
                reachable: false,
                version: None,
                error: Some(ollama_error(e)),
                models: Vec::new(),
                adopted: None,
            };
        }
    };
    // A server that answers its version but not its list still counts as
    // reachable: the chat says what fails when it is used.
    let run = hearth_compose::first_run::settle(&state.profiles, &backend.client)
        .await
        .unwrap_or_else(|e| {
            tracing::warn!("could not list the server's models: {e}");
            Default::default()
        });
    BackendStatus {
        url,
        reachable: true,
        version: Some(version),
        error: None,
        models: run
            .installed
            .into_iter()
            .map(|m| InstalledModelView {
                name: m.name,
                capabilities: m.capabilities,
                size: m.size,
            })
            .collect(),
        adopted: run
            .adopted
            .map(|(model, profiles)| AdoptedModelView { model, profiles }),
    }
}

/// Point Hearth at another Ollama (saved for next time).
#[tauri::command]
#[specta::specta]
pub async fn set_ollama_url(
    app: AppHandle,
    state: State<'_, AppState>,
    url: String,
) -> Result<BackendStatus, ErrorInfo> {
    let url = url.trim();
    if url.is_empty() {
        return Err(invalid("the URL is empty"));
    }
    let backend = state.set_url(url)?;
    prefs::save_url(&app, &backend.url)?;
    Ok(status(&state, backend).await)
}

/// Point the `openai` backend (profiles whose backend is `openai`) at an
/// OpenAI-compatible server (saved for next time). Returns its base URL as
/// resolved: `/v1` is added when no path is given.
#[tauri::command]
#[specta::specta]
pub fn set_openai_url(
    app: AppHandle,
    state: State<'_, AppState>,
    url: String,
) -> Result<String, ErrorInfo> {
    let url = url.trim();
    if url.is_empty() {
        return Err(invalid("the URL is empty"));
    }
    let resolved = state.set_openai_url(url)?;
    prefs::save_openai_url(&app, &resolved)?;
    Ok(resolved)
}
