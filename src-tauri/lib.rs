//! Hearth's desktop shell: the Tauri app that hosts the web UI in `ui/`.
//!
//! The shell owns windows and the IPC surface, nothing more. Its commands
//! (`commands/`) are thin adapters over the crates (docs/style.md §3); it
//! holds no agent logic and must not grow any. Every command is declared in
//! `src-tauri/build.rs` (the app manifest) and must be granted by a
//! capability in `tauri.conf.json` before the page can call it.

mod artifacts;
pub mod bindings;
pub mod commands;
mod confirm;
mod desktop;
mod dialogs;
mod knowledge;
mod links;
mod notices;
mod page_events;
mod placement;
mod prefs;
mod pulls;
mod runs;
mod speaking;
mod state;
mod system_notices;
mod updates;
pub mod views;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tauri::webview::PageLoadEvent;
use tauri::{Manager, RunEvent, WindowEvent};

pub use state::AppState;

/// How long quitting waits for runs to store their partial answers.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The database: `$HEARTH_DB`, else `hearth.sqlite` in the user's data
/// folder (the same file the CLI uses).
fn db_path() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("HEARTH_DB").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    directories::ProjectDirs::from("dev", "Hearth", "Hearth")
        .map(|d| d.data_dir().join("hearth.sqlite"))
        .ok_or_else(|| "cannot find your data folder (is $HOME set?); set HEARTH_DB".to_owned())
}

