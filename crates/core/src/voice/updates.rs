//! What a speech-to-text server's session tools answer, read leniently:
//! the state, the error, the events after a cursor, the next cursor.

use serde::Deserialize;

use super::SpeechError;

/// A session's state, as the server says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// Loading its model or opening its device.
    Starting,
    /// Hearing.
    Listening,
    /// The source ended (a file played to its end) or stop was asked.
    Ended,
    /// It cannot go on: [`Updates::error`] says why.
    Error,
}

/// One utterance event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// The utterance so far.
    Partial(String),
    /// A whole utterance, and how long after the end of speech the server
    /// had it.
    Final {
        /// What was said.
        text: String,
        /// The server's measure, when it gives one.
        latency_ms: Option<u64>,
        /// When speech ended, in milliseconds since the Unix epoch, when
        /// the server says: a client on the same machine then counts its
        /// own delay (the poll, the transport) in too.
        speech_end_at_ms: Option<u64>,
    },
}

/// One answer of `stt_get_updates` (or `stt_stop_session`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Updates {
    /// The session's state.
    pub state: SessionState,
    /// Why, in the `Error` state.
    pub error: Option<String>,
    /// The events after the cursor asked for, in order.
    pub heard: Vec<Heard>,
    /// The cursor to ask from next.
    pub cursor: u64,
}

#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    events: Vec<WireEvent>,
    #[serde(default)]
    cursor: Option<u64>,
}

#[derive(Deserialize)]
struct WireEvent {
    #[serde(default)]
    seq: Option<u64>,
    kind: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    latency_ms: Option<u64>,
    #[serde(default)]
    speech_end_at_ms: Option<u64>,
}

/// The session id in `stt_start_session`'s answer.
pub fn session_id(text: &str) -> Result<String, SpeechError> {
    #[derive(Deserialize)]
    struct Started {
        session_id: String,
    }
    serde_json::from_str::<Started>(text.trim())
        .map(|s| s.session_id)
        .map_err(|e| SpeechError::NoSessionId {
            detail: e.to_string(),
            answer: clip(text),
        })
}

impl Updates {
    /// Read one answer; `cursor` is the one that was asked with (kept when
    /// the answer names none).
    pub fn parse(text: &str, cursor: u64) -> Result<Self, SpeechError> {
        let wire: Wire =
            serde_json::from_str(text.trim()).map_err(|e| SpeechError::NotUpdates {
                detail: e.to_string(),
                answer: clip(text),
            })?;
        let state = match wire.state.as_deref() {
            Some("starting") => SessionState::Starting,
            Some("listening") => SessionState::Listening,
            Some("ended" | "stopped") => SessionState::Ended,
            Some("error") => SessionState::Error,
            other => return Err(SpeechError::UnknownState(other.map(str::to_owned))),
        };
        let mut next = cursor;
        let mut heard = Vec::new();
        for e in wire.events {
            // A server that repeats events it sent before is read once.
            if let Some(seq) = e.seq {
                if seq <= cursor {
                    continue;
                }
                next = next.max(seq);
            }
            let text = e.text.trim().to_owned();
            match e.kind.as_str() {
                "partial" => heard.push(Heard::Partial(text)),
                "final" if !text.is_empty() => heard.push(Heard::Final {
                    text,
                    latency_ms: e.latency_ms,
                    speech_end_at_ms: e.speech_end_at_ms,
                }),
                _ => {}
            }
        }
        Ok(Self {
            state,
            error: wire.error.filter(|e| !e.trim().is_empty()),
            heard,
            cursor: wire.cursor.unwrap_or(next).max(next),
        })
    }
}

fn clip(text: &str) -> String {
    let t: String = text.chars().take(200).collect();
    if t.len() < text.len() {
        format!("{t}…")
    } else {
        t
    }
}
