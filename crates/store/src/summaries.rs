//! The `summaries` table: compaction summaries of a session's branch. Each
//! records the last message it covers; a summary counts only while that
//! message is on the current branch (a fork before it makes it stale).
//! Summaries are only ever added; messages are never deleted. A user's
//! edit adds a new summary that replaces the old one (kept); a delete is a
//! tombstone, after which the session is sent in full again (or compacted
//! anew).

use hearth_core::Summary;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::messages;
use crate::migration::Migration;

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 6,
    name: "summaries",
    sql: "CREATE TABLE summaries (
              id INTEGER PRIMARY KEY,
              session_id TEXT NOT NULL REFERENCES sessions(id),
              upto_message_id INTEGER NOT NULL REFERENCES messages(id),
              content TEXT NOT NULL,
              model TEXT NOT NULL,
              source TEXT NOT NULL DEFAULT 'compaction',
              created_at INTEGER NOT NULL,
              replaced_by INTEGER REFERENCES summaries(id),
              deleted_at INTEGER
          );
          CREATE INDEX summaries_by_session ON summaries(session_id, id);",
}];

/// The newest summary whose covered message is on the current branch,
/// with the number of branch messages it covers.
pub(crate) fn latest(conn: &Connection, session_id: &str) -> Result<Option<Summary>, StoreError> {
    let branch = messages::branch(conn, session_id, None)?;
    let mut stmt = conn.prepare_cached(
        "SELECT upto_message_id, content FROM summaries
         WHERE session_id = ?1 AND deleted_at IS NULL AND replaced_by IS NULL ORDER BY id DESC",
    )?;
    let rows = stmt.query_map([session_id], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
    })?;
    for row in rows {
        let (upto, content) = row?;
        if let Some(pos) = branch.iter().position(|s| s.id == upto) {
            return Ok(Some(Summary {
                covered: pos + 1,
                content,
            }));
        }
    }
    Ok(None)
}

/// Record a summary of the branch's first `summary.covered` messages.
pub(crate) fn add(
    conn: &Connection,
    session_id: &str,
    summary: &Summary,
    model: &str,
) -> Result<(), StoreError> {
    let branch = messages::branch(conn, session_id, None)?;
    let Some(last) = summary.covered.checked_sub(1).and_then(|i| branch.get(i)) else {
        return Err(StoreError::Corrupt(format!(
            "a summary of {} messages for a branch of {}",
            summary.covered,
            branch.len()
        )));
    };
    conn.execute(
        "INSERT INTO summaries (session_id, upto_message_id, content, model, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![session_id, last.id, summary.content, model, now_ms()],
    )?;
    Ok(())
}

/// The session's title: `Some("")` when untitled, `None` when unknown.
pub(crate) fn title(conn: &Connection, session_id: &str) -> Result<Option<String>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT title FROM sessions WHERE id = ?1",
            [session_id],
            |r| r.get(0),
        )
        .optional()?)
}

/// Set a generated title only where the session is still untitled (the
/// user may have named it meanwhile).
pub(crate) fn set_generated_title(
    conn: &Connection,
    session_id: &str,
    title: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE sessions SET title = ?2 WHERE id = ?1 AND title = ''",
        params![session_id, title],
    )?;
    Ok(())
}

/// A stored summary, as the user sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRecord {
    /// Id.
    pub id: i64,
    /// Session it summarizes.
    pub session_id: String,
    /// The last message it covers.
    pub upto_message_id: i64,
    /// Text.
    pub content: String,
    /// Model that wrote it, or `user` for an edit.
    pub model: String,
    /// `compaction` or `user`.
    pub source: String,
    /// Written, ms since the epoch.
    pub created_at: i64,
    /// The summary that replaced it (an edit), if any.
    pub replaced_by: Option<i64>,
    /// Set when the user deleted it.
    pub deleted_at: Option<i64>,
}

fn record(r: &rusqlite::Row<'_>) -> rusqlite::Result<SummaryRecord> {
    Ok(SummaryRecord {
        id: r.get(0)?,
        session_id: r.get(1)?,
        upto_message_id: r.get(2)?,
        content: r.get(3)?,
        model: r.get(4)?,
        source: r.get(5)?,
        created_at: r.get(6)?,
        replaced_by: r.get(7)?,
        deleted_at: r.get(8)?,
    })
}

const COLUMNS: &str =
    "id, session_id, upto_message_id, content, model, source, created_at, replaced_by, deleted_at";

impl crate::store::Store {
    /// Summaries (all sessions, or one), newest first; replaced and deleted
    /// ones included when `all`.
    pub async fn summaries(
        &self,
        session_id: Option<&str>,
        all: bool,
    ) -> Result<Vec<SummaryRecord>, StoreError> {
        let sid = session_id.map(str::to_owned);
        self.db()
            .call(move |c| {
                let sql = format!(
                    "SELECT {COLUMNS} FROM summaries WHERE (?1 IS NULL OR session_id = ?1) {} ORDER BY id DESC",
                    if all { "" } else { "AND deleted_at IS NULL AND replaced_by IS NULL" }
                );
                let mut stmt = c.prepare(&sql)?;
                Ok(stmt.query_map([sid], record)?.collect::<Result<_, _>>()?)
            })
            .await
    }

    /// Rewrite a summary: a new one replaces it; the old one is kept.
    pub async fn edit_summary(&self, id: i64, content: &str) -> Result<i64, StoreError> {
        let content = content.trim().to_owned();
        self.db()
            .call(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let old = tx
                    .query_row(
                        &format!("SELECT {COLUMNS} FROM summaries WHERE id = ?1 AND deleted_at IS NULL AND replaced_by IS NULL"),
                        [id],
                        record,
                    )
                    .optional()?
                    .ok_or(StoreError::NoSummary(id))?;
                tx.execute(
                    "INSERT INTO summaries (session_id, upto_message_id, content, model, source, created_at)
                     VALUES (?1, ?2, ?3, 'user', 'user', ?4)",
                    params![old.session_id, old.upto_message_id, content, now_ms()],
                )?;
                let new = tx.last_insert_rowid();
                tx.execute("UPDATE summaries SET replaced_by = ?2 WHERE id = ?1", params![id, new])?;
                tx.commit()?;
                Ok(new)
            })
            .await
    }

    /// Delete a summary (a tombstone; the messages it covered are sent again).
    pub async fn delete_summary(&self, id: i64) -> Result<(), StoreError> {
        self.db()
            .call(move |c| {
                let n = c.execute(
                    "UPDATE summaries SET deleted_at = ?2 WHERE id = ?1 AND deleted_at IS NULL",
                    params![id, now_ms()],
                )?;
                if n == 0 {
                    return Err(StoreError::NoSummary(id));
                }
                Ok(())
            })
            .await
    }
}
