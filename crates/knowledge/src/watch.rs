//! Watching the knowledge folders: a change, a move or a delete under one
//! (inotify on Linux, through the `notify` crate) leads, once the folder
//! has been quiet for a moment, to one call of the owner's `on_change`
//! with the folders that changed — which then syncs them (the sync itself
//! decides what changed, by size, time and hash: an event only says where
//! to look, so an event lost or merged costs nothing but a later look).
//!
//! Hidden files and folders (`.git`, an editor's swap file) are not
//! indexed, so changes to them wake nobody. A folder that cannot be
//! watched (gone, unreadable, or the system's limit of watches reached)
//! is named with why; the others are watched, and "Sync now" still reads
//! the rest.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

/// The longest a stream of changes (a checkout, a copy of thousands of
/// files) delays its sync: after this much, the sync runs anyway and the
/// rest of the stream leads to another.
pub const MAX_DELAY: Duration = Duration::from_secs(30);

/// Folders watched, until dropped.
pub struct FolderWatch {
    // Dropping the watcher closes the channel, which ends the thread.
    _watcher: RecommendedWatcher,
    watched: Vec<PathBuf>,
}

impl std::fmt::Debug for FolderWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FolderWatch")
            .field("watched", &self.watched)
            .finish_non_exhaustive()
    }
}

/// A folder that could not be watched, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwatched {
    /// The folder.
    pub folder: PathBuf,
    /// Why, in a person's words.
    pub why: String,
}

impl FolderWatch {
    /// Watches `folders` (and everything under them, folders made later
    /// included). After a change, once `quiet` passes with no other (or
    /// [`MAX_DELAY`] after the first), `on_change` is called once, on the
    /// watch's own thread, with the folders that changed. The folders
    /// that could not be watched come back beside the watch.
    pub fn start(
        folders: &[PathBuf],
        quiet: Duration,
        on_change: impl Fn(Vec<PathBuf>) + Send + 'static,
    ) -> Result<(Self, Vec<Unwatched>), String> {
        Self::start_ignoring(folders, &[], quiet, on_change)
    }

    /// [`FolderWatch::start`], but changes to the files directly in an
    /// `ignored` folder wake nobody: Hearth's own data folder, whose
    /// database a sync writes — inside a knowledge folder, each sync would
    /// otherwise wake the next. Its subfolders are watched as any.
    pub fn start_ignoring(
        folders: &[PathBuf],
        ignored: &[PathBuf],
        quiet: Duration,
        on_change: impl Fn(Vec<PathBuf>) + Send + 'static,
    ) -> Result<(Self, Vec<Unwatched>), String> {
        let (tx, rx) = mpsc::channel::<notify::Result<Event>>();
        let mut watcher = notify::recommended_watcher(tx)
            .map_err(|e| format!("changes cannot be watched on this system: {e}"))?;
        let mut watched = Vec::new();
        let mut failed = Vec::new();
        for folder in folders {
            match watcher.watch(folder, RecursiveMode::Recursive) {
                Ok(()) => watched.push(folder.clone()),
                Err(e) => failed.push(Unwatched {
                    folder: folder.clone(),
                    why: describe(&e),
                }),
            }
        }
        let roots = watched.clone();
        let ignored = ignored.to_vec();
        std::thread::Builder::new()
            .name("knowledge-watch".into())
            .spawn(move || gather(&rx, &roots, &ignored, quiet, &on_change))
            .map_err(|e| format!("the watch could not start: {e}"))?;
        Ok((
            Self {
                _watcher: watcher,
                watched,
            },
            failed,
        ))
    }

    /// The folders watched.
    pub fn watched(&self) -> &[PathBuf] {
        &self.watched
    }
}

/// The watch's thread: events gathered into one call per quiet moment.
fn gather(
    rx: &mpsc::Receiver<notify::Result<Event>>,
    roots: &[PathBuf],
    ignored: &[PathBuf],
    quiet: Duration,
    on_change: &dyn Fn(Vec<PathBuf>),
) {
    let mut changed: BTreeSet<PathBuf> = BTreeSet::new();
    let mut first: Option<Instant> = None;
    loop {
        let wait = match first {
            None => Duration::from_secs(3600),
            Some(_) => quiet,
        };
        match rx.recv_timeout(wait) {
            Ok(Ok(event)) => {
                for root in folders_of(&event, roots, ignored) {
                    changed.insert(root);
                }
                // A stream that never pauses still syncs now and then.
                if !changed.is_empty() {
                    let started = *first.get_or_insert_with(Instant::now);
                    if started.elapsed() >= MAX_DELAY {
                        on_change(std::mem::take(&mut changed).into_iter().collect());
                        first = None;
                    }
                }
            }
            // The kernel's queue overflowed, or a watch broke: every
            // folder is looked at again (the sync finds what changed).
            Ok(Err(e)) => {
                tracing::warn!("a knowledge folder watch reported: {e}");
                changed.extend(roots.iter().cloned());
                first.get_or_insert_with(Instant::now);
            }
            Err(RecvTimeoutError::Timeout) => {
                if !changed.is_empty() {
                    on_change(std::mem::take(&mut changed).into_iter().collect());
                }
                first = None;
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// The watched folders `event` changed something in: reads and opens are
/// not changes, and neither is anything hidden (not indexed) or ignored.
fn folders_of(event: &Event, roots: &[PathBuf], ignored: &[PathBuf]) -> Vec<PathBuf> {
    if matches!(event.kind, EventKind::Access(_)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for path in &event.paths {
        // The files directly in an ignored folder, not its subfolders: a
        // knowledge folder kept inside Hearth's data folder is still
        // watched, and Hearth's database files beside it are not.
        if path
            .parent()
            .is_some_and(|p| ignored.iter().any(|i| p == i))
        {
            continue;
        }
        let Some(root) = roots.iter().find(|r| path.starts_with(r)) else {
            continue;
        };
        if hidden(path.strip_prefix(root).unwrap_or(path)) {
            continue;
        }
        if !out.contains(root) {
            out.push(root.clone());
        }
    }
    // An overflow names no path: every folder.
    if event.paths.is_empty() && event.need_rescan() {
        out.extend(roots.iter().cloned());
    }
    out
}

fn hidden(rel: &Path) -> bool {
    rel.components().any(|c| match c {
        Component::Normal(n) => n.to_string_lossy().starts_with('.'),
        _ => false,
    })
}

fn describe(e: &notify::Error) -> String {
    match &e.kind {
        notify::ErrorKind::MaxFilesWatch => "the system's limit of watched folders is reached (raise fs.inotify.max_user_watches); its changes are read at the next sync".into(),
        notify::ErrorKind::PathNotFound => "the folder is not there".into(),
        _ => format!("its changes cannot be watched ({e}); they are read at the next sync"),
    }
}
