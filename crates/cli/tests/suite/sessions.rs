//! Sessions persist across invocations and can be managed from the CLI.

use hearth_sim::{Reply, Script};

use super::basics::{hearth, output, sim, turn_bodies};
use crate::MODEL;

#[tokio::test]
async fn a_session_continues_across_invocations_and_can_be_managed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    let sim = sim(Script::default()
        .with_reply(Reply::text("Noted: blue."))
        .with_reply(Reply::text("Colour chat"))
        .with_reply(Reply::text("NONE"))
        .with_reply(Reply::text("Blue.")))
    .await;
    let url = sim.url();
    let first = output(hearth(&[
        "chat",
        "--db",
        db,
        "--url",
        &url,
        "--model",
        MODEL,
        "--session",
        "s1",
        "My favourite colour is blue",
    ]))
    .await;
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let second = output(hearth(&[
        "chat",
        "--db",
        db,
        "--url",
        &url,
        "--model",
        MODEL,
        "--session",
        "s1",
        "What is it?",
    ]))
    .await;
    assert!(second.status.success());
    // The second request carried the first exchange.
    let last = turn_bodies(&sim).last().unwrap().clone();
    let contents: Vec<&str> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(
        contents.contains(&"My favourite colour is blue") && contents.contains(&"Noted: blue."),
        "{contents:?}"
    );

    let list = output(hearth(&["sessions", "--db", db])).await;
    let list = String::from_utf8_lossy(&list.stdout).to_string();
    assert!(list.contains("s1") && list.contains("4 msgs"), "{list}");
    assert!(
        output(hearth(&["sessions", "--db", db, "rename", "s1", "Colours"]))
            .await
            .status
            .success()
    );
    let show = output(hearth(&["sessions", "--db", db, "show", "s1"])).await;
    assert!(String::from_utf8_lossy(&show.stdout).contains("model: Blue."));
    assert!(
        output(hearth(&["sessions", "--db", db, "delete", "s1"]))
            .await
            .status
            .success()
    );
    let list = output(hearth(&["sessions", "--db", db])).await;
    assert!(String::from_utf8_lossy(&list.stdout).contains("(no sessions)"));
    assert!(
        output(hearth(&["sessions", "--db", db, "restore", "s1"]))
            .await
            .status
            .success()
    );
    let list = output(hearth(&["sessions", "--db", db])).await;
    assert!(String::from_utf8_lossy(&list.stdout).contains("Colours"));
}
