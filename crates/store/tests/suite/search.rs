//! Full-text search: words in any branch of any live session, newest first;
//! whatever a person types is safe; old rows are indexed by the upgrade.

use std::path::Path;

use hearth_core::{ChatMessage, Role, SessionStore};
use hearth_store::{MATCH_END, MATCH_START, SearchHit, Store};
use pretty_assertions::assert_eq;

async fn say(store: &Store, session: &str, m: ChatMessage) {
    store.append(session, "r", m).await.unwrap();
}

/// The id of the newest message in the session's branch.
async fn tip(store: &Store, session: &str) -> i64 {
    store
        .branch_messages(session)
        .await
        .unwrap()
        .last()
        .unwrap()
        .id
}

/// Snippets with visible markers, for readable assertions.
fn shown(hits: &[SearchHit]) -> Vec<(String, i64, Role, String)> {
    hits.iter()
        .map(|h| {
            (
                h.session_id.clone(),
                h.message_id,
                h.role,
                h.snippet.replace(MATCH_START, "[").replace(MATCH_END, "]"),
            )
        })
        .collect()
}

/// FTS5's own check that the index matches the `messages` rows.
fn fts_integrity(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute(
        "INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)",
        [],
    )
    .unwrap();
}

#[tokio::test]
async fn words_are_found_newest_first_with_titles_roles_and_snippets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let (store, _) = Store::open(&path).await.unwrap();
    say(
        &store,
        "a",
        ChatMessage::user("My favourite colour is blue"),
    )
    .await;
    let a1 = tip(&store, "a").await;
    say(&store, "a", ChatMessage::assistant("Noted: blue.")).await;
    let a2 = tip(&store, "a").await;
    say(&store, "b", ChatMessage::user("Un café, s'il vous plaît")).await;
    let b1 = tip(&store, "b").await;
    say(&store, "b", ChatMessage::assistant("Nothing to see")).await;
    store.rename("a", "Colours").await.unwrap();

    let hits = store.search("blue", 10).await.unwrap();
    assert_eq!(
        shown(&hits),
        vec![
            ("a".into(), a2, Role::Assistant, "Noted: [blue].".into()),
            (
                "a".into(),
                a1,
                Role::User,
                "My favourite colour is [blue]".into()
            ),
        ]
    );
    assert_eq!(hits[0].session_title, "Colours");
    // Every word must match; each also as a prefix; accents are ignored.
    assert_eq!(
        shown(&store.search("colo BLUE", 10).await.unwrap()),
        vec![(
            "a".into(),
            a1,
            Role::User,
            "My favourite [colour] is [blue]".into()
        )]
    );
    assert_eq!(
        shown(&store.search("cafe", 10).await.unwrap()),
        vec![(
            "b".into(),
            b1,
            Role::User,
            "Un [café], s'il vous plaît".into()
        )]
    );
    assert_eq!(store.search("blue", 1).await.unwrap().len(), 1);
    assert!(store.search("green", 10).await.unwrap().is_empty());
    assert!(store.search("", 10).await.unwrap().is_empty());
    assert!(store.search("   \t ", 10).await.unwrap().is_empty());
    fts_integrity(&path);
}

#[tokio::test]
async fn long_messages_give_a_short_snippet() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let long = format!("{} needle {}", "word ".repeat(200), "word ".repeat(200));
    say(&store, "s", ChatMessage::user(long)).await;
    let hits = store.search("needle", 10).await.unwrap();
    let snippet = &hits[0].snippet;
    assert!(snippet.contains(&format!("{MATCH_START}needle{MATCH_END}")));
    assert!(
        snippet.starts_with('…') && snippet.ends_with('…'),
        "{snippet}"
    );
    assert!(snippet.len() < 200, "{snippet}");
}

