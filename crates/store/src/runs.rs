//! The `runs`, `instances` and `drafts` tables: which process owns a run in
//! progress, and the answer it has streamed so far. What lets a crash be
//! repaired instead of leaving a half-written turn.

use hearth_core::{ChatMessage, MessageStatus};
use rusqlite::{Connection, params};

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::migration::Migration;
use crate::sessions;

pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 2,
        name: "runs, instances, drafts",
        sql: "CREATE TABLE instances (
              id TEXT PRIMARY KEY,
              pid INTEGER NOT NULL,
              started_at INTEGER NOT NULL,
              heartbeat_at INTEGER NOT NULL
          );
          CREATE TABLE runs (
              id TEXT PRIMARY KEY,
              session_id TEXT NOT NULL REFERENCES sessions(id),
              instance_id TEXT NOT NULL,
              status TEXT,
              started_at INTEGER NOT NULL,
              ended_at INTEGER
          );
          CREATE INDEX runs_open ON runs(session_id) WHERE ended_at IS NULL;
          CREATE TABLE drafts (
              run_id TEXT PRIMARY KEY REFERENCES runs(id),
              session_id TEXT NOT NULL,
              content TEXT NOT NULL,
              thinking TEXT,
              updated_at INTEGER NOT NULL
          );",
    },
    Migration {
        version: 16,
        name: "what an answer showed besides its messages",
        // A JSON array of the run's events a stored answer shows again
        // (hearth_core's answer record); NULL for runs before it, or headless.
        sql: "ALTER TABLE runs ADD COLUMN shown TEXT;",
    },
    Migration {
        version: 19,
        name: "which model and host a run started on; runs a crash cut off",
        // `model`/`host` are written as the run starts (NULL for runs before
        // it); `cut_off` is 1 for a run ended by the crash repair
        // (recovery.rs), so its answer is not shown as stopped by the user.
        sql: "ALTER TABLE runs ADD COLUMN model TEXT;
              ALTER TABLE runs ADD COLUMN host TEXT;
              ALTER TABLE runs ADD COLUMN cut_off INTEGER NOT NULL DEFAULT 0;",
    },
];

/// Record the model and host run `run_id` starts on.
pub(crate) fn describe(
    conn: &Connection,
    run_id: &str,
    model: &str,
    host: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE runs SET model = ?2, host = ?3 WHERE id = ?1",
        params![run_id, model, host],
    )?;
    Ok(())
}

/// Mark run `run_id` as ended by the crash repair, not by its own end.
pub(crate) fn mark_cut_off(conn: &Connection, run_id: &str) -> Result<(), StoreError> {
    conn.execute("UPDATE runs SET cut_off = 1 WHERE id = ?1", [run_id])?;
    Ok(())
}

/// What a session's answers say about their run beside their messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerRun {
    /// The run.
    pub run_id: String,
    /// The model of its first model call, else the one it started on
    /// (`None` for a run before that was recorded that made no call).
    pub model: Option<String>,
    /// The host it started on (`None` for runs before that was recorded).
    pub host: Option<String>,
    /// Hearth stopped (a crash or a kill) before the run ended.
    pub cut_off: bool,
}

/// The [`AnswerRun`] of each of a session's runs, in the order they
/// started. The first model call's model wins over the one the run started
/// on: it is what answered (looked up per run, on the spans' run index).
pub(crate) fn answer_runs(
    conn: &Connection,
    session_id: &str,
) -> Result<Vec<AnswerRun>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT r.id,
                COALESCE((SELECT s.name FROM spans s WHERE s.run_id = r.id AND s.kind = 'model'
                          ORDER BY s.id LIMIT 1), r.model),
                r.host, r.cut_off
         FROM runs r
         WHERE r.session_id = ?1
         ORDER BY r.started_at, r.rowid",
    )?;
    let rows = stmt.query_map([session_id], |r| {
        Ok(AnswerRun {
            run_id: r.get(0)?,
            model: r.get(1)?,
            host: r.get(2)?,
            cut_off: r.get::<_, i64>(3)? != 0,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Keep what run `run_id`'s answer showed (JSON events).
pub(crate) fn record_shown(conn: &Connection, run_id: &str, json: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE runs SET shown = ?2 WHERE id = ?1",
        params![run_id, json],
    )?;
    Ok(())
}

/// `(run id, events)` of the session's runs that kept what they showed, in
/// the order they started. A record that does not parse is left out (the
/// answer still shows its messages).
pub(crate) fn shown_of_session(
    conn: &Connection,
    session_id: &str,
) -> Result<Vec<(String, Vec<serde_json::Value>)>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT id, shown FROM runs WHERE session_id = ?1 AND shown IS NOT NULL
         ORDER BY started_at, rowid",
    )?;
    let rows = stmt.query_map([session_id], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, json) = row?;
        match serde_json::from_str::<Vec<serde_json::Value>>(&json) {
            Ok(events) => out.push((id, events)),
            Err(e) => tracing::warn!("what run {id} showed does not parse: {e}"),
        }
    }
    Ok(out)
}

/// Record a run's start, owned by `instance`.
pub(crate) fn begin(
    conn: &Connection,
    session_id: &str,
    run_id: &str,
    instance: &str,
) -> Result<(), StoreError> {
    sessions::ensure(conn, session_id)?;
    conn.execute(
        "INSERT OR IGNORE INTO runs (id, session_id, instance_id, started_at) VALUES (?1, ?2, ?3, ?4)",
        params![run_id, session_id, instance, now_ms()],
    )?;
    Ok(())
}

/// Record a run's end and drop its draft.
pub(crate) fn end(
    conn: &Connection,
    run_id: &str,
    status: MessageStatus,
) -> Result<(), StoreError> {
    let s = match status {
        MessageStatus::Complete => "complete",
        MessageStatus::Interrupted => "interrupted",
        MessageStatus::Error => "error",
    };
    conn.execute(
        "UPDATE runs SET status = ?2, ended_at = ?3 WHERE id = ?1 AND ended_at IS NULL",
        params![run_id, s, now_ms()],
    )?;
    conn.execute("DELETE FROM drafts WHERE run_id = ?1", [run_id])?;
    Ok(())
}

/// Save the partial answer of a run (replacing the previous checkpoint).
pub(crate) fn checkpoint(
    conn: &Connection,
    session_id: &str,
    run_id: &str,
    m: &ChatMessage,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO drafts (run_id, session_id, content, thinking, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(run_id) DO UPDATE SET content = ?3, thinking = ?4, updated_at = ?5",
        params![run_id, session_id, m.content, m.thinking, now_ms()],
    )?;
    Ok(())
}

/// The partial answer of a run, if one was checkpointed.
pub(crate) fn take_draft(
    conn: &Connection,
    run_id: &str,
) -> Result<Option<(String, Option<String>)>, StoreError> {
    let mut stmt = conn.prepare("SELECT content, thinking FROM drafts WHERE run_id = ?1")?;
    let mut rows = stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let draft = rows.next().transpose()?;
    drop(rows);
    conn.execute("DELETE FROM drafts WHERE run_id = ?1", [run_id])?;
    Ok(draft)
}

/// Runs not ended, with their owner, optionally in one session.
pub(crate) fn open_runs(
    conn: &Connection,
    session: Option<&str>,
) -> Result<Vec<(String, String, String)>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT id, session_id, instance_id FROM runs
         WHERE ended_at IS NULL AND (?1 IS NULL OR session_id = ?1)",
    )?;
    let rows = stmt.query_map([session], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
