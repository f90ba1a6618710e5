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

#[tokio::test]
async fn regenerate_keeps_the_old_answer_on_its_own_branch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let db = path.to_str().unwrap();
    // "Tell me a joke" is a request, not a statement of the user's: the
    // memory worker asks the model nothing about it.
    let sim = sim(Script::default()
        .with_reply(Reply::text("First try."))
        .with_reply(Reply::text("A title"))
        .with_reply(Reply::text("Second try.")))
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
        "s",
        "Tell me a joke",
    ]))
    .await;
    assert!(first.status.success());
    let again = output(hearth(&[
        "chat",
        "--db",
        db,
        "--url",
        &url,
        "--model",
        MODEL,
        "--session",
        "s",
        "--regenerate",
    ]))
    .await;
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&again.stdout).trim(), "Second try.");
    let show = output(hearth(&["sessions", "--db", db, "show", "s"])).await;
    let show = String::from_utf8_lossy(&show.stdout).to_string();
    assert_eq!(
        show, "you: Tell me a joke\nmodel: Second try.\n",
        "one question, the new answer"
    );
    // The first answer is still stored, as a sibling.
    let (store, _) = hearth_store::Store::open(&path).await.unwrap();
    let msgs = store.branch_messages("s").await.unwrap();
    let siblings = store.branches_at(msgs[1].id).await.unwrap();
    assert_eq!(siblings.len(), 2);
    // The regenerated request carried the question once.
    let last = turn_bodies(&sim).last().unwrap().clone();
    let users = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .count();
    assert_eq!(users, 1);
}