#[tokio::test]
async fn hostile_queries_are_text_and_never_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    say(&store, "s", ChatMessage::user("blue sky; NEAR the sea")).await;
    say(
        &store,
        "s",
        ChatMessage::user("日本語 のテキスト and ünïcödé"),
    )
    .await;
    say(&store, "s", ChatMessage::user("say \"hi\" -x")).await;
    for q in [
        "\"",
        "\"\"",
        "\"blue",
        "*",
        "blue*",
        "NEAR(",
        "NEAR(blue sea)",
        "-",
        "-blue",
        "blue -sky",
        "AND",
        "blue OR",
        "NOT blue",
        "(",
        ")",
        "blue)",
        "^blue",
        "content:blue",
        "messages_fts:blue",
        "{content}",
        "'",
        "\\",
        "%",
        "_",
        "🌍",
        "🌍blue",
        "\u{301}",
        "\u{93e}",
        "\u{200b}",
        "\u{0}",
        "blue; DROP TABLE messages; --",
        "日本語",
        "ÜNÏCÖDÉ",
    ] {
        let r = store.search(q, 10).await;
        assert!(r.is_ok(), "{q:?}: {r:?}");
    }
    // Operators are only text: these find the words they contain.
    let found = |q: &'static str| {
        let store = store.clone();
        async move { store.search(q, 10).await.unwrap().len() }
    };
    assert_eq!(found("NEAR(the sea)").await, 1, "NEAR is a word here");
    assert_eq!(found("-blue").await, 1, "`-` is not NOT");
    assert_eq!(
        found("blue OR").await,
        0,
        "OR is a word, and no message has it"
    );
    assert_eq!(found("\"hi\"").await, 1);
    assert_eq!(found("日本語").await, 1);
    assert_eq!(found("unicode").await, 1);
    assert_eq!(found("*").await, 0);
    assert_eq!(found("🌍").await, 0);
    assert_eq!(
        store.history("s").await.unwrap().len(),
        3,
        "nothing dropped"
    );
}

#[tokio::test]
async fn deleted_sessions_are_not_found_until_restored() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    say(&store, "gone", ChatMessage::user("secret plans")).await;
    say(&store, "kept", ChatMessage::user("public plans")).await;
    store.delete("gone").await.unwrap();
    let ids = |hits: Vec<SearchHit>| hits.into_iter().map(|h| h.session_id).collect::<Vec<_>>();
    assert_eq!(ids(store.search("plans", 10).await.unwrap()), vec!["kept"]);
    assert!(store.search("secret", 10).await.unwrap().is_empty());
    store.restore("gone").await.unwrap();
    assert_eq!(
        ids(store.search("plans", 10).await.unwrap()),
        vec!["kept", "gone"]
    );
}

#[tokio::test]
async fn messages_on_an_old_branch_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    say(&store, "s", ChatMessage::user("first draft about otters")).await;
    let old = tip(&store, "s").await;
    store.fork("s", old).await.unwrap();
    say(&store, "s", ChatMessage::user("second draft about beavers")).await;
    let hits = store.search("otters", 10).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].message_id, old);
    // The hit leads back to its branch.
    store.switch_branch("s", hits[0].message_id).await.unwrap();
    assert_eq!(
        store.history("s").await.unwrap(),
        vec![ChatMessage::user("first draft about otters")]
    );
}

#[tokio::test]
async fn an_upgrade_indexes_the_messages_written_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let (old, _) = Store::open_at_version(path.clone(), 3).await.unwrap();
        for i in 0..30 {
            say(&old, "s", ChatMessage::user(format!("archived note {i}"))).await;
        }
        // Before version 4 there is no index at all.
        let c = rusqlite::Connection::open(&path).unwrap();
        let n: i64 = c
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name = 'messages_fts'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 0);
    }
    let (store, report) = Store::open(&path).await.unwrap();
    assert_eq!(report.migrated_from, Some(3));
    assert!(report.backup.is_some_and(|b| b.exists()));
    let hits = store.search("archived", 100).await.unwrap();
    assert_eq!(hits.len(), 30);
    assert_eq!(
        hits[0].snippet,
        format!("{MATCH_START}archived{MATCH_END} note 29")
    );
    assert_eq!(store.search("17", 10).await.unwrap().len(), 1);
    // New messages are indexed as they are appended.
    say(&store, "s", ChatMessage::assistant("fresh archived reply")).await;
    assert_eq!(
        store.search("archived", 1).await.unwrap()[0].snippet,
        format!("fresh {MATCH_START}archived{MATCH_END} reply")
    );
    fts_integrity(&path);
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}
