//! The app's place on the desktop: one window per database, a quit that
//! is a quit whichever way it comes, and notices while it is in the
//! background.
//!
//! - A second launch on the same database shows and focuses the running
//!   window instead of opening another (tauri-plugin-single-instance: a
//!   D-Bus name on Linux). The name is per database, so a test or a second
//!   `$HEARTH_DB` runs beside the user's own app. Without a session bus the
//!   plugin lets every launch start, as before. The name is given up as
//!   the quit begins, so a launch during the quit's last seconds starts a
//!   new app rather than handing over to one going away.
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
//! - A restored window that would not fit on its screen (saved on a bigger
//!   one, or mostly off it) is made to fit and centred, once per process.

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

/// Give up the single-instance name: the app is quitting.
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

/// Make a restored window fit its screen, once per process (a reload
/// leaves it where the person put it): one saved on a bigger screen is
/// shrunk to it, and one mostly off it (its middle outside) is centred. A
/// maximized or full-screen window is the window manager's.
pub fn fit_on_screen<R: Runtime>(window: &tauri::Window<R>) {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::Relaxed)
        || window.is_maximized().unwrap_or(true)
        || window.is_fullscreen().unwrap_or(true)
    {
        return;
    }
    let (Ok(Some(screen)), Ok(position), Ok(outer), Ok(inner)) = (
        window.current_monitor(),
        window.outer_position(),
        window.outer_size(),
        window.inner_size(),
    ) else {
        return;
    };
    let now = Place {
        x: position.x,
        y: position.y,
        width: outer.width,
        height: outer.height,
    };
    let area = screen.work_area();
    let screen = Place {
        x: area.position.x,
        y: area.position.y,
        width: area.size.width,
        height: area.size.height,
    };
    let Some(to) = fitted(now, screen) else {
        return;
    };
    tracing::info!("the window's saved place does not fit this screen: centred");
    // The size asked for is the inside; the frame (a window manager's) is
    // what the outside has more.
    let frame = (
        outer.width.saturating_sub(inner.width),
        outer.height.saturating_sub(inner.height),
    );
    let size = tauri::PhysicalSize::new(
        to.width.saturating_sub(frame.0),
        to.height.saturating_sub(frame.1),
    );
    if let Err(e) = window
        .set_size(size)
        .and_then(|()| window.set_position(tauri::PhysicalPosition::new(to.x, to.y)))
    {
        tracing::warn!("cannot fit the window to the screen: {e}");
    }
}

/// A window's or a screen's rectangle, in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    x: i32,
    y: i32,
    width: u32,
    height: u32,
}

/// Where `window` goes to be usable on `screen`: `None` when it is no
/// bigger than the screen and its middle is on it (a window the person
/// left partly off an edge stays there); else no bigger than the screen,
/// centred on it.
fn fitted(window: Place, screen: Place) -> Option<Place> {
    let middle_on = |p: i32, s: u32, o: i32, a: u32| {
        let middle = i64::from(p) + i64::from(s / 2);
        middle >= i64::from(o) && middle < i64::from(o) + i64::from(a)
    };
    if window.width <= screen.width
        && window.height <= screen.height
        && middle_on(window.x, window.width, screen.x, screen.width)
        && middle_on(window.y, window.height, screen.y, screen.height)
    {
        return None;
    }
    let (width, height) = (
        window.width.min(screen.width),
        window.height.min(screen.height),
    );
    let centre =
        |o: i32, a: u32, s: u32| i32::try_from(i64::from(o) + i64::from((a - s) / 2)).unwrap_or(o);
    Some(Place {
        x: centre(screen.x, screen.width, width),
        y: centre(screen.y, screen.height, height),
        width,
        height,
    })
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
    fn a_window_bigger_than_its_screen_or_off_it_is_made_whole_and_centred() {
        let screen = Place {
            x: 0,
            y: 0,
            width: 1280,
            height: 800,
        };
        let at = |x, y, width, height| Place {
            x,
            y,
            width,
            height,
        };
        // Whole already: left where it is.
        assert_eq!(fitted(at(210, 130, 900, 640), screen), None);
        assert_eq!(fitted(at(0, 0, 1280, 800), screen), None);
        // Saved on a bigger screen: the screen's size, centred.
        assert_eq!(
            fitted(at(100, 50, 2400, 1400), screen),
            Some(at(0, 0, 1280, 800))
        );
        // Partly off an edge, its middle on the screen: left there.
        assert_eq!(fitted(at(700, 100, 800, 600), screen), None);
        // Mostly off the right edge: centred, its size kept.
        assert_eq!(
            fitted(at(1000, 100, 800, 600), screen),
            Some(at(240, 100, 800, 600))
        );
        // Off a second screen that is gone (negative place).
        assert_eq!(
            fitted(at(-1500, 20, 1000, 700), screen),
            Some(at(140, 50, 1000, 700))
        );
        // A screen that does not start at 0 (a panel on the left).
        let right = Place {
            x: 1920,
            y: 0,
            width: 1000,
            height: 700,
        };
        assert_eq!(
            fitted(at(100, 100, 800, 600), right),
            Some(at(2020, 50, 800, 600))
        );
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
