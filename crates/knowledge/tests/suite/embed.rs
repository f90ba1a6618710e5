//! Embedding passes against the simulator: counted in its requests, so
//! "only what changed" and "goes on where it stopped" are counts, not
//! guesses.

use std::sync::atomic::{AtomicBool, Ordering};

use hearth_knowledge::KnowledgeError;

use super::{MODEL, embed_all, index_with, ollama, openai, sim, sync, write};

fn docs(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            (
                format!("n{i:02}.md"),
                format!("# Note {i}\n\nThis note is about topic number {i}.\n"),
            )
        })
        .collect()
}

fn write_docs(root: &std::path::Path, n: usize) {
    let files = docs(n);
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write(root, &refs);
}

/// A simulator, and an index of `n` notes synced (not embedded).
async fn synced(
    n: usize,
) -> (
    hearth_sim::SimHandle,
    tempfile::TempDir,
    std::path::PathBuf,
    hearth_knowledge::Index,
) {
    let sim = sim().await;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    write_docs(&root, n);
    let index = index_with(dir.path(), &root);
    sync(&index);
    (sim, dir, root, index)
}

#[tokio::test]
async fn every_passage_is_embedded_once_and_a_change_only_its_own() {
    let (sim, _dir, root, index) = synced(40).await;
    let chunks = index.folders().unwrap()[0].chunks;
    assert_eq!(chunks, 40);

    for e in [openai(&sim, MODEL), ollama(&sim, MODEL)] {
        let before = sim.stats().embedded_texts;
        let report = embed_all(&index, &e).await;
        if before == 0 {
            assert_eq!(report.embedded, 40);
            assert_eq!(report.dims, 64);
            assert_eq!(sim.stats().embedded_texts, 40);
            assert_eq!(sim.stats().embed_requests, 3, "batches of 16");
        } else {
            assert_eq!(report.embedded, 0, "the other wire finds nothing to do");
            assert_eq!(sim.stats().embedded_texts, before);
        }
    }
    std::fs::write(root.join("n07.md"), "# Note 7\n\nRewritten.\n").unwrap();
    sync(&index);
    let before = sim.stats().embedded_texts;
    let report = embed_all(&index, &openai(&sim, MODEL)).await;
    assert_eq!(report.embedded, 1);
    assert_eq!(sim.stats().embedded_texts - before, 1);
    assert_eq!(index.folders().unwrap()[0].embedded, 40);
}

#[tokio::test]
async fn a_stopped_pass_goes_on_where_it_was() {
    let (sim, _dir, _root, index) = synced(40).await;
    let e = openai(&sim, MODEL);
    let stop = AtomicBool::new(false);
    let first = index
        .embed_pending(&e, &stop, &|done, _| {
            if done >= 16 {
                stop.store(true, Ordering::SeqCst);
            }
        })
        .await
        .unwrap();
    assert_eq!((first.embedded, first.left), (16, 24));
    let rest = embed_all(&index, &e).await;
    assert_eq!(rest.embedded, 24);
    assert_eq!(sim.stats().embedded_texts, 40, "none embedded twice");
}

#[tokio::test]
async fn another_model_replaces_every_vector_and_says_so() {
    let (sim, _dir, _root, index) = synced(5).await;
    embed_all(&index, &openai(&sim, MODEL)).await;
    let report = embed_all(&index, &openai(&sim, "embed-b")).await;
    assert_eq!(report.replaced_model.as_deref(), Some(MODEL));
    assert_eq!(report.embedded, 5);
    assert_eq!(
        index.vectors_model().unwrap(),
        Some(("embed-b".to_owned(), 64))
    );
}

#[tokio::test]
async fn a_server_that_changes_dimension_or_fails_is_named_and_nothing_is_lost() {
    let (sim, _dir, root, index) = synced(5).await;
    let e = openai(&sim, MODEL);
    embed_all(&index, &e).await;

    std::fs::write(root.join("n01.md"), "# Note 1\n\nNew words.\n").unwrap();
    sync(&index);
    sim.set_embed_dims(32);
    let err = index
        .embed_pending(&e, &AtomicBool::new(false), &|_, _| {})
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            KnowledgeError::Dimension {
                got: 32,
                held: 64,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("reembed"),
        "says what to do: {err}"
    );
    assert_eq!(index.folders().unwrap()[0].embedded, 4, "the others kept");

    sim.set_embed_dims(64);
    sim.fail_embeddings(Some(503));
    let err = index
        .embed_pending(&e, &AtomicBool::new(false), &|_, _| {})
        .await
        .unwrap_err();
    assert!(matches!(err, KnowledgeError::Embedding { .. }), "{err}");
    assert!(err.to_string().contains(MODEL), "{err}");
    assert_eq!(index.unembedded().unwrap(), 1);

    sim.fail_embeddings(None);
    assert_eq!(embed_all(&index, &e).await.embedded, 1);

    // What the dimension error says to do: everything again, at 32.
    sim.set_embed_dims(32);
    index.forget_vectors().unwrap();
    assert_eq!(embed_all(&index, &e).await.embedded, 5);
    assert_eq!(index.vectors_model().unwrap(), Some((MODEL.to_owned(), 32)));

    // A server that is not there at all.
    let dead = openai(&sim, "no-such-model");
    let err = index
        .search(Some(&dead), "note", 5, hearth_knowledge::Mode::Hybrid, None)
        .await;
    assert!(err.is_ok(), "a model the vectors are not from is not asked");
}

#[tokio::test]
async fn a_passage_the_server_refuses_is_cut_until_taken_or_left_to_words() {
    let sim = sim().await;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    // Passages of about 30, 600 and 1,000 bytes.
    let long = "longword ".repeat(66);
    let huge = "x".repeat(990);
    write(
        &root,
        &[
            ("a.txt", "a short passage about owls\n"),
            ("b.txt", &format!("{long}\n")),
            ("c.txt", &format!("{huge}\n")),
        ],
    );
    let index = index_with(dir.path(), &root);
    sync(&index);
    sim.refuse_embedding_inputs_over(Some(400));
    let e = openai(&sim, MODEL);
    let report = embed_all(&index, &e).await;
    // The batch is refused; a alone is taken, b cut to half, c to a quarter.
    assert_eq!((report.embedded, report.refused), (3, 0), "{report:?}");
    assert!(sim.stats().embed_requests >= 3, "one at a time");
    // A server that takes nothing of this length: left to its words.
    sim.refuse_embedding_inputs_over(Some(4));
    std::fs::write(root.join("a.txt"), "a short passage about owls and larks\n").unwrap();
    sync(&index);
    let report = embed_all(&index, &e).await;
    assert_eq!((report.embedded, report.refused), (0, 1), "{report:?}");
    assert_eq!(index.unembedded().unwrap(), 0, "not asked again");
    let folder = &index.folders().unwrap()[0];
    assert_eq!(folder.embedded, 2, "the refused one has no vector");
    // Still found by its words.
    let hits = index
        .search(Some(&e), "larks", 3, hearth_knowledge::Mode::Hybrid, None)
        .await
        .unwrap();
    assert_eq!(hits[0].rel_path, "a.txt");
    assert_eq!(hits[0].meaning_rank, None, "{:?}", hits[0]);
}
