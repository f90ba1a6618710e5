//! Read aloud (docs/voice.md): an answer's speaker button, and stopping
//! what is being read. Answers read as they stream are started by the chat
//! commands (`chat.rs`); this is the button's side.

use std::sync::Arc;

use hearth_core::voice::DEFAULT_SPEAKER;
use hearth_protocol::ErrorInfo;
use tauri::{AppHandle, State};

use crate::state::{AppState, invalid};
use crate::views::SpeakingView;

/// The answer's text this long at most is read (an answer is far shorter;
/// the page cannot have the shell read a book).
const MOST: usize = 200_000;

/// The MCP server named `speaker` (see [`super::voice::named_server`]).
pub(crate) async fn speaker_server(state: &AppState) -> Option<Arc<hearth_mcp::Server>> {
    super::voice::named_server(state, DEFAULT_SPEAKER).await
}

fn setup(app: &AppHandle) -> String {
    super::voice::setup_command(app)
}

/// Read `text` (an answer's Markdown) aloud from its start; what was being
/// read stops first.
#[tauri::command]
#[specta::specta]
pub async fn speak_text(
    app: AppHandle,
    state: State<'_, AppState>,
    text: String,
) -> Result<(), ErrorInfo> {
    if text.len() > MOST {
        return Err(invalid(format!(
            "this text is {} bytes; read aloud takes at most {MOST}",
            text.len()
        )));
    }
    let Some(server) = speaker_server(&state).await else {
        return Err(invalid(crate::speaking::not_set_up(&setup(&app))));
    };
    let aloud = state.speaking.on(server);
    aloud.stop().await;
    let mut reader = aloud.reader();
    reader.push(&text);
    reader.finish();
    Ok(())
}

/// Stop reading aloud. False when nothing could be told to stop.
#[tauri::command]
#[specta::specta]
pub async fn stop_speaking(state: State<'_, AppState>) -> Result<bool, ErrorInfo> {
    Ok(state.speaking.stop().await)
}

/// Whether a speaker is set up, whether it speaks now, and the last
/// failure (once).
#[tauri::command]
#[specta::specta]
pub async fn speaking_status(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<SpeakingView, ErrorInfo> {
    let configured = speaker_server(&state).await.is_some();
    let speaking = match state.speaking.current() {
        Some(aloud) if configured => aloud
            .status(u64::MAX >> 12)
            .await
            .map(|s| s.state == "speaking")
            .unwrap_or(false),
        _ => false,
    };
    Ok(SpeakingView {
        configured,
        speaking,
        failure: state.speaking.take_failure(),
        setup: crate::speaking::not_set_up(&setup(&app)),
    })
}
