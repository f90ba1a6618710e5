//! `hearth chat`: one message, streamed; Ctrl-C stops cooperatively, and
//! the process stays until a model load it started has finished (leaving
//! would abort the load), unless Ctrl-C is pressed again.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use hearth_core::tools::ProfileSwitcher;
use hearth_core::{LiveRuns, LoadOptions, new_session_id};
use hearth_protocol::{AgentEvent, ApprovalDecision, EventKind, ToolOutcome};
use hearth_store::Profiles;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio_util::sync::CancellationToken;

use crate::backend::{BackendKind, KeyArg, build};
use crate::overrides::Overrides;

/// Exit code after a stop, as a shell reports a SIGINT'd program.
pub(crate) const EXIT_STOPPED: u8 = 130;

/// Exit code of a `/plan` that ran to its end but whose work the review
/// could not confirm done (no fix pass left, or no readable verdict).
const EXIT_UNCONFIRMED: u8 = 3;

/// The model server and the session: the arguments `hearth chat`, `hearth
/// plan` and `hearth voice` share.
#[derive(Debug, Args)]
pub(crate) struct Conversation {
    /// The model server's URL: Ollama's (default: $OLLAMA_HOST, else
    /// http://127.0.0.1:11434), or with --backend openai the server's
    /// OpenAI root (default: http://127.0.0.1:8080/v1).
    #[arg(long)]
    pub url: Option<String>,
    /// Which kind of server to talk to.
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendKind,
    /// API key for --backend openai, sent as a bearer token (never shown).
    #[arg(long, env = "HEARTH_API_KEY", hide_env_values = true)]
    pub api_key: Option<KeyArg>,
    /// Move this session to a host added with `hearth hosts add` (or
    /// `ollama`, the default server); it stays there for its next messages.
    #[arg(long, value_name = "NAME", conflicts_with = "backend")]
    pub host: Option<String>,
    /// Model to use instead of the profile's, as the server names it (e.g. qwen3:8b).
    #[arg(long)]
    pub model: Option<String>,
    /// Profile to use for this session from now on (see `hearth profiles`).
    #[arg(long)]
    pub profile: Option<String>,
    /// Print one protocol event per line (JSON) instead of plain text.
    #[arg(long)]
    pub json: bool,
    /// The database (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Continue this session (default: a new one).
    #[arg(long)]
    pub session: Option<String>,
}

/// Arguments of `hearth chat`.
#[derive(Debug, Args)]
pub struct ChatArgs {
    #[command(flatten)]
    pub(crate) conv: Conversation,
    /// Offer no tools to the model.
    #[arg(long)]
    no_tools: bool,
    /// Cap on model calls for this message (default: the profile's).
    #[arg(long)]
    max_iterations: Option<u32>,
    /// Answer the session's last message again (needs --session); the
    /// previous answer stays on its own branch.
    #[arg(long, requires = "session", conflicts_with = "message")]
    regenerate: bool,
    /// Attach a file to the message: a picture (PNG, JPEG, WebP, GIF) for
    /// a model that can see, or a text file, whose text goes into the
    /// message (cut to the context window, and the model is told).
    /// Repeat for more files.
    #[arg(long, value_name = "FILE", conflicts_with = "regenerate")]
    attach: Vec<PathBuf>,
    /// `/plan`: carry out the plan without asking first (each call that
    /// writes or runs still asks).
    #[arg(long)]
    yes: bool,
    /// The message (for `hearth plan`: the request; `hearth chat "/plan
    /// REQUEST"` is the same).
    #[arg(required_unless_present = "regenerate")]
    message: Option<String>,
    /// Set by `hearth plan`.
    #[arg(skip)]
    pub(crate) plan: bool,
}

impl ChatArgs {
    /// Arguments for messages in `conv` that a front end sends itself
    /// (`hearth voice`), none given yet.
    pub(crate) fn conversation(conv: Conversation) -> Self {
        Self {
            conv,
            no_tools: false,
            max_iterations: None,
            regenerate: false,
            attach: Vec::new(),
            yes: false,
            message: None,
            plan: false,
        }
    }
}

/// Keep each file of `--attach` in the store; the first that cannot be
/// read or attached is the error.
async fn attach_files(
    store: &hearth_store::Store,
    paths: &[PathBuf],
) -> Result<Vec<hearth_core::Attachment>, String> {
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        let bytes = tokio::fs::read(path)
            .await
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        out.push(
            store
                .add_file(&name, bytes)
                .await
                .map_err(|e| e.to_string())?,
        );
    }
    Ok(out)
}

