//! [`Store`]: Hearth's database, the public handle every table module's
//! methods are on. Opening it is `open.rs`; the core's `SessionStore` on it
//! and the queries the front ends make are `session_store.rs`. A leaf of
//! the crate's module graph: the table modules import it, it imports none
//! of them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::db::Db;

/// What opening the database did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenReport {
    /// The schema version found, when an upgrade ran.
    pub migrated_from: Option<i64>,
    /// The backup taken before the upgrade.
    pub backup: Option<PathBuf>,
    /// Runs left unfinished by a dead process, now repaired.
    pub recovered_runs: usize,
}

/// Hearth's database.
#[derive(Clone)]
pub struct Store {
    pub(crate) db: Db,
    pub(crate) instance: Arc<str>,
    pub(crate) path: PathBuf,
}

impl Store {
    /// The writer thread (for the table modules).
    pub(crate) fn db(&self) -> &Db {
        &self.db
    }

    /// This process's instance id (owner of the runs it starts).
    pub(crate) fn instance(&self) -> &str {
        &self.instance
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
