//! What the person typed in a session's composer and has not sent: kept in
//! the database (it is their words, as much as a sent message), so it is
//! there again after a restart or a crash. One row per session, gone when
//! the text is sent or emptied, and with the session when it is removed.

use rusqlite::{OptionalExtension, params};

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::migration::Migration;
use crate::store::Store;

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 18,
    name: "unsent",
    sql: "CREATE TABLE unsent (
              session_id TEXT PRIMARY KEY,
              text TEXT NOT NULL,
              updated_at INTEGER NOT NULL
          );",
}];

/// The longest unsent text kept (characters): a paste past this stays in
/// the composer while the app runs, but is not written on every change.
pub const MAX_UNSENT_CHARS: usize = 1_000_000;

impl Store {
    /// Keep `text` as session `session_id`'s unsent text (empty: forget
    /// it). Longer than [`MAX_UNSENT_CHARS`]: nothing is kept, and false
    /// says so.
    pub async fn set_unsent(&self, session_id: &str, text: &str) -> Result<bool, StoreError> {
        let kept = text.chars().count() <= MAX_UNSENT_CHARS;
        let (id, text) = (
            session_id.to_owned(),
            if kept { text.to_owned() } else { String::new() },
        );
        self.db()
            .call(move |c| {
                if text.trim().is_empty() {
                    c.execute("DELETE FROM unsent WHERE session_id = ?1", [&id])?;
                } else {
                    c.execute(
                        "INSERT INTO unsent (session_id, text, updated_at) VALUES (?1, ?2, ?3)
                         ON CONFLICT(session_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at",
                        params![id, text, now_ms()],
                    )?;
                }
                Ok(())
            })
            .await?;
        Ok(kept)
    }

    /// Session `session_id`'s unsent text, if any.
    pub async fn unsent(&self, session_id: &str) -> Result<Option<String>, StoreError> {
        let id = session_id.to_owned();
        self.db()
            .call(move |c| {
                Ok(c.query_row(
                    "SELECT text FROM unsent WHERE session_id = ?1",
                    [&id],
                    |r| r.get(0),
                )
                .optional()?)
            })
            .await
    }
}
