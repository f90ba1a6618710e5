//! The knowledge index every front end shares: where it lives (next to
//! the sessions' database, a file of its own) and the agent's
//! `search_knowledge` tool over it, offered while a folder exists — the
//! tool comes when the first folder is added and goes with the last, with
//! no restart, and a model chosen in the meantime is the one it searches
//! with.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use hearth_core::{ModelBackend, Offer, Tool, ToolSource, Unavailable};
use hearth_knowledge::{Embedder, Index, SearchKnowledge};
use hearth_store::Store;

/// The index's file name, in the folder of the sessions' database.
pub const KNOWLEDGE_FILE: &str = "knowledge.sqlite";

/// Where the index of the database at `db` lives.
pub fn knowledge_path(db: &Path) -> PathBuf {
    db.parent()
        .map_or_else(|| PathBuf::from(KNOWLEDGE_FILE), |d| d.join(KNOWLEDGE_FILE))
}

/// The index beside `store`, created when missing; `None` (and a warning)
/// when it cannot be opened: chat goes on without knowledge.
pub fn open_knowledge(store: &Store) -> Option<Index> {
    match Index::open(&knowledge_path(store.path())) {
        Ok(i) => Some(i),
        Err(e) => {
            tracing::warn!("the knowledge index cannot be opened: {e}");
            None
        }
    }
}

/// `search_knowledge` as a tool source: offered while the index has a
/// folder, searching by meaning with the chosen embedding model on
/// `backend` (the default host) when one is chosen.
pub struct KnowledgeTools {
    index: Index,
    backend: Arc<dyn ModelBackend>,
}

impl KnowledgeTools {
    /// Over `index`, embedding queries on `backend`.
    pub fn new(index: Index, backend: Arc<dyn ModelBackend>) -> Self {
        Self { index, backend }
    }
}

#[async_trait]
impl ToolSource for KnowledgeTools {
    fn tools(&self, _servers: &[String]) -> Vec<Arc<dyn Tool>> {
        Vec::new()
    }

    async fn prepare(&self, _servers: &[String]) -> Vec<Unavailable> {
        Vec::new()
    }

    fn tools_for(&self, _offer: &Offer) -> Vec<Arc<dyn Tool>> {
        // The registry keeps it only where the offer enables it.
        if !self.index.has_folders().unwrap_or(false) {
            return Vec::new();
        }
        let embedder = self
            .index
            .model()
            .ok()
            .flatten()
            .map(|model| Embedder::new(self.backend.clone(), model));
        vec![Arc::new(SearchKnowledge::new(
            self.index.clone(),
            embedder,
            None,
        ))]
    }

    async fn prepare_for(&self, _offer: &Offer) -> Vec<Unavailable> {
        Vec::new()
    }
}
