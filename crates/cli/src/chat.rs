//! `hearth chat`: one message, streamed; Ctrl-C stops cooperatively, and
//! the process stays until a model load it started has finished (leaving
//! would abort the load), unless Ctrl-C is pressed again.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use hearth_core::{RunError, Runs};
use hearth_protocol::{AgentEvent, ApprovalDecision, EventKind, ToolOutcome};
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio_util::sync::CancellationToken;

use crate::conversation::{Composed, Conversation, compose};

/// Exit code after a stop, as a shell reports a SIGINT'd program.
pub(crate) const EXIT_STOPPED: u8 = 130;

/// Exit code of a `/plan` that ran to its end but whose work the review
/// could not confirm done (no fix pass left, or no readable verdict).
const EXIT_UNCONFIRMED: u8 = 3;

/// Arguments of `hearth chat`.
#[derive(Debug, Args)]
pub struct ChatArgs {
    #[command(flatten)]
    pub(crate) conv: Conversation,
    /// Offer no tools to the model.
    #[arg(long)]
    pub(crate) no_tools: bool,
    /// Cap on model calls for this message (default: the profile's).
    #[arg(long)]
    pub(crate) max_iterations: Option<u32>,
    /// Answer the session's last message again (needs --session); the
    /// previous answer stays on its own branch.
    #[arg(long, requires = "session", conflicts_with = "message")]
    pub(crate) regenerate: bool,
    /// Attach a file to the message: a picture (PNG, JPEG, WebP, GIF) for
    /// a model that can see, or a text file, whose text goes into the
    /// message (cut to the context window, and the model is told).
    /// Repeat for more files.
    #[arg(long, value_name = "FILE", conflicts_with = "regenerate")]
    pub(crate) attach: Vec<PathBuf>,
    /// Send the best passages of your knowledge folders with each message
    /// of this session, from this one on (for a profile without tools,
    /// which cannot search them itself); the answer cites them.
    #[arg(long, conflicts_with = "no_knowledge")]
    pub(crate) knowledge: bool,
    /// Stop sending them.
    #[arg(long)]
    pub(crate) no_knowledge: bool,
    /// `/plan`: carry out the plan without asking first (each call that
    /// writes or runs still asks).
    #[arg(long)]
    yes: bool,
    /// The message (for `hearth plan`: the request; `hearth chat "/plan
    /// REQUEST"` is the same).
    #[arg(required_unless_present = "regenerate")]
    pub(crate) message: Option<String>,
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
            knowledge: false,
            no_knowledge: false,
            yes: false,
            message: None,
            plan: false,
        }
    }
}

