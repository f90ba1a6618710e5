//! Long-term memory about the user (docs/design.md §8): facts with provenance
//! (which session and run, learned by the worker, a tool, or written by the
//! user), every earlier version kept, deletions as tombstones. The user
//! wins: a fact they deleted or edited away is never learned again.
//!
//! A session sees the memory as it was when the session started
//! (`sessions.memory_snapshot`), so its prompt prefix stays stable.

use async_trait::async_trait;
use hearth_core::{MemorySource, MemoryWriter};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::fact::{Memory, MemoryVersion, restates, same_fact};
use crate::migration::Migration;
use crate::store::Store;

pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 5,
        name: "memories",
        sql: "CREATE TABLE memories (
              id INTEGER PRIMARY KEY,
              content TEXT NOT NULL,
              source TEXT NOT NULL,
              session_id TEXT,
              run_id TEXT,
              created_at INTEGER NOT NULL,
              updated_at INTEGER NOT NULL,
              version INTEGER NOT NULL DEFAULT 1,
              deleted_at INTEGER
          );
          CREATE TABLE memory_versions (
              memory_id INTEGER NOT NULL REFERENCES memories(id),
              version INTEGER NOT NULL,
              content TEXT NOT NULL,
              source TEXT NOT NULL,
              replaced_at INTEGER NOT NULL,
              PRIMARY KEY (memory_id, version)
          );
          ALTER TABLE sessions ADD COLUMN memory_snapshot TEXT;",
    },
    Migration {
        version: 13,
        name: "memory categories, quotes and uses",
        // What the worker knew of a fact (its category, the user's words
        // it rests on) and how many sessions were given it.
        sql: "ALTER TABLE memories ADD COLUMN category TEXT;
              ALTER TABLE memories ADD COLUMN quote TEXT;
              ALTER TABLE memories ADD COLUMN uses INTEGER NOT NULL DEFAULT 0;",
    },
];

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Memory> {
    Ok(Memory {
        id: r.get(0)?,
        content: r.get(1)?,
        source: r.get(2)?,
        session_id: r.get(3)?,
        run_id: r.get(4)?,
        created_at: r.get(5)?,
        updated_at: r.get(6)?,
        version: r.get(7)?,
        deleted_at: r.get(8)?,
        category: r.get(9)?,
        quote: r.get(10)?,
        uses: r.get(11)?,
    })
}

const COLUMNS: &str = "id, content, source, session_id, run_id, created_at, updated_at, version, deleted_at, category, quote, uses";

fn live(conn: &Connection) -> Result<Vec<Memory>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM memories WHERE deleted_at IS NULL ORDER BY id"
    ))?;
    Ok(stmt.query_map([], row)?.collect::<Result<_, _>>()?)
}

/// Deleted facts and every version the user edited away.
fn forgotten(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT content FROM memories WHERE deleted_at IS NOT NULL
         UNION SELECT content FROM memory_versions",
    )?;
    Ok(stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?)
}

/// The summary new sessions get now, rebuilt from the live facts
/// (`consolidate`), and the ids of the facts in it.
fn summary(memories: &[Memory]) -> (String, Vec<i64>) {
    let kept = crate::consolidate::kept(memories);
    let ids = kept.iter().map(|m| m.id).collect();
    (crate::consolidate::summary(&kept), ids)
}

impl Store {
    /// Every memory, deleted ones included when asked.
    pub async fn memories(&self, include_deleted: bool) -> Result<Vec<Memory>, StoreError> {
        self.db()
            .call(move |c| {
                let sql = format!(
                    "SELECT {COLUMNS} FROM memories {} ORDER BY id",
                    if include_deleted {
                        ""
                    } else {
                        "WHERE deleted_at IS NULL"
                    }
                );
                let mut stmt = c.prepare(&sql)?;
                Ok(stmt.query_map([], row)?.collect::<Result<_, _>>()?)
            })
            .await
    }

