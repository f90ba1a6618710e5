//! Settings › About: check for a newer Hearth and install it on the
//! person's word (`updates.rs` says which copies may, and how).

use hearth_protocol::{ErrorCode, ErrorInfo, Recovery};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, State};
use tauri_plugin_updater::UpdaterExt;

use crate::state::{AppState, invalid};
use crate::updates::{self, Pending};
use crate::views::{UpdateCheck, UpdateProgress};

fn failed(message: String) -> ErrorInfo {
    ErrorInfo {
        code: ErrorCode::BackendFailed,
        recovery: Recovery::Retry,
        message,
        details: None,
    }
}

/// Ask the update address whether a newer version is offered. Nothing is
/// downloaded; the offer is kept for [`install_update`].
#[tauri::command]
#[specta::specta]
pub async fn check_update(
    app: AppHandle,
    pending: State<'_, Pending>,
) -> Result<UpdateCheck, ErrorInfo> {
    let current = app.package_info().version.to_string();
    let source = match updates::source() {
        Ok(s) => s,
        Err(why) => return Ok(UpdateCheck::Unavailable { why }),
    };
    let endpoint = tauri::Url::parse(&source.endpoint).map_err(|e| {
        invalid(format!(
            "The update address {} is not a URL: {e}.",
            source.endpoint
        ))
    })?;
    let check = async {
        app.updater_builder()
            .pubkey(&source.pubkey)
            .endpoints(vec![endpoint])?
            .timeout(updates::TIMEOUT)
            .build()?
            .check()
            .await
    };
    let found = check
        .await
        .map_err(|e| failed(updates::check_failed(&source.endpoint, &e)))?;
    let answer = match &found {
        None => UpdateCheck::UpToDate { current },
        Some(u) => UpdateCheck::Available {
            current,
            version: u.version.clone(),
            notes: u.body.clone().filter(|n| !n.trim().is_empty()),
            // As the description wrote it (RFC 3339).
            date: u
                .raw_json
                .get("pub_date")
                .and_then(|d| d.as_str())
                .map(str::to_owned),
        },
    };
    pending.set(found);
    Ok(answer)
}

/// Download the update of `version` (the one the last check offered),
/// check its signature, have the system's package tool install it, and
/// restart into it. Refused while an answer is being written; any failure
/// leaves the running version running.
#[tauri::command]
#[specta::specta]
pub async fn install_update(
    app: AppHandle,
    state: State<'_, AppState>,
    pending: State<'_, Pending>,
    version: String,
    on_progress: Channel<UpdateProgress>,
) -> Result<(), ErrorInfo> {
    let current = app.package_info().version.to_string();
    if !state.runs.sessions().is_empty() {
        return Err(invalid(
            "An answer is being written: stop it or let it finish, then install the update \
             (installing restarts Hearth).",
        ));
    }
    let Some(update) = pending.take(&version) else {
        return Err(invalid(format!(
            "Version {version} is not the update last found: check for updates again."
        )));
    };
    let mut received = 0u64;
    let bytes = update
        .download(
            |chunk, total| {
                received += chunk as u64;
                // The page only shows it: a lost message costs nothing.
                let _ = on_progress.send(UpdateProgress::Downloading { received, total });
            },
            || {},
        )
        .await
        .map_err(|e| failed(updates::install_failed(&current, &e)))?;
    let _ = on_progress.send(UpdateProgress::Installing);
    // The signature checked out (download verifies it); the package must
    // also be the version it was offered as. Then the package tool, a
    // child the plugin waits for.
    let was = current.clone();
    let installed = tauri::async_runtime::spawn_blocking(move || {
        let inside = updates::package_version(&bytes).map_err(|e| {
            format!("The update was not installed: {e}. Hearth {was} keeps running.")
        })?;
        if inside != update.version {
            return Err(updates::not_as_offered(&was, &update.version, &inside));
        }
        update
            .install(bytes)
            .map_err(|e| updates::install_failed(&was, &e))
    })
    .await
    .map_err(|e| {
        failed(format!(
            "The update was not installed: {e}. Hearth {current} keeps running."
        ))
    })?;
    installed.map_err(failed)?;
    // Tauri restarts into the file this binary started from (now the new
    // package's); where that path cannot be read it would only quit, and
    // Hearth would vanish. Then the person is asked to open it again, and
    // this one keeps running. The path is logged: a restart that never
    // comes back is read from here.
    let exe = tauri::process::current_binary(&app.env()).map_err(|e| ErrorInfo {
        // Installing again would not help: the person restarts it.
        recovery: Recovery::None,
        ..failed(format!(
            "Hearth {version} is installed, but cannot start itself in place of this one ({e}): \
             quit Hearth and open it again."
        ))
    })?;
    tracing::info!(exe = %exe.display(), "update {version} installed: restarting");
    let _ = on_progress.send(UpdateProgress::Restarting);
    // Through the app's own quit (runs store what they have, MCP servers
    // end, the single-instance name is given up), then the new binary.
    app.request_restart();
    Ok(())
}
