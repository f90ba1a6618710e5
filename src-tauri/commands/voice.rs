//! Voice input (docs/voice.md): the composer's microphone button starts
//! and stops a speech-to-text session on the MCP server named `voice`;
//! what it hears comes on the channel given to `voice_start`, and the page
//! sends a final utterance through its own send path, as if it had been
//! typed (or leaves it in the composer, as the user chose).

use hearth_core::voice::DEFAULT_SERVER;
use hearth_protocol::{ErrorInfo, VoiceEvent, VoiceSource};
use tauri::State;
use tauri::ipc::Channel;

use crate::state::{AppState, invalid};
use crate::views::VoiceView;

/// What to say when no speech server is set up: what to run.
fn not_set_up() -> String {
    format!(
        "No speech-to-text server is set up. Run `voice/setup.sh` from Hearth's source (it \
         installs Hearth's own, local and offline, and adds it as the MCP server `{DEFAULT_SERVER}`), \
         or add any MCP server with stt_start_session, stt_get_updates and stt_stop_session \
         under that name in the Tools panel."
    )
}

/// Start listening to `source`; the events come on `on_event` (a session
/// already listening is stopped first). The file source is the CLI's and
/// the server's (`hearth voice --file`), not the page's.
#[tauri::command]
#[specta::specta]
pub async fn voice_start(
    state: State<'_, AppState>,
    source: VoiceSource,
    on_event: Channel<VoiceEvent>,
) -> Result<(), ErrorInfo> {
    if source == VoiceSource::File {
        return Err(invalid(
            "the app listens to the microphone or to what this computer plays",
        ));
    }
    let Some(server) = state.mcp.server(DEFAULT_SERVER) else {
        return Err(invalid(not_set_up()));
    };
    let sink = move |e: VoiceEvent| {
        // A page that reloaded has dropped the channel: the session goes on
        // until it stops, and its events are lost with the page.
        let _ = on_event.send(e);
    };
    state
        .voice
        .start(
            std::sync::Arc::new(hearth_mcp::Speech(server)),
            source,
            None,
            std::sync::Arc::new(sink),
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
pub fn voice_status(state: State<'_, AppState>) -> VoiceView {
    let s = state.voice.status();
    VoiceView {
        configured: state.mcp.server(DEFAULT_SERVER).is_some(),
        setup: not_set_up(),
        state: s.state,
        source: s.source,
        detail: s.detail,
    }
}