/// Run `hearth chat` (and `hearth plan`).
pub async fn run(args: ChatArgs) -> ExitCode {
    // `hearth plan REQUEST`, or `/plan REQUEST` as the message.
    let plan_request = match &args.message {
        Some(m) if args.plan => Some(m.trim().to_owned()),
        Some(m) => hearth_core::workflow::request_in(m).map(str::to_owned),
        None => None,
    };
    // Refused before anything is opened: `compose` keeps the attached
    // files and may move the session's profile or host. The core refuses
    // a `/plan` with files too (`UserInput::check`); this says it before
    // the CLI has changed anything.
    if (args.plan || plan_request.is_some()) && (args.regenerate || !args.attach.is_empty()) {
        eprintln!("hearth: /plan takes no --attach or --regenerate");
        return ExitCode::from(2);
    }
    let Composed {
        agent,
        runs,
        mcp,
        session,
        attachments,
        store,
        ..
    } = match compose(&args, None).await {
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
    let sent = match (&args.message, &plan_request) {
        (_, Some(request)) => Some(hearth_core::workflow::command_text(request)),
        (Some(text), None) if !args.regenerate => Some(text.clone()),
        (_, None) => None,
    };
    // The core's way in decides what the message starts, refuses what it
    // cannot send, and numbers the events (`seq` in --json) as for the
    // desktop app; the store keeps one run per session across processes.
    let this_agent = async || Ok::<_, RunError>(agent.clone());
    let started = match sent {
        Some(text) => {
            let input = hearth_core::UserInput {
                text,
                files: attachments,
            };
            // A message that cannot be sent is a usage error.
            runs.send(&session, input, "cli", this_agent)
                .await
                .map_err(|e| (e, ExitCode::from(2)))
        }
        None => runs
            .regenerate(&session, None, "cli", this_agent)
            .await
            .map_err(|e| (e, ExitCode::FAILURE)),
    };
    let mut following = match started {
        Ok(f) => f,
        Err((e, code)) => {
            eprintln!("hearth: {e}");
            return code;
        }
    };
    // First Ctrl-C: cooperative stop (the loop emits stream_stopped). A
    // second one while the stop is still finishing, or while the model
    // finishes loading: leave at once.
    let stop = following.stop.clone();
    watch_ctrl_c(interrupts, stop.clone());

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
        approve(&runs, &event).await;
        crate::plan::follow(&event.kind, &runs, args.yes, &stop, &mut unconfirmed).await;
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
        print_sources(&store, &session).await;
        eprintln!("[session {session}] continue with --session {session}");
    }
    if unconfirmed && code == ExitCode::SUCCESS {
        return ExitCode::from(EXIT_UNCONFIRMED);
    }
    code
}

/// The passages the answer drew on from the knowledge folders, after it:
/// those it cites (all it was given when it cites none), a number it
/// cites that no passage has, and each quotation not found in the
/// passage it cites — marked, not taken as fact (docs/knowledge.md).
async fn print_sources(store: &hearth_store::Store, session: &str) {
    let c = match hearth_compose::answer_citations(store, session, None).await {
        Ok(Some(c)) if !c.sources.is_empty() => c,
        Ok(_) => return,
        Err(e) => {
            tracing::warn!("the answer's sources cannot be read: {e}");
            return;
        }
    };
    let any_cited = c.sources.iter().any(|s| s.cited);
    println!(
        "\nSources{}:",
        if any_cited { "" } else { " (given, not cited)" }
    );
    for s in c.sources.iter().filter(|s| s.cited || !any_cited) {
        let heading = s
            .heading
            .as_deref()
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        println!(
            "  [{}] {}, lines {}–{}{heading}",
            s.n, s.path, s.start_line, s.end_line
        );
    }
    for n in &c.unknown {
        println!("  [{n}] ⚠ no passage has this number: the citation is not backed by a source");
    }
    for q in c.quotes.iter().filter(|q| !q.holds()) {
        let cited = q
            .cites
            .iter()
            .map(|n| format!("[{n}]"))
            .collect::<Vec<_>>()
            .join("");
        match q.found_in {
            Some(n) => println!("  ⚠ \"{}\" is not in {cited}; it is in [{n}]", q.text),
            None => println!(
                "  ⚠ \"{}\" is not in {cited} nor in any passage given: not from the sources",
                q.text
            ),
        }
    }
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

/// An approval request of `event`, asked on the terminal and answered.
pub(crate) async fn approve(runs: &Runs, event: &AgentEvent) {
    if let EventKind::ApprovalRequested {
        request_id,
        tool,
        reach,
        warning,
        ..
    } = &event.kind
    {
        let decision = ask(tool, reach, warning.as_deref()).await;
        runs.approve(request_id, decision);
    }
}

/// Ask on the terminal whether a call that writes or runs something may
/// run: `y` once, `a` for the rest of the session, anything else (or no
/// terminal input at all) denies.
async fn ask(tool: &str, reach: &str, warning: Option<&str>) -> ApprovalDecision {
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
            | EventKind::ModelLoading { .. }
            | EventKind::ModelLoaded { .. }
            | EventKind::ToolCallWriting { .. }
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
