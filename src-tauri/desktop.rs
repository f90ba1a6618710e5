//! The app's place on the desktop: one window per database, a quit that
//! is a quit whichever way it comes, and notices while it is in the
//! background.
//!
//! - A second launch on the same database shows and focuses the running
//!   window instead of opening another (tauri-plugin-single-instance: a
//!   D-Bus name on Linux). The name is per database, so a test or a second
//!   `$HEARTH_DB` runs beside the user's own app. Without a session bus the
//!   plugin lets every launch start, as before. The name is given up as
//!   the window closes or the quit begins, so a launch during the quit's
//!   last seconds starts a new app rather than handing over to one going
//!   away, with no window left to show.
//! - SIGTERM (`kill`, a service manager) and SIGINT (Ctrl+C in the
//!   terminal that started it) quit as closing the window does: runs
//!   store their partial answers and the window's place is saved. Their
//!   default would end the process where it stands. A second signal, or a
//!   quit still going after [`QUIT_WATCHDOG`], ends it at once.
//! - Whether the window has the focus is kept from its own focus events
//!   ([`Focus`]; asking the window would wait on the main thread from the
//!   task that forwards the run's events): notices (`system_notices.rs`)
//!   are shown only while it has not. While one of the app's own Save or
//!   Open dialogs is open the window counts as focused.
//! - Where the window opens is `placement.rs`'s.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};
use tauri::plugin::TauriPlugin;
use tauri::{AppHandle, Manager, Runtime};

/// The single-instance plugin for the database at `db`. Register it before
/// any other plugin: a second launch exits in its setup, before the others
/// (and the app's own setup, which opens the database) run.
pub fn single<R: Runtime>(db: &Path) -> TauriPlugin<R> {
    tauri_plugin_single_instance::Builder::new()
        .dbus_id(dbus_id(db))
        .callback(|app, _argv, _cwd| bring_forward(app, "a second launch on this database"))
        .build()
}

/// `dev.hearth.app.db` and 16 hex digits of the SHA-256 of the database's
/// absolute path (a D-Bus name element may not start with a digit). The
/// hash is stable across builds, so two versions of the app on one
/// database still find each other.
fn dbus_id(db: &Path) -> String {
    let path = std::path::absolute(db).unwrap_or_else(|_| db.to_path_buf());
    // The folder's real path (symlinks, `..`), so two spellings of one
    // database are one app; the file itself may not exist yet.
    let path = match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => dir
            .canonicalize()
            .map(|d| d.join(name))
            .unwrap_or_else(|_| path.clone()),
        _ => path,
    };
    let digest = Sha256::digest(path.as_os_str().as_encoded_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("dev.hearth.app.db{hex}")
}

/// The person asked for the window (`why`: a second launch, a click on a
/// notice): bring it back and to the front.
pub fn bring_forward<R: Runtime>(app: &AppHandle<R>, why: &str) {
    tracing::info!("{why}: showing this window");
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    for (what, result) in [
        ("unminimize", window.unminimize()),
        ("show", window.show()),
        ("focus", window.set_focus()),
    ] {
        if let Err(e) = result {
            tracing::warn!("cannot {what} the window for {why}: {e}");
        }
    }
}

/// Give up the single-instance name: the app is quitting, or its window
/// is gone (which is the same: it has one).
pub fn leave<R: Runtime>(app: &AppHandle<R>) {
    tauri_plugin_single_instance::destroy(app);
}

/// Whether the main window has the keyboard focus, from its focus events.
/// A Save or Open dialog of the app's own takes the focus from the window
/// while the person is still in front of it: while one is open the window
/// counts as focused. One such dialog at a time ([`Focus::dialog_open`]).
#[derive(Default)]
pub struct Focus {
    window: AtomicBool,
    dialog: AtomicBool,
}

impl Focus {
    /// The window gained (`true`) or lost the focus.
    pub fn set(&self, focused: bool) {
        tracing::debug!("window focus: {focused}");
        self.window.store(focused, Ordering::Relaxed);
    }

