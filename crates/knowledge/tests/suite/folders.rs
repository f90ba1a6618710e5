//! Adding and removing folders.

use super::{sync, write};
use hearth_knowledge::{Index, KnowledgeError};

#[test]
fn folders_are_added_once_never_nested_and_removed_with_their_passages() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    write(
        &docs,
        &[
            ("a.md", "# A\n\nalpha text\n"),
            ("sub/b.md", "# B\n\nbeta\n"),
        ],
    );
    let index = Index::open(&dir.path().join("k.db")).unwrap();
    let added = index.add_folder(&docs, Some("garden")).unwrap();
    assert_eq!(added.project.as_deref(), Some("garden"));
    let again = index.add_folder(&docs.join("../docs"), None).unwrap();
    assert_eq!(again.id, added.id, "the same folder, not a second");
    let nested = index.add_folder(&docs.join("sub"), None).unwrap_err();
    assert!(nested.to_string().contains("overlaps"), "{nested}");
    let file = index.add_folder(&docs.join("a.md"), None).unwrap_err();
    assert!(file.to_string().contains("not a folder"), "{file}");
    let missing = index
        .add_folder(&dir.path().join("nope"), None)
        .unwrap_err();
    assert!(
        matches!(missing, KnowledgeError::Folder { .. }),
        "{missing}"
    );

    sync(&index);
    assert!(index.folders().unwrap()[0].chunks >= 2);
    index.remove_folder(&docs).unwrap();
    assert!(index.folders().unwrap().is_empty());
    let fts: i64 = rusqlite::Connection::open(dir.path().join("k.db"))
        .unwrap()
        .query_row("SELECT count(*) FROM chunks_fts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(fts, 0, "the word index lost them too");
    let unknown = index.remove_folder(&docs).unwrap_err();
    assert!(
        unknown.to_string().contains("not a knowledge folder"),
        "{unknown}"
    );
}

#[test]
fn the_index_survives_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    write(&docs, &[("a.md", "# A\n\nalpha\n")]);
    {
        let index = Index::open(&dir.path().join("k.db")).unwrap();
        index.add_folder(&docs, None).unwrap();
        sync(&index);
    }
    let index = Index::open(&dir.path().join("k.db")).unwrap();
    assert_eq!(sync(&index).unchanged, 1);
}

#[test]
fn an_index_of_the_first_schema_is_upgraded_and_counts_its_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    write(
        &docs,
        &[("a.md", "# A\n\nalpha\n"), ("b.md", "# B\n\nbeta\n")],
    );
    let path = dir.path().join("k.db");
    {
        let index = Index::open(&path).unwrap();
        index.add_folder(&docs, None).unwrap();
        sync(&index);
    }
    // As the first schema left it: without the index of given-up
    // passages; one passage with a vector, one given up.
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "DROP INDEX chunks_given_up; PRAGMA user_version = 1;
             UPDATE chunks SET embedding = x'0000803f' WHERE id = (SELECT min(id) FROM chunks);
             UPDATE chunks SET embedding = x'' WHERE id = (SELECT max(id) FROM chunks);",
        )
        .unwrap();
    }
    let index = Index::open(&path).unwrap();
    let f = &index.folders().unwrap()[0];
    assert_eq!((f.chunks, f.embedded), (2, 1), "{f:?}");
    let c = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    let indexed: i64 = c
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'chunks_given_up'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!((version, indexed), (2, 1));
}
