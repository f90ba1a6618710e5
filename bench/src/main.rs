//! `hearth-bench`: the foundation benchmarks, against an in-process
//! hearth-sim on loopback. Prints Markdown for BENCHMARKS.md.
//!
//! (a) Throughput: tokens per second through the whole loop (client,
//!     NDJSON parsing, core, event channel) to the event consumer, against
//!     a bare read of the same simulator stream, in the same run
//!     (`token_ms: 0`, so the simulator writes as fast as it can).
//! (b) Stop latency: stops at seeded random moments (during prompt
//!     evaluation and mid-stream, over Ollama's and the OpenAI-compatible
//!     API) and at moments reached by state (while the model loads, during
//!     a tool call, inside a sub-agent), each measured until
//!     `stream_stopped` is delivered AND the simulator has seen the
//!     connection close (a stop during a load closes nothing: the load
//!     goes on).
//! (c) Persistence: per-turn cost at 100 vs 10,000 messages, and opening a
//!     10,000-message session to read its last 50 messages.
//! (d) The prompt cache across turns (`cache.rs`): a whole session with
//!     the workers on, planning off and on, against hearth-sim and, with
//!     `--real URL`, a real OpenAI-compatible server (llama.cpp's
//!     `llama-server -np 1`, started by `scripts/realmodel/start.sh`).
//! (e) Time to first token added by Hearth over a bare request with the
//!     same body, planning off and on (`ttft.rs`).
//! (f) Stop and a new chat's first token while a knowledge folder is
//!     indexed, against the same with nothing else going on
//!     (`indexing.rs`, `--only indexing`).
//!
//! Usage: `cargo run -p hearth-bench --release [-- --stops N --tokens N
//! --rounds N --turns N --only cache|ttft|indexing --real URL --real-model NAME --goal X]`
//! (`--goal`: exit 1 when a cache session's median is above X).

mod cache;
mod indexing;
mod persist;
mod stop_latency;
mod stop_states;
mod throughput;
mod ttft;

use std::process::ExitCode;
use std::sync::Arc;

use hearth_core::{Agent, ModelBackend, Profile, StaticProfiles, ToolRegistry};
use hearth_sim::{ModelSpec, Reply, Script, Sim, SimHandle};
use stop_latency::StopLatency;

/// The model every benchmark uses.
const MODEL: &str = "bench:latest";

struct Args {
    stops: usize,
    tokens: usize,
    rounds: usize,
    /// Turns of the cache session.
    turns: usize,
    /// Only this benchmark (`cache`), when given.
    only: Option<String>,
    /// A real OpenAI-compatible server (base URL, `/v1` included) and its
    /// model name, for the cache benchmark.
    real: Option<(String, String)>,
    /// Fail when a cache session's median exceeds this (CI's real-engine
    /// stage).
    goal: Option<f64>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        stops: 300,
        tokens: 20_000,
        rounds: 5,
        turns: 30,
        only: None,
        real: None,
        goal: None,
    };
    let mut real_model = "qwen2.5-coder:0.5b".to_owned();
    let mut real_url = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--only" => {
                a.only = Some(value);
                continue;
            }
            "--real" => {
                real_url = Some(value);
                continue;
            }
            "--real-model" => {
                real_model = value;
                continue;
            }
            "--goal" => {
                let goal = value
                    .parse()
                    .map_err(|_| format!("--goal: `{value}` is not a number"))?;
                a.goal = Some(goal);
                continue;
            }
            _ => {}
        }
        let n: usize = value
            .parse()
            .map_err(|_| format!("{flag}: `{value}` is not a number"))?;
        match flag.as_str() {
            "--stops" => a.stops = n.max(1),
            "--tokens" => a.tokens = n.max(100),
            "--rounds" => a.rounds = n.max(1),
            "--turns" => a.turns = n.max(2),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    a.real = real_url.map(|url| (url, real_model));
    Ok(a)
}

/// The agents the benchmarks drive, all against one simulator.
struct Agents {
    /// Over Ollama's API, no tools.
    ollama: Arc<Agent>,
    /// Its backend, to unload the model between load stops.
    backend: Arc<dyn ModelBackend>,
    /// Over the OpenAI-compatible API, no tools.
    openai: Arc<Agent>,
    /// Over Ollama's API with a tool that never returns and sub-agents.
    tools: Arc<Agent>,
}

/// A simulator of the bench model (`token_ms: 0`) and its Ollama backend,
/// as every front end builds it (hearth-compose).
async fn start_sim() -> Result<(SimHandle, Arc<dyn ModelBackend>), String> {
    let sim = Sim::start(Script::with_models(vec![
        ModelSpec::new(MODEL)
            .with_token_ms(0)
            .with_capabilities(&["completion", "tools"]),
    ]))
    .await
    .map_err(|e| format!("simulator: {e}"))?;
    let backend = hearth_compose::ollama(Some(&sim.url()))
        .map_err(|e| e.to_string())?
        .backend;
    Ok((sim, backend))
}

async fn setup() -> Result<(SimHandle, Agents), String> {
    // The agents are bare (no store, no workers) to measure the loop alone.
    let (sim, backend) = start_sim().await?;
    let bare = || {
        let mut profile = Profile::new("Bench", MODEL);
        profile.tools = Some(vec![]);
        Arc::new(StaticProfiles::single("", profile))
    };
    let ollama = Agent::builder(backend.clone(), bare())
        .tools(ToolRegistry::new())
        .build();
    let v1 = hearth_compose::openai(Some(&format!("{}/v1", sim.url())), None)
        .map_err(|e| e.to_string())?;
    let openai = Agent::builder(v1, bare())
        .tools(ToolRegistry::new())
        .build();
    let mut tools = ToolRegistry::new();
    tools.register(Arc::new(stop_states::Block));
    let tools = Agent::builder(
        backend.clone(),
        Arc::new(StaticProfiles::single("", Profile::new("Bench", MODEL))),
    )
    .tools(tools)
    .subagents()
    .build();
    let agents = Agents {
        ollama,
        backend,
        openai,
        tools,
    };
    Ok((sim, agents))
}

