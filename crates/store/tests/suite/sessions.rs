//! Appending, reading the branch, managing sessions.

use hearth_core::{ChatMessage, MessageStatus, SessionStore, ToolCall};
use hearth_store::Store;
use pretty_assertions::assert_eq;
use serde_json::json;

#[tokio::test]
async fn messages_round_trip_in_order_with_status_and_tool_calls() {
    let dir = tempfile::tempdir().unwrap();
    let (store, report) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    assert_eq!(report.recovered_runs, 0);
    let call = ToolCall {
        id: "c1".into(),
        name: "calculator".into(),
        arguments: json!({"expression": "1+1"}),
    };
    let mut assistant = ChatMessage::assistant("");
    assistant.tool_calls = vec![call.clone()];
    assistant.thinking = Some("hmm".into());
    let interrupted = ChatMessage {
        status: MessageStatus::Interrupted,
        ..ChatMessage::assistant("partial é 🌍")
    };
    let msgs = vec![
        ChatMessage::user("hi"),
        assistant,
        ChatMessage::tool_result(&call, "2"),
        interrupted,
    ];
    store.begin_run("s1", "r1").await.unwrap();
    for m in &msgs {
        store.append("s1", "r1", m.clone()).await.unwrap();
    }
    store
        .end_run("r1", MessageStatus::Interrupted)
        .await
        .unwrap();
    assert_eq!(store.history("s1").await.unwrap(), msgs);
    assert_eq!(
        store.last_messages("s1", 2).await.unwrap(),
        msgs[2..].to_vec()
    );
    assert!(store.history("unknown").await.unwrap().is_empty());
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}

#[tokio::test]
async fn sessions_list_rename_delete_and_restore() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    store
        .append("a", "r", ChatMessage::user("one"))
        .await
        .unwrap();
    store
        .append("b", "r", ChatMessage::user("two"))
        .await
        .unwrap();
    store
        .append("b", "r", ChatMessage::assistant("three"))
        .await
        .unwrap();
    let list = store.sessions().await.unwrap();
    assert_eq!(
        list.iter()
            .map(|s| (s.id.as_str(), s.messages))
            .collect::<Vec<_>>(),
        vec![("b", 2), ("a", 1)]
    );
    store.rename("a", "Groceries").await.unwrap();
    let list = store.sessions().await.unwrap();
    assert_eq!(
        list.iter()
            .map(|s| (s.id.as_str(), s.title.as_str(), s.opening.as_str()))
            .collect::<Vec<_>>(),
        [("b", "", "two"), ("a", "Groceries", "")],
        "a rename keeps the session's place; an untitled one shows its question"
    );
    store.delete("b").await.unwrap();
    assert_eq!(store.sessions().await.unwrap().len(), 1);
    store.restore("b").await.unwrap();
    assert_eq!(store.sessions().await.unwrap().len(), 2);
    assert!(
        store
            .rename("zzz", "x")
            .await
            .unwrap_err()
            .to_string()
            .contains("no session `zzz`")
    );
    // A deleted session keeps its messages until purged.
    store.delete("b").await.unwrap();
    assert_eq!(store.history("b").await.unwrap().len(), 2);
}

#[tokio::test]
async fn reopening_sees_everything_committed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let (store, _) = Store::open(&path).await.unwrap();
        for i in 0..50 {
            store
                .append("s", "r", ChatMessage::user(format!("m{i}")))
                .await
                .unwrap();
        }
    }
    let (store, _) = Store::open(&path).await.unwrap();
    let h = store.history("s").await.unwrap();
    assert_eq!(h.len(), 50);
    assert_eq!(h[49].content, "m49");
}

#[tokio::test]
async fn deleted_sessions_can_be_restored_for_a_while_then_are_purged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let (store, _) = Store::open(&path).await.unwrap();
        for s in ["old", "recent"] {
            store.begin_run(s, &format!("r-{s}")).await.unwrap();
            store
                .append(
                    s,
                    &format!("r-{s}"),
                    ChatMessage::user(format!("unique{s}word")),
                )
                .await
                .unwrap();
            store
                .end_run(&format!("r-{s}"), MessageStatus::Complete)
                .await
                .unwrap();
            store.delete(s).await.unwrap();
        }
    }
    // "old" was deleted 31 days ago.
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        let long_ago = 31 * 86_400_000_i64;
        c.execute(
            "UPDATE sessions SET deleted_at = deleted_at - ?1 WHERE id = 'old'",
            [long_ago],
        )
        .unwrap();
    }
    let (store, _) = Store::open(&path).await.unwrap();
    assert!(store.history("old").await.unwrap().is_empty(), "purged");
    assert!(store.search("uniqueoldword", 10).await.unwrap().is_empty());
    store.restore("recent").await.unwrap();
    assert_eq!(
        store.history("recent").await.unwrap().len(),
        1,
        "still restorable"
    );
    assert!(store.restore("old").await.is_err());
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}