    /// One memory and its earlier versions (newest first).
    pub async fn memory(&self, id: i64) -> Result<(Memory, Vec<MemoryVersion>), StoreError> {
        self.db()
            .call(move |c| {
                let m = c
                    .query_row(
                        &format!("SELECT {COLUMNS} FROM memories WHERE id = ?1"),
                        [id],
                        row,
                    )
                    .optional()?
                    .ok_or_else(|| StoreError::NoMemory(id))?;
                let mut stmt = c.prepare(
                    "SELECT version, content, source, replaced_at FROM memory_versions
                     WHERE memory_id = ?1 ORDER BY version DESC",
                )?;
                let versions = stmt
                    .query_map([id], |r| {
                        Ok(MemoryVersion {
                            version: r.get(0)?,
                            content: r.get(1)?,
                            source: r.get(2)?,
                            replaced_at: r.get(3)?,
                        })
                    })?
                    .collect::<Result<_, _>>()?;
                Ok((m, versions))
            })
            .await
    }

    /// The user rewrites a memory; the previous text is kept as a version
    /// and never learned again.
    pub async fn edit_memory(&self, id: i64, content: &str) -> Result<(), StoreError> {
        let content = content.trim().to_owned();
        self.db()
            .call(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let (old, source, version): (String, String, i64) = tx
                    .query_row(
                        "SELECT content, source, version FROM memories WHERE id = ?1 AND deleted_at IS NULL",
                        [id],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                    )
                    .optional()?
                    .ok_or_else(|| StoreError::NoMemory(id))?;
                let now = now_ms();
                tx.execute(
                    "INSERT INTO memory_versions (memory_id, version, content, source, replaced_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![id, version, old, source, now],
                )?;
                tx.execute(
                    "UPDATE memories SET content = ?2, source = 'user', version = version + 1, updated_at = ?3 WHERE id = ?1",
                    params![id, content, now],
                )?;
                tx.commit()?;
                Ok(())
            })
            .await
    }

    /// The user deletes a memory (a tombstone: it is never learned again).
    pub async fn delete_memory(&self, id: i64) -> Result<(), StoreError> {
        self.db()
            .call(move |c| {
                let n = c.execute(
                    "UPDATE memories SET deleted_at = ?2 WHERE id = ?1 AND deleted_at IS NULL",
                    params![id, now_ms()],
                )?;
                if n == 0 {
                    return Err(StoreError::NoMemory(id));
                }
                Ok(())
            })
            .await
    }

    /// The user adds a memory by hand (even one they once deleted).
    pub async fn add_memory(&self, content: &str) -> Result<i64, StoreError> {
        let content = content.trim().to_owned();
        self.db()
            .call(move |c| {
                let now = now_ms();
                c.execute(
                    "INSERT INTO memories (content, source, created_at, updated_at) VALUES (?1, 'user', ?2, ?2)",
                    params![content, now],
                )?;
                Ok(c.last_insert_rowid())
            })
            .await
    }

    /// The user declines a fact memory proposed: it is kept as a tombstone,
    /// so it is never proposed or learned again (as a deleted fact is).
    pub async fn decline_memory(&self, content: &str) -> Result<i64, StoreError> {
        let content = content.trim().to_owned();
        self.db()
            .call(move |c| {
                let now = now_ms();
                c.execute(
                    "INSERT INTO memories (content, source, created_at, updated_at, deleted_at)
                     VALUES (?1, 'user', ?2, ?2, ?2)",
                    params![content, now],
                )?;
                Ok(c.last_insert_rowid())
            })
            .await
    }

    /// The user memory summary as new sessions get it now.
    pub async fn memory_summary(&self) -> Result<String, StoreError> {
        self.db().call(|c| Ok(summary(&live(c)?).0)).await
    }
}

#[async_trait]
impl MemorySource for Store {
    async fn snapshot(&self, session_id: &str) -> Result<Option<String>, hearth_core::StoreError> {
        let id = session_id.to_owned();
        let snap = self
            .db()
            .call(move |c| {
                crate::sessions::ensure(c, &id)?;
                let taken: Option<String> = c
                    .query_row(
                        "SELECT memory_snapshot FROM sessions WHERE id = ?1",
                        [&id],
                        |r| r.get(0),
                    )
                    .optional()?
                    .flatten();
                if let Some(s) = taken {
                    return Ok(s);
                }
                let (s, ids) = summary(&live(c)?);
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                tx.execute(
                    "UPDATE sessions SET memory_snapshot = ?2 WHERE id = ?1",
                    params![id, s],
                )?;
                // A session given a fact is one use of it (the panel shows
                // which facts are read and which only sit there).
                for m in ids {
                    tx.execute("UPDATE memories SET uses = uses + 1 WHERE id = ?1", [m])?;
                }
                tx.commit()?;
                Ok(s)
            })
            .await?;
        Ok((!snap.is_empty()).then_some(snap))
    }
}

