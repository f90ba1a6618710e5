//! Attached files: one file per content beside the database, kept with the
//! message, shown again with the session, refused when they are neither a
//! picture nor text, and removed once no message refers to them.

use hearth_core::{AttachmentKind, ChatMessage, SessionStore};
use hearth_store::Store;

const DAY_MS: i64 = 86_400_000;

#[tokio::test]
async fn files_are_kept_once_per_content_and_go_with_the_last_session_that_uses_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let (store, _) = Store::open(&path).await.unwrap();
    let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;".to_vec();
    let pic = store.add_file("a.gif", gif.clone()).await.unwrap();
    assert_eq!(
        (pic.kind, pic.mime.as_str()),
        (AttachmentKind::Image, "image/gif")
    );
    let same = store.add_file("b.gif", gif.clone()).await.unwrap();
    assert_eq!(pic.sha256, same.sha256, "addressed by content");
    let note = store.add_file("n.md", "# hi\n".into()).await.unwrap();
    assert_eq!(note.kind, AttachmentKind::Text);
    let unsent = store.add_file("never.txt", "draft".into()).await.unwrap();
    let files = store.files_dir();
    assert_eq!(
        std::fs::read_dir(&files).unwrap().count(),
        3,
        "one file per content"
    );

    for (session, list) in [
        ("s1", vec![pic.clone(), note.clone()]),
        ("s2", vec![same.clone()]),
    ] {
        let mut m = ChatMessage::user("see");
        m.attachments = list;
        store.append(session, "r", m).await.unwrap();
    }
    let shown = store.branch_messages("s1").await.unwrap();
    let names: Vec<&str> = shown[0]
        .message
        .attachments
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names, ["a.gif", "n.md"], "in the order attached");
    let history = store.history("s2").await.unwrap();
    assert_eq!(history[0].attachments[0].name, "b.gif");
    assert_eq!(
        history[0].attachments[0].body.as_ref().unwrap().0.as_ref(),
        &gif[..]
    );

    // s1 deleted for good; the draft's file is old.
    store.delete("s1").await.unwrap();
    drop(store);
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute(
            "UPDATE sessions SET deleted_at = deleted_at - ?1 WHERE id = 's1'",
            [31 * DAY_MS],
        )
        .unwrap();
        c.execute("UPDATE files SET added_at = added_at - ?1", [2 * DAY_MS])
            .unwrap();
    }
    let (store, _) = Store::open(&path).await.unwrap();
    assert!(
        files.join(&pic.sha256).is_file(),
        "s2 still shows the picture"
    );
    assert!(!files.join(&note.sha256).exists(), "only s1 had the note");
    assert!(
        !files.join(&unsent.sha256).exists(),
        "never sent, a day old"
    );
    assert_eq!(store.history("s2").await.unwrap()[0].attachments.len(), 1);
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}

#[tokio::test]
async fn what_is_neither_a_picture_nor_text_is_refused_and_a_name_cannot_leave_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let e = store
        .add_file("x.bin", vec![0, 159, 146, 150])
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cannot attach x.bin: it is neither a picture"),
        "{e}"
    );
    let e = store
        .add_file("doc.pdf", b"%PDF-1.7\n".to_vec())
        .await
        .unwrap_err();
    assert!(e.to_string().contains("application/pdf"), "{e}");
    assert!(store.body("../h.sqlite").await.is_err());
    assert!(store.file(&"0".repeat(64), "x").await.is_err());
}
