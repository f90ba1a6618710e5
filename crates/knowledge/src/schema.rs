//! The index's database: its tables and their one migration so far.
//!
//! `folders` are what the user added; `files` every file seen in them, with
//! the content hash that makes a sync incremental and the reason a file
//! has no passages; `chunks` the passages, each with its vector once
//! embedded (`NULL` until then: that is the embedding pass's to-do list);
//! `chunks_fts` an FTS5 index over the passages' text, heading and path,
//! kept by triggers; `meta` the embedding model and dimension the vectors
//! were made with.

use std::path::Path;

use rusqlite::Connection;

use crate::error::KnowledgeError;

/// The schema this build writes.
pub(crate) const SCHEMA_VERSION: i64 = 2;

/// Version 2: the passages given up on (an empty vector) indexed apart, as
/// those still to embed are, so a folder's counts read the two small
/// indexes instead of every passage's row (the sidebar and each chat
/// opened ask for them).
const V2: &str = "CREATE INDEX chunks_given_up ON chunks(id) WHERE length(embedding) = 0;";

const V1: &str = "
CREATE TABLE folders (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    project TEXT,
    added_at INTEGER NOT NULL,
    synced_at INTEGER,
    state TEXT NOT NULL DEFAULT 'new',
    detail TEXT
);
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
    rel_path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT,
    kind TEXT,
    skipped TEXT,
    chunks INTEGER NOT NULL DEFAULT 0,
    seen INTEGER NOT NULL DEFAULT 0,
    UNIQUE (folder_id, rel_path)
);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    heading TEXT,
    path TEXT NOT NULL,
    text TEXT NOT NULL,
    embedding BLOB
);
CREATE INDEX chunks_file ON chunks(file_id);
CREATE INDEX chunks_unembedded ON chunks(id) WHERE embedding IS NULL;
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text, heading, path,
    content='chunks', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
-- BM25 with the text weighing most, a heading or the file's path still
-- counting (a question about 'install' finds INSTALL.md), kept as the
-- table's rank so that `ORDER BY rank LIMIT n` takes FTS5's fast path.
INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', 'bm25(1.0, 0.5, 0.3)');
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, heading, path)
    VALUES (new.id, new.text, coalesce(new.heading, ''), new.path);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, heading, path)
    VALUES ('delete', old.id, old.text, coalesce(old.heading, ''), old.path);
END;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
";

/// Opens (creating) the index at `path`, migrated to [`SCHEMA_VERSION`].
pub(crate) fn open(path: &Path) -> Result<Connection, KnowledgeError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| KnowledgeError::Folder {
            path: dir.display().to_string(),
            detail: e.to_string(),
        })?;
    }
    let conn = Connection::open(path)?;
    prepare(&conn)?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(KnowledgeError::NewerSchema {
            path: path.display().to_string(),
            found: version,
            known: SCHEMA_VERSION,
        });
    }
    if version < 1 {
        conn.execute_batch(&format!(
            "BEGIN; {V1} {V2} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
        ))?;
    } else if version < 2 {
        conn.execute_batch(&format!(
            "BEGIN; {V2} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
        ))?;
    }
    query_tables(&conn)?;
    Ok(conn)
}

/// The tokenizer of `chunks_fts`, which the query's words go through too.
pub(crate) const TOKENIZE: &str = "porter unicode61 remove_diacritics 2";

/// This connection's temporary tables for counting a query's words
/// (crate::query::counted): the words tokenized by the passages' own
/// tokenizer (`query_tokens`: each word's terms), and the index's
/// vocabulary (`passage_terms`: how many passages hold each term). Nothing
/// of them is written to the database file.
fn query_tables(conn: &Connection) -> Result<(), KnowledgeError> {
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_words USING fts5(word, tokenize='{TOKENIZE}');
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens USING fts5vocab(temp, query_words, instance);
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.passage_terms USING fts5vocab(main, chunks_fts, row);"
    ))?;
    Ok(())
}

/// WAL, so searches read while a sync writes; foreign keys, so a folder's
/// removal takes its files and passages; a busy wait for the other
/// connection's write.
fn prepare(conn: &Connection) -> Result<(), KnowledgeError> {
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_words_go_through_the_passages_tokenizer() {
        assert!(V1.contains(&format!("tokenize='{TOKENIZE}'")));
    }
}
