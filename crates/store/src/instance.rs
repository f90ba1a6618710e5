//! Which processes have the database open. Each open store registers an
//! instance (its pid) and renews a heartbeat; a run whose instance is dead
//! can be repaired, one whose instance lives (the desktop app while the CLI
//! opens the same file) must not be touched.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::now_ms;
use crate::db::HEARTBEAT;
use crate::error::StoreError;

/// An instance silent for this long is dead even if its pid exists (the
/// pid may have been reused, or the process is hung).
const STALE_MS: i64 = 6 * HEARTBEAT.as_millis() as i64;

/// Register this process; returns the instance id.
pub(crate) fn register(conn: &Connection) -> Result<String, StoreError> {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let now = now_ms();
    conn.execute(
        "INSERT INTO instances (id, pid, started_at, heartbeat_at) VALUES (?1, ?2, ?3, ?3)",
        params![id, std::process::id(), now],
    )?;
    // Forget instances silent for a day; their runs were repaired at open.
    conn.execute(
        "DELETE FROM instances WHERE heartbeat_at < ?1",
        [now - 86_400_000],
    )?;
    Ok(id)
}

/// Renew this instance's heartbeat.
pub(crate) fn heartbeat(conn: &Connection, id: &str) {
    if let Err(e) = conn.execute(
        "UPDATE instances SET heartbeat_at = ?2 WHERE id = ?1",
        params![id, now_ms()],
    ) {
        tracing::warn!("store heartbeat failed: {e}");
    }
}

/// True when `id` is not a live process with the database open.
pub(crate) fn is_dead(conn: &Connection, id: &str, me: &str) -> Result<bool, StoreError> {
    if id == me {
        return Ok(false);
    }
    let row: Option<(i64, i64)> = conn
        .query_row(
            "SELECT pid, heartbeat_at FROM instances WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((pid, heartbeat_at)) = row else {
        return Ok(true);
    };
    if now_ms() - heartbeat_at > STALE_MS {
        return Ok(true);
    }
    Ok(!pid_alive(pid))
}

#[cfg(unix)]
fn pid_alive(pid: i64) -> bool {
    use rustix::io::Errno;
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    // Signal 0 checks existence; EPERM means it exists but is not ours.
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e == Errno::PERM,
    }
}

#[cfg(not(unix))]
fn pid_alive(_pid: i64) -> bool {
    // Without a cheap portable check, trust the heartbeat alone.
    true
}
