//! Store errors, each saying what the user can do.

use hearth_core::StoreFailure;

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
    /// No such summary (or it was deleted or replaced).
    #[error("no summary #{0} (deleted or replaced summaries cannot be changed)")]
    NoSummary(i64),
    /// No such memory (or it was deleted).
    #[error("no memory #{0}")]
    NoMemory(i64),
    /// No such session.
    #[error("no session `{0}`")]
    NoSession(String),
    /// No such project.
    #[error("no project `{0}`")]
    NoProject(String),
    /// No such message.
    #[error("no message {0}")]
    NoMessage(i64),
    /// The message exists but in another session.
    #[error("message {message_id} is not in session `{session_id}`")]
    NotInSession {
        /// The message.
        message_id: i64,
        /// The session it was asked about.
        session_id: String,
    },
    /// An answer is still being written in the session; its branch cannot
    /// move until it ends.
    #[error(
        "session `{0}` has an answer in progress; stop it or wait for it to end, then try again"
    )]
    RunInProgress(String),
    /// The writer thread is gone (the store was closed).
    #[error("the database is closed")]
    Closed,
    /// A file that cannot be attached, or an attached file that is gone.
    #[error("{0}")]
    Attachment(String),
}

impl StoreError {
    /// What the user can do about it.
    pub fn failure(&self) -> StoreFailure {
        match self {
            Self::RunInProgress(_) => StoreFailure::SessionBusy,
            Self::NoSummary(_)
            | Self::NoMemory(_)
            | Self::NoSession(_)
            | Self::NoProject(_)
            | Self::NoMessage(_)
            | Self::NotInSession { .. }
            | Self::Attachment(_) => StoreFailure::NotFound,
            Self::TooNew { .. } | Self::Corrupt(_) | Self::Closed | Self::Io { .. } => {
                StoreFailure::Unusable
            }
            Self::Sqlite(e) => sqlite_failure(e),
        }
    }
}

impl From<StoreError> for hearth_core::StoreError {
    fn from(e: StoreError) -> Self {
        Self::new(e.failure(), e.to_string())
    }
}

/// A change to the profiles that was refused or could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The change itself cannot be made (a bad field, an unknown profile,
    /// the last one deleted): the user changes the request.
    #[error("{0}")]
    Refused(String),
    /// Saving it failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Busy, locked, a full disk, a failed read: the next try may pass. A
/// file that is not a database, is corrupt, read-only or out of reach, or
/// a broken constraint, does not get better by trying again.
fn sqlite_failure(e: &rusqlite::Error) -> StoreFailure {
    use rusqlite::ErrorCode as C;
    match e.sqlite_error_code() {
        Some(
            C::DatabaseCorrupt
            | C::NotADatabase
            | C::ReadOnly
            | C::CannotOpen
            | C::PermissionDenied
            | C::ConstraintViolation
            | C::TypeMismatch
            | C::TooBig,
        ) => StoreFailure::Unusable,
        _ => StoreFailure::Transient,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: std::ffi::c_int) -> StoreError {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            None,
        ))
    }

    /// What the page offers follows: Retry for what may pass, nothing to
    /// retry for what will not.
    #[test]
    fn failures_are_sorted_by_what_a_retry_can_do() {
        use rusqlite::ffi;
        for (e, failure) in [
            (sqlite(ffi::SQLITE_BUSY), StoreFailure::Transient),
            (sqlite(ffi::SQLITE_LOCKED), StoreFailure::Transient),
            (sqlite(ffi::SQLITE_FULL), StoreFailure::Transient),
            (sqlite(ffi::SQLITE_CORRUPT), StoreFailure::Unusable),
            (sqlite(ffi::SQLITE_NOTADB), StoreFailure::Unusable),
            (sqlite(ffi::SQLITE_READONLY), StoreFailure::Unusable),
            (
                StoreError::RunInProgress("s".into()),
                StoreFailure::SessionBusy,
            ),
            (StoreError::NoSession("s".into()), StoreFailure::NotFound),
            (StoreError::NoProject("p".into()), StoreFailure::NotFound),
            (StoreError::Closed, StoreFailure::Unusable),
        ] {
            assert_eq!(e.failure(), failure, "{e}");
        }
    }
}