/// A new database's seeded profiles name a model before any server was
/// asked: the first chat moves them to one this server has, and says so
/// (`hearth_compose::first_run`). A server that cannot be asked leaves
/// them waiting; the run then says what is wrong.
async fn settle_seed_model(profiles: &Profiles, url: Option<&str>) {
    let Ok(server) = hearth_compose::ollama(url) else {
        return;
    };
    match hearth_compose::first_run::settle(profiles, &server.client).await {
        Ok(run) => {
            if let Some((model, moved)) = run.adopted {
                eprintln!(
                    "hearth: the profiles {} now use {model}, a model this server has ({} is not installed); change it with `hearth profiles set NAME --model M`",
                    moved.join(", "),
                    hearth_store::SEED_MODEL
                );
            }
        }
        Err(e) => tracing::debug!("the seeded profiles wait for the server: {e}"),
    }
}

/// What a front end of the CLI that runs messages needs: the agent over
/// the backends, profiles, hosts, MCP servers, hooks and skills the
/// arguments name, and the session it talks in (`hearth chat`, `hearth
/// plan`, `hearth voice`).
pub(crate) struct Composed {
    pub agent: Arc<hearth_core::Agent>,
    pub mcp: Arc<hearth_mcp::Hub>,
    pub session: String,
    /// The files of `--attach`, kept in the store.
    pub attachments: Vec<hearth_core::Attachment>,
}

/// Compose the agent for `args`; on failure the error is printed and the
/// exit code returned.
pub(crate) async fn compose(args: &ChatArgs) -> Result<Composed, ExitCode> {
    let fail = |e: &dyn std::fmt::Display, code: ExitCode| {
        eprintln!("hearth: {e}");
        code
    };
    let backends = build(
        args.conv.backend,
        args.conv.url.as_deref(),
        args.conv.api_key.clone(),
    )
    .map_err(|e| fail(&e, ExitCode::from(2)))?;
    let store = crate::db::open(args.conv.db.clone())
        .await
        .map_err(|e| fail(&e, ExitCode::FAILURE))?;
    let (profiles, settings) = match (
        Profiles::load(&store).await,
        store.model_settings(LoadOptions::default()).await,
    ) {
        (Ok(p), Ok(s)) => (p, s),
        (Err(e), _) | (_, Err(e)) => return Err(fail(&e, ExitCode::FAILURE)),
    };
    // Before anything is changed: a file that cannot be attached leaves
    // the session, its profile and its host as they were.
    let attachments = attach_files(&store, &args.attach)
        .await
        .map_err(|e| fail(&e, ExitCode::from(2)))?;
    if args.conv.backend == BackendKind::Ollama && profiles.seed_model_pending() {
        settle_seed_model(&profiles, args.conv.url.as_deref()).await;
    }
    let session = args.conv.session.clone().unwrap_or_else(new_session_id);
    if let Some(name) = &args.conv.profile
        && let Err(e) = profiles.switch(&session, name).await
    {
        return Err(fail(&e, ExitCode::from(2)));
    }
    let hosts = hearth_compose::saved_hosts(&store).await;
    // A session stays on the host it started on; `--host` moves it.
    let placed = match args.conv.host.as_deref() {
        Some(name) if name != hearth_core::DEFAULT_HOST && hosts.get(name).is_none() => {
            let e = format!(
                "there is no host `{name}`; add it with `hearth hosts add {name} URL` (hosts: {})",
                hosts.names().join(", ")
            );
            return Err(fail(&e, ExitCode::from(2)));
        }
        Some(name) => {
            let host = (name != hearth_core::DEFAULT_HOST).then_some(name);
            profiles.set_session_host(&session, host).await
        }
        None => profiles.pin_session_host(&session).await,
    };
    placed.map_err(|e| fail(&e, ExitCode::FAILURE))?;
    let provider = Arc::new(Overrides {
        inner: profiles.clone(),
        model: args.conv.model.clone(),
        no_tools: args.no_tools,
        max_iterations: args.max_iterations,
        backend: backends.profile_backend(),
    });
    if args.regenerate
        && let Err(e) = fork_before_last_answer(&store, &session).await
    {
        return Err(fail(&e, ExitCode::FAILURE));
    }
    let mcp = hearth_compose::mcp_hub(&store).await;
    let hooks = hearth_compose::hooks(&store).await.map_err(|e| {
        let e = format!(
            "the hooks cannot be used ({e}); fix them with `hearth hooks set` or `hearth hooks clear`"
        );
        fail(&e, ExitCode::FAILURE)
    })?;
    let skills = hearth_compose::skills(&store);
    let agent = hearth_compose::agent(hearth_compose::Parts {
        backend: backends.default,
        named: backends
            .named
            .into_iter()
            .map(|(name, b)| (name.to_owned(), b))
            .collect(),
        hosts,
        provider,
        profiles,
        store: Arc::new(store),
        settings: Arc::new(settings),
        approvals: Arc::default(),
        mcp: mcp.clone(),
        hooks,
        skills,
    });
    Ok(Composed {
        agent,
        mcp,
        session,
        attachments,
    })
}

