//! The `sessions` table: one row per conversation, with the tip of its
//! current branch (`head_id`) and a soft delete that can be undone.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::migration::Migration;

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "sessions",
    sql: "CREATE TABLE sessions (
              id TEXT PRIMARY KEY,
              title TEXT NOT NULL DEFAULT '',
              head_id INTEGER,
              created_at INTEGER NOT NULL,
              updated_at INTEGER NOT NULL,
              deleted_at INTEGER
          );
          CREATE INDEX sessions_by_update ON sessions(updated_at DESC);",
}];

/// A time stamp for a session change: now, but always after every earlier
/// change, so "newest first" holds even for changes in the same millisecond.
pub(crate) fn change_stamp(conn: &Connection) -> Result<i64, StoreError> {
    let last: i64 = conn.query_row(
        "SELECT coalesce(max(updated_at), 0) FROM sessions",
        [],
        |r| r.get(0),
    )?;
    Ok(now_ms().max(last + 1))
}

/// A session as a list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    /// Id.
    pub id: String,
    /// Title ("" until one is set or generated).
    pub title: String,
    /// The start of its first question, on one line (at most 60
    /// characters): what a list shows while there is no title (a first
    /// answer that was stopped or failed is never titled; user pass
    /// 2026-12, defect 12). "" once titled, and without a question.
    pub opening: String,
    /// Messages on the current branch.
    pub messages: u64,
    /// Created, ms since the epoch.
    pub created_at: i64,
    /// Last change, ms since the epoch.
    pub updated_at: i64,
    /// The project it is in, by id.
    pub project: Option<String>,
}

/// Create the session if it does not exist.
pub(crate) fn ensure(conn: &Connection, id: &str) -> Result<(), StoreError> {
    let now = change_stamp(conn)?;
    conn.execute(
        "INSERT OR IGNORE INTO sessions (id, created_at, updated_at) VALUES (?1, ?2, ?2)",
        params![id, now],
    )?;
    Ok(())
}

/// Put the session's head at `head` (a message of it, or `None` before its
/// first): the next append follows it. Importing branches uses it; a user's
/// branch switch goes through `branches.rs`, which checks for a live run.
pub(crate) fn set_head(conn: &Connection, id: &str, head: Option<i64>) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE sessions SET head_id = ?2 WHERE id = ?1",
        params![id, head],
    )?;
    Ok(())
}

/// The tip of the session's current branch.
pub(crate) fn head(conn: &Connection, id: &str) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .query_row("SELECT head_id FROM sessions WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .optional()?
        .flatten())
}

/// Sessions not deleted, newest first, with the length of their branch.
pub(crate) fn list(conn: &Connection) -> Result<Vec<SessionSummary>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT s.id, s.title, s.created_at, s.updated_at,
                (WITH RECURSIVE chain(id) AS (
                     SELECT s.head_id
                     UNION ALL
                     SELECT m.parent_id FROM messages m JOIN chain c ON m.id = c.id
                     WHERE m.parent_id IS NOT NULL)
                 SELECT count(*) FROM chain WHERE id IS NOT NULL),
                (WITH RECURSIVE chain(id) AS (
                     SELECT s.head_id
                     UNION ALL
                     SELECT m.parent_id FROM messages m JOIN chain c ON m.id = c.id
                     WHERE m.parent_id IS NOT NULL)
                 SELECT substr(m.content, 1, 400) FROM chain JOIN messages m ON m.id = chain.id
                 WHERE s.title = '' AND m.role = 'user' ORDER BY m.id LIMIT 1),
                s.project_id
         FROM sessions s WHERE s.deleted_at IS NULL
         ORDER BY s.updated_at DESC, s.rowid DESC",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(SessionSummary {
            id: r.get(0)?,
            title: r.get(1)?,
            created_at: r.get(2)?,
            updated_at: r.get(3)?,
            messages: r.get::<_, i64>(4)?.try_into().unwrap_or(0),
            opening: opening(
                r.get::<_, Option<String>>(5)?
                    .as_deref()
                    .unwrap_or_default(),
            ),
            project: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A question's start on one line: its first words up to 60 characters.