    /// Marks a dialog of the app's own as open until the guard is dropped;
    /// `None` while another one is.
    pub fn dialog_open(&self) -> Option<DialogOpen<'_>> {
        self.dialog
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| DialogOpen(self))
    }

    /// Whether the person is in front of the window.
    pub fn get(&self) -> bool {
        self.window.load(Ordering::Relaxed) || self.dialog.load(Ordering::Acquire)
    }
}

/// An open dialog ([`Focus::dialog_open`]).
pub struct DialogOpen<'a>(&'a Focus);

impl Drop for DialogOpen<'_> {
    fn drop(&mut self) {
        self.0.dialog.store(false, Ordering::Release);
    }
}

/// How long a quit asked for by a signal may take before the process ends
/// anyway (runs get 2 s to store their answers, MCP servers 2 s to end).
pub const QUIT_WATCHDOG: Duration = Duration::from_secs(30);

/// Quit the app on SIGTERM or SIGINT, through the same exit as closing the
/// window ([`tauri::AppHandle::exit`], then `RunEvent::Exit`).
pub fn quit_on_signals<R: Runtime>(app: &AppHandle<R>) {
    use tokio::signal::unix::{Signal, SignalKind, signal};
    /// The next `sig`; never, for one that could not be watched.
    async fn next(sig: &mut Option<Signal>) {
        match sig {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    // Each on its own: one that cannot be watched keeps its default.
    fn watch(kind: SignalKind, name: &str) -> Option<Signal> {
        match signal(kind) {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!("cannot watch for {name}: {e}");
                None
            }
        }
    }
    let app = app.clone();
    // Registered inside the runtime (the signal driver is its).
    tauri::async_runtime::spawn(async move {
        let mut term = watch(SignalKind::terminate(), "SIGTERM");
        let mut int = watch(SignalKind::interrupt(), "SIGINT");
        let name = tokio::select! {
            () = next(&mut term) => "SIGTERM",
            () = next(&mut int) => "SIGINT",
        };
        tracing::info!("{name}: quitting");
        app.exit(0);
        // A thread of its own: the watchdog must not depend on the runtime
        // or the main thread it watches.
        std::thread::spawn(|| {
            std::thread::sleep(QUIT_WATCHDOG);
            tracing::warn!("the quit took over {QUIT_WATCHDOG:?}: ending now");
            std::process::exit(1);
        });
        // The shell's codes for a process ended by the signal.
        let (again, code) = tokio::select! {
            () = next(&mut term) => ("SIGTERM", 143),
            () = next(&mut int) => ("SIGINT", 130),
        };
        tracing::warn!("{again} during the quit: ending now");
        std::process::exit(code);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_counts_as_focused_while_its_own_dialog_is_open() {
        let focus = Focus::default();
        focus.set(true);
        assert!(focus.get());
        let open = focus.dialog_open().expect("no dialog is open yet");
        focus.set(false);
        assert!(
            focus.get(),
            "the dialog took the focus, the person is still here"
        );
        assert!(focus.dialog_open().is_none(), "one dialog at a time");
        drop(open);
        assert!(!focus.get());
        let again = focus.dialog_open();
        assert!(again.is_some(), "the next one may open once it closed");
        drop(again);
        focus.set(true);
        assert!(focus.get());
    }

    #[test]
    fn the_dbus_name_is_per_database_and_valid() {
        let a = dbus_id(Path::new("/home/u/.local/share/hearth/hearth.sqlite"));
        let b = dbus_id(Path::new("/tmp/other/hearth.sqlite"));
        assert_ne!(a, b);
        assert_eq!(
            a,
            dbus_id(Path::new("/home/u/.local/share/hearth/hearth.sqlite"))
        );
        // Elements of [A-Za-z0-9_-], none starting with a digit; at most 255.
        assert!(a.len() <= 255);
        for element in a.split('.') {
            assert!(!element.is_empty());
            assert!(!element.starts_with(|c: char| c.is_ascii_digit()), "{a}");
            assert!(
                element
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                "{a}"
            );
        }
        assert_eq!(a.len(), "dev.hearth.app.db".len() + 16);
    }

    #[test]
    fn a_relative_database_path_names_the_same_file_as_its_absolute_one() {
        let cwd = std::env::current_dir().expect("a working directory");
        assert_eq!(
            dbus_id(Path::new("h.sqlite")),
            dbus_id(&cwd.join("h.sqlite"))
        );
    }
}
