//! `hearth-knowledge-bench`: knowledge folders measured (BENCHMARKS.md,
//! "Knowledge").
//!
//! - `recall`: a corpus no one here wrote (`bench/knowledge/corpus.py`
//!   makes it from the system's manual pages, each page's one-line
//!   description taken out of its text and kept as the query that should
//!   find it) indexed, embedded by a real model on a real server, and every
//!   query searched by words, by meaning and both fused: recall@5, recall@1
//!   and MRR per mode, for the development half and then the held-out half.
//! - `scale`: the corpus copied until the index holds `--chunks` passages,
//!   embedded by hearth-sim (vectors of `--dims` numbers: the size is what
//!   is measured here, not the quality): memory after each 1,000 files, the
//!   sync's time, and search latency by mode over the whole index.
//!
//! Usage:
//!   hearth-knowledge-bench recall --corpus DIR --queries FILE --url URL/v1 --model NAME [--json OUT] [--keep DIR]
//!   hearth-knowledge-bench scale --corpus DIR --queries FILE [--chunks 100000] [--dims 384]

#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use hearth_knowledge::{Embedder, Index, Mode, Progress};

#[derive(serde::Deserialize)]
struct Query {
    query: String,
    file: String,
    half: String,
}

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match args.first().map(String::as_str) {
            Some("recall") => recall(&args).await,
            Some("scale") => scale(&args).await,
            _ => Err(
                "usage: hearth-knowledge-bench recall|scale --corpus DIR --queries FILE …".into(),
            ),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth-knowledge-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn queries(args: &[String]) -> Result<(PathBuf, Vec<Query>), String> {
    let corpus = PathBuf::from(flag(args, "--corpus").ok_or("--corpus DIR")?);
    let file = flag(args, "--queries").ok_or("--queries FILE")?;
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
    let q: Vec<Query> = serde_json::from_str(&text).map_err(|e| format!("{file}: {e}"))?;
    Ok((corpus, q))
}

/// This process's resident memory now and at its peak, in MB.
fn rss_mb() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn sync(index: &Index, every: u64) -> Result<(f64, Vec<(u64, f64)>), String> {
    let samples = std::sync::Mutex::new(Vec::new());
    let started = Instant::now();
    index
        .sync_blocking(None, &AtomicBool::new(false), &|p: &Progress| {
            if p.seen.is_multiple_of(every)
                && let Ok(mut s) = samples.lock()
            {
                s.push((p.seen, rss_mb().0));
            }
        })
        .map_err(|e| e.to_string())?;
    let secs = started.elapsed().as_secs_f64();
    Ok((secs, samples.into_inner().unwrap_or_default()))
}

async fn embed(index: &Index, e: &Embedder) -> Result<f64, String> {
    let started = Instant::now();
    index
        .embed_pending(e, &AtomicBool::new(false), &|done, total| {
            if done.is_multiple_of(1024) {
                eprintln!("embedded {done} of {total}");
            }
        })
        .await
        .map_err(|e| e.to_string())?;
    Ok(started.elapsed().as_secs_f64())
}

/// What each query is searched by: the name in the tables, the mode, and
/// whether the word search is cut to its budget (the index's default or
/// `--word-budget`) or ranks every match.
const MODES: [(&str, Mode, bool); 5] = [
    ("words", Mode::Words, true),
    ("words (every match)", Mode::Words, false),
    ("meaning", Mode::Meaning, true),
    ("hybrid", Mode::Hybrid, true),
    ("hybrid (every match)", Mode::Hybrid, false),
];

#[derive(Default)]
struct Score {
    n: usize,
    at1: usize,
    at5: usize,
    rr: f64,
}

async fn recall(args: &[String]) -> Result<(), String> {
    let (corpus, queries) = queries(args)?;
    let url = flag(args, "--url").ok_or("--url URL/v1")?;
    let model = flag(args, "--model").ok_or("--model NAME")?;
    // `--keep DIR`: the index in DIR, kept for the next run (which syncs
    // nothing and embeds nothing: a change of the search alone measured
    // again in seconds).
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let place = flag(args, "--keep").map_or_else(|| dir.path().to_path_buf(), PathBuf::from);
    let index = Index::open(&place.join("k.sqlite")).map_err(|e| e.to_string())?;
    index.add_folder(&corpus, None).map_err(|e| e.to_string())?;
    let (text_secs, _) = sync(&index, 1000)?;
    let folder = index.folders().map_err(|e| e.to_string())?.remove(0);
    let backend = hearth_compose::openai(Some(&url), None).map_err(|e| e.to_string())?;
    let embedder = Embedder::new(backend, model.clone());
    index.set_model(&model).map_err(|e| e.to_string())?;
    let embed_secs = embed(&index, &embedder).await?;
    let dims = index
        .vectors_model()
        .map_err(|e| e.to_string())?
        .map_or(0, |(_, d)| d);
    let mut scores: BTreeMap<(String, &str), Score> = BTreeMap::new();
    let mut latency: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    // `--word-budget N`: the matches a word search may rank (the index's
    // own default otherwise); the rows "every match" rank them all.
    let budget = flag(args, "--word-budget").and_then(|b| b.parse::<u64>().ok());
    // `--rrf-k K`, `--meaning-weight W`: another fusion than the index's
    // (the tuning of it reads the development half only: `--half dev`).
    let mut fusion = hearth_knowledge::Fusion::default();
    if let Some(k) = flag(args, "--rrf-k").and_then(|k| k.parse::<f32>().ok()) {
        fusion.k = k;
    }
    if let Some(w) = flag(args, "--meaning-weight").and_then(|w| w.parse::<f32>().ok()) {
        fusion.meaning_weight = w;
    }
    index.set_fusion(fusion);
    let half = flag(args, "--half");
    for q in queries
        .iter()
        .filter(|q| half.as_ref().is_none_or(|h| *h == q.half))
    {
        for (name, mode, cut) in MODES {
            match (cut, budget) {
                (false, _) => index.set_word_budget(u64::MAX),
                (true, Some(b)) => index.set_word_budget(b),
                (true, None) => index.set_word_budget(hearth_knowledge::WORD_BUDGET),
            }
            let started = Instant::now();
            let hits = index
                .search(Some(&embedder), &q.query, 5, mode, None)
                .await
                .map_err(|e| e.to_string())?;
            latency
                .entry(name)
                .or_default()
                .push(started.elapsed().as_secs_f64() * 1000.0);
            let rank = hits.iter().position(|h| h.rel_path == q.file);
            let s = scores.entry((q.half.clone(), name)).or_default();
            s.n += 1;
            s.at1 += usize::from(rank == Some(0));
            s.at5 += usize::from(rank.is_some());
            s.rr += rank.map_or(0.0, |r| 1.0 / (r as f64 + 1.0));
        }
    }
    let (_, peak) = rss_mb();
    println!(
        "Corpus: {} files ({} read, {} left out), {} passages; embedding model {model} ({dims} numbers); text pass {text_secs:.1} s, embedding pass {embed_secs:.1} s ({:.1} passages/s); peak memory {peak:.0} MB\n",
        folder.files,
        folder.indexed,
        folder.skipped,
        folder.chunks,
        folder.chunks as f64 / embed_secs.max(1e-9)
    );
    println!("| half | mode | queries | recall@1 | recall@5 | MRR@5 |\n|---|---|---|---|---|---|");
    let mut json = serde_json::Map::new();
    println!(
        "Word search cut to {} matches.\n",
        budget.unwrap_or(hearth_knowledge::WORD_BUDGET)
    );
    for half in ["dev", "heldout"] {
        for (mode, _, _) in MODES {
            if let Some(s) = scores.get(&(half.to_owned(), mode)) {
                let n = s.n.max(1) as f64;
                println!(
                    "| {half} | {mode} | {} | {:.3} | {:.3} | {:.3} |",
                    s.n,
                    s.at1 as f64 / n,
                    s.at5 as f64 / n,
                    s.rr / n
                );
                json.insert(
                    format!("{half}/{mode}"),
                    serde_json::json!({"n": s.n, "recall@1": s.at1 as f64 / n, "recall@5": s.at5 as f64 / n, "mrr@5": s.rr / n}),
                );
            }
        }
    }
    println!("\n| mode | search p50 (ms) | p95 (ms) |\n|---|---|---|");
    for (mode, mut ms) in latency {
        ms.sort_by(f64::total_cmp);
        println!(
            "| {mode} | {:.1} | {:.1} |",
            percentile(&ms, 0.5),
            percentile(&ms, 0.95)
        );
    }
    if let Some(out) = flag(args, "--json") {
        std::fs::write(
            &out,
            serde_json::to_string_pretty(&json).unwrap_or_default(),
        )
        .map_err(|e| format!("{out}: {e}"))?;
    }
    Ok(())
}

/// Copies `corpus`'s files into `dest` as `copies` folders.
fn replicate(corpus: &Path, dest: &Path, copies: usize) -> Result<usize, String> {
    let files: Vec<PathBuf> = std::fs::read_dir(corpus)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    for c in 0..copies {
        let d = dest.join(format!("copy{c:03}"));
        std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
        for f in &files {
            if let Some(name) = f.file_name() {
                std::fs::copy(f, d.join(name)).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(files.len() * copies)
}

async fn scale(args: &[String]) -> Result<(), String> {
    let (corpus, queries) = queries(args)?;
    let target: u64 = flag(args, "--chunks")
        .and_then(|c| c.parse().ok())
        .unwrap_or(100_000);
    let dims: usize = flag(args, "--dims")
        .and_then(|c| c.parse().ok())
        .unwrap_or(384);
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    // One copy first, to learn passages per copy.
    let probe = Index::open(&dir.path().join("probe.sqlite")).map_err(|e| e.to_string())?;
    probe.add_folder(&corpus, None).map_err(|e| e.to_string())?;
    sync(&probe, u64::MAX)?;
    let per_copy = probe.folders().map_err(|e| e.to_string())?[0].chunks.max(1);
    let copies = target.div_ceil(per_copy) as usize;
    let root = dir.path().join("corpus");
    let files = replicate(&corpus, &root, copies)?;
    let sim = hearth_sim::Sim::start(hearth_sim::Script::with_models(vec![
        hearth_sim::ModelSpec::new("sim-embed"),
    ]))
    .await
    .map_err(|e| e.to_string())?;
    sim.set_embed_dims(dims);
    let backend = hearth_compose::openai(Some(&format!("{}/v1", sim.url())), None)
        .map_err(|e| e.to_string())?;
    let embedder = Embedder::new(backend, "sim-embed");
    let index = Index::open(&dir.path().join("k.sqlite")).map_err(|e| e.to_string())?;
    index.add_folder(&root, None).map_err(|e| e.to_string())?;
    let (text_secs, samples) = sync(&index, 1000)?;
    let embed_secs = embed(&index, &embedder).await?;
    let folder = index.folders().map_err(|e| e.to_string())?.remove(0);
    println!(
        "{files} files ({copies} copies of the corpus), {} passages of {dims} numbers; text pass {text_secs:.1} s ({:.0} files/s), embedding pass through hearth-sim {embed_secs:.1} s\n",
        folder.chunks,
        files as f64 / text_secs.max(1e-9)
    );
    println!("| files read | resident memory (MB) |\n|---|---|");
    for (seen, mb) in samples.iter().step_by((samples.len() / 10).max(1)) {
        println!("| {seen} | {mb:.0} |");
    }
    let mut table = Vec::new();
    for (name, mode, cut) in MODES {
        index.set_word_budget(if cut {
            hearth_knowledge::WORD_BUDGET
        } else {
            u64::MAX
        });
        // The first search reads the matrix; measured apart.
        let started = Instant::now();
        index
            .search(Some(&embedder), "warm up", 5, mode, None)
            .await
            .map_err(|e| e.to_string())?;
        let first = started.elapsed().as_secs_f64() * 1000.0;
        let mut ms = Vec::new();
        for q in queries.iter().take(300) {
            let started = Instant::now();
            index
                .search(Some(&embedder), &q.query, 5, mode, None)
                .await
                .map_err(|e| e.to_string())?;
            ms.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        ms.sort_by(f64::total_cmp);
        table.push(format!(
            "| {name} | {} | {:.1} | {:.1} | {:.1} | {first:.0} |",
            ms.len(),
            percentile(&ms, 0.5),
            percentile(&ms, 0.95),
            percentile(&ms, 1.0)
        ));
    }
    if std::env::var_os("KEEP").is_some() {
        let _ = dir.keep();
    }
    let (_, peak) = rss_mb();
    println!(
        "\n| mode | searches | p50 (ms) | p95 (ms) | max (ms) | first search, reading the vectors (ms) |\n|---|---|---|---|---|---|"
    );
    for row in table {
        println!("{row}");
    }
    println!(
        "\nPeak memory {peak:.0} MB (vectors held: {:.0} MB)",
        folder.embedded as f64 * dims as f64 * 4.0 / 1e6
    );
    Ok(())
}
