//! Voice input (docs/voice.md): a speech-to-text session on an MCP server
//! that has the session tools ([`START`], [`UPDATES`], [`STOP`]), polled
//! for what it hears. Partial utterances and whole ones come to the front
//! end as [`VoiceEvent`]s; a front end sends a final utterance through the
//! same path as a typed message (so a final that comes during an answer is
//! queued like a typed one).
//!
//! Nothing here hangs: the server's start and every call to it are bounded
//! apart ([`START_WITHIN`], then the call's own bound), a session that
//! does not start listening in time is ended, a server that stops
//! answering is given up after a few tries, and Stop is taken as soon as
//! the poll in flight (bounded) returns; the server is then asked to finish
//! what was being said.

mod aloud;
mod session;
mod speakable;
mod updates;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use hearth_protocol::{VoiceEvent, VoiceSource, VoiceState};
use tokio_util::sync::CancellationToken;

pub use aloud::{
    Aloud, AloudSink, AnswerReader, DEFAULT_SPEAKER, Played, SPEAK, SPEECH_STATUS, STOP_SPEAKING,
    SpeechStatus,
};
pub use speakable::Speakable;
pub use updates::{Heard, SessionState, Updates, session_id};

/// The tool that starts a session: `{source, path?}` → `{session_id}`.
pub const START: &str = "stt_start_session";
/// The tool that reads a session: `{session_id, cursor}` → updates.
pub const UPDATES: &str = "stt_get_updates";
/// The tool that ends a session, finishing what was being said:
/// `{session_id, cursor}` → its last updates.
pub const STOP: &str = "stt_stop_session";

/// The name of the MCP server voice uses unless the user names another.
pub const DEFAULT_SERVER: &str = "voice";

/// Why a call to the speech server gave nothing to use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpeechError {
    /// The server cannot serve now (it did not start, it is being
    /// restarted); the words say why.
    #[error("{0}")]
    Unavailable(String),
    /// The server runs but has no such tool: it is not a speech server
    /// of the kind asked for, and the user names another.
    #[error("the MCP server \"{server}\" has no tool `{tool}`: {}", needs(.tool))]
    NoTool {
        /// The server.
        server: String,
        /// The tool asked for.
        tool: String,
    },
    /// The tool ran and failed, in the server's words.
    #[error("{0}")]
    Failed(String),
    /// The call took longer than it may.
    #[error("{tool} did not answer within {secs} s")]
    Timeout {
        /// The tool called.
        tool: String,
        /// The bound, in seconds.
        secs: u64,
    },
    /// `stt_start_session` answered without a session id.
    #[error("its answer to stt_start_session has no session_id ({detail}): {answer}")]
    NoSessionId {
        /// Why the answer does not parse.
        detail: String,
        /// The start of the answer.
        answer: String,
    },
    /// An answer that is not the JSON the session tools answer.
    #[error("its updates are not the JSON expected ({detail}): {answer}")]
    NotUpdates {
        /// Why the answer does not parse.
        detail: String,
        /// The start of the answer.
        answer: String,
    },
    /// A session state the protocol does not have.
    #[error("it named an unknown session state {0:?}")]
    UnknownState(Option<String>),
}

/// What a server needs to serve the feature that called `tool`.
fn needs(tool: &str) -> String {
    if [SPEAK, STOP_SPEAKING, SPEECH_STATUS].contains(&tool) {
        format!(
            "read aloud needs a text-to-speech server with {SPEAK}, {STOP_SPEAKING} and {SPEECH_STATUS}"
        )
    } else {
        format!("voice needs a speech-to-text server with {START}, {UPDATES} and {STOP}")
    }
}

/// A speech server (speech-to-text, or text-to-speech for read aloud):
/// its tools called by name.
#[async_trait]
pub trait SpeechServer: Send + Sync {
    /// Starts the server if it does not run yet (its process, its model);
    /// at once when it runs. A first call waits for this under
    /// [`START_WITHIN`], apart from the call's own bound.
    async fn start(&self) -> Result<(), SpeechError> {
        Ok(())
    }

    /// Call `tool` with `arguments` (a JSON object); the text it answers,
    /// or why the call failed.
    async fn call(&self, tool: &str, arguments: serde_json::Value) -> Result<String, SpeechError>;
}

/// How long a speech server may take to start. Its process loads a speech
/// model first (Piper's voice, Whisper): a second or two on a quiet machine,
/// and more than the 15 s a call may take on two loaded cores (CI,
/// 2026-12-08), so a first sentence read aloud was lost to the start.
pub const START_WITHIN: Duration = Duration::from_secs(60);

