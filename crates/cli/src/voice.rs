//! `hearth voice`: listen on a speech-to-text MCP server (docs/voice.md)
//! and send each utterance as a message, as if it had been typed; one said
//! while an answer streams is queued into that run, like a typed one.
//! Ctrl-C stops listening and the answer going on: what was being said is
//! finished and printed, not sent (Stop sends nothing new); a second
//! Ctrl-C leaves at once. With `--speak` the answers are read aloud on a
//! text-to-speech MCP server as they stream, sentence by sentence; speaking
//! stops when the user starts talking, on a new message and on Ctrl-C.

use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use hearth_core::voice::{
    Aloud, AnswerReader, DEFAULT_SERVER, DEFAULT_SPEAKER, SpeechError, Timing, Voice,
};
use hearth_core::{Enqueued, Following, UserInput};
use hearth_protocol::{AgentEvent, EventKind, VoiceEvent, VoiceSource, VoiceState};
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

use crate::chat::{ChatArgs, EXIT_STOPPED, Printer, approve};
use crate::conversation::{Composed, Conversation, Needs, compose};

/// Where to listen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Source {
    /// The default capture device.
    Microphone,
    /// What this computer plays.
    Loopback,
}

/// Arguments of `hearth voice`.
#[derive(Debug, Args)]
pub struct VoiceArgs {
    /// Where to listen (a WAV file: --file).
    #[arg(
        long,
        value_enum,
        default_value = "microphone",
        conflicts_with = "file"
    )]
    source: Source,
    /// Transcribe this WAV file instead, at the speed it plays.
    #[arg(long, value_name = "WAV")]
    file: Option<PathBuf>,
    /// The MCP server that hears (see `hearth mcp`).
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
    /// Print what is heard and send nothing.
    #[arg(long)]
    no_send: bool,
    /// Read the answers aloud as they stream (on the text-to-speech
    /// server --speaker names).
    #[arg(long)]
    speak: bool,
    /// The MCP server that speaks (see `hearth mcp`; voice/setup.sh adds
    /// Hearth's own as `speaker`).
    #[arg(long, default_value = DEFAULT_SPEAKER)]
    speaker: String,
    /// With --source loopback, send what is heard too. It is not your
    /// words: a video or a call could tell the model anything, and it
    /// would go as your message (with the profile's pre-approved tools).
    #[arg(long, conflicts_with = "no_send")]
    send: bool,
    #[command(flatten)]
    conv: Conversation,
}

