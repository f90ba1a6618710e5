//! Store errors, each saying what the user can do.

/// What went wrong with the database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The file was written by a newer Hearth.
    #[error(
        "the database at {path} has schema version {found}, newer than this Hearth understands ({supported}); update Hearth — the file was not touched"
    )]
    TooNew {
        /// The database file.
        path: String,
        /// Its schema version.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// The database folder cannot be created or written.
    #[error("cannot use the database at {path}: {detail}")]
    Io {
        /// The path.
        path: String,
        /// Why.
        detail: String,
    },
    /// A stored value could not be decoded.
    #[error("a stored value is corrupt: {0}")]
    Corrupt(String),
    /// No such session.
    #[error("no session `{0}`")]
    NoSession(String),
    /// The writer thread is gone (the store was closed).
    #[error("the database is closed")]
    Closed,
}

impl From<StoreError> for hearth_core::StoreError {
    fn from(e: StoreError) -> Self {
        Self(e.to_string())
    }
}