/// Run `hearth chat` (and `hearth plan`).
pub async fn run(args: ChatArgs) -> ExitCode {
    // `hearth plan REQUEST`, or `/plan REQUEST` as the message.
    let plan_request = match &args.message {
        Some(m) if args.plan => Some(m.trim().to_owned()),
        Some(m) => hearth_core::workflow::request_in(m).map(str::to_owned),
        None => None,
    };
    if (args.plan || plan_request.is_some()) && (args.regenerate || !args.attach.is_empty()) {
        eprintln!("hearth: /plan takes no --attach or --regenerate");
        return ExitCode::from(2);
    }
    let Composed {
        agent,
        mcp,
        session,
        attachments,
        ..
    } = match compose(&args).await {
        Ok(c) => c,
        Err(code) => return code,
    };
    // Listen for Ctrl-C before the run starts: from here on it stops the
    // run instead of killing the process mid-write.
    let interrupts = match signal(SignalKind::interrupt()) {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!("Ctrl-C will end hearth without a clean stop: {e}");
            None
        }
    };
    let (handle, prompt) = match (&args.message, &plan_request) {
        (_, Some(request)) => (
            agent.plan_stream(&session, request),
            Some(hearth_core::workflow::command_text(request)),
        ),
        (Some(text), None) if !args.regenerate => (
            agent.run_stream_with(&session, text, attachments),
            Some(text.clone()),
        ),
        (_, None) => (agent.regenerate_stream(&session), None),
    };
    // First Ctrl-C: cooperative stop (the loop emits stream_stopped). A
    // second one while the stop is still finishing, or while the model
    // finishes loading: leave at once.
    let stop = handle.stop_token();
    watch_ctrl_c(interrupts, stop.clone());
    // The core's live-run registry numbers the events (`seq` in --json), as
    // it does for the desktop app; the store keeps one run per session
    // across processes.
    let runs = LiveRuns::default();
    let mut following = match runs.adopt(handle, prompt, "cli") {
        Ok(f) => f,
        Err(e) => {
            eprintln!("hearth: {e}");
            return ExitCode::FAILURE;
        }
    };

    let mut printer = Printer::new(args.conv.json);
    let mut code = ExitCode::FAILURE;
    let mut unconfirmed = false;
    while let Some(event) = following.events.recv().await {
        if event.kind.is_terminal() && !event.scope.is_subagent {
            code = match &event.kind {
                EventKind::StreamEnd { .. } => ExitCode::SUCCESS,
                EventKind::StreamStopped { .. } => ExitCode::from(EXIT_STOPPED),
                _ => ExitCode::FAILURE,
            };
        }
        printer.print(&event);
        if let EventKind::ApprovalRequested {
            request_id,
            tool,
            reach,
            warning,
            ..
        } = &event.kind
        {
            let decision = ask(tool, reach, warning.as_deref()).await;
            agent.approve(request_id, decision);
        }
        crate::plan::follow(&event.kind, &agent, args.yes, &stop, &mut unconfirmed).await;
    }
    // The title, memory and compaction workers run after the answer: the
    // process stays for them (a new run would have cancelled them).
    if let Some(settled) = following.settled.take() {
        let _ = settled.await;
    }
    // A stop leaves the model's load running in its own request
    // (docs/design.md §4), but leaving now would close that connection and
    // abort the load.
    if agent.loads().in_flight() > 0 {
        eprintln!("waiting for the model to finish loading (Ctrl-C again to leave now)");
        agent.loads().settled().await;
    }
    // MCP servers this run started end with it.
    mcp.shutdown().await;
    if !args.conv.json {
        eprintln!("[session {session}] continue with --session {session}");
    }
    if unconfirmed && code == ExitCode::SUCCESS {
        return ExitCode::from(EXIT_UNCONFIRMED);
    }
    code
}

