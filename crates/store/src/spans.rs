//! The `spans` table: the trace of a run — one row per model call (model,
//! tokens in and out, time) and per tool call (name, time, error). The run
//! itself is its row in `runs`.

use hearth_core::Span;
use rusqlite::{Connection, params};

use crate::error::StoreError;
use crate::migrate::Migration;
use crate::sessions::now_ms;

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 7,
    name: "spans",
    sql: "CREATE TABLE spans (
              id INTEGER PRIMARY KEY,
              run_id TEXT NOT NULL REFERENCES runs(id),
              kind TEXT NOT NULL,
              name TEXT NOT NULL,
              duration_ms INTEGER NOT NULL,
              tokens_in INTEGER,
              tokens_out INTEGER,
              error TEXT,
              ended_at INTEGER NOT NULL
          );
          CREATE INDEX spans_by_run ON spans(run_id, id);",
}];

/// A stored span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanRecord {
    /// `model` or `tool`.
    pub kind: String,
    /// Model or tool name.
    pub name: String,
    /// Wall time.
    pub duration_ms: i64,
    /// Prompt tokens evaluated.
    pub tokens_in: Option<i64>,
    /// Tokens generated.
    pub tokens_out: Option<i64>,
    /// How it failed.
    pub error: Option<String>,
}

/// Record a span of a run (runs unknown to the store are skipped: a
/// sub-agent's run lives in memory).
pub(crate) fn record(conn: &Connection, run_id: &str, s: &Span) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO spans (run_id, kind, name, duration_ms, tokens_in, tokens_out, error, ended_at)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1)",
        params![
            run_id,
            s.kind,
            s.name,
            i64::try_from(s.duration_ms).unwrap_or(i64::MAX),
            s.tokens_in,
            s.tokens_out,
            s.error,
            now_ms()
        ],
    )?;
    Ok(())
}

/// The spans of a run, in order.
pub(crate) fn of_run(conn: &Connection, run_id: &str) -> Result<Vec<SpanRecord>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT kind, name, duration_ms, tokens_in, tokens_out, error FROM spans WHERE run_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([run_id], |r| {
        Ok(SpanRecord {
            kind: r.get(0)?,
            name: r.get(1)?,
            duration_ms: r.get(2)?,
            tokens_in: r.get(3)?,
            tokens_out: r.get(4)?,
            error: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
