//! UI preferences in tauri-plugin-store (`prefs.json` in the app's data
//! folder), docs/design.md §7: theme, last session, sidebar, notifications,
//! the Ollama and OpenAI-compatible servers' URLs. The window's size and
//! place are the window-state plugin's (`.window-state.json` in the app's
//! config folder); everything else (profiles, persona, model settings) is
//! the core's, in SQLite.

use hearth_protocol::ErrorInfo;
use tauri::{AppHandle, Runtime};
use tauri_plugin_store::StoreExt;

use crate::state::internal;
use crate::views::Prefs;

const FILE: &str = "prefs.json";
const UI: &str = "ui";
const URL: &str = "ollama_url";
const OPENAI_URL: &str = "openai_url";
/// The window's size as Hearth kept it before the window-state plugin.
const OLD_WINDOW: &str = "window";

/// The saved preferences (defaults when none or unreadable).
pub fn load<R: Runtime>(app: &AppHandle<R>) -> Prefs {
    app.store(FILE)
        .ok()
        .and_then(|s| s.get(UI))
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default()
}

fn put<R: Runtime>(
    app: &AppHandle<R>,
    key: &str,
    value: serde_json::Value,
) -> Result<(), ErrorInfo> {
    let store = app
        .store(FILE)
        .map_err(|e| internal(format!("cannot open the preferences: {e}")))?;
    store.set(key, value);
    store
        .save()
        .map_err(|e| internal(format!("cannot save the preferences: {e}")))
}

/// Save the UI preferences.
pub fn save<R: Runtime>(app: &AppHandle<R>, prefs: &Prefs) -> Result<(), ErrorInfo> {
    let v = serde_json::to_value(prefs).map_err(|e| internal(e.to_string()))?;
    put(app, UI, v)
}

/// The Ollama URL the user chose, if any.
pub fn url<R: Runtime>(app: &AppHandle<R>) -> Option<String> {
    app.store(FILE).ok()?.get(URL)?.as_str().map(str::to_owned)
}

/// Remember the Ollama URL.
pub fn save_url<R: Runtime>(app: &AppHandle<R>, url: &str) -> Result<(), ErrorInfo> {
    put(app, URL, serde_json::Value::String(url.to_owned()))
}

/// The OpenAI-compatible server's URL the user chose, if any.
pub fn openai_url<R: Runtime>(app: &AppHandle<R>) -> Option<String> {
    app.store(FILE)
        .ok()?
        .get(OPENAI_URL)?
        .as_str()
        .map(str::to_owned)
}

/// Remember the OpenAI-compatible server's URL.
pub fn save_openai_url<R: Runtime>(app: &AppHandle<R>, url: &str) -> Result<(), ErrorInfo> {
    put(app, OPENAI_URL, serde_json::Value::String(url.to_owned()))
}

/// The window size an older Hearth kept here (logical pixels), taken out
/// of the file: the window-state plugin keeps the window's place now, and
/// the old size is given to the window once, when the plugin has none.
pub fn take_old_window_size<R: Runtime>(app: &AppHandle<R>) -> Option<(f64, f64)> {
    let store = app.store(FILE).ok()?;
    let old = store.get(OLD_WINDOW)?;
    store.delete(OLD_WINDOW);
    if let Err(e) = store.save() {
        tracing::warn!("cannot save the preferences: {e}");
    }
    let w = old.get("width")?.as_f64()?;
    let h = old.get("height")?.as_f64()?;
    (w >= 320.0 && h >= 240.0).then_some((w, h))
}
