//! (b) Stop latency at random moments, until `stream_stopped` is delivered
//! and the simulator has seen the connection close.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hearth_core::Agent;
use hearth_protocol::EventKind;
use hearth_sim::{Reply, SimHandle};

/// Prompt evaluation of every scripted reply, in ms.
const PROMPT_EVAL_MS: u64 = 30;
/// Stops land uniformly in [0, WINDOW_MS) after the chat reached the sim:
/// the first 30 ms are prompt evaluation, the rest mid-stream.
const WINDOW_MS: u64 = 90;

pub struct StopLatency {
    during_eval: Vec<f64>,
    mid_stream: Vec<f64>,
}

/// A seeded xorshift: the same "random" moments on every run.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

impl StopLatency {
    pub fn markdown(&self) -> String {
        let row = |name: &str, v: &[f64]| {
            let mut s = v.to_vec();
            s.sort_by(f64::total_cmp);
            format!(
                "| {name} | {} | {:.2} | {:.2} | {:.2} |\n",
                s.len(),
                pct(&s, 0.5),
                pct(&s, 0.99),
                s.last().copied().unwrap_or(f64::NAN)
            )
        };
        let all: Vec<f64> = self
            .during_eval
            .iter()
            .chain(&self.mid_stream)
            .copied()
            .collect();
        format!(
            "### (b) Stop latency (ms), until `stream_stopped` is delivered and the simulator saw the close\n\n\
             | when | stops | p50 | p99 | max |\n|---|---|---|---|---|\n{}{}{}\nTarget: p99 < 20 ms.\n",
            row("during prompt evaluation", &self.during_eval),
            row("mid-stream", &self.mid_stream),
            row("**all**", &all),
        )
    }
}

pub async fn run(sim: &SimHandle, agent: &Arc<Agent>, stops: usize) -> Result<StopLatency, String> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = StopLatency {
        during_eval: Vec::new(),
        mid_stream: Vec::new(),
    };
    let words: String = (0..2000).map(|i| format!(" t{i}")).collect();
    for i in 0..stops {
        sim.push_reply(
            Reply::text(words.clone())
                .with_prompt_eval_ms(PROMPT_EVAL_MS)
                .with_token_ms(1),
        );
        let before = sim.stats();
        let mut run = agent.run_stream(&format!("stop{i}"), "go");
        // Start the clock for the random moment once the chat is at the sim.
        sim.wait_until(
            |s| s.chat_requests > before.chat_requests + 1,
            Duration::from_secs(5),
        )
        .await
        .map_err(|s| format!("the chat never reached the simulator: {s:?}"))?;
        let delay = rng.below(WINDOW_MS);
        tokio::time::sleep(Duration::from_millis(delay)).await;
        let t0 = Instant::now();
        run.stop();
        let stopped = async {
            while let Some(e) = run.next_event().await {
                match e.kind {
                    EventKind::StreamStopped { .. } => return Ok(t0.elapsed()),
                    EventKind::StreamEnd { .. } | EventKind::Error { .. } => {
                        return Err(format!("run {i} ended with {:?} instead of a stop", e.kind));
                    }
                    _ => {}
                }
            }
            Err(format!("run {i} ended without an event"))
        };
        let closed = async {
            sim.wait_until(|s| s.cancelled > before.cancelled, Duration::from_secs(5))
                .await
                .map(|_| t0.elapsed())
                .map_err(|s| format!("run {i}: the simulator never saw the close: {s:?}"))
        };
        let (a, b) = tokio::join!(stopped, closed);
        let latency = a?.max(b?).as_secs_f64() * 1000.0;
        if delay < PROMPT_EVAL_MS {
            out.during_eval.push(latency);
        } else {
            out.mid_stream.push(latency);
        }
    }
    Ok(out)
}
