//! One speech-to-text session: start it, poll it with backoff, pass on
//! what it hears, end it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hearth_protocol::{VoiceEvent, VoiceSource, VoiceState};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{
    Heard, START, STOP, SessionState, SpeechError, SpeechServer, Status, Timing, UPDATES, Updates,
    VoiceSink,
};

pub(super) struct Session {
    pub server: Arc<dyn SpeechServer>,
    pub source: VoiceSource,
    pub path: Option<String>,
    pub timing: Timing,
    pub out: Out,
    pub stop: CancellationToken,
}

/// The sink, and the status the runtime reports, kept in step.
pub(super) struct Out {
    sink: Arc<dyn VoiceSink>,
    status: Arc<Mutex<Status>>,
    source: VoiceSource,
    partial: String,
}

impl Out {
    pub fn new(sink: Arc<dyn VoiceSink>, status: Arc<Mutex<Status>>, source: VoiceSource) -> Self {
        Self {
            sink,
            status,
            source,
            partial: String::new(),
        }
    }

    fn state(&mut self, state: VoiceState, detail: Option<String>) {
        let source = (state != VoiceState::Off).then_some(self.source);
        if let Ok(mut s) = self.status.lock() {
            *s = Status {
                state,
                source,
                detail: detail.clone(),
            };
        }
        self.sink.event(VoiceEvent::VoiceState {
            state,
            source,
            detail,
        });
    }

    fn heard(&mut self, heard: Vec<Heard>) {
        for h in heard {
            match h {
                // The same text again tells the front end nothing.
                Heard::Partial(text) if text != self.partial && !text.is_empty() => {
                    self.partial.clone_from(&text);
                    self.sink.event(VoiceEvent::VoicePartial { text });
                }
                Heard::Partial(_) => {}
                Heard::Final {
                    text,
                    latency_ms,
                    speech_end_at_ms,
                } => {
                    self.partial.clear();
                    // The end of speech on the wall clock gives the delay
                    // as the user lives it, the polling included; a clock
                    // that disagrees (another machine) falls back to the
                    // server's own measure.
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
                    let lived = speech_end_at_ms
                        .filter(|end| *end <= now && now - end < 60_000)
                        .map(|end| now - end);
                    self.sink.event(VoiceEvent::VoiceFinal {
                        text,
                        latency_ms: lived.or(latency_ms),
                    });
                }
            }
        }
    }
}

/// Reads after a stop for the events one answer could not hold.
const LAST_READS: usize = 20;

/// How a session ended, for the last state event.
enum End {
    /// Stop was asked.
    Stopped,
    /// The source ended by itself.
    Ended,
    /// It cannot go on.
    Failed(String),
}

impl Session {
    pub async fn run(mut self) {
        self.out.state(VoiceState::Starting, None);
        let started = Instant::now();
        let mut args = json!({ "source": self.source.as_str() });
        if let Some(p) = &self.path {
            args["path"] = json!(p);
        }
        let start = call(self.server.clone(), START, args, self.timing.call_within);
        tokio::pin!(start);
        let (id, stopped) = tokio::select! {
            biased;
            () = self.stop.cancelled() => {
                // Stopped while the server starts: the start (bounded) is
                // let finish, so the session it made can be stopped too,
                // never left listening.
                self.out.state(VoiceState::Stopping, None);
                (start.await, true)
            }
            r = &mut start => (r, false),
        };
        if stopped {
            if let Ok(id) = id.and_then(|t| super::session_id(&t)) {
                let args = json!({ "session_id": id, "cursor": 0 });
                call(self.server.clone(), STOP, args, self.timing.stop_within)
                    .await
                    .ok();
            }
            self.out.state(VoiceState::Off, None);
            return;
        }
        let id = match id.and_then(|t| super::session_id(&t)) {
            Ok(id) => id,
            Err(e) => {
                self.out.state(
                    VoiceState::Error,
                    Some(format!("the speech server could not start a session: {e}")),
                );
                return;
            }
        };
        let (end, cursor) = self.poll(&id, started).await;
        let end = match end {
            End::Stopped => {
                self.out.state(VoiceState::Stopping, None);
                let args = json!({ "session_id": id, "cursor": cursor });
                match call(self.server.clone(), STOP, args, self.timing.stop_within).await {
                    Ok(t) => match Updates::parse(&t, cursor) {
                        Ok(u) => {
                            self.last_words(&id, u).await;
                            End::Stopped
                        }
                        Err(e) => End::Failed(format!("the speech server's last words: {e}")),
                    },
                    Err(e) => End::Failed(format!("the speech server did not stop cleanly: {e}")),
                }
            }
            End::Failed(e) => {
                // Best effort: a server that still answers stops listening.
                let args = json!({ "session_id": id, "cursor": cursor });
                call(self.server.clone(), STOP, args, self.timing.call_within)
                    .await
                    .ok();
                End::Failed(e)
            }
            other => other,
        };
        match end {
            End::Stopped => self.out.state(VoiceState::Off, None),
            End::Ended => self
                .out
                .state(VoiceState::Off, Some("the recording ended".into())),
            End::Failed(e) => self.out.state(VoiceState::Error, Some(e)),
        }
    }

