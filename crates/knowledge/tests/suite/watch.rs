//! Watched folders: a change, a move, a delete wake the owner once the
//! folder is quiet; hidden files and reads do not; a folder that cannot be
//! watched is named with why.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use hearth_knowledge::FolderWatch;

use super::{index_with, sync, write};

/// How long a test waits for the watch to speak before it fails.
const WITHIN: Duration = Duration::from_secs(20);
/// The quiet moment the tests use (the app's is 2 s).
const QUIET: Duration = Duration::from_millis(300);

fn watch(folders: &[PathBuf]) -> (FolderWatch, mpsc::Receiver<Vec<PathBuf>>) {
    let (tx, rx) = mpsc::channel();
    let (w, failed) = FolderWatch::start(folders, QUIET, move |changed| {
        let _ = tx.send(changed);
    })
    .unwrap();
    assert!(failed.is_empty(), "{failed:?}");
    (w, rx)
}

#[test]
fn a_change_wakes_the_owner_once_and_the_sync_it_starts_finds_it() {
    let dir = tempfile::tempdir().unwrap();
    let made = |name: &str| {
        let p = dir.path().join(name);
        std::fs::create_dir_all(&p).unwrap();
        p.canonicalize().unwrap()
    };
    let (a, b) = (made("a"), made("b"));
    write(&a, &[("old.md", "# Old\n\nThe lighthouse keeper.\n")]);
    let index = index_with(dir.path(), &a);
    sync(&index);
    let (_w, rx) = watch(&[a.clone(), b.clone()]);

    // Many writes in a burst: one wake, naming only the folder changed.
    write(
        &a,
        &[
            ("new.md", "# New\n\nThe ferry timetable for winter.\n"),
            (
                "sub/deeper.md",
                "# Deeper\n\nA note in a folder made after the watch began.\n",
            ),
        ],
    );
    let changed = rx.recv_timeout(WITHIN).expect("a change wakes the owner");
    assert_eq!(changed, vec![a.clone()]);
    let report = sync(&index);
    assert_eq!(report.indexed, 2, "{report:?}");

    // A folder made after the watch began is watched too.
    std::fs::write(a.join("sub/deeper.md"), "# Deeper\n\nChanged again.\n").unwrap();
    assert_eq!(rx.recv_timeout(WITHIN).unwrap(), vec![a.clone()]);

    // A move out and a delete: the sync drops them.
    std::fs::rename(a.join("new.md"), b.join("moved.md")).unwrap();
    std::fs::remove_file(a.join("old.md")).unwrap();
    let mut seen: Vec<PathBuf> = rx.recv_timeout(WITHIN).unwrap();
    // The move may be told as two bursts (from a, then into b).
    while seen.len() < 2 {
        seen.extend(rx.recv_timeout(WITHIN).unwrap());
        seen.sort();
        seen.dedup();
    }
    assert_eq!(seen, vec![a.clone(), b.clone()]);
    let report = sync(&index);
    assert_eq!(report.removed, 2, "{report:?}");

    // Hidden files and mere reads wake nobody: a visible write in the
    // other folder after them is the next thing the owner hears of, alone
    // (had b woken, b would be named, in this burst or one before).
    std::fs::create_dir_all(b.join(".git")).unwrap();
    std::fs::write(b.join(".git/index"), "x").unwrap();
    std::fs::write(b.join(".swap.md"), "x").unwrap();
    let _ = std::fs::read_to_string(b.join("moved.md")).unwrap();
    std::fs::write(a.join("last.md"), "# Last\n").unwrap();
    assert_eq!(rx.recv_timeout(WITHIN).unwrap(), vec![a.clone()]);
}

#[test]
fn a_folder_that_is_not_there_is_named_and_the_others_are_watched() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path().canonicalize().unwrap();
    let gone = here.join("unplugged");
    let (tx, rx) = mpsc::channel();
    let (w, failed) = FolderWatch::start(&[gone.clone(), here.clone()], QUIET, move |c| {
        let _ = tx.send(c);
    })
    .unwrap();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].folder, gone);
    assert_eq!(failed[0].why, "the folder is not there");
    assert_eq!(w.watched(), std::slice::from_ref(&here));
    std::fs::write(here.join("x.txt"), "x").unwrap();
    assert_eq!(rx.recv_timeout(WITHIN).unwrap(), vec![here]);
    drop(w);
}

#[test]
fn changes_in_an_ignored_folder_inside_a_watched_one_wake_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let made = |name: &str| {
        let p = dir.path().join(name);
        std::fs::create_dir_all(&p).unwrap();
        p.canonicalize().unwrap()
    };
    let (docs, other) = (made("docs"), made("other"));
    // Hearth's data folder kept inside a knowledge folder: its database
    // is written by every sync.
    let data = made("docs/hearth-data");
    let notes = made("docs/hearth-data/notes");
    let (tx, rx) = mpsc::channel();
    let (_w, failed) = FolderWatch::start_ignoring(
        &[docs.clone(), other.clone()],
        std::slice::from_ref(&data),
        QUIET,
        move |c| {
            let _ = tx.send(c);
        },
    )
    .unwrap();
    assert!(failed.is_empty());
    std::fs::write(data.join("knowledge.sqlite-wal"), "written by a sync").unwrap();
    std::fs::write(other.join("note.md"), "# Note\n").unwrap();
    // Had the data folder woken the watch, docs would be named, in this
    // burst or one before.
    assert_eq!(rx.recv_timeout(WITHIN).unwrap(), vec![other]);
    // A folder inside the ignored one is watched as any.
    std::fs::write(notes.join("kept.md"), "# Kept\n").unwrap();
    assert_eq!(rx.recv_timeout(WITHIN).unwrap(), vec![docs]);
}
