//! `hearth-bench`: the foundation benchmarks, against an in-process
//! hearth-sim on loopback. Prints Markdown for BENCHMARKS.md.
//!
//! (a) Throughput: tokens per second through the whole loop (client,
//!     NDJSON parsing, core, event channel) to the event consumer, against
//!     a bare read of the same simulator stream, in the same run
//!     (`token_ms: 0`, so the simulator writes as fast as it can).
//! (b) Stop latency: stops at seeded random moments (during prompt
//!     evaluation and mid-stream), each measured until `stream_stopped` is
//!     delivered AND the simulator has seen the connection close.
//! (c) Persistence: per-turn cost at 100 vs 10,000 messages, and opening a
//!     10,000-message session to read its last 50 messages.
//!
//! Usage: `cargo run -p hearth-bench --release [-- --stops N --tokens N --rounds N]`

mod persist;
mod stop_latency;
mod throughput;

use std::process::ExitCode;
use std::sync::Arc;

use hearth_core::{Agent, Profile, StaticProfiles, ToolRegistry};
use hearth_ollama::{Client, ClientOptions, OllamaBackend};
use hearth_sim::{ModelSpec, Script, Sim, SimHandle};

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

async fn setup() -> Result<(SimHandle, Arc<Agent>), String> {
    let sim = Sim::start(Script::with_models(vec![
        ModelSpec::new(MODEL).with_token_ms(0),
    ]))
    .await
    .map_err(|e| format!("simulator: {e}"))?;
    let client = Client::new(&sim.url(), ClientOptions::default()).map_err(|e| e.to_string())?;
    let mut profile = Profile::new("Bench", MODEL);
    profile.tools = Some(vec![]);
    let agent = Agent::builder(
        Arc::new(OllamaBackend::new(client)),
        Arc::new(StaticProfiles::single("", profile)),
    )
    .tools(ToolRegistry::new())
    .build();
    Ok((sim, agent))
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
        let (sim, agent) = setup().await?;
        println!("## Foundation benchmarks\n");
        println!(
            "Machine: {} cores; simulator in-process on loopback; release build.\n",
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
        let t = throughput::run(&sim, &agent, args.tokens, args.rounds).await?;
        println!("{}", t.markdown());
        let s = stop_latency::run(&sim, &agent, args.stops).await?;
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
