//! The `messages` table: append-only, each message with its parent, so a
//! session is a tree whose current branch ends at `sessions.head_id`.
//! Appending costs the same whatever the session's length.

use hearth_core::{ChatMessage, MessageStatus, Role, ToolCall};
use rusqlite::{Connection, Row, params};

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::migration::Migration;
use crate::sessions;

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "messages",
    sql: "CREATE TABLE messages (
              id INTEGER PRIMARY KEY,
              session_id TEXT NOT NULL REFERENCES sessions(id),
              parent_id INTEGER REFERENCES messages(id),
              run_id TEXT,
              role TEXT NOT NULL,
              content TEXT NOT NULL,
              thinking TEXT,
              tool_calls TEXT,
              tool_call_id TEXT,
              tool_name TEXT,
              status TEXT NOT NULL,
              created_at INTEGER NOT NULL
          );
          CREATE INDEX messages_by_parent ON messages(parent_id);",
}];

pub(crate) fn role_str(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

pub(crate) fn status_str(s: MessageStatus) -> &'static str {
    match s {
        MessageStatus::Complete => "complete",
        MessageStatus::Interrupted => "interrupted",
        MessageStatus::Error => "error",
    }
}

pub(crate) fn parse_status(s: &str) -> MessageStatus {
    match s {
        "interrupted" => MessageStatus::Interrupted,
        "error" => MessageStatus::Error,
        _ => MessageStatus::Complete,
    }
}

/// Append `m` as the new tip of the session's branch. Call inside a
/// transaction.
pub(crate) fn append(
    conn: &Connection,
    session_id: &str,
    run_id: &str,
    m: ChatMessage,
) -> Result<Stored, StoreError> {
    sessions::ensure(conn, session_id)?;
    let parent = sessions::head(conn, session_id)?;
    let tool_calls = if m.tool_calls.is_empty() {
        None
    } else {
        Some(serde_json::to_string(&m.tool_calls).map_err(|e| StoreError::Corrupt(e.to_string()))?)
    };
    let now = now_ms();
    conn.execute(
        "INSERT INTO messages (session_id, parent_id, run_id, role, content, thinking, tool_calls,
                               tool_call_id, tool_name, status, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            session_id,
            parent,
            run_id,
            role_str(m.role),
            m.content,
            m.thinking,
            tool_calls,
            m.tool_call_id,
            m.tool_name,
            status_str(m.status),
            now
        ],
    )?;
    let id = conn.last_insert_rowid();
    crate::attachments::insert(conn, id, &m.attachments)?;
    conn.execute(
        "UPDATE sessions SET head_id = ?2, updated_at = ?3 WHERE id = ?1",
        params![session_id, id, sessions::change_stamp(conn)?],
    )?;
    Ok(Stored {
        id,
        parent_id: parent,
        run_id: Some(run_id.to_owned()),
        created_at: now,
        message: m,
    })
}

/// A stored message with its row id, parent, run and time.
pub(crate) struct Stored {
    pub id: i64,
    pub parent_id: Option<i64>,
    pub run_id: Option<String>,
    pub created_at: i64,
    pub message: ChatMessage,
}

/// The columns [`from_row`] reads, in order, from `messages` aliased `m`.
const COLUMNS_M: &str = "m.id, m.parent_id, m.run_id, m.created_at, m.role, m.content, \
     m.thinking, m.tool_calls, m.tool_call_id, m.tool_name, m.status";

pub(crate) fn parse_role(s: &str) -> Result<Role, StoreError> {
    match s {
        "system" => Ok(Role::System),
        "user" => Ok(Role::User),
        "assistant" => Ok(Role::Assistant),
        "tool" => Ok(Role::Tool),
        other => Err(StoreError::Corrupt(format!("unknown role `{other}`"))),
    }
}

