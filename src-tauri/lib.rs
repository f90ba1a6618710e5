//! Hearth's desktop shell: the Tauri app that hosts the web UI in `ui/`.
//!
//! The shell owns windows and the IPC surface, nothing more. Its commands
//! are thin adapters over the crates (STYLE §3); it holds no agent logic and
//! must not grow any. Every command is declared in `src-tauri/build.rs`
//! (the app manifest) and must be granted by a capability in
//! `tauri.conf.json` before the page can call it.

/// Returns the version of the app package (`version` in the root
/// `Cargo.toml`), which the UI shows so a user can tell which build runs.
#[tauri::command]
fn app_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Builds the desktop app and runs its event loop until the last window
/// closes.
///
/// # Errors
/// Returns the Tauri error when the app cannot start, e.g. when the
/// webview or the embedded assets fail to load. (On Linux, a missing display
/// makes GTK panic before Tauri can report it: `main.rs` checks first.)
pub fn run() -> Result<(), tauri::Error> {
    tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![app_version])
        .run(tauri::generate_context!())
}

#[cfg(test)]
mod tests {
    use super::app_version;
    use serde_json::Value;

    /// The root config, parsed once per test: the CSP and capabilities in it
    /// are security boundaries, so their shape is asserted, not assumed.
    fn config() -> Value {
        serde_json::from_str(include_str!("../tauri.conf.json")).unwrap()
    }

    #[test]
    fn app_version_is_the_package_version() {
        assert_eq!(app_version(), env!("CARGO_PKG_VERSION"));
        let parts: Vec<&str> = app_version().split('.').collect();
        assert_eq!(parts.len(), 3, "expected X.Y.Z, got {}", app_version());
        assert!(parts.iter().all(|p| p.parse::<u64>().is_ok()));
    }

    #[test]
    fn csp_allows_no_remote_source() {
        let config = config();
        let csp = config["app"]["security"]["csp"].as_object().unwrap();
        for (directive, sources) in csp {
            let sources = sources.as_str().unwrap();
            for source in sources.split_whitespace() {
                let allowed = matches!(
                    source,
                    "'self'" | "'none'" | "data:" | "ipc:" | "http://ipc.localhost"
                );
                assert!(allowed, "{directive} allows {source}");
            }
        }
        assert_eq!(csp["default-src"], "'self'");
        assert_eq!(csp["script-src"], "'self'");
        assert_eq!(csp["style-src"], "'self'");
        assert_eq!(csp["connect-src"], "ipc: http://ipc.localhost");
    }

    #[test]
    fn the_only_capability_grants_only_app_version_to_main() {
        let config = config();
        let capabilities = config["app"]["security"]["capabilities"]
            .as_array()
            .unwrap();
        assert_eq!(capabilities.len(), 1);
        let main = &capabilities[0];
        assert_eq!(main["windows"], serde_json::json!(["main"]));
        assert_eq!(
            main["permissions"],
            serde_json::json!(["allow-app-version"])
        );
        assert!(main.get("remote").is_none(), "no remote URL may call IPC");
    }
}
