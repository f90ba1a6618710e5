//! The `subagent_transcripts` table: what each sub-agent did for a
//! `spawn_agent` call, kept with the parent's turn (its session and call),
//! so the nested cards are still there after a restart.

use hearth_core::{ChatMessage, SubagentTranscript};
use rusqlite::{Connection, params};

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::migration::Migration;

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 9,
    name: "sub-agent transcripts",
    sql: "CREATE TABLE subagent_transcripts (
              id INTEGER PRIMARY KEY,
              parent_session_id TEXT NOT NULL,
              parent_run_id TEXT NOT NULL,
              parent_call_id TEXT NOT NULL,
              session_id TEXT NOT NULL,
              profile TEXT NOT NULL,
              messages TEXT NOT NULL,
              created_at INTEGER NOT NULL
          );
          CREATE INDEX subagent_transcripts_by_parent ON subagent_transcripts(parent_session_id, id);",
}];

pub(crate) fn record(conn: &Connection, t: &SubagentTranscript) -> Result<(), StoreError> {
    let messages =
        serde_json::to_string(&t.messages).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    conn.execute(
        "INSERT INTO subagent_transcripts
             (parent_session_id, parent_run_id, parent_call_id, session_id, profile, messages, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            t.parent_session_id,
            t.parent_run_id,
            t.parent_call_id,
            t.session_id,
            t.profile,
            messages,
            now_ms()
        ],
    )?;
    Ok(())
}

fn of_parent(conn: &Connection, parent: &str) -> Result<Vec<SubagentTranscript>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT parent_session_id, parent_run_id, parent_call_id, session_id, profile, messages
         FROM subagent_transcripts WHERE parent_session_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([parent], |r| {
        Ok((
            SubagentTranscript {
                parent_session_id: r.get(0)?,
                parent_run_id: r.get(1)?,
                parent_call_id: r.get(2)?,
                session_id: r.get(3)?,
                profile: r.get(4)?,
                messages: Vec::new(),
            },
            r.get::<_, String>(5)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (mut t, json) = row?;
        t.messages = serde_json::from_str::<Vec<ChatMessage>>(&json)
            .map_err(|e| StoreError::Corrupt(format!("sub-agent transcript: {e}")))?;
        out.push(t);
    }
    Ok(out)
}

/// The transcripts of a session's sub-agents, nested ones included
/// (breadth first: a sub-agent's own sub-agents follow it).
pub(crate) fn of_session(
    conn: &Connection,
    session_id: &str,
) -> Result<Vec<SubagentTranscript>, StoreError> {
    let mut out = of_parent(conn, session_id)?;
    let mut i = 0;
    while i < out.len() {
        let nested = of_parent(conn, &out[i].session_id)?;
        out.extend(nested);
        i += 1;
    }
    Ok(out)
}
