//! run_shell: runs in the workspace, caps output, and leaves no process
//! behind after a timeout or a stop. These run the shell with the sandbox
//! turned off in the profile (there is no launcher binary in this crate);
//! the sandbox itself is tested through the real `hearth` binary in the
//! CLI's suite (`sandbox.rs`).

use std::path::Path;
use std::time::Duration;

use hearth_core::{Tool, ToolContext, ToolEffect};
use hearth_tools::RunShell;
use serde_json::json;

fn ctx(ws: &Path) -> ToolContext {
    ToolContext {
        sandbox_off: true,
        ..hearth_test_support::tool_context("s", Some(ws))
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

/// `sleep MARKER` processes (not the shell whose command line names them).
fn sleeping(marker: &str) -> usize {
    let cmdline = format!("sleep\0{marker}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|cmd| cmd == cmdline.as_bytes())
        .count()
}

/// Polls `done` every 20 ms for up to 10 s (a bound on a hang only).
async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..500 {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

async fn gone(marker: &str) -> bool {
    eventually(|| alive(marker) == 0).await
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
    let c = ctx(tmp.path());
    let reach = RunShell::default().reach(&json!({"command": "rm -rf x"}), &c);
    assert!(
        reach.contains("rm -rf x") && reach.contains("NOT sandboxed"),
        "{reach}"
    );
}

#[tokio::test]
async fn without_a_sandbox_a_command_is_refused_unless_the_profile_turned_it_off() {
    let tmp = tempfile::tempdir().unwrap();
    let strict = ToolContext {
        sandbox_off: false,
        read_only: false,
        ..ctx(tmp.path())
    };
    let args = json!({"command": "echo hi > made.txt"});
    let why = RunShell::default().refuse(&args, &strict).unwrap();
    assert!(why.contains("cannot be sandboxed"), "{why}");
    let reach = RunShell::default().reach(&args, &strict);
    assert!(reach.contains("NOT sandboxed on this machine"), "{reach}");
    let err = RunShell::default()
        .call(args.clone(), &strict)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("refused"), "{err}");
    assert!(!tmp.path().join("made.txt").exists());
    assert!(
        RunShell::default()
            .refuse(&args, &ctx(tmp.path()))
            .is_none()
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
    let (shell, c) = (RunShell::default(), ctx(tmp.path()));
    let call = shell.call(
        json!({"command": format!("sleep {marker} & sleep {marker}; wait"), "timeout_secs": 1}),
        &c,
    );
    // The sleeps take 31 s; the 1 s timeout ends the call long before this
    // bound, which only stops a hang.
    let err = tokio::time::timeout(Duration::from_secs(20), call)
        .await
        .expect("the timeout ended the call")
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("ran longer than 1 s and was killed"),
        "{err}"
    );
    assert!(gone(marker).await, "a process survived the timeout");
}

#[tokio::test]
async fn a_stop_drops_the_call_and_kills_everything_it_started() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = "27.1828182";
    let c = ctx(tmp.path());
    let shell = RunShell::default();
    let mut call = Box::pin(shell.call(
        json!({"command": format!("sleep {marker} & (sleep {marker} &); sleep {marker}")}),
        &c,
    ));
    // Run the call until all three sleeps exist (the last starts after the
    // other two), then drop it: the loop races every tool with Stop and
    // drops the loser.
    tokio::select! {
        out = &mut call => panic!("the command ended by itself: {out:?}"),
        started = eventually(|| sleeping(marker) == 3) => assert!(started, "the sleeps never started"),
    }
    drop(call);
    assert!(gone(marker).await, "a process survived the stop");
}
