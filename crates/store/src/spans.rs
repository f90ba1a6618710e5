//! The `spans` table: the trace of a run — one row per model call (model,
//! tokens in and out, time) and per tool call (name, time, error). The run
//! itself is its row in `runs`.

use hearth_core::{MessageStatus, Span, SpanKind};
use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::migration::Migration;

pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
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
    },
    Migration {
        version: 10,
        name: "span timings and details",
        sql: "ALTER TABLE spans ADD COLUMN load_ms INTEGER;
              ALTER TABLE spans ADD COLUMN prompt_eval_ms INTEGER;
              ALTER TABLE spans ADD COLUMN eval_ms INTEGER;
              ALTER TABLE spans ADD COLUMN detail TEXT;",
    },
    Migration {
        version: 11,
        name: "prompt tokens reused from the cache",
        sql: "ALTER TABLE spans ADD COLUMN tokens_cached INTEGER;",
    },
];

/// A stored span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanRecord {
    /// A model call, a tool call, a compaction or a guard finding.
    pub kind: SpanKind,
    /// Model or tool name.
    pub name: String,
    /// Wall time.
    pub duration_ms: i64,
    /// Prompt tokens, a prefix reused from the server's cache included.
    pub tokens_in: Option<i64>,
    /// Of those, the tokens the server reused from its cache.
    pub tokens_cached: Option<i64>,
    /// Tokens generated.
    pub tokens_out: Option<i64>,
    /// How it failed.
    pub error: Option<String>,
    /// Model calls: the server's load time.
    pub load_ms: Option<i64>,
    /// Model calls: the server's prompt evaluation time.
    pub prompt_eval_ms: Option<i64>,
    /// Model calls: the server's generation time.
    pub eval_ms: Option<i64>,
    /// A line of context.
    pub detail: Option<String>,
}

/// A run's trace (docs/background.md §3.12): the run itself, then its spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunTrace {
    /// The run.
    pub run_id: String,
    /// How it ended; `None` while it runs.
    pub status: Option<MessageStatus>,
    /// Started at, ms since the epoch.
    pub started_at: i64,
    /// Ended at, ms since the epoch.
    pub ended_at: Option<i64>,
    /// Its model calls, tool calls, compactions and guard findings.
    pub spans: Vec<SpanRecord>,
}

/// Record a span of a run (runs unknown to the store are skipped: a
/// sub-agent's run lives in memory).
pub(crate) fn record(conn: &Connection, run_id: &str, s: &Span) -> Result<(), StoreError> {
    let ms = |v: Option<u64>| v.map(|v| i64::try_from(v).unwrap_or(i64::MAX));
    conn.execute(
        "INSERT INTO spans (run_id, kind, name, duration_ms, tokens_in, tokens_out, error, ended_at,
                            load_ms, prompt_eval_ms, eval_ms, detail, tokens_cached)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13
         WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1)",
        params![
            run_id,
            s.kind.as_str(),
            s.name,
            i64::try_from(s.duration_ms).unwrap_or(i64::MAX),
            s.tokens_in,
            s.tokens_out,
            s.error,
            now_ms(),
            ms(s.load_ms),
            ms(s.prompt_eval_ms),
            ms(s.eval_ms),
            s.detail,
            s.tokens_cached,
        ],
    )?;
    Ok(())
}

/// The spans of a run, in order.
pub(crate) fn of_run(conn: &Connection, run_id: &str) -> Result<Vec<SpanRecord>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT kind, name, duration_ms, tokens_in, tokens_out, error, load_ms, prompt_eval_ms, eval_ms, detail, tokens_cached
         FROM spans WHERE run_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([run_id], |r| {
        let kind: String = r.get(0)?;
        Ok(SpanRecord {
            kind: SpanKind::parse(&kind).ok_or_else(|| {
                rusqlite::Error::FromSqlConversionFailure(
                    0,
                    rusqlite::types::Type::Text,
                    format!("unknown span kind {kind:?}").into(),
                )
            })?,
            name: r.get(1)?,
            duration_ms: r.get(2)?,
            tokens_in: r.get(3)?,
            tokens_out: r.get(4)?,
            error: r.get(5)?,
            load_ms: r.get(6)?,
            prompt_eval_ms: r.get(7)?,
            eval_ms: r.get(8)?,
            detail: r.get(9)?,
            tokens_cached: r.get(10)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The trace of a run; `None` for a run the store does not know.
pub(crate) fn trace(conn: &Connection, run_id: &str) -> Result<Option<RunTrace>, StoreError> {
    let run = conn
        .query_row(
            "SELECT status, started_at, ended_at FROM runs WHERE id = ?1",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let Some((status, started_at, ended_at)) = run else {
        return Ok(None);
    };
    let status: Option<String> = status;
    Ok(Some(RunTrace {
        run_id: run_id.to_owned(),
        status: status.as_deref().map(crate::messages::parse_status),
        started_at,
        ended_at,
        spans: of_run(conn, run_id)?,
    }))
}
