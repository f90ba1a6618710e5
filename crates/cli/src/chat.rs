//! `hearth chat`: one message, streamed; Ctrl-C stops cooperatively.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use hearth_core::{
    Agent, Profile, StaticProfiles, ToolRegistry, new_session_id, tools::builtin_registry,
};
use hearth_ollama::{Client, ClientOptions, OllamaBackend, resolve_base_url};
use hearth_protocol::{AgentEvent, EventKind, ToolOutcome};

/// Exit code after a stop, as a shell reports a SIGINT'd program.
const EXIT_STOPPED: u8 = 130;

/// Arguments of `hearth chat`.
#[derive(Debug, Args)]
pub struct ChatArgs {
    /// Ollama's URL (default: $OLLAMA_HOST, else http://127.0.0.1:11434).
    #[arg(long)]
    url: Option<String>,
    /// Model to use, as Ollama names it (e.g. qwen3:8b).
    #[arg(long)]
    model: String,
    /// Print one protocol event per line (JSON) instead of plain text.
    #[arg(long)]
    json: bool,
    /// Offer no tools to the model.
    #[arg(long)]
    no_tools: bool,
    /// The database (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Continue this session (default: a new one).
    #[arg(long)]
    session: Option<String>,
    /// Cap on model calls for this message.
    #[arg(long, default_value_t = Profile::DEFAULT_MAX_ITERATIONS)]
    max_iterations: u32,
    /// The message.
    message: String,
}

/// Run `hearth chat`.
pub async fn run(args: ChatArgs) -> ExitCode {
    let url = resolve_base_url(args.url.as_deref());
    let client = match Client::new(&url, ClientOptions::default()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("hearth: {e}");
            return ExitCode::from(2);
        }
    };
    let mut profile = Profile::new("CLI", &args.model);
    profile.max_iterations = args.max_iterations.max(1);
    let tools = if args.no_tools {
        ToolRegistry::new()
    } else {
        builtin_registry()
    };
    let profiles = Arc::new(StaticProfiles::single("", profile));
    let store = match crate::db::open(args.db).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hearth: {e}");
            return ExitCode::FAILURE;
        }
    };
    let agent = Agent::builder(Arc::new(OllamaBackend::new(client)), profiles)
        .tools(tools)
        .store(Arc::new(store))
        .build();

    let session = args.session.unwrap_or_else(new_session_id);
    let mut handle = agent.run_stream(&session, &args.message);
    let stop = handle.stop_token();
    // First Ctrl-C: cooperative stop (the loop emits stream_stopped). A
    // second one while the stop is still finishing: leave at once.
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(i32::from(EXIT_STOPPED));
            }
        }
    });

    let mut printer = Printer::new(args.json);
    let mut code = ExitCode::FAILURE;
    while let Some(event) = handle.next_event().await {
        if event.kind.is_terminal() && !event.scope.is_subagent {
            code = match &event.kind {
                EventKind::StreamEnd { .. } => ExitCode::SUCCESS,
                EventKind::StreamStopped { .. } => ExitCode::from(EXIT_STOPPED),
                _ => ExitCode::FAILURE,
            };
        }
        printer.print(&event);
    }
    if !args.json {
        eprintln!("[session {session}] continue with --session {session}");
    }
    code
}

/// Prints events as plain text (answer on stdout, the rest on stderr) or
/// as JSON lines on stdout.
struct Printer {
    json: bool,
    out: std::io::Stdout,
    in_thinking: bool,
    text_open: bool,
}

impl Printer {
    fn new(json: bool) -> Self {
        Self {
            json,
            out: std::io::stdout(),
            in_thinking: false,
            text_open: false,
        }
    }

    fn print(&mut self, event: &AgentEvent) {
        // A closed stdout (e.g. piped into `head`) must not kill the run:
        // the answer is still stored. Write errors are ignored.
        if self.json {
            if let Ok(line) = serde_json::to_string(event) {
                let mut out = self.out.lock();
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            }
            return;
        }
        let mut out = self.out.lock();
        match &event.kind {
            EventKind::ThinkingDelta { delta } => {
                if !self.in_thinking {
                    eprint!("[thinking] ");
                    self.in_thinking = true;
                }
                eprint!("{delta}");
            }
            EventKind::TextDelta { delta } => {
                if self.in_thinking {
                    eprintln!();
                    self.in_thinking = false;
                }
                let _ = write!(out, "{delta}");
                let _ = out.flush();
                self.text_open = !delta.ends_with('\n');
            }
            EventKind::ToolStarted {
                name, arguments, ..
            } => {
                eprintln!("[tool] {name} {arguments}");
            }
            EventKind::ToolEvent {
                name,
                outcome,
                output,
                duration_ms,
                ..
            } => {
                let mark = match outcome {
                    ToolOutcome::Ok => "→",
                    ToolOutcome::Error => "✗",
                    ToolOutcome::Cancelled => "⊘",
                };
                let short: String = output.chars().take(200).collect();
                eprintln!("[tool] {name} {mark} {short} ({duration_ms} ms)");
            }
            EventKind::StreamEnd { .. } => {
                if self.text_open {
                    let _ = writeln!(out);
                }
            }
            EventKind::StreamStopped { .. } => {
                if self.text_open {
                    let _ = writeln!(out);
                }
                let _ = out.flush();
                eprintln!("[stopped] the model stays loaded");
            }
            EventKind::Error { error, .. } => {
                if self.text_open {
                    let _ = writeln!(out);
                }
                let _ = out.flush();
                eprintln!("hearth: {error}");
            }
            EventKind::RunStarted { .. }
            | EventKind::PlanReady { .. }
            | EventKind::Usage { .. } => {}
        }
    }
}
