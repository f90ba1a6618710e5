//! The app's side of knowledge folders: the index the agent's tool also
//! searches, and at most one sync at a time, in the background, whose
//! progress the panel reads (docs/knowledge.md). A sync never holds up a
//! chat: the text pass runs on a thread of its own and the embedding pass
//! asks the default host between answers' requests like any client.
//! The folders are watched: a change starts a sync once the folder has
//! been quiet for [`QUIET`] (a change during a sync, one more after it).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use hearth_core::ModelBackend;
use hearth_knowledge::{Embedder, FolderStatus, FolderWatch, Index, Progress};

use crate::views::KnowledgeSyncView;

/// How long a folder is quiet after a change before its sync starts: a
/// save, a checkout or a copy is one sync, not one per file.
pub const QUIET: Duration = Duration::from_secs(2);

/// The index and its sync.
pub struct KnowledgeDesk {
    index: Option<Index>,
    /// The default host's backend (a slot: a URL change applies).
    backend: Arc<dyn ModelBackend>,
    sync: Mutex<KnowledgeSyncView>,
    stop: Mutex<Option<Arc<AtomicBool>>>,
    /// The folders watched (replaced when they change).
    watch: Mutex<Option<FolderWatch>>,
    /// A change came while a sync ran: one more sync when it ends.
    again: AtomicBool,
    quiet: Duration,
}

impl KnowledgeDesk {
    /// Over `index` (`None`: it could not be opened), embedding on
    /// `backend`.
    pub fn new(index: Option<Index>, backend: Arc<dyn ModelBackend>) -> Self {
        Self::with_quiet(index, backend, QUIET)
    }

    /// The same with another quiet moment (the tests' is short).
    pub fn with_quiet(
        index: Option<Index>,
        backend: Arc<dyn ModelBackend>,
        quiet: Duration,
    ) -> Self {
        Self {
            index,
            backend,
            sync: Mutex::default(),
            stop: Mutex::default(),
            watch: Mutex::default(),
            again: AtomicBool::new(false),
            quiet,
        }
    }

