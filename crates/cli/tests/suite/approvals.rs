//! The approval round trip on the terminal: a write asks first; "n" leaves
//! the file untouched and tells the model, "y" writes it.

use std::process::Stdio;

use hearth_protocol::{EventKind, ToolOutcome};
use hearth_sim::{Reply, Script, ToolCallSpec};
use serde_json::json;
use tokio::io::AsyncWriteExt;

use super::basics::{events, hearth, ok, sim};
use crate::MODEL;

fn write_call() -> Reply {
    Reply::tool_calls(vec![ToolCallSpec {
        name: "write_file".into(),
        arguments: json!({"path": "notes.txt", "content": "new"}),
        id: None,
    }])
}

async fn chat_answering(db: &str, url: &str, answer: &str) -> Vec<hearth_protocol::AgentEvent> {
    let mut cmd = hearth(&[
        "chat",
        "--db",
        db,
        "--url",
        url,
        "--profile",
        "Writer",
        "--json",
        "update my notes",
    ]);
    cmd.stdin(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(answer.as_bytes()).await.unwrap();
    drop(stdin);
    let out = tokio::time::timeout(std::time::Duration::from_secs(20), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        // The path as it resolves in the workspace.
        stderr.contains("[approval] `write_file` writes 3 bytes to `/")
            && stderr.contains("/ws/notes.txt` (replacing it if it exists)"),
        "{stderr}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    events(&out.stdout)
}

fn outcome(evs: &[hearth_protocol::AgentEvent]) -> ToolOutcome {
    evs.iter()
        .find_map(|e| match &e.kind {
            EventKind::ToolEvent { outcome, .. } => Some(*outcome),
            _ => None,
        })
        .expect("a tool result")
}

#[tokio::test]
async fn a_write_asks_on_the_terminal_and_a_denial_leaves_the_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("notes.txt"), "old").unwrap();
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    ok(&[
        "profiles",
        "--db",
        &db,
        "set",
        "Writer",
        "--model",
        MODEL,
        "--tools",
        "write_file",
        "--workspace",
        ws.to_str().unwrap(),
    ])
    .await;
    // The background workers (title, memory) take their own replies, so
    // the conversation's replies do not depend on when they run.
    let mut script = Script::default();
    for (when, text) in [("Write a title", "Notes"), ("durable facts", "NONE")] {
        for _ in 0..2 {
            let mut r = Reply::text(text);
            r.when = Some(when.into());
            script = script.with_reply(r);
        }
    }
    let script = script
        .with_reply(write_call())
        .with_reply(Reply::text("I left it alone."))
        .with_reply(write_call())
        .with_reply(Reply::text("Done."));
    let sim = sim(script).await;

    let denied = chat_answering(&db, &sim.url(), "n\n").await;
    assert!(
        denied
            .iter()
            .any(|e| matches!(e.kind, EventKind::ApprovalRequested { .. }))
    );
    assert_eq!(outcome(&denied), ToolOutcome::Denied);
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "old"
    );

    let allowed = chat_answering(&db, &sim.url(), "y\n").await;
    assert_eq!(outcome(&allowed), ToolOutcome::Ok);
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "new"
    );
}
