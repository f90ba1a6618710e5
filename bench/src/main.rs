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
//!
//! Usage: `cargo run -p hearth-bench --release [-- --stops N --tokens N --rounds N]`

mod persist;
mod stop_latency;
mod stop_states;
mod throughput;

use std::process::ExitCode;
use std::sync::Arc;

use hearth_core::{Agent, ModelBackend, Profile, StaticProfiles, ToolRegistry};
use hearth_sim::{ModelSpec, Script, Sim, SimHandle};
use stop_latency::StopLatency;

/// The model every benchmark uses.
const MODEL: &str = "bench:latest";

struct Args {
    stops: usize,
    tokens: usize,
    rounds: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        stops: 300,
        tokens: 20_000,
        rounds: 5,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let n: usize = value
            .parse()
            .map_err(|_| format!("{flag}: `{value}` is not a number"))?;
        match flag.as_str() {
            "--stops" => a.stops = n.max(1),
            "--tokens" => a.tokens = n.max(100),
            "--rounds" => a.rounds = n.max(1),
            other => return Err(format!("unknown flag {other}")),
        }
    }
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

async fn setup() -> Result<(SimHandle, Agents), String> {
    let sim = Sim::start(Script::with_models(vec![
        ModelSpec::new(MODEL)
            .with_token_ms(0)
            .with_capabilities(&["completion", "tools"]),
    ]))
    .await
    .map_err(|e| format!("simulator: {e}"))?;
    // The servers as every front end builds them (hearth-compose); the
    // agents are bare (no store, no workers) to measure the loop alone.
    let backend = hearth_compose::ollama(Some(&sim.url()))
        .map_err(|e| e.to_string())?
        .backend;
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
        let (sim, agents) = setup().await?;
        let agent = &agents.ollama;
        println!("## Foundation benchmarks\n");
        println!(
            "Machine: {} cores; simulator in-process on loopback; release build.\n",
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
        let t = throughput::run(&sim, agent, args.tokens, args.rounds).await?;
        println!("{}", t.markdown());
        let s = stops(&sim, &agents, args.stops).await?;
        println!("{}", s.markdown());
        let p = persist::run().await?;
        println!("{}", p.markdown());
        Ok::<_, String>(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
