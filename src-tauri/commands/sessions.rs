//! The sessions sidebar and the transcript: list, search, open, rename,
//! delete (with undo), branches. Export and import: `transfer.rs`.

use hearth_protocol::ErrorInfo;
use hearth_store::StoredMessage;
use tauri::State;

use crate::commands::profiles::profile_error;
use crate::state::{AppState, internal, invalid, store_error};
use crate::views::{
    AnswerRunView, AnswerShownView, SearchHitView, SessionInfo, SessionInfo as Info, SessionView,
    SubagentView, SwitchView, TraceView,
};

/// Sessions, newest first.
#[tauri::command]
#[specta::specta]
pub async fn list_sessions(state: State<'_, AppState>) -> Result<Vec<SessionInfo>, ErrorInfo> {
    let sessions = state.store.sessions().await.map_err(store_error)?;
    Ok(sessions
        .into_iter()
        .map(|s| {
            let live = state.runs.is_live(&s.id);
            Info::new(s, live)
        })
        .collect())
}

/// Full-text search over every message, or over a project's sessions
/// (`project`, an id).
#[tauri::command]
#[specta::specta]
pub async fn search_sessions(
    state: State<'_, AppState>,
    query: String,
    project: Option<String>,
) -> Result<Vec<SearchHitView>, ErrorInfo> {
    if query.trim().is_empty() {
        return Ok(Vec::new());
    }
    let hits = state
        .store
        .search_in(&query, 50, project.as_deref())
        .await
        .map_err(store_error)?;
    Ok(hits.into_iter().map(Into::into).collect())
}

/// A fresh session id (the session is stored with its first message).
#[tauri::command]
#[specta::specta]
pub fn new_session() -> String {
    hearth_core::new_session_id()
}

/// Everything the transcript shows for a session.
pub(crate) async fn session_view(
    state: &AppState,
    session_id: &str,
) -> Result<SessionView, ErrorInfo> {
    let store = &state.store;
    let (messages, forks, switches, subagents, title, runs, shown) = (
        store
            .branch_messages(session_id)
            .await
            .map_err(store_error)?,
        store.forks(session_id).await.map_err(store_error)?,
        store
            .profile_switches(session_id)
            .await
            .map_err(store_error)?,
        store
            .subagent_transcripts(session_id)
            .await
            .map_err(store_error)?,
        hearth_core::SessionStore::title(store.as_ref(), session_id)
            .await
            .map_err(|e| internal(e.to_string()))?
            .unwrap_or_default(),
        store.answer_runs(session_id).await.map_err(store_error)?,
        store.answers_shown(session_id).await.map_err(store_error)?,
    );
    let unsent = store.unsent(session_id).await.map_err(store_error)?;
    use hearth_core::ProfileProvider;
    Ok(SessionView {
        id: session_id.to_owned(),
        title,
        profile: state.profiles.active(session_id).name,
        messages: messages.into_iter().map(StoredMessage::view).collect(),
        forks,
        switches: switches.into_iter().map(SwitchView::from).collect(),
        subagents: subagents.into_iter().map(SubagentView::from).collect(),
        live: state.runs.view(session_id),
        model: state.profiles.session_model(session_id),
        host: state
            .profiles
            .session_host(session_id)
            .map(|h| h.unwrap_or_else(|| hearth_core::DEFAULT_HOST.to_owned())),
        answer_runs: runs
            .into_iter()
            .map(|r| AnswerRunView {
                run_id: r.run_id,
                model: r.model,
                host: r.host,
                cut_off: r.cut_off,
            })
            .collect(),
        answers_shown: shown
            .into_iter()
            .map(|(run_id, events)| AnswerShownView {
                run_id,
                // A kind a newer build wrote is left out, not the answer.
                events: events
                    .into_iter()
                    .filter_map(|e| serde_json::from_value(e).ok())
                    .collect(),
            })
            .collect(),
        unsent,
        knowledge: state.profiles.session_knowledge(session_id),
        project: state.profiles.session_project(session_id).map(|p| p.id),
    })
}

/// Keep what is typed in a session's composer and not sent, so it is there
/// after a restart (empty: forget it). False when it is too long to keep.
#[tauri::command]
#[specta::specta]
pub async fn save_unsent(
    state: State<'_, AppState>,
    session_id: String,
    text: String,
) -> Result<bool, ErrorInfo> {
    state
        .store
        .set_unsent(&session_id, &text)
        .await
        .map_err(store_error)
}

/// Make a session use `model` from its next answer without changing its
/// profile (`None`: the profile's model again). Load options stay per
/// model, so switching back to a model still loaded never reloads it.
#[tauri::command]
#[specta::specta]
pub async fn set_session_model(
    state: State<'_, AppState>,
    session_id: String,
    model: Option<String>,
) -> Result<(), ErrorInfo> {
    state
        .profiles
        .set_session_model(&session_id, model.as_deref())
        .await
        .map_err(profile_error)
}

/// Open a session: its current branch, forks, profile switches and the
/// run going on in it, if any.
#[tauri::command]
#[specta::specta]
pub async fn open_session(
    state: State<'_, AppState>,
    session_id: String,
) -> Result<SessionView, ErrorInfo> {
    session_view(&state, &session_id).await
}

/// Rename a session.
#[tauri::command]
#[specta::specta]
pub async fn rename_session(
    state: State<'_, AppState>,
    session_id: String,
    title: String,
) -> Result<(), ErrorInfo> {
    let title = title.trim();
    if title.is_empty() {
        return Err(invalid("a title cannot be empty"));
    }
    state
        .store
        .rename(&session_id, title)
        .await
        .map_err(store_error)
}

/// Delete a session; `restore_session` undoes it for 30 days.
#[tauri::command]
#[specta::specta]
pub async fn delete_session(
    state: State<'_, AppState>,
    session_id: String,
) -> Result<(), ErrorInfo> {
    if state.runs.is_live(&session_id) {
        return Err(invalid(
            "stop the answer being written before deleting the session",
        ));
    }
    state.store.delete(&session_id).await.map_err(store_error)
}

/// Undo a delete.
#[tauri::command]
#[specta::specta]
pub async fn restore_session(
    state: State<'_, AppState>,
    session_id: String,
) -> Result<(), ErrorInfo> {
    state.store.restore(&session_id).await.map_err(store_error)
}

/// Make the branch through `message_id` current.
#[tauri::command]
#[specta::specta]
pub async fn switch_branch(
    state: State<'_, AppState>,
    session_id: String,
    message_id: i64,
) -> Result<SessionView, ErrorInfo> {
    if state.runs.is_live(&session_id) {
        return Err(invalid(
            "wait for the answer to finish (or stop it) before switching branches",
        ));
    }
    state
        .store
        .switch_branch(&session_id, message_id)
        .await
        .map_err(store_error)?;
    session_view(&state, &session_id).await
}

/// The trace of the run that wrote an answer (docs/background.md §3.12);
/// `None` for a run the store does not know (a sub-agent's, or one before
/// traces).
#[tauri::command]
#[specta::specta]
pub async fn run_trace(
    state: State<'_, AppState>,
    run_id: String,
) -> Result<Option<TraceView>, ErrorInfo> {
    let trace = state.store.trace(&run_id).await.map_err(store_error)?;
    Ok(trace.map(Into::into))
}
