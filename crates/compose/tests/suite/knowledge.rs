//! `search_knowledge` comes with the first knowledge folder and goes with
//! the last, with no restart, and searches with the model chosen since.

use std::sync::Arc;

use hearth_compose::{KnowledgeTools, knowledge_path, open_knowledge};
use hearth_core::{Offer, ToolRegistry};
use hearth_store::{Profiles, Store};

#[tokio::test]
async fn the_search_tool_is_offered_while_a_folder_exists() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("hearth.sqlite")).await.unwrap();
    let index = open_knowledge(&store).unwrap();
    assert_eq!(
        knowledge_path(store.path()),
        dir.path().join("knowledge.sqlite")
    );
    let backend = hearth_compose::ollama(Some("http://127.0.0.1:1"))
        .unwrap()
        .backend;
    let mut tools = ToolRegistry::new();
    let profiles = Profiles::load(&store).await.unwrap();
    tools.add_source(Arc::new(KnowledgeTools::new(
        index.clone(),
        backend,
        profiles,
    )));
    let every = Offer::builtin();
    assert!(tools.offered_names(&every).is_empty(), "no folder, no tool");

    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    index.add_folder(&docs, None).unwrap();
    assert_eq!(tools.offered_names(&every), vec!["search_knowledge"]);
    // A profile that lists its tools gets it only by name.
    let listed = Offer {
        tools: Some(vec!["calculator".into()]),
        ..Offer::builtin()
    };
    assert!(tools.offered_names(&listed).is_empty());
    assert!(tools.find(&every, "search_knowledge").is_some());

    index.remove_folder(&docs).unwrap();
    assert!(
        tools.offered_names(&every).is_empty(),
        "gone with the last folder"
    );
}
