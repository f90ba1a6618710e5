//! Where the real servers are, and small helpers.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hearth_core::{Tool, ToolContext};
use hearth_mcp::{Hub, ServerConfig};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The entry script of an npm MCP server installed by `npm ci`.
fn npm_server(package: &str) -> String {
    let script = repo().join(format!(
        "node_modules/@modelcontextprotocol/{package}/dist/index.js"
    ));
    assert!(
        script.exists(),
        "{} is missing: run scripts/setup.sh --test (npm ci installs it)",
        script.display()
    );
    script.display().to_string()
}

/// The folder the PyPI servers' virtual environment lives in
/// (`scripts/setup.sh --test` creates it).
pub fn venv() -> PathBuf {
    let base = std::env::var_os("HEARTH_TEST_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/hearth-test-tools")
        });
    let venv = base.join("mcp-venv");
    assert!(
        venv.join("bin/mcp-server-time").exists(),
        "{} has no mcp-server-time: run scripts/setup.sh --test",
        venv.display()
    );
    venv
}

/// `server-everything` on stdio.
pub fn everything() -> ServerConfig {
    ServerConfig {
        command: Some("node".into()),
        args: vec![npm_server("server-everything"), "stdio".into()],
        ..ServerConfig::default()
    }
}

/// `server-basic-vanillajs`, the MCP Apps project's own example server
/// (a tool with an app), on stdio.
pub fn basic_app() -> ServerConfig {
    ServerConfig {
        command: Some("node".into()),
        args: vec![npm_server("server-basic-vanillajs"), "--stdio".into()],
        ..ServerConfig::default()
    }
}

/// `server-filesystem` confined to `root`.
pub fn filesystem(root: &std::path::Path) -> ServerConfig {
    ServerConfig {
        command: Some("node".into()),
        args: vec![npm_server("server-filesystem"), root.display().to_string()],
        ..ServerConfig::default()
    }
}

/// `mcp-server-time` from PyPI.
pub fn time() -> ServerConfig {
    ServerConfig {
        command: Some(venv().join("bin/mcp-server-time").display().to_string()),
        ..ServerConfig::default()
    }
}

/// The scripted server in `mode` (see fixtures/scripted_server.py), its
/// pid written to `pid_file` when given.
pub fn scripted(mode: &str) -> ServerConfig {
    ServerConfig {
        command: Some("python3".into()),
        args: vec![
            repo()
                .join("crates/mcp/tests/fixtures/scripted_server.py")
                .display()
                .to_string(),
            mode.into(),
        ],
        ..ServerConfig::default()
    }
}

/// A hub with one server.
pub fn hub(name: &str, config: ServerConfig) -> Arc<Hub> {
    Hub::new(BTreeMap::from([(name.to_owned(), config)]))
}

/// A tool context for direct calls.
pub fn ctx() -> ToolContext {
    hearth_test_support::tool_context("s", None)
}

/// Bounds every wait on a server (they start in well under this).
pub const WAIT: Duration = Duration::from_secs(120);

/// `fut` within [`WAIT`].
pub async fn within<T>(what: &str, fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, fut)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {WAIT:?}"))
}

/// The tool `name` of `server` in `hub`.
pub fn tool(hub: &Hub, server: &str, name: &str) -> Arc<dyn Tool> {
    let s = hub.server(server).expect("server configured");
    s.dyn_tools()
        .into_iter()
        .find(|t| t.spec().name == name)
        .unwrap_or_else(|| {
            let names: Vec<String> = s.dyn_tools().iter().map(|t| t.spec().name).collect();
            panic!("{name} not among {names:?}")
        })
}
