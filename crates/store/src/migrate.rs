//! Schema versions. Each table module declares the migrations that create or
//! change its tables; this module orders and applies them, each in its own
//! transaction, after a `VACUUM INTO` backup of the file (which includes the
//! WAL) whenever an existing database is upgraded.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, TransactionBehavior};

use crate::error::StoreError;
use crate::migration::Migration;

/// Every migration, in order.
fn all() -> Vec<&'static Migration> {
    let mut v: Vec<&Migration> = crate::sessions::MIGRATIONS
        .iter()
        .chain(crate::messages::MIGRATIONS)
        .chain(crate::runs::MIGRATIONS)
        .chain(crate::profiles::MIGRATIONS)
        .chain(crate::search::MIGRATIONS)
        .chain(crate::memories::MIGRATIONS)
        .chain(crate::summaries::MIGRATIONS)
        .chain(crate::spans::MIGRATIONS)
        .chain(crate::subagents::MIGRATIONS)
        .chain(crate::hosts::MIGRATIONS)
        .chain(crate::attachments::MIGRATIONS)
        .chain(crate::unsent::MIGRATIONS)
        .chain(crate::projects::MIGRATIONS)
        .collect();
    v.sort_by_key(|m| m.version);
    v
}

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 20;

/// What `migrate` did.
#[derive(Debug, Default)]
pub(crate) struct Migrated {
    pub from: i64,
    pub backup: Option<PathBuf>,
}

/// Bring the database at `path` up to `target` (tests pass an older one).
pub(crate) fn migrate(
    conn: &mut Connection,
    path: &Path,
    target: i64,
) -> Result<Migrated, StoreError> {
    let current: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            path: path.display().to_string(),
            found: current,
            supported: SCHEMA_VERSION,
        });
    }
    let mut out = Migrated {
        from: current,
        backup: None,
    };
    if current >= target {
        return Ok(out);
    }
    if current > 0 {
        out.backup = Some(backup(conn, path, current)?);
    }
    // One transaction per version (a version may span several table
    // modules), IMMEDIATE so a second process opening the file waits, and
    // the version re-read inside it so that process then skips what the
    // first one did.
    let steps = all();
    let mut versions: Vec<i64> = steps
        .iter()
        .map(|m| m.version)
        .filter(|v| *v > current && *v <= target)
        .collect();
    versions.dedup();
    for version in versions {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let now: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if now >= version {
            continue;
        }
        for m in steps.iter().filter(|m| m.version == version) {
            tx.execute_batch(m.sql)?;
            tracing::info!(version, name = m.name, "database migrated");
        }
        tx.pragma_update(None, "user_version", version)?;
        tx.commit()?;
    }
    Ok(out)
}

/// `VACUUM INTO <db>.v<N>-<millis>.bak`: a consistent copy, WAL included.
fn backup(conn: &Connection, path: &Path, version: i64) -> Result<PathBuf, StoreError> {
    let millis = crate::clock::now_ms();
    let name = format!(
        "{}.v{version}-{millis}.bak",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    );
    let dest = path.with_file_name(name);
    conn.execute("VACUUM INTO ?1", [dest.to_string_lossy()])?;
    Ok(dest)
}
