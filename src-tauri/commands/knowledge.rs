//! Knowledge folders (docs/knowledge.md): add and remove folders, choose
//! the embedding model, sync in the background and read its progress,
//! search. The agent's `search_knowledge` tool reads the same index.

use std::path::Path;

use hearth_protocol::ErrorInfo;
use tauri::{AppHandle, State};

use crate::state::{AppState, internal, invalid};
use crate::views::{KnowledgeFolderView, KnowledgeHitView, KnowledgeView};

/// The most passages a search in the panel shows.
const MOST_HITS: u32 = 20;

fn failed(e: impl std::fmt::Display) -> ErrorInfo {
    invalid(e.to_string())
}

fn view(state: &AppState) -> Result<KnowledgeView, ErrorInfo> {
    let desk = &state.knowledge;
    let index = desk.index().map_err(internal)?;
    let folders = index.folders().map_err(failed)?;
    let model = index.model().map_err(failed)?;
    let vectors_model = index
        .vectors_model()
        .map_err(failed)?
        .map(|(m, _)| m)
        .filter(|m| Some(m) != model.as_ref());
    Ok(KnowledgeView {
        folders: folders.iter().map(KnowledgeFolderView::from).collect(),
        model,
        vectors_model,
        sync: desk.sync_view(),
    })
}

/// The folders, the model and the sync now.
#[tauri::command]
#[specta::specta]
pub async fn knowledge_status(state: State<'_, AppState>) -> Result<KnowledgeView, ErrorInfo> {
    view(&state)
}

/// Asks for a folder with the native picker; `None` when cancelled.
#[tauri::command]
#[specta::specta]
pub async fn knowledge_choose_folder(app: AppHandle) -> Result<Option<String>, ErrorInfo> {
    crate::dialogs::folder_path(&app, "Choose a folder for Hearth to know", None).await
}

/// Adds a folder (read at the next sync, which this starts), for every
/// chat or, with `project` (an id), for that project's chats only.
#[tauri::command]
#[specta::specta]
pub async fn knowledge_add_folder(
    state: State<'_, AppState>,
    path: String,
    project: Option<String>,
) -> Result<KnowledgeView, ErrorInfo> {
    if let Some(p) = &project
        && state.profiles.project(p).is_none()
    {
        return Err(invalid(format!("no project `{p}`")));
    }
    let index = state.knowledge.index().map_err(internal)?;
    index
        .add_folder(Path::new(path.trim()), project.as_deref())
        .map_err(failed)?;
    state.knowledge.watch_folders();
    state.knowledge.start_sync().map_err(internal)?;
    view(&state)
}

/// Removes a folder and its passages (the files are not touched).
#[tauri::command]
#[specta::specta]
pub async fn knowledge_remove_folder(
    state: State<'_, AppState>,
    path: String,
) -> Result<KnowledgeView, ErrorInfo> {
    if state.knowledge.sync_view().running {
        return Err(invalid(
            "a sync is going on: stop it first, then remove the folder".to_owned(),
        ));
    }
    let index = state.knowledge.index().map_err(internal)?;
    index.remove_folder(Path::new(&path)).map_err(failed)?;
    state.knowledge.watch_folders();
    view(&state)
}

/// The files of a folder that were left out, with why (at most 200).
#[tauri::command]
#[specta::specta]
pub async fn knowledge_skipped(
    state: State<'_, AppState>,
    path: String,
) -> Result<Vec<(String, String)>, ErrorInfo> {
    let index = state.knowledge.index().map_err(internal)?;
    let folder = index.find_folder(Path::new(&path)).map_err(failed)?;
    index.skipped_files(&folder, 200).map_err(failed)
}

/// Chooses the embedding model on the default host (blank: none, search
/// by words only). A new model embeds every passage again at the next
/// sync, which this starts.
#[tauri::command]
#[specta::specta]
pub async fn knowledge_set_model(
    state: State<'_, AppState>,
    model: String,
) -> Result<KnowledgeView, ErrorInfo> {
    let index = state.knowledge.index().map_err(internal)?;
    let model = model.trim();
    if model.is_empty() {
        index.clear_model().map_err(failed)?;
    } else {
        index.set_model(model).map_err(failed)?;
        state.knowledge.start_sync().map_err(internal)?;
    }
    view(&state)
}

/// Starts a sync (nothing when one is going on).
#[tauri::command]
#[specta::specta]
pub async fn knowledge_sync(state: State<'_, AppState>) -> Result<KnowledgeView, ErrorInfo> {
    state.knowledge.start_sync().map_err(internal)?;
    view(&state)
}

/// Stops the sync going on; what it did is kept.
#[tauri::command]
#[specta::specta]
pub async fn knowledge_stop_sync(state: State<'_, AppState>) -> Result<(), ErrorInfo> {
    state.knowledge.stop_sync();
    Ok(())
}

/// Passages for `query`, by words and meaning fused.
#[tauri::command]
#[specta::specta]
pub async fn knowledge_search(
    state: State<'_, AppState>,
    query: String,
) -> Result<Vec<KnowledgeHitView>, ErrorInfo> {
    let index = state.knowledge.index().map_err(internal)?;
    let embedder = index
        .model()
        .map_err(failed)?
        .map(|m| state.knowledge.embedder(m));
    let hits = index
        .search(
            embedder.as_ref(),
            query.trim(),
            MOST_HITS as usize,
            hearth_knowledge::Mode::Hybrid,
            None,
        )
        .await
        .map_err(failed)?;
    Ok(hits.into_iter().map(KnowledgeHitView::from).collect())
}
