//! The knowledge index every front end shares: where it lives (next to
//! the sessions' database, a file of its own) and the agent's
//! `search_knowledge` tool over it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hearth_core::{ModelBackend, Tool};
use hearth_knowledge::{Embedder, Index, SearchKnowledge};
use hearth_store::Store;

/// The index's file name, in the folder of the sessions' database.
pub const KNOWLEDGE_FILE: &str = "knowledge.sqlite";

/// Where the index of the database at `db` lives.
pub fn knowledge_path(db: &Path) -> PathBuf {
    db.parent()
        .map_or_else(|| PathBuf::from(KNOWLEDGE_FILE), |d| d.join(KNOWLEDGE_FILE))
}

/// `search_knowledge` over the index beside `store`, searching by meaning
/// with the chosen embedding model on `backend` (the default host) when
/// one is chosen. `None` when the user has no knowledge folder: a tool
/// that can find nothing is not offered.
pub fn knowledge_tool(store: &Store, backend: Arc<dyn ModelBackend>) -> Option<Arc<dyn Tool>> {
    let path = knowledge_path(store.path());
    if !path.exists() {
        return None;
    }
    let index = match Index::open(&path) {
        Ok(i) => i,
        Err(e) => {
            tracing::warn!("the knowledge index cannot be opened: {e}");
            return None;
        }
    };
    if index.folders().map_or(true, |f| f.is_empty()) {
        return None;
    }
    let embedder = index
        .model()
        .ok()
        .flatten()
        .map(|model| Embedder::new(backend, model));
    Some(Arc::new(SearchKnowledge::new(index, embedder, None)))
}
