//! Projects (docs/projects.md): list, make, change and delete them, move
//! sessions between them, export one; and an answer's sources with the
//! passage each opens (docs/knowledge.md).

use std::path::Path;

use hearth_protocol::ErrorInfo;
use tauri::{AppHandle, State};

use super::profiles::profile_error;
use crate::state::{AppState, internal, invalid, store_error};
use crate::views::{
    AnswerSourcesView, ExportFormat, PassageView, ProjectDeletedView, ProjectDraftView, ProjectView,
};

fn small(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Every project, by name, with its sessions and knowledge folders.
#[tauri::command]
#[specta::specta]
pub async fn list_projects(state: State<'_, AppState>) -> Result<Vec<ProjectView>, ErrorInfo> {
    list_projects_of(&state).await
}

async fn one(state: &AppState, id: &str) -> Result<ProjectView, ErrorInfo> {
    let list = list_projects_of(state).await?;
    list.into_iter()
        .find(|p| p.id == id)
        .ok_or_else(|| invalid(format!("no project `{id}`")))
}

async fn list_projects_of(state: &AppState) -> Result<Vec<ProjectView>, ErrorInfo> {
    let list = state.store.projects().await.map_err(store_error)?;
    // The knowledge folders a project owns (none when the index is off).
    let folders = state
        .knowledge
        .index()
        .ok()
        .and_then(|i| i.folder_places().ok())
        .unwrap_or_default();
    Ok(list
        .into_iter()
        .map(|s| {
            let p = s.project;
            ProjectView {
                folders: folders
                    .iter()
                    .filter(|(_, project, _)| project.as_deref() == Some(p.id.as_str()))
                    .map(|(path, _, _)| path.display().to_string())
                    .collect(),
                id: p.id,
                name: p.name,
                workspace: p.workspace.map(|w| w.display().to_string()),
                profile: p.profile,
                model: p.model,
                instructions: p.instructions,
                sessions: small(s.sessions),
            }
        })
        .collect())
}

/// Makes a project.
#[tauri::command]
#[specta::specta]
pub async fn create_project(
    state: State<'_, AppState>,
    draft: ProjectDraftView,
) -> Result<ProjectView, ErrorInfo> {
    let p = state
        .profiles
        .create_project(draft.into())
        .await
        .map_err(profile_error)?;
    one(&state, &p.id).await
}

/// Writes every field of project `id`.
#[tauri::command]
#[specta::specta]
pub async fn update_project(
    state: State<'_, AppState>,
    id: String,
    draft: ProjectDraftView,
) -> Result<ProjectView, ErrorInfo> {
    state
        .profiles
        .update_project(&id, draft.into())
        .await
        .map_err(profile_error)?;
    one(&state, &id).await
}

/// Deletes project `id`: its sessions stay, outside any project; its
/// knowledge folders are no longer searched (the files stay). Refused
/// while a knowledge sync runs (it may be reading those folders).
#[tauri::command]
#[specta::specta]
pub async fn delete_project(
    state: State<'_, AppState>,
    id: String,
) -> Result<ProjectDeletedView, ErrorInfo> {
    if state.profiles.project(&id).is_none() {
        return Err(invalid(format!("no project `{id}`")));
    }
    let mut folders = 0;
    if let Ok(index) = state.knowledge.index() {
        let own: Vec<_> = index
            .folders()
            .map_err(|e| internal(e.to_string()))?
            .into_iter()
            .filter(|f| f.project.as_deref() == Some(id.as_str()))
            .collect();
        if !own.is_empty() && state.knowledge.sync_view().running {
            return Err(invalid(
                "a knowledge sync is going on: stop it first, then delete the project",
            ));
        }
        for f in own {
            index
                .remove_folder(&f.path)
                .map_err(|e| internal(e.to_string()))?;
            folders += 1;
        }
    }
    if folders > 0 {
        state.knowledge.watch_folders();
    }
    let sessions = state
        .profiles
        .delete_project(&id)
        .await
        .map_err(profile_error)?;
    Ok(ProjectDeletedView {
        sessions: small(sessions),
        folders,
    })
}

/// Puts a session in project `project` (`None`: in none). A new chat
/// started in a project is put there before its first message.
#[tauri::command]
#[specta::specta]
pub async fn move_session(
    state: State<'_, AppState>,
    session_id: String,
    project: Option<String>,
) -> Result<(), ErrorInfo> {
    if state.runs.is_live(&session_id) {
        // The run reads its profile as it goes: a workspace changing
        // under a running command would say one folder and use another.
        return Err(invalid(
            "an answer is being written in this chat: move it when it is done",
        ));
    }
    state
        .profiles
        .move_session(&session_id, project.as_deref())
        .await
        .map_err(profile_error)
}

/// Turns on or off the knowledge folders' passages sent with each message
/// of a chat (for a chat whose profile has no tools to search them).
#[tauri::command]
#[specta::specta]
pub async fn set_session_knowledge(
    state: State<'_, AppState>,
    session_id: String,
    on: bool,
) -> Result<(), ErrorInfo> {
    state
        .profiles
        .set_session_knowledge(&session_id, on)
        .await
        .map_err(profile_error)
}

/// Exports project `id` (its settings and every session in it) to a file
/// the person picks; the path written, or `None` when cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_project(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    format: ExportFormat,
) -> Result<Option<String>, ErrorInfo> {
    let project = state
        .profiles
        .project(&id)
        .ok_or_else(|| invalid(format!("no project `{id}`")))?;
    // Its knowledge folders, by path (an index that cannot be read gives
    // none: the export still holds the sessions).
    let knowledge: Vec<std::path::PathBuf> = state
        .knowledge
        .index()
        .ok()
        .and_then(|index| index.folders().ok())
        .unwrap_or_default()
        .into_iter()
        .filter(|f| f.project.as_deref() == Some(id.as_str()))
        .map(|f| f.path)
        .collect();
    let body = match format {
        ExportFormat::Markdown => state
            .store
            .export_project_markdown(&id, &knowledge)
            .await
            .map_err(store_error)?,
        ExportFormat::Json => super::transfer::pretty(
            &state
                .store
                .export_project_json(&id, &knowledge)
                .await
                .map_err(store_error)?,
        )?,
    };
    let shown = format!("the project “{}”", project.name);
    let Some(path) =
        super::transfer::save_export(&app, body, format, &shown, &project.name, &id).await?
    else {
        return Ok(None);
    };
    Ok(Some(path.display().to_string()))
}

