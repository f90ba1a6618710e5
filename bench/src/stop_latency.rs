//! (b) Stop latency at random moments of prompt evaluation and streaming,
//! until `stream_stopped` is delivered and the simulator has seen the
//! connection close; the table of every stop row (`stop_states` adds the
//! moments reached by state: a load, a tool call, a sub-agent).

use std::sync::Arc;
use std::time::{Duration, Instant};

use hearth_core::{Agent, RunHandle};
use hearth_protocol::EventKind;
use hearth_sim::{Reply, SimHandle};

/// Prompt evaluation of every scripted reply, in ms.
const PROMPT_EVAL_MS: u64 = 30;
/// Stops land uniformly in [0, WINDOW_MS) after the prompt evaluation
/// began: the first 30 ms are prompt evaluation, the rest mid-stream.
const WINDOW_MS: u64 = 90;

/// Stop latencies by the moment the stop came, one table row each.
pub struct StopLatency {
    pub rows: Vec<(&'static str, Vec<f64>)>,
}

/// A seeded xorshift: the same "random" moments on every run.
pub(crate) struct Rng(pub(crate) u64);
impl Rng {
    pub(crate) fn below(&mut self, n: u64) -> u64 {
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
        let all: Vec<f64> = self.rows.iter().flat_map(|(_, v)| v).copied().collect();
        let rows: String = self.rows.iter().map(|(name, v)| row(name, v)).collect();
        format!(
            "### (b) Stop latency (ms), until `stream_stopped` is delivered and the simulator saw the close\n\n\
             | when | stops | p50 | p99 | max |\n|---|---|---|---|---|\n{rows}{}\nTarget: p99 < 20 ms.\n",
            row("**all**", &all),
        )
    }
}

/// Stops at seeded random moments of a reply: in a window of `WINDOW_MS`
/// that opens when the simulator starts evaluating the prompt, so the
/// first `PROMPT_EVAL_MS` are prompt evaluation and the rest mid-stream.
/// Returns (during evaluation, mid-stream).
pub async fn random_moments(
    sim: &SimHandle,
    agent: &Arc<Agent>,
    stops: usize,
    seed: u64,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let mut rng = Rng(seed);
    let (mut during_eval, mut mid_stream) = (Vec::new(), Vec::new());
    let words: String = (0..2000).map(|i| format!(" t{i}")).collect();
    for i in 0..stops {
        sim.push_reply(
            Reply::text(words.clone())
                .with_prompt_eval_ms(PROMPT_EVAL_MS)
                .with_token_ms(1),
        );
        let before = sim.stats();
        let mut run = agent.run_stream(&format!("stop{seed}-{i}"), "go");
        // Start the clock for the random moment once the evaluation began.
        sim.wait_until(|s| s.prompt_evals > before.prompt_evals, WAIT)
            .await
            .map_err(|s| format!("the chat never reached the simulator: {s:?}"))?;
        let delay = rng.below(WINDOW_MS);
        tokio::time::sleep(Duration::from_millis(delay)).await;
        let t0 = Instant::now();
        run.stop();
        let (a, b) = tokio::join!(
            stopped(&mut run, t0, i),
            closed(sim, before.cancelled, t0, i)
        );
        let latency = a?.max(b?).as_secs_f64() * 1000.0;
        if delay < PROMPT_EVAL_MS {
            during_eval.push(latency);
        } else {
            mid_stream.push(latency);
        }
    }
    Ok((during_eval, mid_stream))
}

/// How long every wait may take before the benchmark gives up.
pub(crate) const WAIT: Duration = Duration::from_secs(10);

/// Time from `t0` until the run's `stream_stopped`.
pub(crate) async fn stopped(
    run: &mut RunHandle,
    t0: Instant,
    i: usize,
) -> Result<Duration, String> {
    let wait = async {
        while let Some(e) = run.next_event().await {
            match e.kind {
                EventKind::StreamStopped { .. } if !e.scope.is_subagent => return Ok(t0.elapsed()),
                EventKind::StreamEnd { .. } | EventKind::Error { .. } if !e.scope.is_subagent => {
                    return Err(format!("run {i} ended with {:?} instead of a stop", e.kind));
                }
                _ => {}
            }
        }
        Err(format!("run {i} ended without an event"))
    };
    tokio::time::timeout(WAIT, wait)
        .await
        .map_err(|_| format!("run {i} did not stop"))?
}

/// Time from `t0` until the simulator counted one more cancelled generation.
pub(crate) async fn closed(
    sim: &SimHandle,
    cancelled: u64,
    t0: Instant,
    i: usize,
) -> Result<Duration, String> {
    sim.wait_until(|s| s.cancelled > cancelled, WAIT)
        .await
        .map(|_| t0.elapsed())
        .map_err(|s| format!("run {i}: the simulator never saw the close: {s:?}"))
}
