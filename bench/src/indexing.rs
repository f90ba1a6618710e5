//! (f) Stop and a new chat while knowledge folders are indexed (issue 45):
//! the same seeded stops as (b), and the time to a new chat's first token,
//! with nothing else going on and then while a sync reads 12,000 files and
//! embeds them through the same simulator — in one run, as ratios.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hearth_core::Agent;
use hearth_knowledge::{Embedder, Index, Progress};
use hearth_protocol::EventKind;
use hearth_sim::{Reply, SimHandle};

use crate::stop_latency::{WAIT, random_moments};

/// Files of the synthetic folder: prose of a few kilobytes each, enough
/// that the sync outlasts the measurements.
const FILES: usize = 12_000;

fn pct(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    s[((s.len() as f64 - 1.0) * p).round() as usize]
}

/// Time from sending a message to its first text, `n` times.
async fn first_tokens(
    sim: &SimHandle,
    agent: &Arc<Agent>,
    n: usize,
    tag: &str,
) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for i in 0..n {
        sim.push_reply(Reply::text("first words of the answer").with_prompt_eval_ms(5));
        let t0 = Instant::now();
        let mut run = agent.run_stream(&format!("first-{tag}-{i}"), "hi");
        let first = tokio::time::timeout(WAIT, async {
            while let Some(e) = run.next_event().await {
                match e.kind {
                    EventKind::TextDelta { .. } => return Ok(t0.elapsed()),
                    EventKind::StreamEnd { .. } | EventKind::Error { .. } => {
                        return Err(format!("chat {i} ended without text: {:?}", e.kind));
                    }
                    _ => {}
                }
            }
            Err(format!("chat {i} ended without an event"))
        })
        .await
        .map_err(|_| format!("chat {i} gave no text"))??;
        out.push(first.as_secs_f64() * 1000.0);
        while run.next_event().await.is_some() {}
    }
    Ok(out)
}

/// The table: idle, then during a sync.
pub async fn run(sim: &SimHandle, agent: &Arc<Agent>, stops: usize) -> Result<String, String> {
    let idle_stops = random_moments(sim, agent, stops, 7).await?;
    let idle_first = first_tokens(sim, agent, stops, "idle").await?;

    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let docs = dir.path().join("docs");
    for i in 0..FILES {
        let d = docs.join(format!("d{}", i / 100));
        std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
        let text: String = (0..40)
            .map(|p| format!("## Part {p}\n\nNote {i} says thing {p} about topic {} and more words here.\n\n", (i * 7 + p) % 97))
            .collect();
        std::fs::write(d.join(format!("n{i}.md")), text).map_err(|e| e.to_string())?;
    }
    let index = Index::open(&dir.path().join("k.sqlite")).map_err(|e| e.to_string())?;
    index.add_folder(&docs, None).map_err(|e| e.to_string())?;
    let backend = hearth_compose::openai(Some(&format!("{}/v1", sim.url())), None)
        .map_err(|e| e.to_string())?;
    let embedder = Embedder::new(backend, crate::MODEL);
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let indexing = {
        let (index, stop, done) = (index.clone(), stop.clone(), done.clone());
        tokio::spawn(async move {
            let progress: Arc<dyn Fn(&Progress) + Send + Sync> = Arc::new(|_| {});
            let read = index.sync(None, stop.clone(), progress).await;
            let embedded = index.embed_pending(&embedder, &stop, &|_, _| {}).await;
            done.store(true, Ordering::SeqCst);
            (
                read.map_err(|e| e.to_string()),
                embedded.map_err(|e| e.to_string()),
            )
        })
    };
    // Measured only while the sync is still going on.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let busy_stops = random_moments(sim, agent, stops, 7).await?;
    let busy_first = first_tokens(sim, agent, stops, "busy").await?;
    let overlapped = !done.load(Ordering::SeqCst);
    stop.store(true, Ordering::SeqCst);
    let (read, embedded) = indexing.await.map_err(|e| e.to_string())?;
    read?;
    embedded?;
    if !overlapped {
        return Err("the sync ended before the measurements did: give it more files".into());
    }
    let idle_all: Vec<f64> = idle_stops.0.iter().chain(&idle_stops.1).copied().collect();
    let busy_all: Vec<f64> = busy_stops.0.iter().chain(&busy_stops.1).copied().collect();
    let row = |name: &str, idle: &[f64], busy: &[f64]| {
        format!(
            "| {name} | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} |\n",
            idle.len(),
            pct(idle, 0.5),
            pct(idle, 0.95),
            pct(busy, 0.5),
            pct(busy, 0.95),
            pct(busy, 0.5) / pct(idle, 0.5),
            pct(busy, 0.95) / pct(idle, 0.95)
        )
    };
    Ok(format!(
        "### (f) Stop and a new chat while a knowledge folder is indexed ({FILES} files read and embedded through the same simulator)\n\n\
         | what | n | idle p50 / p95 (ms) | indexing p50 / p95 (ms) | ratio p50 / p95 |\n|---|---|---|---|---|\n{}{}",
        row("stop, until stopped and closed", &idle_all, &busy_all),
        row("new chat, to its first token", &idle_first, &busy_first),
    ))
}
