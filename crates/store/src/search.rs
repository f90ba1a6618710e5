//! Full-text search over message content (FTS5). Owns the `messages_fts`
//! index and the triggers that keep it in step with `messages`; turns what
//! a person typed into a query that cannot break FTS5's syntax. Reads
//! `messages` and `sessions`; changes neither.

use hearth_core::Role;
use rusqlite::{Connection, params};

use crate::error::StoreError;
use crate::messages::parse_role;
use crate::migration::Migration;
use crate::store::Store;

/// An external-content index: the text lives once, in `messages`, and the
/// index holds only tokens. `remove_diacritics 2` lets "cafe" find "café".
/// Messages are append-only, so the insert trigger is what keeps the index
/// current; the delete and update triggers never fire today, but an
/// external-content index that misses a change is silently corrupt, so a
/// future purge must not be able to forget them. `rebuild` indexes the rows
/// written before this version.
pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 4,
    name: "full-text search over messages",
    sql: "CREATE VIRTUAL TABLE messages_fts USING fts5(
              content,
              content = 'messages',
              content_rowid = 'id',
              tokenize = 'unicode61 remove_diacritics 2'
          );
          CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
              INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
          END;
          CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
              INSERT INTO messages_fts (messages_fts, rowid, content)
              VALUES ('delete', old.id, old.content);
          END;
          CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
              INSERT INTO messages_fts (messages_fts, rowid, content)
              VALUES ('delete', old.id, old.content);
              INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
          END;
          INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');",
}];

/// Put before each matched word in [`SearchHit::snippet`].
pub const MATCH_START: &str = "\u{2}";
/// Put after each matched word in [`SearchHit::snippet`].
pub const MATCH_END: &str = "\u{3}";

/// One message that matched a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The session it belongs to.
    pub session_id: String,
    /// That session's title ("" when it has none).
    pub session_title: String,
    /// The message; it may be on a branch that is not the current one
    /// (`Store::switch_branch` goes there).
    pub message_id: i64,
    /// Who wrote it.
    pub role: Role,
    /// A short extract around the match, `…` where text was cut, each
    /// matched word between [`MATCH_START`] and [`MATCH_END`] (control
    /// characters, so they never clash with the text; a front end replaces
    /// them with its own highlighting).
    pub snippet: String,
}

/// Turn free text into an FTS5 query that matches messages containing every
/// word (as a prefix, so results come while typing), or `None` when there is
/// nothing to search for.
///
/// Each whitespace-separated word becomes a quoted string (`"` doubled), so
/// operators (`AND`, `NEAR(`, `-`, `*`, `^`, `:`) are only text. A word
/// without a letter or digit is dropped: the tokenizer takes punctuation and
/// symbols for separators, so it would be an empty phrase, which FTS5
/// ignores beside other words and matches nothing alone; dropping it says
/// so plainly (nothing left: nothing to search for).
pub(crate) fn fts_query(input: &str) -> Option<String> {
    let terms: Vec<String> = input
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .map(|w| format!("\"{}\"*", w.replace('"', "\"\"")))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}

/// Messages matching `query`, newest first, at most `limit`; deleted
/// sessions are left out.
pub(crate) fn search(
    conn: &Connection,
    query: &str,
    limit: usize,
    project: Option<&str>,
) -> Result<Vec<SearchHit>, StoreError> {
    let Some(q) = fts_query(query) else {
        return Ok(Vec::new());
    };
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    // Ordered by the index's own rowid (the message id, which grows with
    // time) so FTS5 walks newest first and stops at the limit.
    let mut stmt = conn.prepare_cached(
        "SELECT m.session_id, s.title, m.id, m.role,
                snippet(messages_fts, 0, ?3, ?4, '…', 16)
         FROM messages_fts
         JOIN messages m ON m.id = messages_fts.rowid
         JOIN sessions s ON s.id = m.session_id
         WHERE messages_fts MATCH ?1 AND s.deleted_at IS NULL
               AND (?5 IS NULL OR s.project_id = ?5)
         ORDER BY messages_fts.rowid DESC
         LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![q, limit, MATCH_START, MATCH_END, project], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, Option<String>>(4)?,
        ))
    })?;
    rows.map(|row| {
        let (session_id, session_title, message_id, role, snippet) = row?;
        Ok(SearchHit {
            session_id,
            session_title,
            message_id,
            role: parse_role(&role)?,
            snippet: snippet.unwrap_or_default(),
        })
    })
    .collect()
}

impl Store {
    /// Messages whose content contains every word of `query` (each word
    /// also matching as a prefix; accents ignored), newest first, at most
    /// `limit`. Every branch is searched; deleted sessions are not. Any
    /// input is safe: FTS5 operators are taken as text, and a query with no
    /// words returns nothing.
    pub async fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, StoreError> {
        self.search_in(query, limit, None).await
    }

    /// [`Store::search`] within the sessions of project `project` (an id),
    /// or of every session when `None`.
    pub async fn search_in(
        &self,
        query: &str,
        limit: usize,
        project: Option<&str>,
    ) -> Result<Vec<SearchHit>, StoreError> {
        let (query, project) = (query.to_owned(), project.map(str::to_owned));
        self.db()
            .call(move |c| search(c, &query, limit, project.as_deref()))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::fts_query;

    #[test]
    fn words_are_quoted_prefixes_and_operators_are_text() {
        assert_eq!(fts_query("  "), None);
        assert_eq!(fts_query("\" * - ( 🌍"), None);
        assert_eq!(fts_query("blue"), Some("\"blue\"*".into()));
        assert_eq!(
            fts_query("NEAR(a b) say\"hi"),
            Some("\"NEAR(a\"* \"b)\"* \"say\"\"hi\"*".into())
        );
    }
}
