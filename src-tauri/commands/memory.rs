//! The memory panel: remembered facts with their provenance and history,
//! and session summaries. Edits keep the old version; deletes are
//! tombstones the memory worker will not re-learn.

use std::collections::HashMap;

use hearth_protocol::ErrorInfo;
use tauri::State;

use crate::state::{AppState, invalid, store_error};
use crate::views::{MemoryVersionView, MemoryView, SummaryView};

/// Every session's title, by id (what memories and summaries link to).
async fn session_titles(state: &AppState) -> Result<HashMap<String, String>, ErrorInfo> {
    Ok(state
        .store
        .sessions()
        .await
        .map_err(store_error)?
        .into_iter()
        .map(|s| (s.id, s.title))
        .collect())
}

/// Facts remembered about the user (deleted ones left out).
#[tauri::command]
#[specta::specta]
pub async fn list_memories(state: State<'_, AppState>) -> Result<Vec<MemoryView>, ErrorInfo> {
    let m = state.store.memories(false).await.map_err(store_error)?;
    // Where each was learned, by title (the panel links to the session).
    let titles = session_titles(&state).await?;
    Ok(m.into_iter()
        .map(|m| {
            let title = m.session_id.as_ref().and_then(|s| titles.get(s).cloned());
            MemoryView {
                session_title: title,
                ..m.into()
            }
        })
        .collect())
}

/// Earlier versions of a fact, oldest first.
#[tauri::command]
#[specta::specta]
pub async fn memory_history(
    state: State<'_, AppState>,
    id: i64,
) -> Result<Vec<MemoryVersionView>, ErrorInfo> {
    let (_, versions) = state.store.memory(id).await.map_err(store_error)?;
    Ok(versions.into_iter().map(Into::into).collect())
}

/// Add a fact by hand.
#[tauri::command]
#[specta::specta]
pub async fn add_memory(state: State<'_, AppState>, content: String) -> Result<i64, ErrorInfo> {
    if content.trim().is_empty() {
        return Err(invalid("a memory cannot be empty"));
    }
    state.store.add_memory(&content).await.map_err(store_error)
}

/// Decline a fact memory proposed (a profile that asks first): it is
/// never proposed or learned again.
#[tauri::command]
#[specta::specta]
pub async fn decline_memory(state: State<'_, AppState>, content: String) -> Result<(), ErrorInfo> {
    if content.trim().is_empty() {
        return Err(invalid("no fact given"));
    }
    state
        .store
        .decline_memory(&content)
        .await
        .map(|_| ())
        .map_err(store_error)
}

/// Rewrite a fact (the old text is kept as a version).
#[tauri::command]
#[specta::specta]
pub async fn edit_memory(
    state: State<'_, AppState>,
    id: i64,
    content: String,
) -> Result<(), ErrorInfo> {
    if content.trim().is_empty() {
        return Err(invalid("a memory cannot be empty; delete it instead"));
    }
    state
        .store
        .edit_memory(id, &content)
        .await
        .map_err(store_error)
}

/// Forget a fact (and never re-learn it).
#[tauri::command]
#[specta::specta]
pub async fn delete_memory(state: State<'_, AppState>, id: i64) -> Result<(), ErrorInfo> {
    state.store.delete_memory(id).await.map_err(store_error)
}

/// The memory block the model sees at the start of every session.
#[tauri::command]
#[specta::specta]
pub async fn memory_summary(state: State<'_, AppState>) -> Result<String, ErrorInfo> {
    state.store.memory_summary().await.map_err(store_error)
}

/// Session summaries (of one session, or all), newest first, with the
/// session's title for provenance.
#[tauri::command]
#[specta::specta]
pub async fn list_summaries(
    state: State<'_, AppState>,
    session_id: Option<String>,
) -> Result<Vec<SummaryView>, ErrorInfo> {
    let records = state
        .store
        .summaries(session_id.as_deref(), false)
        .await
        .map_err(store_error)?;
    let titles = session_titles(&state).await?;
    Ok(records
        .into_iter()
        .map(|r| {
            let title = titles.get(&r.session_id).cloned().unwrap_or_default();
            SummaryView::new(r, title)
        })
        .collect())
}

/// Rewrite a summary (the old one is kept, replaced).
#[tauri::command]
#[specta::specta]
pub async fn edit_summary(
    state: State<'_, AppState>,
    id: i64,
    content: String,
) -> Result<(), ErrorInfo> {
    if content.trim().is_empty() {
        return Err(invalid("a summary cannot be empty; delete it instead"));
    }
    state
        .store
        .edit_summary(id, &content)
        .await
        .map(|_| ())
        .map_err(store_error)
}

/// Delete a summary: the messages it covered are sent in full again.
#[tauri::command]
#[specta::specta]
pub async fn delete_summary(state: State<'_, AppState>, id: i64) -> Result<(), ErrorInfo> {
    state.store.delete_summary(id).await.map_err(store_error)
}