/// What answer `message_id` of `session_id` drew on from the knowledge
/// folders: the passages its run's searches returned and those attached to
/// its question, which it cites, and its quotations checked against them.
/// Empty for an answer that drew on none.
#[tauri::command]
#[specta::specta]
pub async fn answer_sources(
    state: State<'_, AppState>,
    session_id: String,
    message_id: i64,
) -> Result<AnswerSourcesView, ErrorInfo> {
    Ok(
        hearth_compose::answer_citations(&state.store, &session_id, Some(message_id))
            .await
            .map_err(invalid)?
            .map(AnswerSourcesView::from)
            .unwrap_or_default(),
    )
}

/// The passage of a source, as the index holds it now; `None` when the
/// file changed since and no passage has those lines. Only what is in the
/// index can be read this way (never a file outside a knowledge folder).
#[tauri::command]
#[specta::specta]
pub async fn knowledge_passage(
    state: State<'_, AppState>,
    path: String,
    start_line: u32,
    end_line: u32,
) -> Result<Option<PassageView>, ErrorInfo> {
    let index = state.knowledge.index().map_err(internal)?;
    index
        .passage(Path::new(&path), start_line, end_line)
        .map(|p| p.map(PassageView::from))
        .map_err(|e| invalid(e.to_string()))
}
