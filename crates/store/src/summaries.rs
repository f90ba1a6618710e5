//! The `summaries` table: compaction summaries of a session's branch. Each
//! records the last message it covers; a summary counts only while that
//! message is on the current branch (a fork before it makes it stale).
//! Summaries are only ever added; messages are never deleted.

use hearth_core::Summary;
use rusqlite::{Connection, OptionalExtension, params};

use crate::error::StoreError;
use crate::messages;
use crate::migrate::Migration;
use crate::sessions::now_ms;

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 6,
    name: "summaries",
    sql: "CREATE TABLE summaries (
              id INTEGER PRIMARY KEY,
              session_id TEXT NOT NULL REFERENCES sessions(id),
              upto_message_id INTEGER NOT NULL REFERENCES messages(id),
              content TEXT NOT NULL,
              model TEXT NOT NULL,
              created_at INTEGER NOT NULL
          );
          CREATE INDEX summaries_by_session ON summaries(session_id, id);",
}];

/// The newest summary whose covered message is on the current branch,
/// with the number of branch messages it covers.
pub(crate) fn latest(conn: &Connection, session_id: &str) -> Result<Option<Summary>, StoreError> {
    let branch = messages::branch(conn, session_id, None)?;
    let mut stmt = conn.prepare_cached(
        "SELECT upto_message_id, content FROM summaries WHERE session_id = ?1 ORDER BY id DESC",
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