    /// Watches the folders there are now (call again when they change:
    /// added, removed, a project deleted). A folder that cannot be watched
    /// is named in the sync's view with why; its changes are read by the
    /// next sync.
    pub fn watch_folders(self: &Arc<Self>) {
        let Ok(index) = self.index() else {
            return;
        };
        let folders: Vec<_> = index
            .folder_places()
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, _, status)| *status != FolderStatus::Missing)
            .map(|(path, _, _)| path)
            .collect();
        let Ok(mut held) = self.watch.lock() else {
            return;
        };
        // The old watch ends first: its thread never calls after this.
        *held = None;
        if folders.is_empty() {
            self.update(|s| {
                s.watched = 0;
                s.unwatched.clear();
            });
            return;
        }
        let desk: Weak<Self> = Arc::downgrade(self);
        // Hearth's own data folder (the index's): a sync writes there.
        let ours: Vec<_> = index
            .file()
            .parent()
            .and_then(|p| p.canonicalize().ok())
            .into_iter()
            .collect();
        let started = FolderWatch::start_ignoring(&folders, &ours, self.quiet, move |_changed| {
            if let Some(desk) = desk.upgrade() {
                desk.changed();
            }
        });
        match started {
            Ok((watch, failed)) => {
                let watched = u32::try_from(watch.watched().len()).unwrap_or(u32::MAX);
                self.update(|s| {
                    s.watched = watched;
                    s.unwatched = failed
                        .iter()
                        .map(|u| format!("{}: {}", u.folder.display(), u.why))
                        .collect();
                });
                *held = Some(watch);
            }
            Err(why) => self.update(|s| {
                s.watched = 0;
                s.unwatched = vec![why];
            }),
        }
    }

    /// A watched folder changed: sync now, or once the sync going on ends.
    fn changed(self: &Arc<Self>) {
        match self.start_sync() {
            Ok(true) => {}
            Ok(false) => self.again.store(true, Ordering::SeqCst),
            Err(e) => tracing::warn!("a changed knowledge folder cannot be synced: {e}"),
        }
    }

    /// The index, or why there is none.
    pub fn index(&self) -> Result<&Index, String> {
        self.index.as_ref().ok_or_else(|| {
            "the knowledge index could not be opened (the log says why); knowledge folders are off until it can".to_owned()
        })
    }

    /// The default host, where the embedding model is.
    pub fn backend(&self) -> Arc<dyn ModelBackend> {
        self.backend.clone()
    }

    /// The chosen `model` on the default host.
    pub fn embedder(&self, model: String) -> Embedder {
        Embedder::new(self.backend.clone(), model)
    }

    /// The sync now.
    pub fn sync_view(&self) -> KnowledgeSyncView {
        self.sync.lock().map(|s| s.clone()).unwrap_or_default()
    }

    fn update(&self, f: impl FnOnce(&mut KnowledgeSyncView)) {
        if let Ok(mut s) = self.sync.lock() {
            f(&mut s);
        }
    }

    /// Starts a sync of every folder, then the embedding pass when a model
    /// is chosen; `false` when one is going on already.
    pub fn start_sync(self: &Arc<Self>) -> Result<bool, String> {
        let index = self.index()?.clone();
        let stop = Arc::new(AtomicBool::new(false));
        {
            let Ok(mut held) = self.stop.lock() else {
                return Err("the knowledge sync's lock is poisoned".into());
            };
            if held.is_some() {
                return Ok(false);
            }
            *held = Some(stop.clone());
        }
        self.update(|s| {
            *s = KnowledgeSyncView {
                running: true,
                phase: Some("reading".into()),
                ..KnowledgeSyncView::default()
            };
        });
        let desk = Arc::clone(self);
        tauri::async_runtime::spawn(async move {
            let outcome = desk.run(&index, &stop).await;
            desk.update(|s| {
                s.running = false;
                s.phase = None;
                match outcome {
                    Ok(last) => {
                        s.last = Some(last);
                        s.error = None;
                    }
                    Err(e) => s.error = Some(e),
                }
            });
            if let Ok(mut held) = desk.stop.lock() {
                *held = None;
            }
            // A folder that changed during the sync is read again (a
            // stopped sync is not gone on with: the person stopped it).
            if desk.again.swap(false, Ordering::SeqCst) && !stop.load(Ordering::SeqCst) {
                let _ = desk.start_sync();
            }
        });
        Ok(true)
    }

    async fn run(
        self: &Arc<Self>,
        index: &Index,
        stop: &Arc<AtomicBool>,
    ) -> Result<String, String> {
        let desk = Arc::clone(self);
        let progress: Arc<dyn Fn(&Progress) + Send + Sync> = Arc::new(move |p: &Progress| {
            desk.update(|s| {
                s.seen = u32::try_from(p.seen).unwrap_or(u32::MAX);
                s.read = u32::try_from(p.read).unwrap_or(u32::MAX);
            });
        });
        let report = index
            .sync(None, stop.clone(), progress)
            .await
            .map_err(|e| e.to_string())?;
        let read = format!(
            "{} files read, {} unchanged, {} left out, {} gone",
            report.indexed, report.unchanged, report.skipped, report.removed
        );
        if report.stopped || stop.load(Ordering::SeqCst) {
            return Ok(format!(
                "Stopped: {read}; the next sync goes on from there."
            ));
        }
        let Some(model) = index.model().map_err(|e| e.to_string())? else {
            return Ok(format!(
                "{read}. No embedding model is chosen: search is by words."
            ));
        };
        let embedder = self.embedder(model);
        self.update(|s| {
            s.phase = Some("embedding".into());
            s.to_embed = u32::try_from(index.unembedded().unwrap_or(0)).unwrap_or(u32::MAX);
        });
        let desk = Arc::clone(self);
        let embedded = index
            .embed_pending(&embedder, stop, &move |done, total| {
                desk.update(|s| {
                    s.embedded = u32::try_from(done).unwrap_or(u32::MAX);
                    s.to_embed = u32::try_from(total).unwrap_or(u32::MAX);
                });
            })
            .await
            .map_err(|e| format!("{e}. Search by words still works."))?;
        let replaced = embedded
            .replaced_model
            .map(|old| format!(" (the vectors of {old} were replaced)"))
            .unwrap_or_default();
        Ok(format!(
            "{read}; {} passages embedded{replaced}{}",
            embedded.embedded,
            if embedded.left > 0 {
                format!("; stopped with {} to go", embedded.left)
            } else {
                String::new()
            }
        ))
    }

    /// Asks the sync going on to stop (it keeps what it did).
    pub fn stop_sync(&self) {
        if let Ok(held) = self.stop.lock()
            && let Some(stop) = held.as_ref()
        {
            stop.store(true, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use hearth_sim::{ModelSpec, Script, Sim};

    use super::*;

    /// The sync's view once it has ended, waited for at most 20 s.
    async fn ended(desk: &KnowledgeDesk) -> KnowledgeSyncView {
        let start = Instant::now();
        loop {
            let view = desk.sync_view();
            if !view.running {
                return view;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the sync never ended: {view:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_file_saved_in_a_watched_folder_is_found_without_a_sync_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        let index = Index::open(&dir.path().join("knowledge.sqlite")).unwrap();
        index.add_folder(&docs, None).unwrap();
        let backend = hearth_compose::openai(Some("http://127.0.0.1:1/v1"), None).unwrap();
        let desk = Arc::new(KnowledgeDesk::with_quiet(
            Some(index.clone()),
            backend,
            Duration::from_millis(200),
        ));
        desk.watch_folders();
        let view = desk.sync_view();
        assert_eq!((view.watched, view.unwatched.len()), (1, 0), "{view:?}");

        std::fs::write(
            docs.join("tide.md"),
            "# Tides\n\nThe spring tide is at noon.\n",
        )
        .unwrap();
        let start = Instant::now();
        loop {
            let found = index
                .search(None, "spring tide", 5, hearth_knowledge::Mode::Words, None)
                .await
                .unwrap();
            if !found.is_empty() {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the change was never synced: {:?}",
                desk.sync_view()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let view = ended(&desk).await;
        assert!(view.last.unwrap_or_default().starts_with("1 files read"));

        // Removed from the index, a folder is no longer watched.
        index.remove_folder(&docs).unwrap();
        desk.watch_folders();
        assert_eq!(desk.sync_view().watched, 0);
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_sync_reads_then_embeds_and_a_failing_server_is_said_with_words_left() {
        let sim = Sim::start(Script::with_models(vec![ModelSpec::new("embed-a")]))
            .await
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        for (name, text) in [
            ("a.md", "# A\n\nalpha\n"),
            ("b.md", "# B\n\nbeta\n"),
            ("c.txt", "gamma\n"),
        ] {
            std::fs::write(docs.join(name), text).unwrap();
        }
        let index = Index::open(&dir.path().join("knowledge.sqlite")).unwrap();
        index.add_folder(&docs, None).unwrap();
        index.set_model("embed-a").unwrap();
        let backend = hearth_compose::openai(Some(&format!("{}/v1", sim.url())), None).unwrap();
        let desk = Arc::new(KnowledgeDesk::new(Some(index.clone()), backend));

        assert!(desk.start_sync().unwrap());
        let view = ended(&desk).await;
        let last = view.last.clone().unwrap_or_default();
        assert!(last.starts_with("3 files read"), "{view:?}");
        assert!(last.contains("3 passages embedded"), "{view:?}");
        assert_eq!(view.error, None);
        assert_eq!(sim.stats().embedded_texts, 3);
        assert_eq!(index.folders().unwrap()[0].embedded, 3);

        sim.fail_embeddings(Some(500));
        std::fs::write(docs.join("c.txt"), "gamma and delta\n").unwrap();
        assert!(desk.start_sync().unwrap(), "the last one ended");
        let view = ended(&desk).await;
        let error = view.error.unwrap_or_default();
        assert!(
            error.contains("embed-a") && error.contains("Search by words still works"),
            "{error}"
        );
        assert_eq!(
            index.folders().unwrap()[0].embedded,
            2,
            "the changed file waits for its vector"
        );
    }
}
