//! (e) Time to first token added by Hearth: the whole app (store, the
//! pipeline, the preload, events; with planning, the planner's call) from
//! `run_stream` to the first text event, against a bare streaming request
//! with the very body Hearth sent, to the first content line. Both run
//! against the same simulator with a fixed prompt evaluation and token
//! time, alternating, so the difference is Hearth's own.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use hearth_core::{LiveRuns, Profile, StaticProfiles};
use hearth_protocol::EventKind;
use hearth_sim::{ModelSpec, Reply, Script, Sim, SimHandle};
use hearth_store::{Profiles, Store};

use crate::MODEL;

/// Prompt evaluation and per-token time of every scripted reply.
const PROMPT_EVAL_MS: u64 = 20;
const TOKEN_MS: u64 = 2;

pub struct Ttft {
    rows: Vec<(bool, Vec<f64>, Vec<f64>)>,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
}

impl Ttft {
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "### (e) Time to first token added by Hearth (hearth-sim: prompt evaluation {PROMPT_EVAL_MS} ms, \
             {TOKEN_MS} ms a token, the model loaded)\n\n\
             | planning | rounds | bare request, median | Hearth, median | **added, median** | added, worst |\n\
             |---|---|---|---|---|---|\n"
        );
        for (planning, bare, hearth) in &self.rows {
            let added: Vec<f64> = hearth.iter().zip(bare).map(|(h, b)| h - b).collect();
            out.push_str(&format!(
                "| {} | {} | {:.1} ms | {:.1} ms | **{:.1} ms** | {:.1} ms |\n",
                if *planning {
                    "on (a planner call that says DIRECT)"
                } else {
                    "off"
                },
                bare.len(),
                median(bare),
                median(hearth),
                median(&added),
                added.iter().copied().fold(f64::NAN, f64::max),
            ));
        }
        out
    }
}

fn reply(text: &str) -> Reply {
    Reply::text(text)
        .with_prompt_eval_ms(PROMPT_EVAL_MS)
        .with_token_ms(TOKEN_MS)
}

fn when(on: &str, text: &str) -> Reply {
    Reply {
        when: Some(on.to_owned()),
        ..reply(text)
    }
}

/// Milliseconds from sending `body` to the first line with answer text.
async fn bare(
    http: &reqwest::Client,
    sim: &SimHandle,
    body: &serde_json::Value,
) -> Result<f64, String> {
    let started = Instant::now();
    let mut stream = std::pin::pin!(crate::throughput::bare_chat(http, sim, body).await?);
    let mut pending = Vec::new();
    while let Some(chunk) = stream.next().await {
        pending.extend_from_slice(chunk.map_err(|e| e.to_string())?.as_ref());
        // Whole NDJSON lines: the first with answer text ends the wait.
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let text = serde_json::from_slice::<serde_json::Value>(&line)
                .ok()
                .and_then(|v| v["message"]["content"].as_str().map(str::len));
            if text.is_some_and(|n| n > 0) {
                return Ok(started.elapsed().as_secs_f64() * 1000.0);
            }
        }
    }
    Err("the bare stream ended without text".into())
}

pub async fn run(rounds: usize) -> Result<Ttft, String> {
    let mut rows = Vec::new();
    for planning in [false, true] {
        let sim = Sim::start(Script::with_models(vec![
            ModelSpec::new(MODEL).with_capabilities(&["completion", "tools"]),
        ]))
        .await
        .map_err(|e| format!("simulator: {e}"))?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let (store, _) = Store::open(dir.path().join("ttft.sqlite"))
            .await
            .map_err(|e| e.to_string())?;
        let profiles = Profiles::load(&store).await.map_err(|e| e.to_string())?;
        let mut profile = Profile::new("Bench", MODEL);
        profile.tools = Some(["calculator", "get_time"].map(str::to_owned).to_vec());
        profile.planning_enabled = planning;
        let backend = hearth_compose::ollama(Some(&sim.url()))
            .map_err(|e| e.to_string())?
            .backend;
        let skills = hearth_compose::skills(&store, &profiles);
        let agent = hearth_compose::agent(hearth_compose::Parts {
            backend,
            named: Vec::new(),
            hosts: hearth_core::Hosts::new(),
            provider: Arc::new(StaticProfiles::single("", profile)),
            profiles,
            store: Arc::new(store),
            settings: Arc::default(),
            approvals: Arc::default(),
            mcp: Arc::default(),
            hooks: Arc::new(hearth_core::hooks::NoHooks),
            skills,
            knowledge: None,
        });
        let runs = LiveRuns::default();
        let http = reqwest::Client::new();
        let (mut bare_ms, mut hearth_ms) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let question = format!("Question number {round}: what is the weather like?");
            sim.push_reply(when(hearth_core::planning::PLANNER_PROMPT, "DIRECT"));
            sim.push_reply(when(
                &question,
                "It is sunny, with a light breeze from the west.",
            ));
            sim.push_reply(when(hearth_core::TITLE_PROMPT, "Weather"));
            sim.push_reply(when(hearth_core::MEMORY_PROMPT, "NONE"));
            let started = Instant::now();
            let handle = agent.run_stream("bench-ttft", &question);
            let mut following = runs
                .adopt(handle, Some(question.clone()), "bench")
                .map_err(|e| e.to_string())?;
            let mut first = None;
            while let Some(e) = following.events.recv().await {
                if first.is_none() && matches!(e.kind, EventKind::TextDelta { .. }) {
                    first = Some(started.elapsed().as_secs_f64() * 1000.0);
                }
            }
            hearth_ms.push(first.ok_or("no text from Hearth")?);
            // The body Hearth sent for the answer, sent again bare.
            let body = sim
                .chat_bodies()
                .into_iter()
                .rev()
                .find(|b| {
                    b["messages"]
                        .as_array()
                        .and_then(|m| m.last())
                        .is_some_and(|m| m["content"] == question.as_str())
                })
                .ok_or("Hearth's request is not in the simulator's log")?;
            sim.push_reply(reply("It is sunny, with a light breeze from the west."));
            bare_ms.push(bare(&http, &sim, &body).await?);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        rows.push((planning, bare_ms, hearth_ms));
    }
    Ok(Ttft { rows })
}
