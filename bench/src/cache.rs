//! (d) The prompt cache across turns: a 30-turn session through the whole
//! app (store, title and memory workers, planning off and on) against a
//! server with one cache slot, as Ollama runs by default. For every turn
//! after the first, the chat request's evaluated prompt tokens (the prompt
//! less what the server reused from its cache) over the tokens new since
//! the previous answer ended (the prompt less the previous prompt and the
//! previous answer): 1.0 is perfect reuse, and a background request that
//! evicted the conversation shows as the whole conversation evaluated
//! again. The figures are the server's own, read from the run's trace
//! (docs/design.md §5), so the same code measures hearth-sim and a real
//! llama.cpp server (`--real URL`).

use std::sync::Arc;

use hearth_core::{LiveRuns, ModelBackend, Profile, SpanKind, StaticProfiles};
use hearth_store::{Profiles, SpanRecord, Store};

/// Questions of the session, in turn; cycled past the end.
const QUESTIONS: &[&str] = &[
    "Hi! I'm Sam, I live in Lyon and I write Rust for a living.",
    "What is a good name for a grey cat?",
    "Give me one tip for keeping sourdough starter alive.",
    "How far is the Moon, roughly?",
    "What does the borrow checker protect me from?",
    "Suggest a short walk near a river.",
    "What is the capital of Portugal?",
    "Explain a hash map in two sentences.",
    "Which city did I say I live in?",
    "Name three prime numbers above 50.",
];

/// One session's figures.
pub struct Session {
    /// "hearth-sim" or the real server's URL.
    pub engine: String,
    pub planning: bool,
    /// Per chat request after the first: evaluated / new.
    pub ratios: Vec<f64>,
    /// Prompt tokens the chat requests evaluated, all turns.
    pub evaluated: u64,
    /// The first prompt, then what is new each turn: what a perfect cache
    /// leaves to evaluate, give or take the template's few tokens between
    /// an answer and the next question (which a side request may already
    /// have evaluated, so a turn can come in under it).
    pub minimum: u64,
    /// Prompt tokens the side requests (plan, title, memory) evaluated.
    pub side_evaluated: u64,
    /// Side requests made.
    pub side_requests: usize,
    /// Turns whose chat span had no cache figure (the server did not say).
    pub unreported: usize,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
}

impl Session {
    pub fn median(&self) -> f64 {
        median(&self.ratios)
    }

    pub fn worst(&self) -> f64 {
        self.ratios.iter().copied().fold(f64::NAN, f64::max)
    }
}

/// The Markdown table of `sessions`.
pub fn markdown(sessions: &[Session], turns: usize) -> String {
    let mut out = format!(
        "### (d) Prompt cache across turns: {turns} turns, title and memory workers on, one cache slot\n\n\
         Per chat request after the first: prompt tokens evaluated / tokens new since the previous answer ended \
         (the server's own counts, from the run's trace). Goal: median ≤ 1.2.\n\n\
         | engine | planning | **median** | worst turn | chat prompt tokens evaluated (session) | first prompt + new tokens each turn | side requests | their evaluated tokens |\n\
         |---|---|---|---|---|---|---|---|\n"
    );
    for s in sessions {
        out.push_str(&format!(
            "| {} | {} | **{:.2}** | {:.2} | {} | {} | {} | {} |\n",
            s.engine,
            if s.planning { "on" } else { "off" },
            s.median(),
            s.worst(),
            s.evaluated,
            s.minimum,
            s.side_requests,
            s.side_evaluated,
        ));
        if s.unreported > 0 {
            out.push_str(&format!(
                "\n{} turns had no cache figure from the server.\n",
                s.unreported
            ));
        }
    }
    out
}

