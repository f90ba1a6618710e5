//! run_shell: runs in the workspace, caps output, and leaves no process
//! behind after a timeout or a stop.

use std::path::Path;
use std::time::{Duration, Instant};

use hearth_core::{EventSink, Tool, ToolContext, ToolEffect};
use hearth_protocol::RunScope;
use hearth_tools::RunShell;
use serde_json::json;

fn ctx(ws: &Path) -> ToolContext {
    ToolContext {
        session_id: "s".into(),
        run_id: "r".into(),
        call_id: "c".into(),
        cancel: Default::default(),
        events: EventSink::discard(RunScope::top("s", "r")),
        workspace: Some(ws.to_path_buf()),
        approver: None,
        depth: 0,
    }
}

/// Processes whose command line holds `marker`.
fn alive(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|cmd| String::from_utf8_lossy(cmd).contains(marker))
        .count()
}

async fn gone(marker: &str) -> bool {
    for _ in 0..100 {
        if alive(marker) == 0 {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test]
async fn runs_in_the_workspace_with_exit_code_and_both_streams() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("here.txt"), "").unwrap();
    let out = RunShell::default()
        .call(
            json!({"command": "ls; echo oops >&2; exit 3"}),
            &ctx(tmp.path()),
        )
        .await
        .unwrap();
    assert!(
        out.starts_with("exit code 3\n--- stdout ---\nhere.txt"),
        "{out}"
    );
    assert!(out.contains("--- stderr ---\noops"), "{out}");
    assert_eq!(RunShell::default().effect(&json!({})), ToolEffect::Mutating);
    assert!(
        !RunShell::default().session_allowance(),
        "each command asks"
    );
    let reach = RunShell::default().reach(&json!({"command": "rm -rf x"}), Some(tmp.path()));
    assert!(
        reach.contains("rm -rf x") && reach.contains("not confined"),
        "{reach}"
    );
}

#[tokio::test]
async fn output_is_capped_with_a_notice() {
    let tmp = tempfile::tempdir().unwrap();
    let out = RunShell::default()
        .call(
            json!({"command": "yes hearth | head -c 1000000"}),
            &ctx(tmp.path()),
        )
        .await
        .unwrap();
    assert!(out.len() < 30_000, "{}", out.len());
    assert!(
        out.contains("[OUTPUT TRUNCATED: Showing"),
        "{}",
        &out[out.len() - 300..]
    );
}

#[tokio::test]
async fn a_timeout_kills_the_whole_process_group() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = "31.4159265";
    let started = Instant::now();
    let err = RunShell::default()
        .call(
            json!({"command": format!("sleep {marker} & sleep {marker}; wait"), "timeout_secs": 1}),
            &ctx(tmp.path()),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("was killed"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(gone(marker).await, "a process survived the timeout");
}

#[tokio::test]
async fn a_stop_drops_the_call_and_kills_everything_it_started() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = "27.1828182";
    let c = ctx(tmp.path());
    let shell = RunShell::default();
    let call = shell.call(
        json!({"command": format!("sleep {marker} & (sleep {marker} &); sleep {marker}")}),
        &c,
    );
    // The loop races every tool with Stop and drops the loser.
    let stopped = tokio::time::timeout(Duration::from_millis(300), call).await;
    assert!(stopped.is_err(), "the command should still be running");
    assert!(gone(marker).await, "a process survived the stop");
}
