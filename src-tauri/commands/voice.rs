//! Voice input (docs/voice.md): the composer's microphone button starts
//! and stops a speech-to-text session on the MCP server named `voice`;
//! what it hears comes on the channel given to `voice_start`, and the page
//! sends a final utterance through its own send path, as if it had been
//! typed (or leaves it in the composer, as the user chose).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hearth_core::voice::DEFAULT_SERVER;
use hearth_protocol::{ErrorInfo, VoiceEvent, VoiceSource};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, State};

use crate::state::{AppState, invalid};
use crate::views::VoiceView;

/// The speech server (its program line) the person let listen to the
/// microphone while this app runs.
static LISTENING_ALLOWED: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// What to run to set the speech servers up (both are set up together).
/// The package installs their setup beside the app (`bundle.resources`); a
/// build from source has it in `voice/`.
pub(crate) fn setup_command(app: &AppHandle) -> String {
    let installed = app
        .path()
        .resource_dir()
        .ok()
        .map(|d| d.join("voice/setup.sh"))
        .filter(|p| p.is_file());
    match installed {
        Some(p) => format!("`bash '{}'`", p.display()),
        None => "`voice/setup.sh` from Hearth's source".to_owned(),
    }
}

/// What to say when no speech server is set up: what to run.
fn not_set_up(app: &AppHandle) -> String {
    let run = setup_command(app);
    format!(
        "No speech-to-text server is set up. Run {run}: it installs Hearth's own (local and \
         offline) and says how to add it as the MCP server `{DEFAULT_SERVER}`. Any MCP server \
         with stt_start_session, stt_get_updates and stt_stop_session works too, under that \
         name in the Tools panel."
    )
}

/// The MCP server named `voice`, reading the saved configuration again
/// when the one in use has none (`hearth mcp add voice`, which
/// voice/setup.sh runs, may have added it since the app started).
async fn speech_server(state: &AppState) -> Option<Arc<hearth_mcp::Server>> {
    named_server(state, DEFAULT_SERVER).await
}

/// The MCP server called `name`, reading the saved configuration again
/// when the one in use has none (voice/setup.sh adds the speech servers
/// with `hearth mcp add`, maybe since the app started).
pub(crate) async fn named_server(state: &AppState, name: &str) -> Option<Arc<hearth_mcp::Server>> {
    if let Some(s) = state.mcp.server(name) {
        return Some(s);
    }
    let saved = hearth_compose::mcp_servers(&state.store).await.ok()?;
    if !saved.contains_key(name) {
        return None;
    }
    state.mcp.configure(saved).await;
    state.mcp.server(name)
}

/// Start listening to `source` (the microphone); the events come on
/// `on_event` (a session already listening is stopped first).
#[tauri::command]
#[specta::specta]
pub async fn voice_start(
    app: AppHandle,
    state: State<'_, AppState>,
    source: VoiceSource,
    on_event: Channel<VoiceEvent>,
) -> Result<(), ErrorInfo> {
    // What the computer plays is not the user's words, and the page sends
    // what is heard as the user's message: the app listens to the
    // microphone only (`hearth voice --source loopback` prints).
    if source != VoiceSource::Microphone {
        return Err(invalid("the app listens to the microphone only"));
    }
    let Some(server) = speech_server(&state).await else {
        return Err(invalid(not_set_up(&app)));
    };
    // The microphone is asked for natively, once per speech server while
    // the app runs (security review N11: a script in the page could
    // otherwise listen); the person reads which program hears it.
    let runs = server.config().describe();
    let allowed = LISTENING_ALLOWED
        .lock()
        .map(|a| a.as_deref() == Some(runs.as_str()))
        .unwrap_or(false);
    if !allowed {
        let text = format!(
            "Hearth will record your microphone and send the sound to the speech server \
             `{DEFAULT_SERVER}`, which runs:\n\n{runs}\n\nWhat it hears goes into your message box. \
             Hearth listens until you press the microphone button again or you stop speaking. \
             Asked once each time Hearth starts."
        );
        if !crate::confirm::ask(&app, crate::confirm::LISTEN_TITLE, text, "_Listen").await {
            return Err(invalid("listening to the microphone was declined"));
        }
        if let Ok(mut a) = LISTENING_ALLOWED.lock() {
            *a = Some(runs);
        }
    }
    // The user talking stops what is being read aloud, once an utterance.
    let speaking = state.speaking.clone();
    let talking = std::sync::atomic::AtomicBool::new(false);
    let sink = move |e: VoiceEvent| {
        let heard = match &e {
            VoiceEvent::VoicePartial { .. } => !talking.swap(true, Ordering::SeqCst),
            VoiceEvent::VoiceFinal { .. } => !talking.swap(false, Ordering::SeqCst),
            VoiceEvent::VoiceState { .. } => false,
        };
        if heard && let Some(aloud) = speaking.current() {
            tauri::async_runtime::spawn(async move { aloud.stop().await });
        }
        // A page that reloaded has dropped the channel: the session goes on
        // until it stops, and its events are lost with the page.
        let _ = on_event.send(e);
    };
    state
        .voice
        .start(
            Arc::new(hearth_mcp::Speech(server)),
            source,
            None,
            Arc::new(sink),
        )
        .await;
    Ok(())
}

/// Stop listening; what was being said comes as a final first. False when
/// nothing was listening.
#[tauri::command]
#[specta::specta]
pub async fn voice_stop(state: State<'_, AppState>) -> Result<bool, ErrorInfo> {
    Ok(state.voice.stop().await)
}

/// Whether a speech server is set up, and what voice is doing.
#[tauri::command]
#[specta::specta]
pub async fn voice_status(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<VoiceView, ErrorInfo> {
    let s = state.voice.status();
    Ok(VoiceView {
        configured: speech_server(&state).await.is_some(),
        setup: not_set_up(&app),
        state: s.state,
        source: s.source,
        detail: s.detail,
    })
}
