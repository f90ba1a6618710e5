//! Profiles, the default profile, the persona, and the switch within a
//! session. Profiles are the core's, in SQLite (docs/design.md §7).

use hearth_core::{Profile, ProfileProvider};
use hearth_protocol::ErrorInfo;
use hearth_store::ProfileError;
use tauri::{AppHandle, State};

use crate::confirm;
use crate::state::{AppState, invalid, store_error};
use crate::views::{ProfileView, ProfilesView};

fn view(state: &AppState) -> Result<ProfilesView, ErrorInfo> {
    Ok(ProfilesView {
        profiles: state
            .profiles
            .list()
            .into_iter()
            .map(ProfileView::from)
            .collect(),
        default_profile: state.profiles.default_name(),
        persona: state.profiles.persona(),
        tool_names: state.tool_names()?,
    })
}

/// Profiles, the default one and the persona.
#[tauri::command]
#[specta::specta]
pub async fn list_profiles(state: State<'_, AppState>) -> Result<ProfilesView, ErrorInfo> {
    // What another process changed is shown, not the copy read at start.
    state.profiles.refresh().await.map_err(store_error)?;
    view(&state)
}

/// Create or change a profile. With `previous_name` different from the
/// new name it is a rename: sessions and the default follow it.
#[tauri::command]
#[specta::specta]
pub async fn save_profile(
    app: AppHandle,
    state: State<'_, AppState>,
    profile: ProfileView,
    previous_name: Option<String>,
) -> Result<ProfilesView, ErrorInfo> {
    let profile = Profile::from(profile);
    let name = profile.name.clone();
    let renamed = previous_name.filter(|p| *p != name);
    if renamed.is_some() && state.profiles.by_name(&name).is_some() {
        return Err(invalid(format!("a profile named `{name}` already exists")));
    }
    // Turning the sandbox off is confirmed outside the page (review N11).
    let before = state.profiles.by_name(renamed.as_deref().unwrap_or(&name));
    if confirm::turns_sandbox_off(&profile, before.as_ref())
        && !confirm::ask(
            &app,
            confirm::SANDBOX_OFF_TITLE,
            confirm::sandbox_off_text(&name),
            "_Turn it off",
        )
        .await
    {
        return Err(invalid(format!(
            "not saved: the sandbox stays on for `{name}` (the confirmation was declined)"
        )));
    }
    state
        .profiles
        .upsert(profile)
        .await
        .map_err(profile_error)?;
    if let Some(old) = renamed {
        if state.profiles.default_name() == old {
            state
                .profiles
                .set_default(&name)
                .await
                .map_err(profile_error)?;
        }
        state.profiles.delete(&old).await.map_err(profile_error)?;
    }
    view(&state)
}

/// Delete a profile (not the last one).
#[tauri::command]
#[specta::specta]
pub async fn delete_profile(
    state: State<'_, AppState>,
    name: String,
) -> Result<ProfilesView, ErrorInfo> {
    state.profiles.delete(&name).await.map_err(profile_error)?;
    view(&state)
}

/// The profile new sessions start with.
#[tauri::command]
#[specta::specta]
pub async fn set_default_profile(
    state: State<'_, AppState>,
    name: String,
) -> Result<ProfilesView, ErrorInfo> {
    state
        .profiles
        .set_default(&name)
        .await
        .map_err(profile_error)?;
    view(&state)
}

/// The persona every profile prompt starts with.
#[tauri::command]
#[specta::specta]
pub async fn set_persona(
    state: State<'_, AppState>,
    persona: String,
) -> Result<ProfilesView, ErrorInfo> {
    state
        .profiles
        .set_persona(&persona)
        .await
        .map_err(profile_error)?;
    view(&state)
}

/// Switch a session's profile; a run going on picks it up at its next
/// model call. The switch is recorded so the transcript can mark it.
#[tauri::command]
#[specta::specta]
pub async fn switch_profile(
    state: State<'_, AppState>,
    session_id: String,
    name: String,
) -> Result<(), ErrorInfo> {
    state
        .profiles
        .switch_to(&session_id, &name)
        .await
        .map(|_| ())
        .map_err(profile_error)
}

/// A profile change refused (the request must change) or not saved.
pub(crate) fn profile_error(e: ProfileError) -> ErrorInfo {
    match e {
        ProfileError::Refused(why) => invalid(why),
        ProfileError::Store(e) => store_error(e),
    }
}

/// The system's folder dialog, for a profile's workspace (user pass
/// 2026-12, defect 24): opens in `start` when that is a folder, else in the
/// home folder. The chosen folder's path, or `None` when the person
/// cancelled. Nothing is saved: the form holds it until Save.
#[tauri::command]
#[specta::specta]
pub async fn choose_workspace(
    app: AppHandle,
    start: Option<String>,
) -> Result<Option<String>, ErrorInfo> {
    let start = start.map(std::path::PathBuf::from);
    crate::dialogs::folder_path(&app, "Choose the workspace folder", start).await
}