/// The raw columns of one row, decoded later so a bad value is a
/// [`StoreError::Corrupt`] rather than a SQLite error.
struct Raw {
    id: i64,
    parent_id: Option<i64>,
    run_id: Option<String>,
    created_at: i64,
    role: String,
    content: String,
    thinking: Option<String>,
    tool_calls: Option<String>,
    tool_call_id: Option<String>,
    tool_name: Option<String>,
    status: String,
}

/// Read a row selected with [`COLUMNS_M`].
fn from_row(r: &Row<'_>) -> rusqlite::Result<Raw> {
    Ok(Raw {
        id: r.get(0)?,
        parent_id: r.get(1)?,
        run_id: r.get(2)?,
        created_at: r.get(3)?,
        role: r.get(4)?,
        content: r.get(5)?,
        thinking: r.get(6)?,
        tool_calls: r.get(7)?,
        tool_call_id: r.get(8)?,
        tool_name: r.get(9)?,
        status: r.get(10)?,
    })
}

impl Raw {
    /// Decode the role and the tool calls.
    fn decode(self) -> Result<Stored, StoreError> {
        let tool_calls: Vec<ToolCall> = match self.tool_calls {
            None => Vec::new(),
            Some(j) => serde_json::from_str(&j).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        };
        Ok(Stored {
            id: self.id,
            parent_id: self.parent_id,
            run_id: self.run_id,
            created_at: self.created_at,
            message: ChatMessage {
                role: parse_role(&self.role)?,
                content: self.content,
                thinking: self.thinking,
                tool_calls,
                tool_call_id: self.tool_call_id,
                tool_name: self.tool_name,
                status: parse_status(&self.status),
                attachments: Vec::new(),
            },
        })
    }
}

/// The current branch, oldest first; at most the last `limit` messages.
pub(crate) fn branch(
    conn: &Connection,
    session_id: &str,
    limit: Option<u64>,
) -> Result<Vec<Stored>, StoreError> {
    let limit = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
    // Walk from the tip to the root; ids grow with time, so ordering by id
    // restores the conversation order.
    let mut stmt = conn.prepare_cached(&format!(
        "WITH RECURSIVE chain(id, depth) AS (
             SELECT head_id, 1 FROM sessions WHERE id = ?1 AND head_id IS NOT NULL
             UNION ALL
             SELECT m.parent_id, c.depth + 1 FROM messages m JOIN chain c ON m.id = c.id
             WHERE m.parent_id IS NOT NULL AND (?2 < 0 OR c.depth < ?2))
         SELECT {COLUMNS_M} FROM messages m JOIN chain c ON m.id = c.id ORDER BY m.id"
    ))?;
    let rows = stmt.query_map(params![session_id, limit], from_row)?;
    let list: Vec<Stored> = rows.map(|r| r?.decode()).collect::<Result<_, _>>()?;
    with_attachments(conn, list)
}

/// Every message of the session, on every branch, oldest first (a parent
/// always before its children: ids grow with time).
pub(crate) fn all(conn: &Connection, session_id: &str) -> Result<Vec<Stored>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS_M} FROM messages m WHERE m.session_id = ?1 ORDER BY m.id"
    ))?;
    let rows = stmt.query_map([session_id], from_row)?;
    let list: Vec<Stored> = rows.map(|r| r?.decode()).collect::<Result<_, _>>()?;
    with_attachments(conn, list)
}

/// `list` with each user message's attachments (without their bytes).
pub(crate) fn with_attachments(
    conn: &Connection,
    mut list: Vec<Stored>,
) -> Result<Vec<Stored>, StoreError> {
    let users: Vec<i64> = list
        .iter()
        .filter(|s| s.message.role == Role::User)
        .map(|s| s.id)
        .collect();
    let mut found = crate::attachments::of_messages(conn, &users)?;
    for s in &mut list {
        if let Some(a) = found.remove(&s.id) {
            s.message.attachments = a;
        }
    }
    Ok(list)
}
