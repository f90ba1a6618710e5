//! Persistence: the cost of storing one turn must not grow with the
//! session, and a long session must open fast.

use std::time::Instant;

use hearth_core::{ChatMessage, MessageStatus, SessionStore};
use hearth_store::Store;

pub struct Persist {
    turn_small_ms: f64,
    turn_large_ms: f64,
    open_read_ms: Vec<f64>,
    build_s: f64,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

impl Persist {
    pub fn markdown(&self) -> String {
        format!(
            "### (c) Persistence (SQLite, WAL, synchronous=FULL)\n\n\
             | measure | value |\n|---|---|\n\
             | one turn (begin run, user msg, 4 checkpoints, answer, end run) in a 100-message session | {:.2} ms |\n\
             | the same in a 10,000-message session | {:.2} ms |\n\
             | **ratio 10,000 / 100** (target ≤ 1.5) | **{:.2}** |\n\
             | open a 10,000-message database and read the last 50 messages (median of {}) | **{:.2} ms** (target ≤ 50 ms) |\n\
             | building the 10,000-message session, one durable append each | {:.1} s |\n",
            self.turn_small_ms,
            self.turn_large_ms,
            self.turn_large_ms / self.turn_small_ms,
            self.open_read_ms.len(),
            median(&self.open_read_ms),
            self.build_s,
        )
    }
}

async fn turn(store: &Store, session: &str, i: usize) -> Result<(), String> {
    let run = format!("run{i}");
    let e = |e: hearth_core::StoreError| e.to_string();
    store.begin_run(session, &run).await.map_err(e)?;
    store
        .append(session, &run, ChatMessage::user(format!("question {i}")))
        .await
        .map_err(e)?;
    let mut partial = String::new();
    for k in 0..4 {
        partial.push_str(&format!(" part{k}"));
        store
            .checkpoint(session, &run, &ChatMessage::assistant(partial.clone()))
            .await
            .map_err(e)?;
    }
    store
        .append(session, &run, ChatMessage::assistant(partial))
        .await
        .map_err(e)?;
    store
        .end_run(&run, MessageStatus::Complete)
        .await
        .map_err(e)?;
    Ok(())
}

/// Mean ms per turn over `n` turns, after the session has `len` messages.
async fn per_turn(store: &Store, session: &str, n: usize) -> Result<f64, String> {
    let t = Instant::now();
    for i in 0..n {
        turn(store, session, i).await?;
    }
    Ok(t.elapsed().as_secs_f64() * 1000.0 / n as f64)
}

pub async fn run() -> Result<Persist, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("bench.sqlite");
    let (store, _) = Store::open(&path).await.map_err(|e| e.to_string())?;
    let e = |e: hearth_core::StoreError| e.to_string();
    let build = Instant::now();
    for i in 0..100 {
        store
            .append("small", "r", ChatMessage::user(format!("m{i}")))
            .await
            .map_err(e)?;
    }
    for i in 0..10_000 {
        let m = if i % 2 == 0 {
            ChatMessage::user(format!("message {i} with a little text in it"))
        } else {
            ChatMessage::assistant(format!(
                "answer {i}, a longer reply with some more words in it"
            ))
        };
        store.append("large", "r", m).await.map_err(e)?;
    }
    let build_s = build.elapsed().as_secs_f64();
    // Alternate small and large so machine noise hits both alike.
    let (mut small, mut large) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        small.push(per_turn(&store, "small", 20).await?);
        large.push(per_turn(&store, "large", 20).await?);
    }
    drop(store);
    let mut open_read_ms = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        let (s, _) = Store::open(&path).await.map_err(|e| e.to_string())?;
        let last = s
            .last_messages("large", 50)
            .await
            .map_err(|e| e.to_string())?;
        open_read_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        if last.len() != 50 {
            return Err(format!("read {} messages, expected 50", last.len()));
        }
    }
    Ok(Persist {
        turn_small_ms: median(&small),
        turn_large_ms: median(&large),
        open_read_ms,
        build_s,
    })
}
