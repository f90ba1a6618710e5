//! Read aloud (docs/voice.md): sentences sent, in order, to a
//! text-to-speech MCP server that has [`SPEAK`], [`STOP_SPEAKING`] and
//! [`SPEECH_STATUS`]; Stop drops what was not sent and has the server cut
//! what it plays. An answer streams into [`Aloud::reader`], which speaks
//! each sentence as soon as it ends ([`super::Speakable`]).
//!
//! Every call is bounded; a server that fails is reported once per failure
//! through the sink and the sentences go on being offered (a restart may
//! bring it back); speaking never holds up the answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Deserialize;
use tokio::sync::Mutex;

use super::{Speakable, SpeechError, SpeechServer};

/// The tool that queues one utterance: `{text}` → `{id, state, queued}`.
pub const SPEAK: &str = "tts_speak";
/// The tool that cuts the utterance playing and drops the queue.
pub const STOP_SPEAKING: &str = "tts_stop";
/// The tool that says whether it speaks, and what it played:
/// `{cursor}` → `{state, events, cursor, voice}`.
pub const SPEECH_STATUS: &str = "tts_status";

/// The MCP server read-aloud uses unless the user names another.
pub const DEFAULT_SPEAKER: &str = "speaker";

/// How long one call to the speech server may take.
const CALL_WITHIN: Duration = Duration::from_secs(15);

/// What read-aloud tells its front end.
pub trait AloudSink: Send + Sync {
    /// A call to the server failed: why (shown once, not per sentence).
    fn failed(&self, why: &SpeechError);
}

impl<F: Fn(&SpeechError) + Send + Sync> AloudSink for F {
    fn failed(&self, why: &SpeechError) {
        self(why)
    }
}

/// One event of the server's, for whoever counts what was heard.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Played {
    /// Its order among the server's events.
    pub seq: u64,
    /// `started`, `finished`, `stopped`, `dropped` or `error`.
    pub kind: String,
    /// The utterance (the id `tts_speak` answered).
    pub id: u64,
    /// From `tts_speak` to the first sound, on `started`.
    #[serde(default)]
    pub latency_ms: Option<u64>,
}

/// The server's answer to [`SPEECH_STATUS`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SpeechStatus {
    /// `speaking` or `idle`.
    pub state: String,
    /// Events after the cursor asked for.
    #[serde(default)]
    pub events: Vec<Played>,
    /// The cursor to ask with next.
    #[serde(default)]
    pub cursor: u64,
    /// Which voice speaks.
    #[serde(default)]
    pub voice: Option<String>,
}

/// Read-aloud on one server.
pub struct Aloud {
    server: Arc<dyn SpeechServer>,
    sink: Arc<dyn AloudSink>,
    /// Bumped by each stop: a sentence said before it is not sent after.
    generation: AtomicU64,
    /// Held around each call, so a stop is never overtaken by a sentence
    /// that was on its way.
    calls: Mutex<Failing>,
    /// Sentences for the sender task, with the generation they were said in.
    queue: tokio::sync::mpsc::UnboundedSender<(u64, String)>,
    /// Queued sentences the task has not sent (or dropped) yet.
    unsent: AtomicU64,
}

/// Whether the last call failed (reported once until one succeeds).
#[derive(Default)]
struct Failing(bool);

impl Aloud {
    /// Read aloud on `server`, reporting failures to `sink`.
    /// Needs a Tokio runtime: a task sends the queued sentences.
    pub fn new(server: Arc<dyn SpeechServer>, sink: Arc<dyn AloudSink>) -> Arc<Self> {
        let (queue, mut sentences) = tokio::sync::mpsc::unbounded_channel::<(u64, String)>();
        let aloud = Arc::new(Self {
            server,
            sink,
            generation: AtomicU64::new(0),
            calls: Mutex::new(Failing::default()),
            queue,
            unsent: AtomicU64::new(0),
        });
        // The task holds the runtime weakly: it ends with the last handle.
        let weak = Arc::downgrade(&aloud);
        tokio::spawn(async move {
            while let Some((generation, sentence)) = sentences.recv().await {
                let Some(aloud) = weak.upgrade() else { break };
                aloud.say_in(generation, &sentence).await;
                aloud.unsent.fetch_sub(1, Ordering::SeqCst);
            }
        });
        aloud
    }