    /// What `stt_stop_session` answered, and the events that did not fit
    /// in that answer: a session still "listening" has more to read (a
    /// bounded number of reads, for a server that never says it ended).
    async fn last_words(&mut self, id: &str, mut u: Updates) {
        for _ in 0..LAST_READS {
            self.out.heard(std::mem::take(&mut u.heard));
            if u.state != SessionState::Listening {
                return;
            }
            tokio::time::sleep(self.timing.poll_min).await;
            let args = json!({ "session_id": id, "cursor": u.cursor });
            let read = call(self.server.clone(), UPDATES, args, self.timing.call_within)
                .await
                .and_then(|t| Updates::parse(&t, u.cursor));
            match read {
                Ok(next) => u = next,
                Err(_) => return,
            }
        }
    }

    /// Poll until the session ends, fails, or Stop is asked; the cursor
    /// reached.
    async fn poll(&mut self, id: &str, started: Instant) -> (End, u64) {
        let t = self.timing.clone();
        let mut cursor = 0;
        let mut wait = t.poll_min;
        let mut failures = 0;
        let mut listening = false;
        loop {
            tokio::select! {
                biased;
                () = self.stop.cancelled() => return (End::Stopped, cursor),
                () = tokio::time::sleep(wait) => {}
            }
            let args = json!({ "session_id": id, "cursor": cursor });
            let read = call(self.server.clone(), UPDATES, args, t.call_within)
                .await
                .and_then(|text| Updates::parse(&text, cursor));
            let u = match read {
                Ok(u) => u,
                Err(e) => {
                    failures += 1;
                    if failures >= t.retries {
                        return (
                            End::Failed(format!(
                                "the speech server stopped answering ({failures} tries): {e}"
                            )),
                            cursor,
                        );
                    }
                    wait = (wait * 2).min(t.poll_max);
                    continue;
                }
            };
            failures = 0;
            cursor = u.cursor;
            wait = if u.heard.is_empty() {
                (wait * 2).min(t.poll_max)
            } else {
                t.poll_min
            };
            // What was heard comes before the state that follows it.
            self.out.heard(u.heard);
            match u.state {
                SessionState::Starting => {
                    if started.elapsed() >= t.start_within {
                        return (
                            End::Failed(format!(
                                "the speech server did not start listening within {} s",
                                t.start_within.as_secs()
                            )),
                            cursor,
                        );
                    }
                }
                SessionState::Listening => {
                    if !listening {
                        listening = true;
                        self.out.state(VoiceState::Listening, None);
                    }
                }
                SessionState::Ended => return (End::Ended, cursor),
                SessionState::Error => {
                    let why = u.error.unwrap_or_else(|| "it gave no reason".into());
                    return (
                        End::Failed(format!("the speech server cannot listen: {why}")),
                        cursor,
                    );
                }
            }
        }
    }
}

/// `tool` of `server`, bounded by `within`.
async fn call(
    server: Arc<dyn SpeechServer>,
    tool: &str,
    args: serde_json::Value,
    within: Duration,
) -> Result<String, SpeechError> {
    super::bounded_call(server.as_ref(), tool, args, within).await
}
