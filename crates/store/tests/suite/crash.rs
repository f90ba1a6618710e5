//! Repair of runs a dead process left open; live owners are left alone.

use std::path::Path;

use hearth_core::{ChatMessage, MessageStatus, Role, SessionStore, ToolCall};
use hearth_store::{OUTCOME_UNKNOWN, Store};
use serde_json::json;

fn call(id: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "write_file".into(),
        arguments: json!({"path": "a.txt"}),
    }
}

/// Make every registered instance look dead (as after a SIGKILL): a pid no
/// process has.
fn kill_all_instances(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute("UPDATE instances SET pid = 2147483000", [])
        .unwrap();
}

async fn half_finished_turn(store: &Store) {
    store.begin_run("s", "r1").await.unwrap();
    store
        .append("s", "r1", ChatMessage::user("write two files"))
        .await
        .unwrap();
    let mut a = ChatMessage::assistant("");
    a.tool_calls = vec![call("c1"), call("c2")];
    store.append("s", "r1", a).await.unwrap();
    store
        .append("s", "r1", ChatMessage::tool_result(&call("c1"), "ok"))
        .await
        .unwrap();
}

#[tokio::test]
async fn a_dead_runs_open_tool_calls_get_outcome_unknown_never_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let (store, _) = Store::open(&path).await.unwrap();
        half_finished_turn(&store).await;
    }
    kill_all_instances(&path);
    let (store, report) = Store::open(&path).await.unwrap();
    assert_eq!(report.recovered_runs, 1);
    let h = store.history("s").await.unwrap();
    let results: Vec<(&str, &str)> = h
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| (m.tool_call_id.as_deref().unwrap(), m.content.as_str()))
        .collect();
    assert_eq!(results, vec![("c1", "ok"), ("c2", OUTCOME_UNKNOWN)]);
    assert!(!OUTCOME_UNKNOWN.contains("cancelled"));
    // Repaired once: opening again changes nothing.
    drop(store);
    kill_all_instances(&path);
    let (store, report) = Store::open(&path).await.unwrap();
    assert_eq!(report.recovered_runs, 0);
    assert_eq!(store.history("s").await.unwrap(), h);
}

#[tokio::test]
async fn a_checkpointed_answer_becomes_an_interrupted_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let (store, _) = Store::open(&path).await.unwrap();
        store.begin_run("s", "r1").await.unwrap();
        store
            .append("s", "r1", ChatMessage::user("tell me"))
            .await
            .unwrap();
        store
            .checkpoint("s", "r1", &ChatMessage::assistant("Once upon"))
            .await
            .unwrap();
        store
            .checkpoint("s", "r1", &ChatMessage::assistant("Once upon a time"))
            .await
            .unwrap();
    }
    kill_all_instances(&path);
    let (store, report) = Store::open(&path).await.unwrap();
    assert_eq!(report.recovered_runs, 1);
    let h = store.history("s").await.unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h[1].content, "Once upon a time");
    assert_eq!(h[1].status, MessageStatus::Interrupted);
}

#[tokio::test]
async fn a_finished_answer_drops_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let (store, _) = Store::open(&path).await.unwrap();
        store.begin_run("s", "r1").await.unwrap();
        store
            .append("s", "r1", ChatMessage::user("q"))
            .await
            .unwrap();
        store
            .checkpoint("s", "r1", &ChatMessage::assistant("dra"))
            .await
            .unwrap();
        store
            .append("s", "r1", ChatMessage::assistant("draft done"))
            .await
            .unwrap();
        // Killed after the answer, before end_run.
    }
    kill_all_instances(&path);
    let (store, report) = Store::open(&path).await.unwrap();
    assert_eq!(report.recovered_runs, 1);
    let h = store.history("s").await.unwrap();
    assert_eq!(
        h.iter().map(|m| m.content.as_str()).collect::<Vec<_>>(),
        vec!["q", "draft done"]
    );
}