/// Those of `facts` that would enter memory now, as kept: each held to
/// memory's rules (length, one line, no injection), none the user deleted
/// or edited away, none already known (nor twice).
fn fresh(conn: &Connection, facts: &[String]) -> Result<Vec<String>, StoreError> {
    Ok(fresh_at(conn, facts)?.into_iter().map(|(_, f)| f).collect())
}

/// [`fresh`], each with its place in `facts`.
fn fresh_at(conn: &Connection, facts: &[String]) -> Result<Vec<(usize, String)>, StoreError> {
    let mut known: Vec<String> = live(conn)?.into_iter().map(|m| m.content).collect();
    let gone = forgotten(conn)?;
    let mut out = Vec::new();
    for (at, fact) in facts.iter().enumerate() {
        let f = match hearth_core::memory::admit(fact) {
            Ok(f) => f,
            Err(why) => {
                tracing::info!("a fact was not remembered: {why}");
                continue;
            }
        };
        if gone.iter().any(|g| restates(g, &f)) || known.iter().any(|k| same_fact(k, &f)) {
            continue;
        }
        known.push(f.clone());
        out.push((at, f));
    }
    Ok(out)
}

#[async_trait]
impl MemoryWriter for Store {
    async fn fresh(&self, facts: &[String]) -> Result<Vec<String>, hearth_core::StoreError> {
        let facts = facts.to_vec();
        Ok(self.db().call(move |c| fresh(c, &facts)).await?)
    }

    async fn facts(&self) -> Result<Vec<String>, hearth_core::StoreError> {
        Ok(self
            .db()
            .call(|c| Ok(live(c)?.into_iter().map(|m| m.content).collect()))
            .await?)
    }

    async fn forgotten(&self) -> Result<Vec<String>, hearth_core::StoreError> {
        Ok(self.db().call(|c| forgotten(c)).await?)
    }

    async fn learn(
        &self,
        session_id: &str,
        run_id: &str,
        source: &str,
        facts: &[hearth_core::NewFact],
    ) -> Result<Vec<hearth_core::memory::Learned>, hearth_core::StoreError> {
        if session_id.starts_with("subagent_") {
            // A sub-agent's session is in memory only; what it learns is
            // reported to its parent, which may remember it.
            return Ok(Vec::new());
        }
        let (sid, rid, src, facts) = (
            session_id.to_owned(),
            run_id.to_owned(),
            source.to_owned(),
            facts.to_vec(),
        );
        Ok(self
            .db()
            .call(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let now = now_ms();
                let mut added = Vec::new();
                let texts: Vec<String> = facts.iter().map(|f| f.text.clone()).collect();
                for (at, f) in fresh_at(&tx, &texts)? {
                    let known = &facts[at];
                    tx.execute(
                        "INSERT INTO memories (content, source, session_id, run_id, created_at, updated_at, category, quote)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7)",
                        params![f, src, sid, rid, now, known.category, known.quote],
                    )?;
                    added.push(hearth_core::memory::Learned {
                        id: tx.last_insert_rowid(),
                        fact: f,
                    });
                }
                tx.commit()?;
                Ok(added)
            })
            .await?)
    }
}

#[cfg(test)]
mod tests {
    use super::same_fact;

    #[test]
    fn facts_match_on_words_not_punctuation() {
        assert!(same_fact(
            "Favourite colour: blue.",
            "favourite colour blue"
        ));
        assert!(same_fact(
            "The user's favourite colour is blue",
            "The user's favourite colour is blue!"
        ));
        assert!(!same_fact(
            "Favourite colour: blue",
            "Favourite colour: green"
        ));
        assert!(!same_fact("", "x"));
    }

    #[test]
    fn a_forgotten_fact_is_recognised_when_restated() {
        use super::restates;
        assert!(restates(
            "Lives in Berlin",
            "The user lives in Berlin, Germany"
        ));
        assert!(restates(
            "Favourite colour is blue",
            "The user's favourite colour is blue."
        ));
        assert!(!restates("Lives in Berlin", "Works in Munich"));
        assert!(!restates(
            "Favourite colour is blue",
            "Favourite colour is green"
        ));
    }
}
