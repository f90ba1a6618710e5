//! `hearth-sim`: the Ollama simulator as a process, for UI demos, the
//! end-to-end tests and manual poking with curl.
//!
//! Prints `listening on http://127.0.0.1:PORT` as its first stdout line
//! (flushed, so a parent can read the port), serves until SIGINT/SIGTERM.
//! Exit codes: 0 after a signal, 1 when the port cannot be bound, 2 for a
//! bad command line or script file.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use hearth_sim::{Script, Sim};

/// A faithful Ollama simulator on loopback.
#[derive(Debug, Parser)]
#[command(name = "hearth-sim", version)]
struct Args {
    /// Port on 127.0.0.1 (0 = any free port).
    #[arg(long, default_value_t = 11434)]
    port: u16,
    /// Script file (JSON): models and scripted replies; see the crate docs.
    #[arg(long)]
    script: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let script = match &args.script {
        None => Script::default(),
        Some(path) => match load_script(path) {
            Ok(script) => script,
            Err(message) => {
                eprintln!("hearth-sim: {message}");
                return ExitCode::from(2);
            }
        },
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("hearth-sim: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(serve(args.port, script))
}

fn load_script(path: &PathBuf) -> Result<Script, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read script {}: {e}", path.display()))?;
    Script::from_json(&text).map_err(|e| format!("invalid script {}: {e}", path.display()))
}

async fn serve(port: u16, script: Script) -> ExitCode {
    let sim = match Sim::bind(SocketAddr::from(([127, 0, 0, 1], port)), script).await {
        Ok(sim) => sim,
        Err(e) => {
            eprintln!("hearth-sim: cannot listen on 127.0.0.1:{port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout().lock();
    if writeln!(out, "listening on {}", sim.url())
        .and_then(|()| out.flush())
        .is_err()
    {
        // Nobody reads stdout any more; serving on is still useful.
    }
    drop(out);
    wait_for_signal().await;
    sim.shutdown();
    ExitCode::SUCCESS
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
