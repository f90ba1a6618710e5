//! (a) Loop throughput against a bare read of the same stream.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use hearth_core::Agent;
use hearth_protocol::EventKind;
use hearth_sim::{Reply, SimHandle};

use crate::MODEL;

pub struct Throughput {
    tokens: usize,
    bare: Vec<f64>,
    looped: Vec<f64>,
    /// The loop on the same answer shaped like Markdown (a list line every
    /// 8 tokens, a paragraph every 32: the core works the shown text out
    /// again at each paragraph).
    lines: Vec<f64>,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

impl Throughput {
    pub fn markdown(&self) -> String {
        let (b, l, m) = (
            median(&self.bare),
            median(&self.looped),
            median(&self.lines),
        );
        format!(
            "### (a) Throughput, `token_ms: 0`, {} tokens per answer, {} rounds (median)\n\n\
             | path | tokens/s |\n|---|---|\n\
             | bare read of the stream (reqwest, count lines) | {b:.0} |\n\
             | whole loop to the event consumer | {l:.0} |\n\
             | **ratio loop / bare** (target ≥ 0.9) | **{:.3}** |\n\
             | whole loop, Markdown-shaped (a list line every 8 tokens, a paragraph every 32) | {m:.0} |\n\
             | **ratio Markdown-shaped / bare** (target ≥ 0.9) | **{:.3}** |\n\n\
             per round, bare: {:?}\n\nper round, loop: {:?}\n\nper round, lines: {:?}\n",
            self.tokens,
            self.bare.len(),
            l / b,
            m / b,
            self.bare.iter().map(|x| x.round()).collect::<Vec<_>>(),
            self.looped.iter().map(|x| x.round()).collect::<Vec<_>>(),
            self.lines.iter().map(|x| x.round()).collect::<Vec<_>>(),
        )
    }
}

fn content(tokens: usize) -> String {
    // One word per token ("w123 "), ASCII, so both paths see the same lines.
    (0..tokens).map(|i| format!(" w{}", i % 1000)).collect()
}

/// The same tokens shaped like Markdown: a list line with a code span
/// every 8th, a new paragraph every 32nd. A paragraph break, and the piece
/// after it, make the core work the shown text out again (shown_text.rs);
/// the others take its shortcut.
fn content_lines(tokens: usize) -> String {
    (0..tokens)
        .map(|i| match i % 32 {
            31 => format!("\n\nw{}", i % 1000),
            n if n % 8 == 7 => format!("\n- `w{}`", i % 1000),
            _ => format!(" w{}", i % 1000),
        })
        .collect()
}

/// `body` sent bare to the simulator's `/api/chat`: the response's bytes.
pub(crate) async fn bare_chat(
    http: &reqwest::Client,
    sim: &SimHandle,
    body: &serde_json::Value,
) -> Result<impl futures::Stream<Item = reqwest::Result<impl AsRef<[u8]>>>, String> {
    let resp = http
        .post(format!("{}/api/chat", sim.url()))
        .json(body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    Ok(resp.bytes_stream())
}

/// The same request the loop sends, read raw: split lines, no JSON parsing.
async fn bare_once(
    http: &reqwest::Client,
    sim: &SimHandle,
    body: &serde_json::Value,
) -> Result<(usize, Duration), String> {
    let t = Instant::now();
    let mut stream = std::pin::pin!(bare_chat(http, sim, body).await?);
    let mut lines = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| e.to_string())?;
        lines += chunk.as_ref().iter().filter(|b| **b == b'\n').count();
    }
    // The last line is the done line.
    Ok((lines.saturating_sub(1), t.elapsed()))
}

async fn loop_once(agent: &Arc<Agent>, session: &str) -> Result<(usize, Duration), String> {
    let t = Instant::now();
    let mut run = agent.run_stream(session, "go");
    let mut deltas = 0usize;
    while let Some(e) = run.next_event().await {
        match e.kind {
            // A piece held back (trailing whitespace, a line break) goes
            // out with the next: counted as tokens, not deltas.
            EventKind::TextDelta { delta } => deltas += delta.matches('w').count(),
            EventKind::StreamEnd { .. } => return Ok((deltas, t.elapsed())),
            EventKind::Error { error, .. } => return Err(error.to_string()),
            _ => {}
        }
    }
    Err("the run ended without stream_end".into())
}

pub async fn run(
    sim: &SimHandle,
    agent: &Arc<Agent>,
    tokens: usize,
    rounds: usize,
) -> Result<Throughput, String> {
    let text = content(tokens);
    let http = reqwest::Client::new();
    // Warm up: load the model, open pooled connections.
    sim.push_reply(Reply::text("warm"));
    loop_once(agent, "warm").await?;
    let mut out = Throughput {
        tokens,
        bare: Vec::new(),
        looped: Vec::new(),
        lines: Vec::new(),
    };
    for round in 0..rounds {
        // The body the loop sends for a fresh one-message session, so the
        // simulator does the same work (prompt render, prefix cache) for both.
        let body = serde_json::json!({
            "model": MODEL, "stream": true, "keep_alive": agent.settings().load_options(MODEL).keep_alive.as_secs(),
            "options": {"num_ctx": agent.settings().load_options(MODEL).num_ctx},
            "messages": [{"role": "system", "content": hearth_core::Profile::new("", "").system_prompt},
                         {"role": "user", "content": "go"}],
        });
        sim.push_reply(Reply::text(text.clone()));
        let (n, d) = bare_once(&http, sim, &body).await?;
        if n != tokens {
            return Err(format!("bare read saw {n} tokens, expected {tokens}"));
        }
        out.bare.push(n as f64 / d.as_secs_f64());
        sim.push_reply(Reply::text(text.clone()));
        let (n, d) = loop_once(agent, &format!("tp{round}")).await?;
        if n != tokens {
            return Err(format!("the loop delivered {n} deltas, expected {tokens}"));
        }
        out.looped.push(n as f64 / d.as_secs_f64());
        sim.push_reply(Reply::text(content_lines(tokens)));
        let (n, d) = loop_once(agent, &format!("tl{round}")).await?;
        if n != tokens {
            return Err(format!(
                "the loop showed {n} words of lines, expected {tokens}"
            ));
        }
        out.lines.push(n as f64 / d.as_secs_f64());
    }
    Ok(out)
}