/// Stops the run at the first Ctrl-C and exits (130) at the second.
pub(crate) fn watch_ctrl_c(interrupts: Option<Signal>, stop: CancellationToken) {
    let Some(mut interrupts) = interrupts else {
        return;
    };
    tokio::spawn(async move {
        if interrupts.recv().await.is_some() {
            stop.cancel();
            if interrupts.recv().await.is_some() {
                std::process::exit(i32::from(EXIT_STOPPED));
            }
        }
    });
}

/// Ask on the terminal whether a call that writes or runs something may
/// run: `y` once, `a` for the rest of the session, anything else (or no
/// terminal input at all) denies.
pub(crate) async fn ask(tool: &str, reach: &str, warning: Option<&str>) -> ApprovalDecision {
    // Model-chosen text never reaches the terminal raw: a `\r` or an ANSI
    // sequence in it could redraw this very question.
    let (tool, reach) = (shown(tool), shown(reach));
    if let Some(w) = warning {
        eprint!("\n[approval] WARNING: {}", shown(w));
    }
    eprint!(
        "\n[approval] `{tool}` {reach}\n  allow once [y], allow for this session [a], deny [n]? "
    );
    let line = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await;
    let answer = match line {
        Ok(Ok(l)) => l.trim().to_lowercase(),
        _ => String::new(),
    };
    let decision = match answer.as_str() {
        "y" | "yes" => ApprovalDecision::AllowOnce,
        "a" | "always" => ApprovalDecision::AllowForSession,
        _ => ApprovalDecision::Deny,
    };
    eprintln!(
        "[approval] {}",
        match decision {
            ApprovalDecision::AllowOnce => "allowed once",
            ApprovalDecision::AllowForSession => "allowed for this session",
            ApprovalDecision::Deny => "denied",
        }
    );
    decision
}

/// Running text (answers, reasoning, plans) for the terminal: lines kept,
/// every control, bidi and invisible character shown as an escape.
pub(crate) fn text(s: &str) -> std::borrow::Cow<'_, str> {
    hearth_core::visible::visible(s, true)
}

/// One-line text for the terminal (names, arguments, tool output).
pub(crate) fn shown(s: &str) -> std::borrow::Cow<'_, str> {
    hearth_core::visible::visible(s, false)
}

/// Prints events as plain text (answer on stdout, the rest on stderr) or
/// as JSON lines on stdout.
pub(crate) struct Printer {
    json: bool,
    out: std::io::Stdout,
    in_thinking: bool,
    text_open: bool,
}

impl Printer {
    pub(crate) fn new(json: bool) -> Self {
        Self {
            json,
            out: std::io::stdout(),
            in_thinking: false,
            text_open: false,
        }
    }