    /// Queue `sentence` without waiting: a task sends it after those
    /// queued before (a stop drops it). Never holds up the caller.
    pub fn queue(&self, sentence: String) {
        let generation = self.generation.load(Ordering::SeqCst);
        self.unsent.fetch_add(1, Ordering::SeqCst);
        // The task ends only with the last handle, which is `self`.
        if self.queue.send((generation, sentence)).is_err() {
            self.unsent.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Queue `sentence` after those said before (the server speaks them in
    /// order); dropped if a stop comes first. The server's utterance id.
    pub async fn say(&self, sentence: &str) -> Option<u64> {
        self.say_in(self.generation.load(Ordering::SeqCst), sentence)
            .await
    }

    async fn say_in(&self, generation: u64, sentence: &str) -> Option<u64> {
        let mut failing = self.calls.lock().await;
        if generation != self.generation.load(Ordering::SeqCst) {
            return None;
        }
        let args = serde_json::json!({ "text": sentence });
        let answer = self.call(&mut failing, SPEAK, args).await?;
        #[derive(Deserialize)]
        struct Queued {
            id: u64,
        }
        match serde_json::from_str::<Queued>(&answer) {
            Ok(q) => Some(q.id),
            Err(e) => {
                self.report(
                    &mut failing,
                    SpeechError::Failed(format!(
                        "its answer to {SPEAK} has no id ({e}): {}",
                        head(&answer)
                    )),
                );
                None
            }
        }
    }

    /// Stop speaking now: what was not sent is dropped and the server cuts
    /// what it plays. False when the server could not be told.
    pub async fn stop(&self) -> bool {
        self.generation.fetch_add(1, Ordering::SeqCst);
        let mut failing = self.calls.lock().await;
        self.call(&mut failing, STOP_SPEAKING, serde_json::json!({}))
            .await
            .is_some()
    }

    /// What the server says it played after `cursor`.
    pub async fn status(&self, cursor: u64) -> Result<SpeechStatus, SpeechError> {
        let answer = bounded(
            self.server.as_ref(),
            SPEECH_STATUS,
            serde_json::json!({ "cursor": cursor }),
        )
        .await?;
        serde_json::from_str(&answer).map_err(|e| {
            SpeechError::Failed(format!(
                "its answer to {SPEECH_STATUS} is not the JSON expected ({e}): {}",
                head(&answer)
            ))
        })
    }

    /// Wait until every sentence queued was sent and the server has spoken
    /// them (its state idle), asking every `every`, for at most `within`.
    /// False on a timeout or a failed call.
    pub async fn until_quiet(&self, every: Duration, within: Duration) -> bool {
        let wait = async {
            loop {
                if self.unsent.load(Ordering::SeqCst) > 0 {
                    tokio::time::sleep(every).await;
                    continue;
                }
                match self.status(0).await {
                    Ok(s) if s.state == "idle" => return true,
                    Ok(_) => tokio::time::sleep(every).await,
                    Err(e) => {
                        self.sink.failed(&e);
                        return false;
                    }
                }
            }
        };
        tokio::time::timeout(within, wait).await.unwrap_or(false)
    }

    /// A reader for one answer: its text in, its sentences spoken.
    pub fn reader(self: &Arc<Self>) -> AnswerReader {
        AnswerReader {
            aloud: self.clone(),
            text: Speakable::new(),
        }
    }

    async fn call(
        &self,
        failing: &mut Failing,
        tool: &str,
        args: serde_json::Value,
    ) -> Option<String> {
        match bounded(self.server.as_ref(), tool, args).await {
            Ok(answer) => {
                failing.0 = false;
                Some(answer)
            }
            Err(e) => {
                self.report(failing, e);
                None
            }
        }
    }

    fn report(&self, failing: &mut Failing, e: SpeechError) {
        if !std::mem::replace(&mut failing.0, true) {
            tracing::warn!("read aloud: {e}");
            self.sink.failed(&e);
        }
    }
}

async fn bounded(
    server: &dyn SpeechServer,
    tool: &str,
    args: serde_json::Value,
) -> Result<String, SpeechError> {
    super::bounded_call(server, tool, args, CALL_WITHIN).await
}

fn head(s: &str) -> String {
    s.chars().take(200).collect()
}

/// One answer being read: push its text as it streams, then finish.
pub struct AnswerReader {
    aloud: Arc<Aloud>,
    text: Speakable,
}

impl AnswerReader {
    /// More of the answer; the sentences it ended are queued.
    pub fn push(&mut self, delta: &str) {
        for sentence in self.text.push(delta) {
            self.aloud.queue(sentence);
        }
    }

    /// The answer ended: the rest is queued.
    pub fn finish(&mut self) {
        for sentence in self.text.finish() {
            self.aloud.queue(sentence);
        }
    }

    /// One event of the run being read: the top-level answer's text as it
    /// streams; a tool call between two parts of the answer ends a
    /// paragraph; the end reads what is left. A stop or a failure reads
    /// nothing more (whoever stopped it stops the sound).
    pub fn read(&mut self, event: &hearth_protocol::AgentEvent) {
        use hearth_protocol::EventKind;
        if event.scope.is_subagent {
            return;
        }
        match &event.kind {
            EventKind::TextDelta { delta } => self.push(delta),
            EventKind::ToolStarted { .. } => self.push("\n\n"),
            EventKind::StreamEnd { .. } => self.finish(),
            _ => {}
        }
    }
}