/// (d): the cache session against hearth-sim, then against the real
/// server when one is given, planning off and on.
async fn cache_sessions(args: &Args) -> Result<(), String> {
    let mut sessions = Vec::new();
    for planning in [false, true] {
        sessions.push(sim_cache_session(args.turns, planning).await?);
    }
    if let Some((url, model)) = &args.real {
        let backend = hearth_compose::openai(Some(url), None).map_err(|e| e.to_string())?;
        for planning in [false, true] {
            let s = cache::session(
                url,
                backend.clone(),
                model,
                planning,
                args.turns,
                48,
                |_, _| {},
            )
            .await?;
            sessions.push(s);
        }
    }
    println!("{}", cache::markdown(&sessions, args.turns));
    if let Some(goal) = args.goal {
        let missed: Vec<String> = sessions
            .iter()
            // A median that is not a number (no turn measured) misses too.
            .filter(|s| {
                let met = matches!(
                    s.median().partial_cmp(&goal),
                    Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                );
                !met || s.unreported > 0
            })
            .map(|s| {
                format!(
                    "{} (planning {}): median {:.2}, {} turns without a cache figure; per turn {:.2?}",
                    s.engine,
                    if s.planning { "on" } else { "off" },
                    s.median(),
                    s.unreported,
                    s.ratios
                )
            })
            .collect();
        if !missed.is_empty() {
            return Err(format!(
                "prompt cache goal {goal} missed: {}",
                missed.join("; ")
            ));
        }
    }
    Ok(())
}

/// The cache session against a simulator of its own (a fresh cache
/// slot): scripted answers of a few sentences; the planner says DIRECT,
/// the memory worker NONE.
async fn sim_cache_session(turns: usize, planning: bool) -> Result<cache::Session, String> {
    let (sim, backend) = start_sim().await?;
    let when = |on: &str, text: &str| Reply {
        when: Some(on.to_owned()),
        ..Reply::text(text)
    };
    cache::session(
        "hearth-sim",
        backend,
        MODEL,
        planning,
        turns,
        512,
        |turn, question| {
            if turn == 0 {
                sim.push_reply(when(hearth_core::TITLE_PROMPT, "Sam's questions"));
            }
            sim.push_reply(when(hearth_core::planning::PLANNER_PROMPT, "DIRECT"));
            sim.push_reply(when(
                question,
                &format!(
                    "Here is a short answer to turn {}: it takes two sentences of plain words. \
                 The second one adds a detail or two, as a small model would.",
                    turn + 1
                ),
            ));
            sim.push_reply(when(hearth_core::MEMORY_PROMPT, "NONE"));
        },
    )
    .await
}

/// Every stop row: `stops` at random moments over Ollama's API, a third
/// as many over the OpenAI-compatible one, a tenth as many (at least 10)
/// at each moment reached by state.
async fn stops(sim: &SimHandle, agents: &Agents, stops: usize) -> Result<StopLatency, String> {
    let (during_eval, mid_stream) =
        stop_latency::random_moments(sim, &agents.ollama, stops, 0x9E37_79B9_7F4A_7C15).await?;
    let few = (stops / 10).max(10);
    let loading = stop_states::while_loading(sim, &agents.ollama, &agents.backend, few).await?;
    let tool = stop_states::during_tool(sim, &agents.tools, few).await?;
    let sub = stop_states::in_subagent(sim, &agents.tools, few).await?;
    let (v1_eval, v1_stream) =
        stop_latency::random_moments(sim, &agents.openai, (stops / 3).max(10), 0x2545_F491).await?;
    let v1: Vec<f64> = v1_eval.into_iter().chain(v1_stream).collect();
    Ok(StopLatency {
        rows: vec![
            ("during prompt evaluation", during_eval),
            ("mid-stream", mid_stream),
            ("while the model loads (the load goes on)", loading),
            ("during a tool call", tool),
            ("inside a sub-agent, mid-stream", sub),
            ("OpenAI-compatible API, evaluation or mid-stream", v1),
        ],
    })
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("hearth-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("hearth-bench: runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(async {
        println!("## Foundation benchmarks\n");
        println!(
            "Machine: {} cores; simulator in-process on loopback; release build.\n",
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
        match args.only.as_deref() {
            Some("cache") => return cache_sessions(&args).await,
            Some("ttft") => {
                println!("{}", ttft::run(args.rounds.max(20)).await?.markdown());
                return Ok(());
            }
            Some("indexing") => {
                let (sim, agents) = setup().await?;
                println!(
                    "{}",
                    indexing::run(&sim, &agents.ollama, args.stops.min(100)).await?
                );
                return Ok(());
            }
            Some(other) => return Err(format!("--only {other}: `cache`, `ttft` or `indexing`")),
            None => {}
        }
        let (sim, agents) = setup().await?;
        let agent = &agents.ollama;
        let t = throughput::run(&sim, agent, args.tokens, args.rounds).await?;
        println!("{}", t.markdown());
        let s = stops(&sim, &agents, args.stops).await?;
        println!("{}", s.markdown());
        let p = persist::run().await?;
        println!("{}", p.markdown());
        cache_sessions(&args).await?;
        println!("{}", ttft::run(args.rounds.max(20)).await?.markdown());
        Ok(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
