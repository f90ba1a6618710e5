//! A sync: each folder walked, each file's text read again only when it
//! changed (size and time first, then its content hash), its passages
//! replaced in one transaction, and the files gone since the last whole
//! walk dropped. Killed at any point, the index holds whole files only,
//! and the next sync goes on. Memory holds one file at a time.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::UNIX_EPOCH;

use rusqlite::{OptionalExtension, params};
use sha2::{Digest, Sha256};

use crate::chunk::split;
use crate::error::KnowledgeError;
use crate::extract::{MAX_FILE_BYTES, Skipped, extract, worth_reading};
use crate::index::{Folder, FolderStatus, Index, now};

/// How a sync is going, after each file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Progress {
    /// The folder being walked.
    pub folder: PathBuf,
    /// Files seen in it so far.
    pub seen: u64,
    /// Of those, files read again (new or changed).
    pub read: u64,
    /// The file just done.
    pub file: String,
}

/// What a sync did, over all folders.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SyncReport {
    /// Files seen.
    pub seen: u64,
    /// Files unchanged since the last sync.
    pub unchanged: u64,
    /// Files read and split (new or changed).
    pub indexed: u64,
    /// Files left out (binary, too large, unreadable, empty).
    pub skipped: u64,
    /// Files gone since the last sync, dropped with their passages.
    pub removed: u64,
    /// Passages written.
    pub chunks: u64,
    /// Entries the walk could not read (a folder without permission).
    pub walk_errors: u64,
    /// Folders not there (kept, marked missing).
    pub missing: u64,
    /// The sync was stopped before the end.
    pub stopped: bool,
}

/// One file's state in the index before this sync.
struct Known {
    id: i64,
    size: i64,
    mtime_ns: i64,
    hash: Option<String>,
}

impl Index {
    /// Syncs every folder (or only `only`). Blocking: file reads, PDF
    /// readers and writes; call it from a blocking thread
    /// ([`Index::sync`] does).
    pub fn sync_blocking(
        &self,
        only: Option<i64>,
        stop: &AtomicBool,
        progress: &(dyn Fn(&Progress) + Send + Sync),
    ) -> Result<SyncReport, KnowledgeError> {
        let mut report = SyncReport::default();
        for folder in self.folders()? {
            if only.is_some_and(|id| id != folder.id) {
                continue;
            }
            self.sync_folder(&folder, stop, progress, &mut report)?;
            if report.stopped {
                break;
            }
        }
        Ok(report)
    }

    /// [`Index::sync_blocking`] on a thread of its own at a lower CPU
    /// priority (nice 10), so that on a busy machine the chat's own work
    /// (streaming, a stop, the next message) goes first.
    pub async fn sync(
        &self,
        only: Option<i64>,
        stop: std::sync::Arc<AtomicBool>,
        progress: std::sync::Arc<dyn Fn(&Progress) + Send + Sync>,
    ) -> Result<SyncReport, KnowledgeError> {
        let this = self.clone();
        let (tx, rx) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("knowledge-sync".into())
            .spawn(move || {
                lower_priority();
                let _ = tx.send(this.sync_blocking(only, &stop, progress.as_ref()));
            })
            .map_err(|e| KnowledgeError::Worker(e.to_string()))?;
        rx.await
            .map_err(|_| KnowledgeError::Worker("the sync thread ended without a word".into()))?
    }

    fn set_status(
        &self,
        folder: &Folder,
        status: FolderStatus,
        detail: Option<&str>,
    ) -> Result<(), KnowledgeError> {
        let synced = (status == FolderStatus::Ready).then(now);
        self.conn().execute(
            "UPDATE folders SET state = ?2, detail = ?3, synced_at = coalesce(?4, synced_at)
             WHERE id = ?1",
            params![folder.id, status.as_str(), detail, synced],
        )?;
        Ok(())
    }

