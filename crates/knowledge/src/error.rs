//! What can go wrong with the index, each with what to do about it.

/// An index operation that failed. A file that cannot be read is not an
/// error of the index: it is kept as a file with its reason
/// ([`crate::Skipped`]).
#[derive(Debug, thiserror::Error)]
pub enum KnowledgeError {
    /// The database failed (a full disk among others: nothing half-written
    /// is kept, and the next sync goes on from the last whole file).
    #[error("the knowledge index failed: {0}")]
    Database(#[from] rusqlite::Error),
    /// The database file is from a newer Hearth.
    #[error(
        "the knowledge index at {path} was written by a newer Hearth (schema {found}, this one reads {known}); rebuild it or update Hearth"
    )]
    NewerSchema {
        /// Where it is.
        path: String,
        /// Its schema.
        found: i64,
        /// The newest this build reads.
        known: i64,
    },
    /// A folder that cannot be added or walked.
    #[error("{path}: {detail}")]
    Folder {
        /// The folder as given.
        path: String,
        /// Why.
        detail: String,
    },
    /// No such folder in the index.
    #[error("{0} is not a knowledge folder (`hearth knowledge list` shows them)")]
    UnknownFolder(String),
    /// The embedding server failed or is down; passages keep no vector
    /// until it answers, and word search goes on without it.
    #[error("the embedding model `{model}` did not answer: {detail}")]
    Embedding {
        /// The model asked.
        model: String,
        /// The server's or the connection's words.
        detail: String,
    },
    /// The model gives vectors of another length than the index holds,
    /// without the model's name having changed: another model served
    /// under the same name, or another host.
    #[error(
        "the embedding model `{model}` gave vectors of {got} numbers, but the index holds {held}: the server's model changed under the same name; run `hearth knowledge reembed` to embed everything again"
    )]
    Dimension {
        /// The model.
        model: String,
        /// What it gave now.
        got: usize,
        /// What the index holds.
        held: usize,
    },
    /// No embedding model is set, so there is no search by meaning.
    #[error(
        "no embedding model is set for knowledge: set one (`hearth knowledge model NAME`, for example nomic-embed-text on Ollama)"
    )]
    NoModel,
    /// The work was stopped.
    #[error("stopped")]
    Stopped,
    /// A background task failed to finish.
    #[error("the knowledge worker failed: {0}")]
    Worker(String),
}