/// Run `hearth voice`.
pub async fn run(args: VoiceArgs) -> ExitCode {
    // What this computer plays is printed only, unless asked.
    let no_send =
        args.no_send || (args.file.is_none() && args.source == Source::Loopback && !args.send);
    let (source, path) = match &args.file {
        Some(f) => match std::path::absolute(f) {
            Ok(p) => (VoiceSource::File, Some(p.to_string_lossy().into_owned())),
            Err(e) => {
                eprintln!("hearth: {}: {e}", f.display());
                return ExitCode::from(2);
            }
        },
        None if args.source == Source::Loopback => (VoiceSource::Loopback, None),
        None => (VoiceSource::Microphone, None),
    };
    let json = args.conv.json;
    let chat = ChatArgs::conversation(args.conv);
    // Before the session is touched (its profile, its host), compose looks
    // for a server to listen on.
    let Composed {
        agent,
        runs,
        mcp,
        session,
        profiles,
        ..
    } = match compose(
        &chat,
        Some(Needs {
            server: &args.server,
            missing: no_server,
        }),
    )
    .await
    {
        Ok(c) => c,
        Err(code) => return code,
    };
    let Some(server) = mcp.server(&args.server) else {
        no_server(&args.server);
        return ExitCode::from(2);
    };
    let aloud = if args.speak {
        let Some(speaker) = mcp.server(&args.speaker) else {
            eprintln!(
                "hearth: there is no text-to-speech server named `{}`. Set up Hearth's own with \
                 `voice/setup.sh` (in Hearth's source), or add any MCP server that has \
                 tts_speak, tts_stop and tts_status: `hearth mcp add {} -- COMMAND…`",
                args.speaker, args.speaker
            );
            mcp.shutdown().await;
            return ExitCode::from(2);
        };
        let failed = |e: &SpeechError| {
            eprintln!(
                "[speaker] cannot speak: {}",
                crate::chat::shown(&e.to_string())
            )
        };
        Some(Aloud::new(
            Arc::new(hearth_mcp::Speech(speaker)),
            Arc::new(failed),
        ))
    } else {
        None
    };
    // The answer being read aloud, when one is.
    let mut reading: Option<AnswerReader> = None;

    let interrupted = CancellationToken::new();
    watch_interrupts(interrupted.clone());
    let (tx, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let voice = Voice::new(Timing::default());
    let sink = move |e: VoiceEvent| {
        let _ = tx.send(e);
    };
    voice
        .start(
            Arc::new(hearth_mcp::Speech(server)),
            source,
            path,
            Arc::new(sink),
        )
        .await;

    let mut printer = Printer::new(json);
    let mut current: Option<(Following, CancellationToken)> = None;
    let mut waiting: VecDeque<String> = VecDeque::new();
    // Queued into the answer going on and not yet taken in: a run that
    // ends without taking them (it failed, or it had no turn left) gives
    // them back, to be sent after it.
    let mut pushed: Vec<(String, String)> = Vec::new();
    let mut listening = true;
    let mut stopping = false;
    let mut code = ExitCode::SUCCESS;
    loop {
        if current.is_none()
            && !stopping
            && let Some(text) = waiting.pop_front()
        {
            // What `hearth profiles set` or the app changed meanwhile
            // holds from this turn (a pre-approval taken back, say).
            if let Err(e) = profiles.refresh().await {
                tracing::warn!("could not read the profiles again: {e}");
            }
            let this_agent = async || Ok::<_, hearth_core::RunError>(agent.clone());
            match runs
                .send(&session, UserInput::text(text), "cli", this_agent)
                .await
            {
                Ok(f) => {
                    let stop = f.stop.clone();
                    current = Some((f, stop));
                    // A new message ends what was being read.
                    if let Some(aloud) = &aloud {
                        aloud.stop().await;
                        reading = Some(aloud.reader());
                    }
                }
                Err(e) => {
                    eprintln!("hearth: {e}");
                    code = ExitCode::FAILURE;
                }
            }
        }
        if !listening && current.is_none() && (waiting.is_empty() || stopping) {
            break;
        }
        tokio::select! {
            () = interrupted.cancelled(), if !stopping => {
                stopping = true;
                code = ExitCode::from(EXIT_STOPPED);
                if let Some((_, stop)) = &current {
                    stop.cancel();
                }
                let voice = voice.clone();
                tokio::spawn(async move { voice.stop().await });
                reading = None;
                if let Some(aloud) = aloud.clone() {
                    tokio::spawn(async move { aloud.stop().await });
                }
            }
            e = heard.recv(), if listening => {
                let Some(e) = e else {
                    listening = false;
                    continue;
                };
                show(&e, json);
                // The user talks: the answer being read stops at once.
                if matches!(e, VoiceEvent::VoicePartial { .. } | VoiceEvent::VoiceFinal { .. })
                    && let Some(aloud) = aloud.clone()
                    && reading.take().is_some()
                {
                    tokio::spawn(async move { aloud.stop().await });
                }
                match e {
                    VoiceEvent::VoiceState { state: VoiceState::Off, .. } => listening = false,
                    VoiceEvent::VoiceState { state: VoiceState::Error, .. } => {
                        listening = false;
                        code = ExitCode::FAILURE;
                    }
                    VoiceEvent::VoiceFinal { text, .. } if !no_send => {
                        // Said during an answer: queued into it, as a typed
                        // message is; after its end, sent as the next one.
                        let queued = current
                            .as_ref()
                            .and_then(|_| runs.queue(&session, &text).ok());
                        match queued {
                            Some(Enqueued::Queued(id)) => pushed.push((id, text)),
                            Some(Enqueued::RunEnded) | None => waiting.push_back(text),
                        }
                    }
                    _ => {}
                }
            }
            event = next(&mut current) => match event {
                Some(event) => {
                    if event.kind.is_terminal()
                        && !event.scope.is_subagent
                        && !matches!(event.kind, EventKind::StreamEnd { .. } | EventKind::StreamStopped { .. })
                    {
                        code = ExitCode::FAILURE;
                    }
                    if let EventKind::QueuedMessageSent { queue_id, .. } = &event.kind {
                        pushed.retain(|(id, _)| id != queue_id);
                    }
                    printer.print(&event);
                    if let Some(r) = &mut reading {
                        r.read(&event);
                    }
                    approve(&runs, &event).await;
                    // What was said goes as a message, as typed text would: a
                    // `/plan` asks its question on the terminal (no answer
                    // there cancels it), so the loop never waits on it.
                    if let Some((_, stop)) = &current {
                        let mut unconfirmed = false;
                        crate::plan::follow(&event.kind, &runs, false, stop, &mut unconfirmed).await;
                    }
                }
                None => {
                    if let Some((mut f, _)) = current.take()
                        && let Some(settled) = f.settled.take()
                    {
                        let _ = settled.await;
                    }
                    for (_, text) in pushed.drain(..).rev() {
                        waiting.push_front(text);
                    }
                }
            },
        }
    }
    voice.stop().await;
    // What is still being read is heard to its end (Ctrl-C cuts it).
    if let Some(aloud) = &aloud
        && !stopping
    {
        tokio::select! {
            _ = aloud.until_quiet(std::time::Duration::from_millis(200), std::time::Duration::from_secs(600)) => {}
            () = interrupted.cancelled() => {
                aloud.stop().await;
            }
        }
    }
    if agent.loads().in_flight() > 0 {
        eprintln!("waiting for the model to finish loading (Ctrl-C again to leave now)");
        agent.loads().settled().await;
    }
    mcp.shutdown().await;
    if !json {
        eprintln!("[session {session}] continue with --session {session}");
    }
    code
}

async fn next(current: &mut Option<(Following, CancellationToken)>) -> Option<AgentEvent> {
    match current {
        Some((f, _)) => f.events.recv().await,
        None => std::future::pending().await,
    }
}

fn no_server(name: &str) {
    eprintln!(
        "hearth: there is no speech-to-text server named `{name}`. Set up Hearth's own with \
         `voice/setup.sh` (in Hearth's source), or add any MCP server that has \
         stt_start_session, stt_get_updates and stt_stop_session: \
         `hearth mcp add {name} -- COMMAND…`"
    );
}

/// A voice event: JSON, or a line for a person (what was heard on
/// standard output, with the answers; the rest on standard error).
fn show(e: &VoiceEvent, json: bool) {
    if json {
        if let Ok(line) = serde_json::to_string(e) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
        return;
    }
    match e {
        VoiceEvent::VoiceState {
            state,
            source,
            detail,
        } => {
            let what = match state {
                VoiceState::Starting => "starting…".to_owned(),
                VoiceState::Listening => format!(
                    "listening to the {} (Ctrl-C stops)",
                    source.map_or("source", |s| match s {
                        VoiceSource::Microphone => "microphone",
                        VoiceSource::Loopback => "computer's sound",
                        VoiceSource::File => "recording",
                    })
                ),
                VoiceState::Stopping => "stopping: finishing what was being said…".to_owned(),
                VoiceState::Off => "off".to_owned(),
                VoiceState::Error => "stopped".to_owned(),
            };
            match detail {
                Some(d) => eprintln!("[voice] {what}: {}", crate::chat::shown(d)),
                None => eprintln!("[voice] {what}"),
            }
        }
        VoiceEvent::VoicePartial { text } => eprintln!("[hearing] {}", crate::chat::shown(text)),
        VoiceEvent::VoiceFinal { text, .. } => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "\n> {}", crate::chat::shown(text));
            let _ = out.flush();
        }
    }
}

/// The first Ctrl-C cancels `token`; the second leaves at once.
fn watch_interrupts(token: CancellationToken) {
    match signal(SignalKind::interrupt()) {
        Ok(s) => crate::chat::watch_ctrl_c(Some(s), token),
        Err(e) => tracing::warn!("Ctrl-C will end hearth without a clean stop: {e}"),
    }
}
