//! Hearth's data is the user's alone (security review N7): a folder the
//! store makes is 0700, the database and its WAL 0600, an attached file
//! 0600, whatever the umask; a database an older Hearth left readable to
//! everyone is narrowed when it is opened.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use hearth_core::{ChatMessage, SessionStore};
use hearth_store::Store;

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn the_database_its_folder_and_attached_files_are_private() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("share/hearth");
    let db = data.join("h.sqlite");
    let (store, _) = Store::open(&db).await.unwrap();
    store.begin_run("s", "r").await.unwrap();
    store
        .append("s", "r", ChatMessage::user("a secret"))
        .await
        .unwrap();
    let file = store.add_file("n.md", "# mine\n".into()).await.unwrap();
    assert_eq!(mode(&data), 0o700, "the data folder");
    assert_eq!(
        mode(&dir.path().join("share")),
        0o700,
        "a folder made above it"
    );
    assert_eq!(mode(&db), 0o600, "the database");
    let wal = data.join("h.sqlite-wal");
    assert!(wal.exists(), "the store writes through its WAL");
    assert_eq!(mode(&wal), 0o600, "the WAL");
    assert_eq!(mode(&store.files_dir()), 0o700, "the attachments folder");
    assert_eq!(
        mode(&store.files_dir().join(&file.sha256)),
        0o600,
        "an attached file"
    );
}

#[tokio::test]
async fn a_database_left_readable_to_everyone_is_narrowed_and_a_chosen_folder_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let db = dir.path().join("h.sqlite");
    {
        let (store, _) = Store::open(&db).await.unwrap();
        store.begin_run("s", "r").await.unwrap();
    }
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (_store, _) = Store::open(&db).await.unwrap();
    assert_eq!(mode(&db), 0o600);
    assert_eq!(
        mode(dir.path()),
        0o755,
        "a folder the user chose is theirs to set"
    );
}