/// A 30-turn-style session of `turns` turns on `backend` (model `model`),
/// planning as asked; `script` is called before each turn (the simulator
/// queues its replies there).
pub async fn session(
    engine: &str,
    backend: Arc<dyn ModelBackend>,
    model: &str,
    planning: bool,
    turns: usize,
    max_tokens: u32,
    mut script: impl FnMut(usize, &str),
) -> Result<Session, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (store, _) = Store::open(dir.path().join("cache.sqlite"))
        .await
        .map_err(|e| e.to_string())?;
    let profiles = Profiles::load(&store).await.map_err(|e| e.to_string())?;
    let store = Arc::new(store);
    // The seeded Agent profile's shape: a system prompt, the built-in
    // tools offered (their schemas are part of every prompt), planning as
    // asked; answers capped so a real CPU engine finishes in minutes.
    let mut profile = Profile::new("Bench", model);
    profile.system_prompt = "You are a helpful assistant. Answer briefly.".into();
    profile.tools = Some(
        ["calculator", "get_time", "remember"]
            .map(str::to_owned)
            .to_vec(),
    );
    profile.planning_enabled = planning;
    profile.max_output_tokens = max_tokens;
    profile.temperature = Some(0.0);
    let skills = hearth_compose::skills(&store, &profiles);
    let agent = hearth_compose::agent(hearth_compose::Parts {
        backend,
        named: Vec::new(),
        hosts: hearth_core::Hosts::new(),
        provider: Arc::new(StaticProfiles::single("", profile)),
        profiles,
        store: store.clone(),
        settings: Arc::default(),
        approvals: Arc::default(),
        mcp: Arc::default(),
        hooks: Arc::new(hearth_core::hooks::NoHooks),
        skills,
        knowledge: None,
    });
    let runs = LiveRuns::default();
    let session_id = "bench-cache";
    // Per turn, its first and its last model call (a turn with tool calls
    // has several; the next turn's cache follows the last).
    let mut chat: Vec<(SpanRecord, SpanRecord)> = Vec::new();
    let mut side: Vec<SpanRecord> = Vec::new();
    for turn in 0..turns {
        let question = format!("{} (turn {})", QUESTIONS[turn % QUESTIONS.len()], turn + 1);
        script(turn, &question);
        let handle = agent.run_stream(session_id, &question);
        let run_id = handle.run_id.clone();
        let mut following = runs
            .adopt(handle, Some(question), "bench")
            .map_err(|e| e.to_string())?;
        // The events end once the run's task has, its workers included:
        // the next turn starts after them, as a person's would.
        while following.events.recv().await.is_some() {}
        let trace = store
            .trace(&run_id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the run left no trace")?;
        let calls: Vec<&SpanRecord> = trace
            .spans
            .iter()
            .filter(|s| s.kind == SpanKind::Model)
            .collect();
        let (Some(first), Some(last)) = (calls.first(), calls.last()) else {
            return Err(format!("turn {}: no model call in the trace", turn + 1));
        };
        if let Some(e) = calls.iter().find_map(|s| s.error.as_ref()) {
            return Err(format!("turn {}: {e}", turn + 1));
        }
        chat.push(((*first).clone(), (*last).clone()));
        side.extend(trace.spans.into_iter().filter(|s| s.kind == SpanKind::Side));
    }
    Ok(figures(engine, planning, &chat, &side))
}

fn figures(
    engine: &str,
    planning: bool,
    chat: &[(SpanRecord, SpanRecord)],
    side: &[SpanRecord],
) -> Session {
    let n = |v: Option<i64>| u64::try_from(v.unwrap_or(0)).unwrap_or(0);
    let evaluated = |s: &SpanRecord| n(s.tokens_in).saturating_sub(n(s.tokens_cached));
    let mut out = Session {
        engine: engine.to_owned(),
        planning,
        ratios: Vec::new(),
        evaluated: chat.iter().map(|(first, _)| evaluated(first)).sum(),
        minimum: chat.first().map_or(0, |(first, _)| n(first.tokens_in)),
        side_evaluated: side.iter().map(evaluated).sum(),
        side_requests: side.len(),
        unreported: chat
            .iter()
            .filter(|(first, _)| first.tokens_cached.is_none())
            .count(),
    };
    for pair in chat.windows(2) {
        let ((_, before), (now, _)) = (&pair[0], &pair[1]);
        // What the cache could hold after the previous turn's last answer:
        // its prompt and what it generated. At least one token is always
        // evaluated.
        let held = n(before.tokens_in) + n(before.tokens_out);
        let new = n(now.tokens_in).saturating_sub(held).max(1);
        out.minimum += new;
        out.ratios.push(evaluated(now) as f64 / new as f64);
    }
    out
}