/// The Ollama URL: `$HEARTH_OLLAMA_URL` (demo, tests), else the one the
/// user chose, else `$OLLAMA_HOST`, else the default.
fn ollama_url(app: &tauri::AppHandle) -> String {
    std::env::var("HEARTH_OLLAMA_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .or_else(|| prefs::url(app))
        .unwrap_or_else(|| hearth_ollama::resolve_base_url(None))
}

fn setup(app: &mut tauri::App) -> Result<(), Box<dyn std::error::Error>> {
    let handle = app.handle().clone();
    let demo = std::env::var_os("HEARTH_DEMO").is_some_and(|v| v == "1");
    let url = ollama_url(&handle);
    let state = tauri::async_runtime::block_on(AppState::open(db_path()?, &url, demo))?;
    // `$HEARTH_OPENAI_URL` (tests), else the one the user chose, else the
    // default (llama.cpp's server on this machine).
    let openai = std::env::var("HEARTH_OPENAI_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .or_else(|| prefs::openai_url(&handle));
    if let Some(url) = openai
        && let Err(e) = state.set_openai_url(&url)
    {
        tracing::warn!(
            "the OpenAI-compatible server's URL is not usable: {}",
            e.message
        );
    }
    let notify = handle.clone();
    state
        .runs
        .notices()
        .set(move |u| system_notices::apply(&notify, u));
    app.manage(state);
    app.manage(desktop::Focus::default());
    app.manage(page_events::PageEvents::default());
    app.manage(updates::Pending::default());
    system_notices::set_up(&handle);
    desktop::quit_on_signals(&handle);
    // The window is made hidden (tauri.conf.json) and shown only now, once
    // the window-state plugin has given it its saved size and place, and
    // that place is fitted to the screen: shown at once, it appeared at the
    // default size and then jumped, or bigger than the screen and then
    // shrank. Last in setup, so its focus events find `Focus` to keep them.
    if let Some(window) = app.get_webview_window("main") {
        carry_old_window_size(&handle, &window);
        placement::fit_saved_place(&handle, &window);
        window.show()?;
    }
    Ok(())
}

/// The page may only ever show the app itself: a link or a redirect to
/// anywhere else is refused (links from answers go to the system browser
/// through `open_link`). Defence in depth behind the UI's click handling.
/// WebKitGTK asks this of every frame's navigation too, so the artifact
/// frames' pages (`artifacts.rs`) and a previewed page's `srcdoc` frame
/// are let through, and anything they would navigate to is not.
fn navigation_guard<R: tauri::Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri::plugin::Builder::new("navigation-guard")
        .on_navigation(|_webview, url| {
            let own = match url.scheme() {
                // The embedded UI: tauri://localhost (Linux, macOS),
                // http(s)://tauri.localhost (Windows).
                "tauri" => true,
                artifacts::SCHEME => url.host_str() == Some("localhost"),
                "about" => matches!(url.as_str(), "about:blank" | "about:srcdoc"),
                "http" | "https" => {
                    url.host_str() == Some("tauri.localhost")
                        || url.host_str() == Some("hearth-artifact.localhost")
                        || (cfg!(debug_assertions)
                            && url.host_str() == Some("localhost")
                            && url.port() == Some(5173))
                }
                _ => false,
            };
            if !own {
                tracing::warn!("refused to navigate the window to {url}");
            }
            own
        })
        .build()
}

/// An older Hearth kept only the window's size, in prefs.json: given to
/// the window once, while the window-state plugin has no place saved (a
/// first start after the update), and then forgotten either way.
fn carry_old_window_size<R: tauri::Runtime>(
    app: &tauri::AppHandle<R>,
    window: &tauri::WebviewWindow<R>,
) {
    let Some((width, height)) = prefs::take_old_window_size(app) else {
        return;
    };
    let placed = app
        .path()
        .app_config_dir()
        .map(|d| d.join(tauri_plugin_window_state::DEFAULT_FILENAME).exists())
        .unwrap_or(true);
    if placed {
        return;
    }
    match window.set_size(tauri::LogicalSize::new(width, height)) {
        Ok(()) => {
            tracing::info!("the window size an older Hearth kept, carried over: {width}×{height}")
        }
        Err(e) => tracing::warn!("cannot give the window its old size: {e}"),
    }
}

/// What of the window is remembered between launches: its size, its place
/// and whether it was maximized (not whether it was shown or full-screen:
/// the app always opens visible and windowed).
fn window_state_flags() -> tauri_plugin_window_state::StateFlags {
    use tauri_plugin_window_state::StateFlags;
    StateFlags::SIZE | StateFlags::POSITION | StateFlags::MAXIMIZED
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("HEARTH_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Builds the desktop app and runs its event loop until the last window
/// closes.
///
/// # Errors
/// Returns the Tauri error when the app cannot start, e.g. when the
/// database cannot be opened or the webview fails to load. (On Linux, a
/// missing display makes GTK panic before Tauri can report it: `main.rs`
/// checks first.)
pub fn run() -> Result<(), tauri::Error> {
    init_tracing();
    let specta = bindings::builder();
    let mut builder = tauri::Builder::default();
    // First: a second launch exits before anything else starts. (Without a
    // database path, setup reports that below.)
    if let Ok(db) = db_path() {
        builder = builder.plugin(desktop::single(&db));
    }
    let app = builder
        .plugin(tauri_plugin_store::Builder::default().build())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_dialog::init())
        .plugin(
            tauri_plugin_window_state::Builder::new()
                .with_state_flags(window_state_flags())
                .build(),
        )
        // Used from Rust only (commands/updates.rs); its own commands are
        // granted to no page.
        .plugin(tauri_plugin_updater::Builder::new().build())
        .plugin(navigation_guard())
        // The artifact frames' pages, with their own CSP (artifacts.rs).
        .register_uri_scheme_protocol(artifacts::SCHEME, artifacts::respond)
        .invoke_handler(specta.invoke_handler())
        .setup(setup)
        // A reload starts a new page: the runs the old one started have no
        // one watching (a send to its channel does not fail), so they stop.
        .on_page_load(|webview, payload| {
            // The window is on the screen by now, at the size the
            // window-state plugin restored and setup fitted (before it is
            // mapped, its frame and screen are not known).
            if payload.event() == PageLoadEvent::Finished && webview.label() == "main" {
                placement::fit_on_screen(&webview.window());
            }
            // A new page listens anew: until it does, what the shell says
            // waits for it rather than going to the page that is gone.
            if payload.event() == PageLoadEvent::Started
                && webview.label() == "main"
                && let Some(events) = webview.try_state::<page_events::PageEvents>()
            {
                events.forget();
            }
            if payload.event() == PageLoadEvent::Started
                && let Some(state) = webview.try_state::<AppState>()
            {
                let n = state.runs.stop_owned_by(webview.label());
                if n > 0 {
                    tracing::info!("page reloaded: stopped {n} run(s)");
                }
            }
        })
        .on_window_event(|window, event| match event {
            WindowEvent::Focused(focused) if window.label() == "main" => {
                if let Some(focus) = window.try_state::<desktop::Focus>() {
                    focus.set(*focused);
                }
                if *focused {
                    system_notices::window_focused(window.app_handle());
                }
            }
            WindowEvent::Destroyed => {
                // The app's only window is gone: the app is going. A launch
                // from now on starts a new app rather than hand over to
                // this one, which has no window left to show.
                if window.label() == "main" {
                    desktop::leave(window.app_handle());
                }
                if let Some(state) = window.try_state::<AppState>() {
                    state.runs.stop_owned_by(window.label());
                }
            }
            _ => {}
        })
        .build(tauri::generate_context!())?;
    app.run(|handle, event| {
        // A launch from now on starts a new app: this one is going.
        if let RunEvent::Exit = event {
            desktop::leave(handle);
        }
        // Quitting stops every run and gives them a moment to store the
        // partial answer (what is not stored is recovered at next start).
        if let RunEvent::Exit = event
            && let Some(state) = handle.try_state::<AppState>()
        {
            let runs = state.runs.clone();
            runs.stop_all();
            let deadline = Instant::now() + EXIT_GRACE;
            while !runs.sessions().is_empty() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            // MCP servers end with the app (a stdio child also sees its
            // stdin close when the process exits).
            let mcp = state.mcp.clone();
            tauri::async_runtime::block_on(async move {
                tokio::time::timeout(EXIT_GRACE, mcp.shutdown()).await.ok();
            });
        }
    });
    Ok(())
}

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
