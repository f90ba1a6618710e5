//! Compaction summaries: they follow the branch, an edit replaces one and
//! keeps it, a delete is a tombstone; messages are never touched.

use hearth_core::{ChatMessage, SessionStore, Summary};
use hearth_store::Store;

#[tokio::test]
async fn summaries_follow_the_branch_and_the_users_edits_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    for i in 0..8 {
        let m = if i % 2 == 0 {
            ChatMessage::user(format!("q{i}"))
        } else {
            ChatMessage::assistant(format!("a{i}"))
        };
        store.append("s", "r", m).await.unwrap();
    }
    let sum = Summary {
        covered: 4,
        content: "They asked q0 and q2.".into(),
    };
    store.add_summary("s", &sum, "m").await.unwrap();
    assert_eq!(store.summary("s").await.unwrap(), Some(sum.clone()));
    // Messages are untouched.
    assert_eq!(store.history("s").await.unwrap().len(), 8);

    let list = store.summaries(Some("s"), false).await.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(
        (list[0].model.as_str(), list[0].source.as_str()),
        ("m", "compaction")
    );
    let new = store
        .edit_summary(list[0].id, "Edited by the user.")
        .await
        .unwrap();
    assert_eq!(
        store.summary("s").await.unwrap().unwrap().content,
        "Edited by the user."
    );
    assert_eq!(store.summary("s").await.unwrap().unwrap().covered, 4);
    let all = store.summaries(Some("s"), true).await.unwrap();
    assert_eq!(all.len(), 2, "the old version is kept");
    assert_eq!(
        all.iter().find(|s| s.id == list[0].id).unwrap().replaced_by,
        Some(new)
    );
    assert!(
        store.edit_summary(list[0].id, "x").await.is_err(),
        "a replaced summary cannot be edited"
    );

    store.delete_summary(new).await.unwrap();
    assert_eq!(
        store.summary("s").await.unwrap(),
        None,
        "the session is sent in full again"
    );

    // A summary on another branch does not apply.
    store.add_summary("s", &sum, "m").await.unwrap();
    let msgs = store.branch_messages("s").await.unwrap();
    store.fork("s", msgs[2].id).await.unwrap();
    store
        .append("s", "r2", ChatMessage::user("q2 edited"))
        .await
        .unwrap();
    assert_eq!(store.summary("s").await.unwrap(), None);
}
