//! Long-term memory in the store: what the worker knew of a fact is kept
//! with it, and the summary a new session is given is rebuilt from the
//! facts (grouped, the newer of two contradicting facts, each use counted).

use hearth_core::{MemorySource, MemoryWriter, NewFact};
use hearth_store::Store;

fn fact(text: &str, category: &str, quote: &str) -> NewFact {
    NewFact {
        text: text.into(),
        category: Some(category.into()),
        quote: Some(quote.into()),
    }
}

#[tokio::test]
async fn the_summary_is_rebuilt_from_the_facts_and_each_session_given_a_fact_counts() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let first = store
        .learn(
            "s1",
            "r1",
            "worker",
            &[
                fact(
                    "The user lives in Valencia",
                    "identity",
                    "I live in Valencia",
                ),
                fact(
                    "The user prefers short answers",
                    "preference",
                    "keep it short",
                ),
            ],
        )
        .await
        .unwrap();
    assert_eq!(first.len(), 2);
    store
        .learn("s1", "r2", "tool", &[NewFact::bare("The user has a cat")])
        .await
        .unwrap();
    // Later: a move.
    store
        .learn(
            "s2",
            "r3",
            "worker",
            &[fact(
                "The user lives in Lisbon",
                "identity",
                "I moved to Lisbon",
            )],
        )
        .await
        .unwrap();

    let summary = store.snapshot("s3").await.unwrap().unwrap();
    assert_eq!(
        summary,
        "Who they are:\n- The user lives in Lisbon\nPreferences:\n- The user prefers short answers\nOther:\n- The user has a cat"
    );
    // What the worker knew is kept; the contradicted fact stays listed
    // (the user decides), it is only left out of the summary.
    let all = store.memories(false).await.unwrap();
    let valencia = all.iter().find(|m| m.content.contains("Valencia")).unwrap();
    assert_eq!(valencia.category.as_deref(), Some("identity"));
    assert_eq!(valencia.quote.as_deref(), Some("I live in Valencia"));
    assert_eq!(valencia.uses, 0);
    let lisbon = all.iter().find(|m| m.content.contains("Lisbon")).unwrap();
    assert_eq!(lisbon.uses, 1);
    // A session's snapshot is taken once: opening it again is no new use.
    store.snapshot("s3").await.unwrap();
    store.snapshot("s4").await.unwrap();
    let lisbon = store
        .memories(false)
        .await
        .unwrap()
        .into_iter()
        .find(|m| m.content.contains("Lisbon"))
        .unwrap();
    assert_eq!(lisbon.uses, 2);
    assert_eq!(store.memory_summary().await.unwrap(), summary);
}

#[tokio::test]
async fn a_declined_proposal_is_never_proposed_or_learned_again() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let tea = "The user prefers green tea".to_owned();
    let fresh = store.fresh(std::slice::from_ref(&tea)).await.unwrap();
    assert_eq!(fresh, std::slice::from_ref(&tea));
    store.decline_memory(&tea).await.unwrap();
    assert!(
        store
            .fresh(std::slice::from_ref(&tea))
            .await
            .unwrap()
            .is_empty()
    );
    let learned = store
        .learn(
            "s",
            "r",
            "worker",
            &[NewFact::bare("The user prefers green tea.")],
        )
        .await
        .unwrap();
    assert!(learned.is_empty(), "{learned:?}");
    assert!(store.memories(false).await.unwrap().is_empty());
    // The user can still add it by hand.
    store.add_memory(&tea).await.unwrap();
    assert_eq!(store.memories(false).await.unwrap().len(), 1);
}
