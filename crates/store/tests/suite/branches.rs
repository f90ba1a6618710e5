//! Edit-and-resend and regenerate make branches; every branch stays
//! reachable, and `history` follows the current one.

use hearth_core::{ChatMessage, MessageStatus, SessionStore};
use hearth_store::{Store, StoreError, StoredMessage};
use pretty_assertions::assert_eq;

async fn say(store: &Store, session: &str, m: ChatMessage) -> i64 {
    store.append(session, "r", m).await.unwrap();
    store
        .branch_messages(session)
        .await
        .unwrap()
        .last()
        .unwrap()
        .id
}

async fn texts(store: &Store, session: &str) -> Vec<String> {
    store
        .history(session)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect()
}

/// u1 → a1 → u2 → a2 in session "s"; returns their ids.
async fn conversation(store: &Store) -> [i64; 4] {
    [
        say(store, "s", ChatMessage::user("u1")).await,
        say(store, "s", ChatMessage::assistant("a1")).await,
        say(store, "s", ChatMessage::user("u2")).await,
        say(store, "s", ChatMessage::assistant("a2")).await,
    ]
}

#[tokio::test]
async fn branch_messages_carry_ids_parents_and_times() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let [u1, a1, u2, a2] = conversation(&store).await;
    let got = store.branch_messages("s").await.unwrap();
    let shape: Vec<(i64, Option<i64>, ChatMessage)> = got
        .iter()
        .map(|m| (m.id, m.parent_id, m.message.clone()))
        .collect();
    assert_eq!(
        shape,
        vec![
            (u1, None, ChatMessage::user("u1")),
            (a1, Some(u1), ChatMessage::assistant("a1")),
            (u2, Some(a1), ChatMessage::user("u2")),
            (a2, Some(u2), ChatMessage::assistant("a2")),
        ]
    );
    assert!(got.windows(2).all(|w| w[0].created_at <= w[1].created_at));
    assert!(got[0].created_at > 1_600_000_000_000, "ms since the epoch");
    assert!(store.branch_messages("nobody").await.unwrap().is_empty());
}

#[tokio::test]
async fn edit_and_resend_keeps_the_old_branch_and_history_follows_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let [u1, _a1, u2, a2] = conversation(&store).await;
    assert_eq!(store.branches_at(u2).await.unwrap(), vec![u2]);

    // Edit u2 and resend.
    store.fork("s", u2).await.unwrap();
    assert_eq!(texts(&store, "s").await, ["u1", "a1"]);
    let u2b = say(&store, "s", ChatMessage::user("u2, edited")).await;
    let a2b = say(&store, "s", ChatMessage::assistant("a2b")).await;
    assert_eq!(texts(&store, "s").await, ["u1", "a1", "u2, edited", "a2b"]);
    assert_eq!(store.branches_at(u2).await.unwrap(), vec![u2, u2b]);
    assert_eq!(store.branches_at(u2b).await.unwrap(), vec![u2, u2b]);
    assert_eq!(store.sessions().await.unwrap()[0].messages, 4);

    // The old branch is still there: switching to it goes to its tip.
    assert_eq!(store.switch_branch("s", u2).await.unwrap(), a2);
    assert_eq!(texts(&store, "s").await, ["u1", "a1", "u2", "a2"]);
    // From a shared ancestor, the newest leaf wins.
    assert_eq!(store.switch_branch("s", u1).await.unwrap(), a2b);
    assert_eq!(texts(&store, "s").await, ["u1", "a1", "u2, edited", "a2b"]);
    // A tip is its own leaf.
    assert_eq!(store.switch_branch("s", a2).await.unwrap(), a2);
}

#[tokio::test]
async fn regenerate_makes_a_sibling_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let [_, _, u2, a2] = conversation(&store).await;
    store.fork("s", a2).await.unwrap();
    assert_eq!(texts(&store, "s").await, ["u1", "a1", "u2"]);
    let a2b = say(&store, "s", ChatMessage::assistant("a2, again")).await;
    let a2c = say_after_fork(&store, a2b, "a2, once more").await;
    assert_eq!(store.branches_at(a2).await.unwrap(), vec![a2, a2b, a2c]);
    let tip: Vec<StoredMessage> = store.branch_messages("s").await.unwrap();
    assert_eq!(tip[3].parent_id, Some(u2));
    assert_eq!(
        texts(&store, "s").await,
        ["u1", "a1", "u2", "a2, once more"]
    );
}

#[tokio::test]
async fn append_says_where_the_message_landed_and_which_fork_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let first = store
        .append("s", "r1", ChatMessage::user("u1"))
        .await
        .unwrap();
    assert_eq!(
        (first.stored.parent_id, first.siblings.clone()),
        (None, vec![])
    );
    let a1 = store
        .append("s", "r1", ChatMessage::assistant("a1"))
        .await
        .unwrap();
    assert_eq!(a1.stored.parent_id, Some(first.stored.id));
    assert_eq!(a1.stored.run_id.as_deref(), Some("r1"));
    assert!(
        a1.siblings.is_empty(),
        "a message on a straight line starts no fork"
    );
    // What it returns is what a reader of the branch gets.
    assert_eq!(store.branch_messages("s").await.unwrap()[1], a1.stored);
    store.fork("s", a1.stored.id).await.unwrap();
    let again = store
        .append("s", "r2", ChatMessage::assistant("a1 again"))
        .await
        .unwrap();
    assert_eq!(again.siblings, vec![a1.stored.id, again.stored.id]);
    assert_eq!(
        store.forks("s").await.unwrap(),
        vec![again.siblings.clone()],
        "the same group open_session reads"
    );
}