#[tokio::test]
async fn a_profile_switch_is_recorded_where_it_happened_once() {
    use hearth_core::tools::ProfileSwitcher;
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = hearth_store::Store::open(dir.path().join("h.sqlite"))
        .await
        .unwrap();
    let profiles = hearth_store::Profiles::load(&store).await.unwrap();
    hearth_core::SessionStore::append(&store, "s", "r", hearth_core::ChatMessage::user("hi"))
        .await
        .unwrap();
    let head = store.branch_messages("s").await.unwrap()[0].id;
    // Chat is the default: switching to it changes nothing, so no mark.
    profiles.switch("s", "Chat").await.unwrap();
    profiles.switch("s", "Agent").await.unwrap();
    profiles.switch("s", "Agent").await.unwrap();
    let switches = store.profile_switches("s").await.unwrap();
    assert_eq!(switches.len(), 1, "{switches:?}");
    assert_eq!(switches[0].profile, "Agent");
    assert_eq!(switches[0].after_message_id, Some(head));
    assert!(store.profile_switches("other").await.unwrap().is_empty());
}

#[tokio::test]
async fn sub_agent_transcripts_are_kept_with_the_parent_session_nested_ones_too() {
    use hearth_core::SubagentTranscript;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let t = |parent: &str, call: &str, id: &str, text: &str| SubagentTranscript {
        parent_session_id: parent.into(),
        parent_run_id: "run_p".into(),
        parent_call_id: call.into(),
        session_id: id.into(),
        profile: "Agent".into(),
        messages: vec![ChatMessage::user(text), ChatMessage::assistant("done")],
    };
    {
        let (store, _) = Store::open(&path).await.unwrap();
        store
            .record_subagent(&t("s", "c1", "subagent_aaaaaaaaaaaa", "task A"))
            .await
            .unwrap();
        store
            .record_subagent(&t(
                "subagent_aaaaaaaaaaaa",
                "c9",
                "subagent_bbbbbbbbbbbb",
                "task B",
            ))
            .await
            .unwrap();
        store
            .record_subagent(&t("other", "c2", "subagent_cccccccccccc", "task C"))
            .await
            .unwrap();
    }
    // After a restart.
    let (store, _) = Store::open(&path).await.unwrap();
    let kept = store.subagent_transcripts("s").await.unwrap();
    let shape: Vec<(&str, &str, &str)> = kept
        .iter()
        .map(|t| {
            (
                t.parent_call_id.as_str(),
                t.session_id.as_str(),
                t.messages[0].content.as_str(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("c1", "subagent_aaaaaaaaaaaa", "task A"),
            ("c9", "subagent_bbbbbbbbbbbb", "task B")
        ]
    );
    assert_eq!(kept[0].messages[1], ChatMessage::assistant("done"));
}

#[tokio::test]
async fn unsent_text_is_kept_across_a_reopen_forgotten_when_emptied_and_capped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let (store, _) = Store::open(&path).await.unwrap();
        assert!(store.set_unsent("s", "half a thought é").await.unwrap());
        assert!(store.set_unsent("t", "other").await.unwrap());
        assert!(store.set_unsent("t", "  ").await.unwrap());
        let huge = "x".repeat(hearth_store::MAX_UNSENT_CHARS + 1);
        assert!(
            !store.set_unsent("u", &huge).await.unwrap(),
            "too long: not kept"
        );
    }
    let (store, _) = Store::open(&path).await.unwrap();
    assert_eq!(
        store.unsent("s").await.unwrap().as_deref(),
        Some("half a thought é")
    );
    assert_eq!(store.unsent("t").await.unwrap(), None, "emptied: forgotten");
    assert_eq!(store.unsent("u").await.unwrap(), None);
}

/// A session whose first answer was stopped is never titled: the list
/// gives the start of its question on the current branch instead (user
/// pass 2026-12, defect 12), on one line, cut at a word.
#[tokio::test]
async fn an_untitled_session_is_listed_by_its_question() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let long = "I work night shifts as a nurse in Lyon\nand I am vegetarian. \
                Suggest one quick dinner I can cook after work.";
    store
        .append("s", "r", ChatMessage::user(long))
        .await
        .unwrap();
    let opening = &store.sessions().await.unwrap()[0].opening;
    assert_eq!(
        opening,
        "I work night shifts as a nurse in Lyon and I am vegetarian.…"
    );
    assert!(opening.chars().count() <= 60, "{opening}");
    store
        .set_generated_title("s", "Dinner ideas")
        .await
        .unwrap();
    assert_eq!(store.sessions().await.unwrap()[0].opening, "");
}