    pub(crate) fn print(&mut self, event: &AgentEvent) {
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
        if crate::plan::is_phase_talk(event) {
            return;
        }
        let mut out = self.out.lock();
        match &event.kind {
            kind @ (EventKind::PhaseStarted { .. }
            | EventKind::PhaseEnded { .. }
            | EventKind::PlanProposed { .. }
            | EventKind::PlanAnswered { .. }
            | EventKind::ReviewVerdict { .. }) => {
                if self.text_open {
                    let _ = writeln!(out);
                    self.text_open = false;
                }
                let _ = out.flush();
                crate::plan::print(kind);
            }
            EventKind::ThinkingDelta { delta } => {
                if !self.in_thinking {
                    eprint!("[thinking] ");
                    self.in_thinking = true;
                }
                eprint!("{}", text(delta));
            }
            EventKind::TextDelta { delta } => {
                if self.in_thinking {
                    eprintln!();
                    self.in_thinking = false;
                }
                let _ = write!(out, "{}", text(delta));
                let _ = out.flush();
                self.text_open = !delta.ends_with('\n');
            }
            // Printed text cannot be taken back: the answer as it now
            // reads follows, marked (rare: the core holds back what may
            // still be dropped).
            EventKind::TextReplaced { text: now } => {
                if self.text_open {
                    let _ = writeln!(out);
                }
                eprintln!("[the answer above was revised; it now reads:]");
                let _ = write!(out, "{}", text(now));
                let _ = out.flush();
                self.text_open = !now.ends_with('\n');
            }
            EventKind::SessionTitled { title } => eprintln!("[title] {}", shown(title)),
            EventKind::MemoryLearned { facts } => {
                for f in facts {
                    eprintln!(
                        "[memory] remembered: {} (undo: hearth memory delete {})",
                        shown(&f.fact),
                        f.id
                    );
                }
            }
            EventKind::MemoryProposed { facts } => {
                for f in facts {
                    // Single-quoted for the shell: nothing in it expands.
                    let quoted = shown(f).replace('\'', "'\\''");
                    eprintln!(
                        "[memory] this profile asks first; to keep it: hearth memory add '{quoted}' (never propose it again: hearth memory decline '{quoted}')"
                    );
                }
            }
            EventKind::ToolsUnavailable { server, reason } => eprintln!(
                "[mcp] the server `{}` is unavailable, going on without its tools: {}",
                shown(server),
                shown(reason)
            ),
            EventKind::HostFailover { from, to, reason } => eprintln!(
                "[host] `{}` cannot be reached, so this answer comes from `{}`: {}",
                shown(from),
                shown(to),
                shown(reason)
            ),
            EventKind::ToolStarted {
                name, arguments, ..
            } => {
                eprintln!("[tool] {} {}", shown(name), shown(&arguments.to_string()));
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
                    ToolOutcome::Denied => "✋",
                };
                let short: String = output.chars().take(200).collect();
                eprintln!(
                    "[tool] {} {mark} {} ({duration_ms} ms)",
                    shown(name),
                    shown(&short)
                );
            }
            EventKind::StreamEnd { .. } if self.text_open => {
                let _ = writeln!(out);
            }
            EventKind::StreamStopped { .. } => {
                if self.text_open {
                    let _ = writeln!(out);
                }
                let _ = out.flush();
                eprintln!("[stopped] the model stays loaded");
            }
            EventKind::PlanReady { plan } => {
                let _ = out.flush();
                eprintln!("[plan]\n{}", text(plan));
            }
            EventKind::PlanProgress { done } => {
                let steps: Vec<String> = done.iter().map(u32::to_string).collect();
                eprintln!("[plan] done: step {}", steps.join(", "));
            }
            EventKind::Error { error, .. } => {
                if self.text_open {
                    let _ = writeln!(out);
                }
                let _ = out.flush();
                eprintln!("hearth: {}", text(&error.to_string()));
            }
            EventKind::ContextUsage {
                tokens,
                window,
                warning: true,
            } => {
                let pct = u64::from(*tokens) * 100 / u64::from((*window).max(1));
                eprintln!(
                    "[context] {pct}% of the {window}-token window used; older messages are summarized above 95%"
                );
            }
            EventKind::ContextCompacted {
                summarized,
                tokens_before,
                tokens_after,
            } => {
                eprintln!(
                    "[context] summarized the first {summarized} messages to make room (~{tokens_before} → ~{tokens_after} tokens); nothing was deleted"
                );
            }
            EventKind::InputFlagged {
                source,
                patterns,
                blocked,
                ..
            } => {
                let from = match source {
                    hearth_protocol::GuardSource::User => "your message",
                    hearth_protocol::GuardSource::Tool => "a tool result",
                };
                let what = if *blocked { "blocked" } else { "flagged" };
                eprintln!(
                    "[guard] {what}: {from} looks like a prompt injection ({})",
                    patterns.join(", ")
                );
            }
            // The CLI has no queue: one message per invocation.
            EventKind::ContextUsage { .. }
            | EventKind::RunStarted { .. }
            | EventKind::PlanDelta { .. }
            | EventKind::ApprovalRequested { .. }
            | EventKind::ApprovalResolved { .. }
            | EventKind::QueuedMessageSent { .. }
            | EventKind::Usage { .. } => {}
            // An answer that ended on a new line, and kinds newer than
            // this printer (shown in `--json` only).
            _ => {}
        }
    }
}

/// Move the branch head back to the last user message, so the answer after
/// it (kept on its own branch) can be generated again.
async fn fork_before_last_answer(store: &hearth_store::Store, session: &str) -> Result<(), String> {
    let msgs = store
        .branch_messages(session)
        .await
        .map_err(|e| e.to_string())?;
    let last_user = msgs
        .iter()
        .rposition(|m| m.message.role == hearth_core::Role::User)
        .ok_or_else(|| format!("session `{session}` has no message to answer again"))?;
    if let Some(answer) = msgs.get(last_user + 1) {
        store
            .fork(session, answer.id)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}