fn opening(question: &str) -> String {
    let words = question.split_whitespace().collect::<Vec<_>>().join(" ");
    if words.chars().count() <= 60 {
        return words;
    }
    // 59 characters and the ellipsis, cut at a word's end where there is
    // one in the second half (the 60th character tells whether the 59th
    // ends a word).
    let cut: String = words.chars().take(60).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > 30 => &cut[..i],
        _ => &cut[..cut.char_indices().nth(59).map_or(cut.len(), |(i, _)| i)],
    };
    format!("{}…", cut.trim_end())
}

/// `title`, or where a listed session already has it, `title (why)`, then
/// `title (why 2)`…: an imported copy beside its original is told apart in
/// the list (user pass 2026-12, defect 33).
pub(crate) fn unused_title(
    conn: &Connection,
    title: &str,
    why: &str,
) -> Result<String, StoreError> {
    let taken = |t: &str| -> Result<bool, StoreError> {
        Ok(conn.query_row(
            "SELECT EXISTS(SELECT 1 FROM sessions WHERE title = ?1 AND deleted_at IS NULL)",
            [t],
            |r| r.get(0),
        )?)
    };
    if !taken(title)? {
        return Ok(title.to_owned());
    }
    let mut n = 1u32;
    loop {
        let candidate = if n == 1 {
            format!("{title} ({why})")
        } else {
            format!("{title} ({why} {n})")
        };
        if !taken(&candidate)? {
            return Ok(candidate);
        }
        n += 1;
    }
}

/// Rename; an unknown id is an error. A rename is not news in the
/// conversation: the session keeps its place in the newest-first list
/// (user pass 2026-12, defect 25: a renamed chat jumped to the top).
pub(crate) fn rename(conn: &Connection, id: &str, title: &str) -> Result<(), StoreError> {
    let n = conn.execute(
        "UPDATE sessions SET title = ?2 WHERE id = ?1",
        params![id, title],
    )?;
    if n == 0 {
        return Err(StoreError::NoSession(id.to_owned()));
    }
    Ok(())
}

/// Soft-delete (`deleted = true`) or undo it.
pub(crate) fn set_deleted(conn: &Connection, id: &str, deleted: bool) -> Result<(), StoreError> {
    let at = deleted.then(now_ms);
    let n = conn.execute(
        "UPDATE sessions SET deleted_at = ?2 WHERE id = ?1",
        params![id, at],
    )?;
    if n == 0 {
        return Err(StoreError::NoSession(id.to_owned()));
    }
    Ok(())
}

/// How long a deleted session can be restored.
pub const UNDO_DAYS: i64 = 30;

/// Remove for good the sessions deleted more than [`UNDO_DAYS`] ago, with
/// everything that belongs to them. Returns how many went.
pub(crate) fn purge_deleted(conn: &mut Connection) -> Result<usize, StoreError> {
    let cutoff = now_ms() - UNDO_DAYS * 86_400_000;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let ids: Vec<String> = {
        let mut stmt =
            tx.prepare("SELECT id FROM sessions WHERE deleted_at IS NOT NULL AND deleted_at < ?1")?;
        stmt.query_map([cutoff], |r| r.get(0))?
            .collect::<Result<_, _>>()?
    };
    for id in &ids {
        tx.execute(
            "DELETE FROM spans WHERE run_id IN (SELECT id FROM runs WHERE session_id = ?1)",
            [id],
        )?;
        tx.execute("DELETE FROM drafts WHERE session_id = ?1", [id])?;
        tx.execute("DELETE FROM unsent WHERE session_id = ?1", [id])?;
        tx.execute("DELETE FROM runs WHERE session_id = ?1", [id])?;
        tx.execute("DELETE FROM summaries WHERE session_id = ?1", [id])?;
        tx.execute("UPDATE sessions SET head_id = NULL WHERE id = ?1", [id])?;
        crate::attachments::forget_session(&tx, id)?;
        tx.execute("DELETE FROM messages WHERE session_id = ?1", [id])?;
        tx.execute("DELETE FROM sessions WHERE id = ?1", [id])?;
    }
    tx.commit()?;
    Ok(ids.len())
}
