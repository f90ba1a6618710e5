//! Voice input on the wire (docs/voice.md): where the sound comes from, the
//! voice runtime's state, and the partial and final utterances a
//! speech-to-text server hears.

use serde::{Deserialize, Serialize};
use specta::Type;

/// Where a speech-to-text session listens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum VoiceSource {
    /// The default capture device.
    Microphone,
    /// What this computer plays (a call, a video).
    Loopback,
    /// A recording (a WAV file): transcribing one, and the tests.
    File,
}

impl VoiceSource {
    /// Its name, as the server's `stt_start_session` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Microphone => "microphone",
            Self::Loopback => "loopback",
            Self::File => "file",
        }
    }
}

/// What the voice runtime is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum VoiceState {
    /// Nothing listens.
    Off,
    /// The server is starting a session (loading its model, opening the
    /// device).
    Starting,
    /// It hears: what is said comes as partial and final utterances.
    Listening,
    /// Stop was asked: what was being said is finished first.
    Stopping,
    /// It cannot listen (the event's `detail` says why); nothing listens.
    Error,
}

/// An event of the voice runtime, outside any run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum VoiceEvent {
    /// The runtime's state changed.
    VoiceState {
        /// The new state.
        state: VoiceState,
        /// The source listened to (`None` when off).
        source: Option<VoiceSource>,
        /// Why, for `error` (and what ended a session that ended itself).
        detail: Option<String>,
    },
    /// The text of the utterance going on so far; the next partial or the
    /// final replaces it.
    VoicePartial {
        /// The text so far.
        text: String,
    },
    /// An utterance ended: its text, sent as a message when the front end
    /// says so, as if it had been typed.
    VoiceFinal {
        /// What was said.
        text: String,
        /// From the end of speech to this text: on this machine's clock
        /// when the server says when speech ended (the polling counted
        /// in), else the server's own measure.
        latency_ms: Option<u64>,
    },
}
