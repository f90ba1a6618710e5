mod citations;
mod docx;
mod embed;
mod folders;
mod odf;
mod search;
mod sync;
mod tool;
mod watch;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use hearth_knowledge::{Embedder, Index, Progress, SyncReport};
use hearth_sim::{ModelSpec, Script, Sim, SimHandle};

/// The embedding model the simulator serves.
pub const MODEL: &str = "embed-a";

/// A simulator serving [`MODEL`] and `embed-b`.
pub async fn sim() -> SimHandle {
    let script = Script::with_models(vec![ModelSpec::new(MODEL), ModelSpec::new("embed-b")]);
    Sim::start(script).await.unwrap()
}

/// [`MODEL`] (or `model`) through the OpenAI-compatible client.
pub fn openai(sim: &SimHandle, model: &str) -> Embedder {
    let client = hearth_openai::Client::new(
        &format!("{}/v1", sim.url()),
        None,
        hearth_openai::ClientOptions::default(),
    )
    .unwrap();
    Embedder::new(Arc::new(hearth_openai::OpenAiBackend::new(client)), model)
}

/// The same through Ollama's client.
pub fn ollama(sim: &SimHandle, model: &str) -> Embedder {
    let client =
        hearth_ollama::Client::new(&sim.url(), hearth_ollama::ClientOptions::default()).unwrap();
    Embedder::new(Arc::new(hearth_ollama::OllamaBackend::new(client)), model)
}

/// Writes `files` (path, content) under `root`.
pub fn write(root: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// A sync of every folder, to its end.
pub fn sync(index: &Index) -> SyncReport {
    index
        .sync_blocking(None, &AtomicBool::new(false), &|_: &Progress| {})
        .unwrap()
}

/// An index in `dir` with `folder` added.
pub fn index_with(dir: &Path, folder: &Path) -> Index {
    let index = Index::open(&dir.join("knowledge.db")).unwrap();
    index.add_folder(folder, None).unwrap();
    index
}

/// Embeds every pending passage, to its end.
pub async fn embed_all(index: &Index, e: &Embedder) -> hearth_knowledge::EmbedReport {
    index
        .embed_pending(e, &AtomicBool::new(false), &|_, _| {})
        .await
        .unwrap()
}
