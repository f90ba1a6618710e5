//! The app's side of knowledge folders: the index the agent's tool also
//! searches, and at most one sync at a time, in the background, whose
//! progress the panel reads (docs/knowledge.md). A sync never holds up a
//! chat: the text pass runs on a blocking thread and the embedding pass
//! asks the default host between answers' requests like any client.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use hearth_core::ModelBackend;
use hearth_knowledge::{Embedder, Index, Progress};

use crate::views::KnowledgeSyncView;

/// The index and its sync.
pub struct KnowledgeDesk {
    index: Option<Index>,
    /// The default host's backend (a slot: a URL change applies).
    backend: Arc<dyn ModelBackend>,
    sync: Mutex<KnowledgeSyncView>,
    stop: Mutex<Option<Arc<AtomicBool>>>,
}

impl KnowledgeDesk {
    /// Over `index` (`None`: it could not be opened), embedding on
    /// `backend`.
    pub fn new(index: Option<Index>, backend: Arc<dyn ModelBackend>) -> Self {
        Self {
            index,
            backend,
            sync: Mutex::default(),
            stop: Mutex::default(),
        }
    }

    /// The index, or why there is none.
    pub fn index(&self) -> Result<&Index, String> {
        self.index.as_ref().ok_or_else(|| {
            "the knowledge index could not be opened (the log says why); knowledge folders are off until it can".to_owned()
        })
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