async fn say_after_fork(store: &Store, at: i64, text: &str) -> i64 {
    store.fork("s", at).await.unwrap();
    say(store, "s", ChatMessage::assistant(text)).await
}

#[tokio::test]
async fn editing_the_first_message_makes_a_second_root() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let [u1, ..] = conversation(&store).await;
    say(&store, "other", ChatMessage::user("not a sibling")).await;
    store.fork("s", u1).await.unwrap();
    assert!(store.history("s").await.unwrap().is_empty());
    let listed = store.sessions().await.unwrap();
    assert_eq!(listed.iter().find(|x| x.id == "s").unwrap().messages, 0);
    let u1b = say(&store, "s", ChatMessage::user("u1, edited")).await;
    assert_eq!(store.branches_at(u1).await.unwrap(), vec![u1, u1b]);
    assert_eq!(texts(&store, "s").await, ["u1, edited"]);
    store.switch_branch("s", u1).await.unwrap();
    assert_eq!(texts(&store, "s").await, ["u1", "a1", "u2", "a2"]);
}

#[tokio::test]
async fn ids_are_validated_against_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let [u1, ..] = conversation(&store).await;
    let elsewhere = say(&store, "t", ChatMessage::user("t1")).await;

    let err = store.fork("s", elsewhere).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::NotInSession { message_id, session_id }
            if *message_id == elsewhere && session_id == "s"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!("message {elsewhere} is not in session `s`")
    );
    assert!(matches!(
        store.switch_branch("s", elsewhere).await,
        Err(StoreError::NotInSession { .. })
    ));
    assert!(matches!(
        store.fork("s", 9_999).await,
        Err(StoreError::NoMessage(9_999))
    ));
    assert!(matches!(
        store.switch_branch("nobody", u1).await,
        Err(StoreError::NotInSession { .. })
    ));
    assert!(matches!(
        store.branches_at(9_999).await,
        Err(StoreError::NoMessage(9_999))
    ));
    // Nothing moved.
    assert_eq!(texts(&store, "s").await, ["u1", "a1", "u2", "a2"]);
    assert_eq!(texts(&store, "t").await, ["t1"]);
}

#[tokio::test]
async fn the_branch_does_not_move_under_a_live_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let [_, _, u2, _] = conversation(&store).await;
    store.begin_run("s", "live").await.unwrap();
    let err = store.fork("s", u2).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::RunInProgress(s) if s == "s"),
        "{err:?}"
    );
    assert!(matches!(
        store.switch_branch("s", u2).await,
        Err(StoreError::RunInProgress(_))
    ));
    store
        .end_run("live", MessageStatus::Complete)
        .await
        .unwrap();
    store.fork("s", u2).await.unwrap();
    assert_eq!(texts(&store, "s").await, ["u1", "a1"]);
}

#[tokio::test]
async fn a_dead_processes_answer_is_saved_on_its_own_branch_before_a_fork() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let (store, _) = Store::open(&path).await.unwrap();
    let [_, _, u2, _] = conversation(&store).await;
    store.begin_run("s", "r9").await.unwrap();
    store
        .checkpoint("s", "r9", &ChatMessage::assistant("half an answ"))
        .await
        .unwrap();
    // The process that owned the run dies (as after a SIGKILL).
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE runs SET instance_id = 'dead' WHERE id = 'r9'", [])
        .unwrap();
    store.fork("s", u2).await.unwrap();
    assert_eq!(texts(&store, "s").await, ["u1", "a1"]);
    store.switch_branch("s", u2).await.unwrap();
    let old = store.history("s").await.unwrap();
    assert_eq!(
        old.last().unwrap(),
        &ChatMessage {
            status: MessageStatus::Interrupted,
            ..ChatMessage::assistant("half an answ")
        }
    );
    assert_eq!(old.len(), 5);
}

#[tokio::test]
async fn forks_lists_every_sibling_group_in_one_query() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let [u1, _, u2, a2] = conversation(&store).await;
    assert!(store.forks("s").await.unwrap().is_empty());
    // Regenerate a2 twice, edit u1 once; another session's fork is not ours.
    let a2b = say_after_fork(&store, a2, "a2b").await;
    let a2c = say_after_fork(&store, a2b, "a2c").await;
    store.fork("s", u1).await.unwrap();
    let u1b = say(&store, "s", ChatMessage::user("u1b")).await;
    let t1 = say(&store, "t", ChatMessage::user("t1")).await;
    store.fork("t", t1).await.unwrap();
    say(&store, "t", ChatMessage::user("t1b")).await;
    let forks = store.forks("s").await.unwrap();
    assert_eq!(forks.len(), 2, "{forks:?}");
    assert!(forks.contains(&vec![u1, u1b]));
    assert!(forks.contains(&vec![a2, a2b, a2c]));
    assert_eq!(store.branches_at(a2).await.unwrap(), vec![a2, a2b, a2c]);
    let _ = u2;
}

#[tokio::test]
async fn branch_messages_name_the_run_that_wrote_them() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    store
        .append("s", "run_a", ChatMessage::user("hi"))
        .await
        .unwrap();
    let got = store.branch_messages("s").await.unwrap();
    assert_eq!(got[0].run_id.as_deref(), Some("run_a"));
}