/// `tool` on `server` within `within`, once the server has started within
/// [`START_WITHIN`].
pub(crate) async fn bounded_call(
    server: &dyn SpeechServer,
    tool: &str,
    args: serde_json::Value,
    within: Duration,
) -> Result<String, SpeechError> {
    match tokio::time::timeout(START_WITHIN, server.start()).await {
        Ok(started) => started?,
        Err(_) => {
            return Err(SpeechError::Unavailable(format!(
                "the speech server did not start within {} s",
                START_WITHIN.as_secs()
            )));
        }
    }
    tokio::time::timeout(within, server.call(tool, args))
        .await
        .unwrap_or_else(|_| {
            Err(SpeechError::Timeout {
                tool: tool.to_owned(),
                secs: within.as_secs(),
            })
        })
}

/// Where the runtime's events go (the app's channel, the CLI's loop).
pub trait VoiceSink: Send + Sync {
    /// One event, in order.
    fn event(&self, event: VoiceEvent);
}

impl<F: Fn(VoiceEvent) + Send + Sync> VoiceSink for F {
    fn event(&self, event: VoiceEvent) {
        self(event)
    }
}

/// The runtime's waits and bounds.
#[derive(Debug, Clone)]
pub struct Timing {
    /// The poll interval while the server has news.
    pub poll_min: Duration,
    /// The longest poll interval (reached by doubling while it has none).
    pub poll_max: Duration,
    /// How long a session may take to start listening (a first model load
    /// takes seconds).
    pub start_within: Duration,
    /// How long one call may take.
    pub call_within: Duration,
    /// How long `stt_stop_session` may take (it finishes the utterance).
    pub stop_within: Duration,
    /// Failed polls in a row that give the server up.
    pub retries: u32,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            poll_min: Duration::from_millis(100),
            poll_max: Duration::from_millis(400),
            start_within: Duration::from_secs(60),
            call_within: Duration::from_secs(15),
            stop_within: Duration::from_secs(40),
            retries: 3,
        }
    }
}

/// What the runtime is doing now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// Its state.
    pub state: VoiceState,
    /// The source listened to.
    pub source: Option<VoiceSource>,
    /// Why, when it is in error.
    pub detail: Option<String>,
}

/// The voice runtime: at most one session listens at a time.
pub struct Voice {
    timing: Timing,
    status: Arc<Mutex<Status>>,
    current: tokio::sync::Mutex<Option<Current>>,
}

struct Current {
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Voice {
    /// A runtime with `timing`; nothing listens yet.
    pub fn new(timing: Timing) -> Arc<Self> {
        Arc::new(Self {
            timing,
            status: Arc::new(Mutex::new(Status {
                state: VoiceState::Off,
                source: None,
                detail: None,
            })),
            current: tokio::sync::Mutex::new(None),
        })
    }

    /// What it is doing now.
    pub fn status(&self) -> Status {
        self.status.lock().map(|s| s.clone()).unwrap_or(Status {
            state: VoiceState::Off,
            source: None,
            detail: None,
        })
    }

    /// Start listening to `source` (`path` for a file) on `server`; a
    /// session already listening is stopped first. Returns at once: the
    /// events say when it listens, or why it cannot.
    pub async fn start(
        &self,
        server: Arc<dyn SpeechServer>,
        source: VoiceSource,
        path: Option<String>,
        sink: Arc<dyn VoiceSink>,
    ) {
        let mut current = self.current.lock().await;
        if let Some(c) = current.take() {
            self.finish(c).await;
        }
        let stop = CancellationToken::new();
        let session = session::Session {
            server,
            source,
            path,
            timing: self.timing.clone(),
            out: session::Out::new(sink, self.status.clone(), source),
            stop: stop.clone(),
        };
        *current = Some(Current {
            stop,
            task: tokio::spawn(session.run()),
        });
    }

    /// Stop listening: what was being said is finished and comes as a
    /// final first. False when nothing was listening.
    pub async fn stop(&self) -> bool {
        let Some(c) = self.current.lock().await.take() else {
            return false;
        };
        let was_on = !c.task.is_finished();
        self.finish(c).await;
        was_on
    }

    async fn finish(&self, mut c: Current) {
        c.stop.cancel();
        // The session's own calls are bounded (a poll, then the stop); past
        // that and a margin it is a bug, and the task is ended so it cannot
        // report on a session that came after it.
        let bound = self.timing.stop_within + 2 * self.timing.call_within + Duration::from_secs(1);
        if tokio::time::timeout(bound, &mut c.task).await.is_err() {
            tracing::warn!("the voice session did not end within {bound:?}");
            c.task.abort();
            if let Ok(mut s) = self.status.lock() {
                s.state = VoiceState::Off;
                s.source = None;
            }
        }
    }
}
