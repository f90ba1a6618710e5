//! Syncs: what is read, what is left out and why, and that only what
//! changed is read again.

use std::sync::atomic::{AtomicBool, Ordering};

use hearth_knowledge::{FolderStatus, Progress};

use super::{index_with, sync, write};

const GUIDE: &str = "# Guide\n\nHearth keeps every session.\n\n## Install\n\nRun the installer from the release page.\n";

#[test]
fn a_folder_is_read_by_kind_and_what_is_left_out_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    write(
        &docs,
        &[
            ("guide.md", GUIDE),
            ("notes.txt", "Plain notes about the garden.\n"),
            ("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n"),
            (
                "page.html",
                "<html><head><style>p{}</style></head><body><h1>Title</h1><p>Page body text.</p><script>evil()</script></body></html>",
            ),
            ("README", "no extension, still text\n"),
            ("empty.txt", "   \n"),
            ("ignored/secret.md", "# never read\n"),
            (".gitignore", "ignored/\n"),
            (".hidden/note.md", "# hidden\n"),
        ],
    );
    std::fs::write(docs.join("photo.png"), [0x89, b'P', b'N', b'G', 0, 0, 1]).unwrap();
    std::fs::write(docs.join("data.weird"), [b'a', 0, b'b']).unwrap();
    let index = index_with(dir.path(), &docs);

    let report = sync(&index);
    // guide, notes, main.rs, page.html, README; empty, png, weird left out.
    assert_eq!(report.indexed, 5, "{report:?}");
    assert_eq!(report.skipped, 3, "{report:?}");
    assert_eq!(
        report.seen, 8,
        "ignored and hidden files are not walked: {report:?}"
    );
    let folder = &index.folders().unwrap()[0];
    assert_eq!(folder.status, FolderStatus::Ready);
    assert_eq!((folder.files, folder.indexed, folder.skipped), (8, 5, 3));
    let skipped = index.skipped_files(folder, 10).unwrap();
    let reasons: Vec<(&str, &str)> = skipped
        .iter()
        .map(|(p, w)| (p.as_str(), w.as_str()))
        .collect();
    assert_eq!(
        reasons,
        vec![
            ("data.weird", "not a text file"),
            ("empty.txt", "empty"),
            ("photo.png", "not a text file"),
        ]
    );
}

#[test]
fn a_second_sync_reads_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    write(
        &docs,
        &[("a.md", GUIDE), ("b.txt", "bees\n"), ("c.txt", "cats\n")],
    );
    let index = index_with(dir.path(), &docs);
    assert_eq!(sync(&index).indexed, 3);

    let again = sync(&index);
    assert_eq!(
        (again.indexed, again.unchanged, again.removed),
        (0, 3, 0),
        "{again:?}"
    );

    // Changed content, a touch without change, a deletion, a new file.
    std::fs::write(docs.join("b.txt"), "bees and wasps\n").unwrap();
    let c = std::fs::read(docs.join("c.txt")).unwrap();
    std::fs::remove_file(docs.join("c.txt")).unwrap();
    std::fs::write(docs.join("c.txt"), c).unwrap();
    std::fs::remove_file(docs.join("a.md")).unwrap();
    write(&docs, &[("d.md", "# New\n\nfresh text\n")]);
    let third = sync(&index);
    assert_eq!(third.indexed, 2, "b changed, d new: {third:?}");
    assert_eq!(third.unchanged, 1, "c touched, same content: {third:?}");
    assert_eq!(third.removed, 1, "a deleted: {third:?}");
    let folder = &index.folders().unwrap()[0];
    assert_eq!(folder.files, 3);
}

#[test]
fn a_stopped_sync_keeps_whole_files_and_the_next_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    let files: Vec<(String, String)> = (0..20)
        .map(|i| (format!("f{i:02}.txt"), format!("file number {i}\n")))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write(&docs, &refs);
    let index = index_with(dir.path(), &docs);

    let stop = AtomicBool::new(false);
    let first = index
        .sync_blocking(None, &stop, &|p: &Progress| {
            if p.seen == 7 {
                stop.store(true, Ordering::SeqCst);
            }
        })
        .unwrap();
    assert!(first.stopped);
    assert_eq!(first.indexed, 7, "{first:?}");
    let folder = &index.folders().unwrap()[0];
    assert_eq!(folder.status, FolderStatus::Syncing, "not marked ready");
    assert_eq!(folder.files, 7, "nothing dropped by a stopped walk");

    let rest = sync(&index);
    assert_eq!(
        (rest.unchanged, rest.indexed, rest.removed),
        (7, 13, 0),
        "{rest:?}"
    );
    assert_eq!(index.folders().unwrap()[0].status, FolderStatus::Ready);
}

#[test]
fn a_file_that_vanishes_mid_sync_is_dropped_and_the_sync_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    write(
        &docs,
        &[
            ("a.txt", "alpha\n"),
            ("b.txt", "beta\n"),
            ("c.txt", "gamma\n"),
        ],
    );
    let index = index_with(dir.path(), &docs);
    assert_eq!(sync(&index).indexed, 3);
    std::fs::write(docs.join("b.txt"), "beta changed\n").unwrap();
    let gone = docs.join("b.txt");
    let report = index
        .sync_blocking(None, &AtomicBool::new(false), &|p: &Progress| {
            // The walk has listed b.txt already (names are sorted first).
            if p.file == "a.txt" {
                let _ = std::fs::remove_file(&gone);
            }
        })
        .unwrap();
    assert_eq!(report.removed, 1, "{report:?}");
    assert_eq!(report.unchanged, 2, "{report:?}");
    assert_eq!(index.folders().unwrap()[0].files, 2);
}

#[test]
fn a_folder_that_is_not_there_keeps_its_passages() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    write(&docs, &[("a.md", GUIDE)]);
    let index = index_with(dir.path(), &docs);
    sync(&index);
    let chunks = index.folders().unwrap()[0].chunks;
    assert!(chunks > 0);
    std::fs::rename(&docs, dir.path().join("elsewhere")).unwrap();
    let report = sync(&index);
    assert_eq!(report.missing, 1);
    let folder = &index.folders().unwrap()[0];
    assert_eq!(folder.status, FolderStatus::Missing);
    assert!(folder.detail.as_deref().unwrap_or("").contains("not there"));
    assert_eq!(folder.chunks, chunks, "kept until removed");
}

#[test]
fn many_files_sync_and_a_second_walk_reads_none() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    for d in 0..20 {
        for f in 0..100 {
            let p = docs.join(format!("d{d}/f{f}.txt"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, format!("note {d} {f}\n")).unwrap();
        }
    }
    let index = index_with(dir.path(), &docs);
    let first = sync(&index);
    assert_eq!(first.indexed, 2000);
    let second = sync(&index);
    assert_eq!((second.indexed, second.unchanged), (0, 2000));
}
