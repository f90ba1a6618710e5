//! Search by words, by meaning and fused, and the citation each hit
//! carries.

use hearth_knowledge::Mode;

use super::{MODEL, embed_all, index_with, openai, sim, sync, write};

const INSTALL: &str = "# Hearth manual\n\nIntro.\n\n## Install\n\nDownload the package.\nRun the installer with care.\nReboot afterwards.\n\n## Usage\n\nOpen the app and talk.\n";

#[tokio::test]
async fn words_find_the_passage_with_its_file_heading_and_lines() {
    let sim = sim().await;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    write(
        &root,
        &[
            ("manual.md", INSTALL),
            ("garden.txt", "Tomatoes need sun.\n\nWater them daily.\n"),
        ],
    );
    let index = index_with(dir.path(), &root);
    sync(&index);
    let hits = index
        .search(None, "how do I run the installer?", 3, Mode::Words, None)
        .await
        .unwrap();
    let top = &hits[0];
    assert_eq!(top.rel_path, "manual.md");
    assert!(top.text.contains("Run the installer"), "{top:?}");
    assert_eq!(top.path, root.canonicalize().unwrap().join("manual.md"));
    assert!(top.start_line <= 8 && top.end_line >= 8, "{top:?}");
    assert_eq!(top.word_rank, Some(1));
    assert_eq!(top.meaning_rank, None);

    // Meaning needs vectors: before the pass, a hybrid search is by words.
    let e = openai(&sim, MODEL);
    let before = index
        .search(Some(&e), "tomatoes sun", 3, Mode::Hybrid, None)
        .await
        .unwrap();
    assert_eq!(before[0].rel_path, "garden.txt");
    assert_eq!(before[0].meaning_rank, None);
    assert_eq!(
        sim.stats().embed_requests,
        0,
        "no query vector without vectors to match"
    );

    embed_all(&index, &e).await;
    let both = index
        .search(Some(&e), "tomatoes sun", 3, Mode::Hybrid, None)
        .await
        .unwrap();
    assert_eq!(both[0].rel_path, "garden.txt");
    assert_eq!(both[0].word_rank, Some(1));
    assert_eq!(both[0].meaning_rank, Some(1));
    let meaning = index
        .search(Some(&e), "tomatoes sun", 3, Mode::Meaning, None)
        .await
        .unwrap();
    assert_eq!(meaning[0].rel_path, "garden.txt");
    assert_eq!(meaning[0].word_rank, None);
}

#[tokio::test]
async fn a_search_narrowed_to_folders_finds_nothing_outside_them() {
    let sim = sim().await;
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    write(&a, &[("x.md", "# X\n\nshared word zebra in a\n")]);
    write(&b, &[("y.md", "# Y\n\nshared word zebra in b\n")]);
    let index = index_with(dir.path(), &a);
    let fb = index.add_folder(&b, Some("p")).unwrap();
    sync(&index);
    let e = openai(&sim, MODEL);
    embed_all(&index, &e).await;
    for mode in [Mode::Words, Mode::Meaning, Mode::Hybrid] {
        let hits = index
            .search(Some(&e), "zebra", 5, mode, Some(&[fb.id]))
            .await
            .unwrap();
        assert_eq!(hits.len(), 1, "{mode:?}");
        assert_eq!(hits[0].rel_path, "y.md", "{mode:?}");
    }
    let all = index
        .search(Some(&e), "zebra", 5, Mode::Hybrid, None)
        .await
        .unwrap();
    assert_eq!(all.len(), 2);
}

#[tokio::test]
async fn queries_that_are_fts_syntax_are_words() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    write(&root, &[("a.md", "# A\n\nNEAR the AND gate\n")]);
    let index = index_with(dir.path(), &root);
    sync(&index);
    for q in ["NEAR(", "\"AND\" OR", "gate*", ")))", "a:b"] {
        let r = index.search(None, q, 3, Mode::Words, None).await;
        assert!(r.is_ok(), "{q}: {r:?}");
    }
    assert!(
        index
            .search(None, "?!", 3, Mode::Words, None)
            .await
            .unwrap()
            .is_empty()
    );
}

/// A word in more passages than the search may rank is left out while a
/// rarer one is there; the index's own stemmed counts decide, so "kettles"
/// and "kettle" are one word, counted once.
#[tokio::test]
async fn the_commonest_words_are_cut_to_the_budget_by_the_index_own_counts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    let mut files: Vec<(String, String)> = (0..10)
        .map(|i| {
            (
                format!("shelf{i}.txt"),
                format!("The kettle stands on shelf {i}.\n"),
            )
        })
        .collect();
    files.push(("zoo.txt".into(), "A zebra lives here.\n".into()));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write(&root, &files);
    let index = index_with(dir.path(), &root);
    sync(&index);
    let found = |hits: Vec<hearth_knowledge::Hit>| {
        let mut names: Vec<String> = hits.into_iter().map(|h| h.rel_path).collect();
        names.sort();
        names
    };

    // The default budget ranks every match: all eleven files.
    let all = index
        .search(None, "kettle zebra", 20, Mode::Words, None)
        .await
        .unwrap();
    assert_eq!(found(all).len(), 11);

    // Within 5 matches: "zebra" (1 passage) is kept, "kettle" (10) is not.
    index.set_word_budget(5);
    let rare = index
        .search(None, "kettle zebra", 20, Mode::Words, None)
        .await
        .unwrap();
    assert_eq!(found(rare), ["zoo.txt"]);
    // Alone, the commonest word is still searched.
    let alone = index
        .search(None, "kettle", 20, Mode::Words, None)
        .await
        .unwrap();
    assert_eq!(found(alone).len(), 10);

    // 11 matches hold "zebra" and "kettle" once; counted twice ("kettles"
    // is the same term), "kettle" would not fit.
    index.set_word_budget(11);
    let both = index
        .search(None, "kettles zebra kettle", 20, Mode::Words, None)
        .await
        .unwrap();
    assert_eq!(found(both).len(), 11);
    // A word no passage holds costs nothing and keeps nothing out.
    let unknown = index
        .search(None, "kettle zebra quokka", 20, Mode::Words, None)
        .await
        .unwrap();
    assert_eq!(found(unknown).len(), 11);
}
