//! The writer thread. SQLite calls block, so they never run on the async
//! executor: one thread owns the connection and runs jobs in order; callers
//! await the reply. Between jobs it renews this process's liveness lease.

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use rusqlite::Connection;
use tokio::sync::oneshot;

use crate::error::StoreError;

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// How often the lease is renewed while the store is open.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(5);

/// A handle to the writer thread.
#[derive(Clone)]
pub(crate) struct Db {
    tx: mpsc::Sender<Job>,
}

/// Open the connection with Hearth's settings.
pub(crate) fn connect(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: a committed message survives a power cut, not only a crash.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

impl Db {
    /// Start the writer thread over `conn`; `tick` runs between jobs at
    /// least every [`HEARTBEAT`].
    pub(crate) fn spawn(
        mut conn: Connection,
        mut tick: impl FnMut(&mut Connection) + Send + 'static,
    ) -> Result<Self, StoreError> {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("hearth-store".into())
            .spawn(move || {
                // Tick on time even while jobs keep coming (a long streamed
                // answer checkpoints every 250 ms): a silent heartbeat would
                // let another process take a live run for a dead one.
                let mut last_tick = std::time::Instant::now();
                loop {
                    match rx.recv_timeout(HEARTBEAT) {
                        Ok(job) => job(&mut conn),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                    if last_tick.elapsed() >= HEARTBEAT {
                        tick(&mut conn);
                        last_tick = std::time::Instant::now();
                    }
                }
            })
            .map_err(|e| StoreError::Io {
                path: "(writer thread)".into(),
                detail: e.to_string(),
            })?;
        Ok(Self { tx })
    }

    /// Run `f` on the writer thread and await its result.
    pub(crate) async fn call<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, wait) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let _ = reply.send(f(conn));
        });
        self.tx.send(job).map_err(|_| StoreError::Closed)?;
        wait.await.map_err(|_| StoreError::Closed)?
    }
}
