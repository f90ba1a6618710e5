//! The shell's own checks: the IPC surface (bindings current, manifest and
//! capability in step with the commands) and the security config.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::bindings::{BINDINGS_PATH, builder, typescript};
use crate::commands::app::app_version;

/// The root config: the CSP and capabilities in it are security
/// boundaries, so their shape is asserted, not assumed.
fn config() -> Value {
    serde_json::from_str(include_str!("../tauri.conf.json")).unwrap()
}

/// The bindings as the Rust types produce them now.
fn generated() -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bindings.ts");
    builder().export(typescript(), &path).unwrap();
    std::fs::read_to_string(path).unwrap()
}

/// Command names in generated bindings (`TAURI_INVOKE<T>("name"`).
fn invoked(ts: &str) -> BTreeSet<String> {
    ts.split("TAURI_INVOKE")
        .skip(1)
        .filter_map(|rest| {
            let open = rest.find("(\"")?;
            // Only a call: at most a type argument between name and `(`.
            (open == 0 || rest.starts_with('<')).then_some(())?;
            rest[open + 2..].split('"').next()
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn bindings_are_current() {
    let fresh = generated();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed = std::fs::read_to_string(root.join(BINDINGS_PATH)).unwrap_or_default();
    assert!(
        committed == fresh,
        "{BINDINGS_PATH} is out of date with the Rust commands: run `make bindings` and commit it"
    );
}

#[test]
fn the_manifest_and_capability_name_every_command_and_nothing_else() {
    let commands = invoked(&generated());
    assert!(commands.len() > 40, "{commands:?}");
    // build.rs lists the commands for the app manifest.
    let build = include_str!("build.rs");
    let start = build.find("const COMMANDS").unwrap();
    let list = &build[start..build[start..].find("];").unwrap() + start];
    let manifest: BTreeSet<String> = list
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    assert_eq!(
        manifest, commands,
        "build.rs COMMANDS differs from bindings.rs"
    );
    // The capability grants exactly allow-<command> for each: no plugin,
    // no core permission set, no filesystem or shell.
    let config = config();
    let capabilities = config["app"]["security"]["capabilities"]
        .as_array()
        .unwrap();
    assert_eq!(capabilities.len(), 1);
    let main = &capabilities[0];
    assert_eq!(main["windows"], serde_json::json!(["main"]));
    assert!(main.get("remote").is_none(), "no remote URL may call IPC");
    let granted: BTreeSet<String> = main["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_owned())
        .collect();
    let expected: BTreeSet<String> = commands
        .iter()
        .map(|c| format!("allow-{}", c.replace('_', "-")))
        .collect();
    assert_eq!(granted, expected);
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
                "'self'"
                    | "'none'"
                    | "data:"
                    | "ipc:"
                    | "http://ipc.localhost"
                    | "hearth-artifact:"
                    | "http://hearth-artifact.localhost"
            );
            assert!(allowed, "{directive} allows {source}");
        }
    }
    assert_eq!(csp["default-src"], "'self'");
    assert_eq!(csp["script-src"], "'self'");
    assert_eq!(csp["style-src"], "'self'");
    assert_eq!(csp["img-src"], "'self' data:");
    assert_eq!(csp["connect-src"], "ipc: http://ipc.localhost");
    // Only the artifact frames' own scheme (artifacts.rs), on Linux and
    // macOS and as Windows spells it.
    assert_eq!(
        csp["frame-src"],
        "hearth-artifact: http://hearth-artifact.localhost"
    );
    assert_eq!(
        config["app"]["security"]["devCsp"]["frame-src"],
        csp["frame-src"]
    );
}
