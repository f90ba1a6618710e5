//! Read aloud in the app (docs/voice.md): the text-to-speech MCP server
//! named `speaker` reads an answer when its speaker button is pressed, and
//! every answer as it streams where the profile says so or while the
//! microphone listens (a voice conversation). Speaking stops on Stop, on a
//! new message, and when the user starts talking.

use std::sync::{Arc, Mutex};

use hearth_core::voice::{Aloud, DEFAULT_SPEAKER, SpeechError};
use hearth_protocol::VoiceState;

/// The speaker in use, made again when the configuration gives the name
/// another server.
#[derive(Default)]
pub struct Speaking {
    current: Mutex<Option<(Arc<hearth_mcp::Server>, Arc<Aloud>)>>,
    /// The last failure, until a call succeeds again (the page shows it
    /// once beside the button).
    failure: Arc<Mutex<Option<String>>>,
}

impl Speaking {
    /// Read aloud on `server` (the one named `speaker`); the same runtime
    /// while the server is the same.
    pub fn on(&self, server: Arc<hearth_mcp::Server>) -> Arc<Aloud> {
        let Ok(mut current) = self.current.lock() else {
            return self.make(server);
        };
        if let Some((s, aloud)) = current.as_ref()
            && Arc::ptr_eq(s, &server)
        {
            return aloud.clone();
        }
        let aloud = self.make(server.clone());
        *current = Some((server, aloud.clone()));
        aloud
    }

    fn make(&self, server: Arc<hearth_mcp::Server>) -> Arc<Aloud> {
        let failure = self.failure.clone();
        let sink = move |e: &SpeechError| {
            if let Ok(mut f) = failure.lock() {
                *f = Some(e.to_string());
            }
        };
        Aloud::new(Arc::new(hearth_mcp::Speech(server)), Arc::new(sink))
    }

    /// The runtime made last, if any (to stop it).
    pub fn current(&self) -> Option<Arc<Aloud>> {
        self.current
            .lock()
            .ok()?
            .as_ref()
            .map(|(_, aloud)| aloud.clone())
    }

    /// Stop speaking, if anything speaks; false when nothing was set up or
    /// the server could not be told.
    pub async fn stop(&self) -> bool {
        match self.current() {
            Some(aloud) => aloud.stop().await,
            None => false,
        }
    }

    /// The last failure, taken (shown once).
    pub fn take_failure(&self) -> Option<String> {
        self.failure.lock().ok()?.take()
    }
}

/// Whether a run's answer is read aloud: its profile says so, or the
/// microphone listens (a voice conversation is spoken both ways).
pub fn reads_run(read_aloud: bool, voice: VoiceState) -> bool {
    read_aloud || matches!(voice, VoiceState::Starting | VoiceState::Listening)
}

/// What to say when no text-to-speech server is set up.
pub fn not_set_up(setup: &str) -> String {
    format!(
        "No text-to-speech server is set up. Run {setup}: it installs Hearth's own (local and \
         offline) and says how to add it as the MCP server `{DEFAULT_SPEAKER}`. Any MCP server \
         with tts_speak, tts_stop and tts_status works too, under that name in the Tools panel."
    )
}