#[tokio::test]
async fn a_live_owners_run_is_not_touched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let (app, _) = Store::open(&path).await.unwrap();
    half_finished_turn(&app).await;
    // A second process (the CLI beside the app) opens the same file.
    let (cli, report) = Store::open(&path).await.unwrap();
    assert_eq!(report.recovered_runs, 0);
    assert_eq!(cli.history("s").await.unwrap().len(), 3);
    // The app finishes its run normally.
    app.append("s", "r1", ChatMessage::tool_result(&call("c2"), "ok"))
        .await
        .unwrap();
    app.end_run("r1", MessageStatus::Complete).await.unwrap();
    assert_eq!(
        cli.history("s").await.unwrap().last().unwrap().content,
        "ok"
    );
}

#[tokio::test]
async fn a_second_live_run_in_one_session_waits_its_turn() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let (app, _) = Store::open(&path).await.unwrap();
    let (cli, _) = Store::open(&path).await.unwrap();
    app.begin_run("s", "r1").await.unwrap();
    let err = cli.begin_run("s", "r2").await.unwrap_err();
    assert!(err.to_string().contains("answer in progress"), "{err}");
    // Another session is not blocked; and once the first run ends, the
    // session takes the next one.
    cli.begin_run("other", "r3").await.unwrap();
    app.end_run("r1", MessageStatus::Complete).await.unwrap();
    cli.begin_run("s", "r2").await.unwrap();
}

#[tokio::test]
async fn a_live_process_repairs_its_own_run_whose_end_was_not_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(&dir.path().join("h.sqlite")).await.unwrap();
    half_finished_turn(&store).await;
    // Its owner (this process) is alive: the session is locked until the
    // run is repaired.
    assert!(store.begin_run("s", "r2").await.is_err());
    store.repair_run("r1").await.unwrap();
    let h = store.history("s").await.unwrap();
    assert_eq!(h.last().unwrap().content, OUTCOME_UNKNOWN);
    store.begin_run("s", "r2").await.unwrap();
    // A run that has ended is left alone.
    store.repair_run("r1").await.unwrap();
    assert_eq!(store.history("s").await.unwrap(), h);
    // Hearth did not close: its answer is not said to be cut off.
    let runs = store.answer_runs("s").await.unwrap();
    assert!(runs.iter().all(|r| !r.cut_off), "{runs:?}");
}

/// User pass 2026-12, defect 31: an answer a crash cut off keeps which
/// model on which host wrote it (recorded as the run started, before any
/// model call ended), and says it was cut off, not stopped; a run the user
/// stopped is not.
#[tokio::test]
async fn a_cut_off_answer_keeps_its_model_and_host_and_says_it_was_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let (store, _) = Store::open(&path).await.unwrap();
        store.begin_run("s", "r0").await.unwrap();
        store
            .describe_run("r0", "llama3.2", "ollama")
            .await
            .unwrap();
        store
            .append("s", "r0", ChatMessage::user("hi"))
            .await
            .unwrap();
        store
            .end_run("r0", MessageStatus::Interrupted)
            .await
            .unwrap();
        store.begin_run("s", "r1").await.unwrap();
        store
            .describe_run("r1", "qwen3:8b", "workstation")
            .await
            .unwrap();
        store
            .append("s", "r1", ChatMessage::user("write"))
            .await
            .unwrap();
        store
            .checkpoint("s", "r1", &ChatMessage::assistant("half an ans"))
            .await
            .unwrap();
    }
    kill_all_instances(&path);
    let (store, report) = Store::open(&path).await.unwrap();
    assert_eq!(report.recovered_runs, 1);
    let runs = store.answer_runs("s").await.unwrap();
    let got: Vec<_> = runs
        .iter()
        .map(|r| {
            (
                r.run_id.as_str(),
                r.model.as_deref(),
                r.host.as_deref(),
                r.cut_off,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("r0", Some("llama3.2"), Some("ollama"), false),
            ("r1", Some("qwen3:8b"), Some("workstation"), true),
        ]
    );
}
