//! Upgrades keep every row and leave a backup; a newer file is refused
//! untouched.

use hearth_core::{ChatMessage, SessionStore};
use hearth_store::{SCHEMA_VERSION, Store};

#[tokio::test]
async fn upgrading_from_the_previous_version_keeps_rows_and_leaves_a_backup() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let (old, _) = Store::open_at_version(path.clone(), SCHEMA_VERSION - 1)
            .await
            .unwrap();
        for i in 0..20 {
            old.append("s", "r", ChatMessage::user(format!("m{i}")))
                .await
                .unwrap();
        }
        old.rename("s", "kept").await.unwrap();
    }
    let (store, report) = Store::open(&path).await.unwrap();
    assert_eq!(report.migrated_from, Some(SCHEMA_VERSION - 1));
    let backup = report.backup.expect("a backup was taken");
    assert!(backup.exists(), "{backup:?}");
    let h = store.history("s").await.unwrap();
    assert_eq!(h.len(), 20);
    assert_eq!(store.sessions().await.unwrap()[0].title, "kept");
    // The backup is a readable database at the old version with every row.
    let b = rusqlite::Connection::open(&backup).unwrap();
    let n: i64 = b
        .query_row("SELECT count(*) FROM messages", [], |r| r.get(0))
        .unwrap();
    let v: i64 = b
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!((n, v), (20, SCHEMA_VERSION - 1));
    // And the upgraded store works: runs (new in this version) can be used.
    store.begin_run("s", "r2").await.unwrap();
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}

#[tokio::test]
async fn a_database_from_a_newer_hearth_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.pragma_update(None, "user_version", SCHEMA_VERSION + 5)
            .unwrap();
    }
    let err = Store::open(&path).await.err().expect("refused");
    assert!(err.to_string().contains("update Hearth"), "{err}");
    let c = rusqlite::Connection::open(&path).unwrap();
    let v: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, SCHEMA_VERSION + 5);
}
