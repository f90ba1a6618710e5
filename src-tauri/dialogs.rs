//! The system's Save and Open dialogs (GTK on Linux, through
//! tauri-plugin-dialog), shown by Rust commands for export and import. None
//! of the plugin's commands is granted to the page: the page asks for an
//! export or an import, and only gets back the path the person chose.
//!
//! One at a time: while one is open another is not shown (a second click on
//! Export answers as a cancel). The plugin's page script also replaces
//! `window.alert` and `window.confirm` with calls the page may not make:
//! the UI uses neither (`confirm()` would now return a Promise, always
//! truthy), and asks in its own dialogs.

use std::path::PathBuf;

use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_dialog::{DialogExt, FileDialogBuilder};

use crate::desktop::Focus;

/// What a dialog shows.
pub struct Ask {
    /// The dialog's title (it also names the window for the e2e test).
    pub title: String,
    /// The folder it opens in.
    pub folder: Option<PathBuf>,
    /// The name it suggests (a Save dialog).
    pub name: Option<String>,
    /// The filter's label and the extensions it lets through (none for a
    /// folder).
    pub filter: Option<(&'static str, &'static [&'static str])>,
}

/// The file the person chose to save to, or `None` when they cancelled.
/// GTK asks before replacing an existing file.
pub async fn save<R: Runtime>(app: &AppHandle<R>, mut ask: Ask) -> Option<PathBuf> {
    let name = ask.name.take();
    shown(app, ask, move |b, tx| {
        let b = match name {
            Some(n) => b.set_file_name(n),
            None => b,
        };
        b.save_file(move |p| drop(tx.send(p)));
    })
    .await
}

/// The file the person chose to open, or `None` when they cancelled.
pub async fn open<R: Runtime>(app: &AppHandle<R>, ask: Ask) -> Option<PathBuf> {
    shown(app, ask, |b, tx| b.pick_file(move |p| drop(tx.send(p)))).await
}

/// The folder the person chose, or `None` when they cancelled.
pub async fn folder<R: Runtime>(app: &AppHandle<R>, ask: Ask) -> Option<PathBuf> {
    shown(app, ask, |b, tx| b.pick_folder(move |p| drop(tx.send(p)))).await
}

/// The folder dialog titled `title`, opening in `start` when that is a
/// folder, else in the home folder: the chosen folder's path as text, or
/// `None` when the person cancelled.
pub async fn folder_path<R: Runtime>(
    app: &AppHandle<R>,
    title: &str,
    start: Option<PathBuf>,
) -> Result<Option<String>, hearth_protocol::ErrorInfo> {
    let opens_in = start
        .filter(|p| p.is_absolute() && p.is_dir())
        .or_else(|| app.path().home_dir().ok());
    let ask = Ask {
        title: title.to_owned(),
        folder: opens_in,
        name: None,
        filter: None,
    };
    let Some(path) = folder(app, ask).await else {
        return Ok(None);
    };
    path.to_str().map(|p| Some(p.to_owned())).ok_or_else(|| {
        crate::state::invalid(format!(
            "the folder {} has a name that is not text",
            path.display()
        ))
    })
}

type Picked = tokio::sync::oneshot::Sender<Option<tauri_plugin_dialog::FilePath>>;

/// Builds the dialog, shows it with `show` (the plugin runs it on the main
/// thread and answers through the callback) and waits for the answer
/// without holding a runtime thread.
async fn shown<R: Runtime>(
    app: &AppHandle<R>,
    ask: Ask,
    show: impl FnOnce(FileDialogBuilder<R>, Picked),
) -> Option<PathBuf> {
    let mut b = app
        .dialog()
        .file()
        .set_title(ask.title)
        .set_can_create_directories(true);
    if let Some((label, extensions)) = ask.filter {
        b = b.add_filter(label, extensions);
    }
    if let Some(folder) = ask.folder {
        b = b.set_directory(folder);
    }
    // Placed over the window where the platform uses it (GTK's chooser,
    // through rfd, opens on its own).
    if let Some(window) = app.get_webview_window("main") {
        b = b.set_parent(&window);
    }
    let focus = app.try_state::<Focus>().map(|f| f.inner());
    let _open = match focus.map(Focus::dialog_open) {
        Some(None) => {
            tracing::debug!("a dialog is already open: not showing another");
            return None;
        }
        open => open.flatten(),
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    show(b, tx);
    let picked = rx.await.ok().flatten()?;
    match picked.into_path() {
        Ok(path) => Some(path),
        Err(e) => {
            // Not on desktop: the plugin gives file paths there.
            tracing::warn!("the dialog answered something that is not a path: {e}");
            None
        }
    }
}

/// The folder a dialog opens in: Downloads where it exists, else the home
/// folder where that exists, else none (the dialog's own choice).
pub fn start_folder<R: Runtime>(app: &AppHandle<R>) -> Option<PathBuf> {
    let paths = app.path();
    [paths.download_dir(), paths.home_dir()]
        .into_iter()
        .flatten()
        .find(|d| d.is_dir())
}
