//! The agent's `search_knowledge` tool.

use hearth_core::{Tool, ToolContext};
use hearth_knowledge::SearchKnowledge;
use serde_json::json;

use super::{MODEL, embed_all, index_with, openai, sim, sync, write};

fn ctx() -> ToolContext {
    hearth_test_support::tool_context("s", None)
}

#[tokio::test]
async fn the_tool_numbers_passages_with_their_source_and_falls_back_to_words() {
    let sim = sim().await;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    write(
        &root,
        &[(
            "recipes/soup.md",
            "# Soups\n\n## Leek soup\n\nSweat the leeks in butter.\n",
        )],
    );
    let index = index_with(dir.path(), &root);
    sync(&index);
    let e = openai(&sim, MODEL);
    embed_all(&index, &e).await;
    let tool = SearchKnowledge::new(index.clone(), Some(e), None);
    assert_eq!(tool.spec().name, "search_knowledge");
    assert_eq!(tool.effect(&json!({})), hearth_core::ToolEffect::ReadOnly);

    let out = tool
        .call(json!({"query": "leeks butter"}), &ctx())
        .await
        .unwrap();
    let file = root.canonicalize().unwrap().join("recipes/soup.md");
    assert!(
        out.starts_with(&format!("[1] {}, lines 1–5 (Soups)\n", file.display())),
        "{out}"
    );
    assert!(out.contains("Sweat the leeks"), "{out}");

    sim.fail_embeddings(Some(500));
    let out = tool.call(json!({"query": "leeks"}), &ctx()).await.unwrap();
    assert!(out.contains("Sweat the leeks"), "words still find: {out}");

    let none = tool
        .call(json!({"query": "xylophone"}), &ctx())
        .await
        .unwrap();
    assert!(none.starts_with("No passage"), "{none}");
    for bad in [
        json!({}),
        json!({"query": "  "}),
        json!({"query": "x", "limit": 50}),
    ] {
        assert!(tool.call(bad.clone(), &ctx()).await.is_err(), "{bad}");
    }
}
