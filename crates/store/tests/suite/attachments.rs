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
    // Removed by hand: the session still opens, the file without bytes.
    std::fs::remove_file(files.join(&pic.sha256)).unwrap();
    let h = store.history("s2").await.unwrap();
    assert!(h[0].attachments[0].body.is_none());
}

#[tokio::test]
async fn what_is_neither_a_picture_nor_text_is_refused_and_a_name_cannot_leave_the_folder() {
    hearth_store::set_reader(env!("CARGO_BIN_EXE_hearth-reader"));
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
        .add_file("doc.pdf", b"%PDF-1.7\n%%EOF".to_vec())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("cannot attach doc.pdf: its text cannot be read"),
        "{e}"
    );
    let e = store
        .add_file("a.zip", b"PK\x03\x04\x14\x00\x00\x00".to_vec())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("it is application/zip; Hearth attaches pictures"),
        "{e}"
    );
    assert!(store.body("../h.sqlite").await.is_err());
    assert!(store.file(&"0".repeat(64), "x").await.is_err());
}

/// A one-page PDF that says `lines` in Helvetica, with a correct
/// cross-reference table (as a PDF writer makes it).
fn pdf(lines: &[&str]) -> Vec<u8> {
    let mut text = String::from("BT /F1 14 Tf 20 120 Td 16 TL");
    for l in lines {
        text.push_str(&format!(" ({l}) Tj T*"));
    }
    text.push_str(" ET");
    super::hostile_pdf::pdf_of(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R \
          /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_vec(),
        format!("<< /Length {} >>\nstream\n{text}\nendstream", text.len()).into_bytes(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec(),
    ])
}

#[tokio::test]
async fn a_pdf_is_kept_as_its_text() {
    hearth_store::set_reader(env!("CARGO_BIN_EXE_hearth-reader"));
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let file = pdf(&["Quarterly report", "Revenue grew by 12 percent."]);
    let a = store.add_file("report.pdf", file.clone()).await.unwrap();
    // Its size is the PDF's, not its text's (user pass 2026-12, defect 34).
    assert_eq!(a.size, file.len() as u64);
    assert_eq!(
        store.file(&a.sha256, "report.pdf").await.unwrap().size,
        file.len() as u64
    );
    assert_eq!(
        (a.kind, a.mime.as_str()),
        (AttachmentKind::Text, "application/pdf")
    );
    let text = String::from_utf8(a.body.unwrap().0.to_vec()).unwrap();
    assert!(text.contains("Quarterly report"), "{text:?}");
    assert!(text.contains("Revenue grew by 12 percent."), "{text:?}");
    // What is kept is the text, under the text's address.
    let kept = std::fs::read_to_string(store.files_dir().join(&a.sha256)).unwrap();
    assert_eq!(kept, text);

    // A PDF with no text on it (a scan) says so.
    let e = store
        .add_file("scan.pdf", pdf(&[]))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cannot attach scan.pdf: it has no text to read"),
        "{e}"
    );
}