    fn sync_folder(
        &self,
        folder: &Folder,
        stop: &AtomicBool,
        progress: &(dyn Fn(&Progress) + Send + Sync),
        report: &mut SyncReport,
    ) -> Result<(), KnowledgeError> {
        if !folder.path.is_dir() {
            report.missing += 1;
            return self.set_status(
                folder,
                FolderStatus::Missing,
                Some("the folder is not there (moved, deleted, or a drive not mounted); its passages are kept until it is removed"),
            );
        }
        self.set_status(folder, FolderStatus::Syncing, None)?;
        // This walk's mark: files not marked by the end are gone.
        let mark: i64 = self.conn().query_row(
            "SELECT coalesce(max(seen), 0) + 1 FROM files WHERE folder_id = ?1",
            [folder.id],
            |r| r.get(0),
        )?;
        let walk = ignore::WalkBuilder::new(&folder.path)
            .hidden(true)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(true)
            .require_git(false)
            .parents(false)
            .follow_links(false)
            .add_custom_ignore_filename(".hearthignore")
            .sort_by_file_name(std::cmp::Ord::cmp)
            .build();
        let mut state = Progress {
            folder: folder.path.clone(),
            seen: 0,
            read: 0,
            file: String::new(),
        };
        for entry in walk {
            if stop.load(Ordering::SeqCst) {
                report.stopped = true;
                return Ok(());
            }
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    tracing::debug!(folder = %folder.path.display(), "walk: {e}");
                    report.walk_errors += 1;
                    continue;
                }
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(&folder.path) else {
                continue;
            };
            let rel = rel.to_string_lossy().into_owned();
            let read = self.sync_file(folder.id, entry.path(), &rel, mark, report)?;
            state.seen += 1;
            state.read += u64::from(read);
            state.file = rel;
            progress(&state);
        }
        let removed = self.conn().execute(
            "DELETE FROM files WHERE folder_id = ?1 AND seen <> ?2",
            params![folder.id, mark],
        )?;
        if removed > 0 {
            self.vectors_changed();
        }
        report.removed += removed as u64;
        self.set_status(folder, FolderStatus::Ready, None)
    }

    /// One file; `true` when it was read (new or changed).
    fn sync_file(
        &self,
        folder: i64,
        path: &Path,
        rel: &str,
        mark: i64,
        report: &mut SyncReport,
    ) -> Result<bool, KnowledgeError> {
        report.seen += 1;
        let Ok(meta) = std::fs::metadata(path) else {
            // Gone between the walk and now: not marked, so dropped.
            return Ok(false);
        };
        let size = meta.len() as i64;
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64);
        let known: Option<Known> = self
            .conn()
            .query_row(
                "SELECT id, size, mtime_ns, hash FROM files WHERE folder_id = ?1 AND rel_path = ?2",
                params![folder, rel],
                |r| {
                    Ok(Known {
                        id: r.get(0)?,
                        size: r.get(1)?,
                        mtime_ns: r.get(2)?,
                        hash: r.get(3)?,
                    })
                },
            )
            .optional()?;
        if let Some(k) = known
            .as_ref()
            .filter(|k| k.size == size && k.mtime_ns == mtime_ns && k.hash.is_some())
        {
            self.mark(k.id, mark)?;
            report.unchanged += 1;
            return Ok(false);
        }
        let limit = MAX_FILE_BYTES.max(hearth_store::MAX_PDF_BYTES as u64);
        let outcome: Result<(String, Vec<u8>), Skipped> = if !worth_reading(path) {
            Err(Skipped::Binary)
        } else if meta.len() > limit {
            Err(Skipped::TooLarge)
        } else {
            match std::fs::read(path) {
                Ok(bytes) => Ok((hex(&Sha256::digest(&bytes)), bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
                Err(e) => Err(Skipped::Unreadable(e.to_string())),
            }
        };
        let (hash, bytes) = match outcome {
            Ok(read) => read,
            Err(why) => {
                // Decided by name or size: not read again until those
                // change. A read that failed is tried again next time.
                let hash = (!matches!(why, Skipped::Unreadable(_))).then_some("-");
                self.replace(folder, rel, size, mtime_ns, hash, Err(&why), mark)?;
                report.skipped += 1;
                return Ok(true);
            }
        };
        if let Some(k) = known.as_ref().filter(|k| k.hash.as_deref() == Some(&hash)) {
            // Touched, not changed.
            self.conn().execute(
                "UPDATE files SET size = ?2, mtime_ns = ?3, seen = ?4 WHERE id = ?1",
                params![k.id, size, mtime_ns, mark],
            )?;
            report.unchanged += 1;
            return Ok(false);
        }
        let chunks = extract(path, &bytes).map(|e| (e.kind, split(e.source, &e.text)));
        drop(bytes);
        match &chunks {
            Ok((_, c)) => {
                report.indexed += 1;
                report.chunks += c.len() as u64;
            }
            Err(_) => report.skipped += 1,
        }
        let content = match &chunks {
            Ok((kind, c)) => Ok((kind.as_str(), c.as_slice())),
            Err(why) => Err(why),
        };
        self.replace(folder, rel, size, mtime_ns, Some(&hash), content, mark)?;
        Ok(true)
    }

    fn mark(&self, file: i64, mark: i64) -> Result<(), KnowledgeError> {
        self.conn().execute(
            "UPDATE files SET seen = ?2 WHERE id = ?1",
            params![file, mark],
        )?;
        Ok(())
    }

    /// A file's row and passages, replaced in one transaction.
    #[allow(clippy::too_many_arguments)]
    fn replace(
        &self,
        folder: i64,
        rel: &str,
        size: i64,
        mtime_ns: i64,
        hash: Option<&str>,
        content: Result<(&str, &[crate::Chunk]), &Skipped>,
        mark: i64,
    ) -> Result<(), KnowledgeError> {
        let (kind, skipped, chunks) = match content {
            Ok((kind, chunks)) => (Some(kind), None, chunks),
            Err(why) => (None, Some(why.to_string()), &[][..]),
        };
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let had_chunks: i64 = tx.query_row(
            "SELECT count(*) FROM chunks k JOIN files x ON x.id = k.file_id
             WHERE x.folder_id = ?1 AND x.rel_path = ?2",
            params![folder, rel],
            |r| r.get(0),
        )?;
        tx.execute(
            "INSERT INTO files (folder_id, rel_path, size, mtime_ns, hash, kind, skipped, chunks, seen)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT(folder_id, rel_path) DO UPDATE SET size = excluded.size,
                mtime_ns = excluded.mtime_ns, hash = excluded.hash, kind = excluded.kind,
                skipped = excluded.skipped, chunks = excluded.chunks, seen = excluded.seen",
            params![folder, rel, size, mtime_ns, hash, kind, skipped, chunks.len() as i64, mark],
        )?;
        let file: i64 = tx.query_row(
            "SELECT id FROM files WHERE folder_id = ?1 AND rel_path = ?2",
            params![folder, rel],
            |r| r.get(0),
        )?;
        tx.execute("DELETE FROM chunks WHERE file_id = ?1", [file])?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO chunks (file_id, ord, start_line, end_line, heading, path, text)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for (ord, c) in chunks.iter().enumerate() {
                stmt.execute(params![
                    file,
                    ord as i64,
                    c.start_line,
                    c.end_line,
                    c.heading,
                    rel,
                    c.text
                ])?;
            }
        }
        tx.commit()?;
        drop(conn);
        if had_chunks > 0 {
            self.vectors_changed();
        }
        Ok(())
    }
}

/// This thread (only) at nice 10; where that is refused, it runs as it is.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10) {
        tracing::debug!("the sync thread keeps its priority: {e}");
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
