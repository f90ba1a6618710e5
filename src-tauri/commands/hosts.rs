//! Hosts: the model servers a profile or a session can name besides the
//! default Ollama (more Ollama machines, OpenAI-compatible servers), each
//! with whether it answers, its version and its models. Added and removed
//! while the app runs: the agent shares the list (`AppState::hosts`).

use hearth_protocol::ErrorInfo;
use hearth_store::{Host, HostKind};
use tauri::State;

use super::profiles::profile_error;
use crate::state::{AppState, invalid, store_error};
use crate::views::HostView;

/// Ask `host` how it is.
async fn view(host: Host, builtin: bool) -> HostView {
    let health = hearth_compose::hosts::health(&host).await;
    HostView {
        name: host.name,
        kind: host.kind.as_str().to_owned(),
        url: host.url,
        builtin,
        reachable: health.error.is_none(),
        version: health.version,
        models: health.models,
        error: health.error,
        keyed: host.keyed,
    }
}

/// Every host, the settings' two first, each asked at once.
#[tauri::command]
#[specta::specta]
pub async fn list_hosts(state: State<'_, AppState>) -> Result<Vec<HostView>, ErrorInfo> {
    let builtin = [
        Host {
            name: hearth_core::DEFAULT_HOST.to_owned(),
            kind: HostKind::Ollama,
            url: state.backend()?.url,
            keyed: false,
        },
        Host {
            name: hearth_compose::OPENAI.to_owned(),
            kind: HostKind::Openai,
            url: state.openai_url(),
            keyed: false,
        },
    ];
    let saved = state.store.hosts().await.map_err(store_error)?;
    let openai = state.openai_in_use();
    let asks = builtin
        .into_iter()
        .filter(|h| h.kind != HostKind::Openai || openai)
        .map(|h| (h, true))
        .chain(saved.into_iter().map(|h| (h, false)))
        .map(|(h, b)| view(h, b));
    Ok(futures::future::join_all(asks).await)
}

/// Add a host (or change the URL or kind of one): saved, and usable by the
/// next request. It need not answer now; the view says whether it does.
/// `api_key` (an OpenAI-compatible server's) goes to the desktop's secret
/// store; blank or absent keeps the key the host has.
#[tauri::command]
#[specta::specta]
pub async fn add_host(
    state: State<'_, AppState>,
    name: String,
    kind: String,
    url: String,
    api_key: Option<String>,
) -> Result<HostView, ErrorInfo> {
    let kind = HostKind::parse(&kind)
        .ok_or_else(|| invalid(format!("a host speaks `ollama` or `openai`, not `{kind}`")))?;
    let host = Host {
        name: name.trim().to_owned(),
        kind,
        url: url.trim().to_owned(),
        keyed: false,
    };
    let saved = state
        .add_host(host, api_key.and_then(hearth_openai::ApiKey::new))
        .await?;
    Ok(view(saved, false).await)
}

/// Forget a host: the sessions on it go back to the default server;
/// profiles that name it say so when they run.
#[tauri::command]
#[specta::specta]
pub async fn remove_host(state: State<'_, AppState>, name: String) -> Result<(), ErrorInfo> {
    state.remove_host(&name).await
}

/// Move a session to `host` (`None`: the default server) with `model`
/// (`None`: its profile's), from its next model call: the model picker's
/// choice of a model on another host.
#[tauri::command]
#[specta::specta]
pub async fn set_session_host(
    state: State<'_, AppState>,
    session_id: String,
    host: Option<String>,
    model: Option<String>,
) -> Result<(), ErrorInfo> {
    let host = host.filter(|h| h != hearth_core::DEFAULT_HOST);
    if let Some(h) = &host
        && state.hosts.get(h).is_none()
    {
        return Err(invalid(format!("there is no host `{h}`")));
    }
    state
        .profiles
        .set_session_host(&session_id, host.as_deref())
        .await
        .map_err(profile_error)?;
    state
        .profiles
        .set_session_model(&session_id, model.as_deref())
        .await
        .map_err(profile_error)
}
