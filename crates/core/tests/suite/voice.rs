//! The voice runtime against a scripted speech-to-text server: what it
//! hears comes as partial and final events in order, Stop finishes the
//! utterance, and every failure (a session that never starts, a server
//! that stops answering, a server that cannot listen, no tools) ends in
//! the error state with a reason, never a hang.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use hearth_core::voice::{SpeechError, SpeechServer, Timing, Voice, VoiceSink};
use hearth_protocol::{VoiceEvent, VoiceSource, VoiceState};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Every wait in these tests is bounded by this.
const T: Duration = Duration::from_secs(20);

fn fast() -> Timing {
    Timing {
        poll_min: Duration::from_millis(5),
        poll_max: Duration::from_millis(20),
        start_within: Duration::from_secs(20),
        call_within: Duration::from_millis(300),
        stop_within: Duration::from_secs(2),
        retries: 3,
    }
}

/// A server that answers each `stt_get_updates` with the next scripted
/// answer (the last one again when they run out), and records the calls.
#[derive(Default)]
struct Scripted {
    start: Mutex<Option<Result<String, SpeechError>>>,
    updates: Mutex<VecDeque<Result<String, SpeechError>>>,
    last: Mutex<Option<Result<String, SpeechError>>>,
    stop: Mutex<Option<String>>,
    calls: Mutex<Vec<(String, Value)>>,
    /// `stt_get_updates` never answers.
    hang: bool,
    /// `stt_start_session` answers only after this.
    start_after: Duration,
    /// What `stt_get_updates` answers once the session was stopped.
    after_stop: Mutex<Option<String>>,
}

#[async_trait]
impl SpeechServer for Scripted {
    async fn call(&self, tool: &str, arguments: Value) -> Result<String, SpeechError> {
        self.calls
            .lock()
            .unwrap()
            .push((tool.to_owned(), arguments));
        match tool {
            "stt_start_session" => {
                tokio::time::sleep(self.start_after).await;
                let start = self.start.lock().unwrap().clone();
                start.unwrap_or_else(|| {
                    Ok(json!({"session_id": "s1", "state": "starting"}).to_string())
                })
            }
            "stt_get_updates" => {
                let stopped = self
                    .calls
                    .lock()
                    .unwrap()
                    .iter()
                    .any(|(t, _)| t == "stt_stop_session");
                if stopped && let Some(answer) = self.after_stop.lock().unwrap().clone() {
                    return Ok(answer);
                }
                if self.hang {
                    std::future::pending::<()>().await;
                }
                let next = self.updates.lock().unwrap().pop_front();
                match next {
                    Some(n) => {
                        *self.last.lock().unwrap() = Some(n.clone());
                        n
                    }
                    None => self
                        .last
                        .lock()
                        .unwrap()
                        .clone()
                        .unwrap_or_else(|| Err(SpeechError::Failed("nothing".into()))),
                }
            }
            "stt_stop_session" => Ok(self.stop.lock().unwrap().clone().unwrap_or_else(|| {
                json!({"state": "ended", "events": [], "cursor": 0}).to_string()
            })),
            other => Err(SpeechError::Failed(format!("no tool {other}"))),
        }
    }
}

fn updates(state: &str, events: Value, cursor: u64) -> Result<String, SpeechError> {
    Ok(json!({"state": state, "events": events, "cursor": cursor, "error": null}).to_string())
}

struct Events(mpsc::UnboundedReceiver<VoiceEvent>);

impl Events {
    async fn next(&mut self) -> VoiceEvent {
        tokio::time::timeout(T, self.0.recv())
            .await
            .expect("a voice event in time")
            .expect("the sink is open")
    }

    /// Events up to and including the first in `state`.
    async fn until(&mut self, state: VoiceState) -> Vec<VoiceEvent> {
        let mut seen = Vec::new();
        loop {
            let e = self.next().await;
            let done = matches!(&e, VoiceEvent::VoiceState { state: s, .. } if *s == state);
            seen.push(e);
            if done {
                return seen;
            }
        }
    }
}

fn sink() -> (Arc<dyn VoiceSink>, Events) {
    let (tx, rx) = mpsc::unbounded_channel();
    let sink = move |e: VoiceEvent| {
        let _ = tx.send(e);
    };
    (Arc::new(sink), Events(rx))
}

fn state_of(e: &VoiceEvent) -> Option<(VoiceState, Option<String>)> {
    match e {
        VoiceEvent::VoiceState { state, detail, .. } => Some((*state, detail.clone())),
        _ => None,
    }
}

fn error_detail(events: &[VoiceEvent]) -> String {
    let (state, detail) = events.last().and_then(state_of).expect("a state last");
    assert_eq!(state, VoiceState::Error, "{events:?}");
    detail.expect("an error says why")
}

#[tokio::test]
async fn partials_then_finals_in_order_and_the_recording_end_turns_it_off() {
    let server = Arc::new(Scripted::default());
    server.updates.lock().unwrap().extend([
        updates("starting", json!([]), 0),
        updates("listening", json!([]), 0),
        updates(
            "listening",
            json!([
                {"seq": 1, "kind": "partial", "text": "what is"},
                {"seq": 2, "kind": "partial", "text": "what is"},
                {"seq": 3, "kind": "partial", "text": "what is the capital"},
            ]),
            3,
        ),
        // A server that sends an event again is read once.
        updates(
            "listening",
            json!([
                {"seq": 3, "kind": "partial", "text": "what is the capital"},
                {"seq": 4, "kind": "final", "text": " What is the capital of France? ", "latency_ms": 420},
            ]),
            4,
        ),
        updates("ended", json!([{"seq": 5, "kind": "final", "text": "Thanks."}]), 5),
    ]);
    let voice = Voice::new(fast());
    let (sink, mut events) = sink();
    voice
        .start(
            server.clone(),
            VoiceSource::File,
            Some("/tmp/a.wav".into()),
            sink,
        )
        .await;
    let seen = events.until(VoiceState::Off).await;
    let expected = vec![
        VoiceEvent::VoiceState {
            state: VoiceState::Starting,
            source: Some(VoiceSource::File),
            detail: None,
        },
        VoiceEvent::VoiceState {
            state: VoiceState::Listening,
            source: Some(VoiceSource::File),
            detail: None,
        },
        VoiceEvent::VoicePartial {
            text: "what is".into(),
        },
        VoiceEvent::VoicePartial {
            text: "what is the capital".into(),
        },
        VoiceEvent::VoiceFinal {
            text: "What is the capital of France?".into(),
            latency_ms: Some(420),
        },
        VoiceEvent::VoiceFinal {
            text: "Thanks.".into(),
            latency_ms: None,
        },
        VoiceEvent::VoiceState {
            state: VoiceState::Off,
            source: None,
            detail: Some("the recording ended".into()),
        },
    ];
    assert_eq!(seen, expected);
    let calls = server.calls.lock().unwrap().clone();
    assert_eq!(
        calls[0],
        (
            "stt_start_session".into(),
            json!({"source": "file", "path": "/tmp/a.wav"})
        )
    );
    // Each poll asks from the cursor the last answer gave.
    let cursors: Vec<u64> = calls
        .iter()
        .filter(|(t, _)| t == "stt_get_updates")
        .map(|(_, a)| a["cursor"].as_u64().unwrap())
        .collect();
    assert_eq!(cursors, [0, 0, 0, 3, 4]);
    assert_eq!(voice.status().state, VoiceState::Off);
}

#[tokio::test]
async fn stop_finishes_what_was_being_said_and_turns_it_off() {
    let server = Arc::new(Scripted::default());
    server.updates.lock().unwrap().extend([updates(
        "listening",
        json!([{"seq": 1, "kind": "partial", "text": "and one more"}]),
        1,
    )]);
    *server.stop.lock().unwrap() = Some(
        json!({"state": "ended", "events": [{"seq": 2, "kind": "final", "text": "And one more thing."}], "cursor": 2})
            .to_string(),
    );
    let voice = Voice::new(fast());
    let (sink, mut events) = sink();
    voice
        .start(server.clone(), VoiceSource::Microphone, None, sink)
        .await;
    events.until(VoiceState::Listening).await;
    assert_eq!(voice.status().state, VoiceState::Listening);
    assert!(voice.stop().await, "it was listening");
    let seen = events.until(VoiceState::Off).await;
    let tail: Vec<_> = seen
        .iter()
        .filter(|e| !matches!(e, VoiceEvent::VoicePartial { .. }))
        .cloned()
        .collect();
    assert_eq!(
        tail,
        vec![
            VoiceEvent::VoiceState {
                state: VoiceState::Stopping,
                source: Some(VoiceSource::Microphone),
                detail: None
            },
            VoiceEvent::VoiceFinal {
                text: "And one more thing.".into(),
                latency_ms: None
            },
            VoiceEvent::VoiceState {
                state: VoiceState::Off,
                source: None,
                detail: None
            },
        ]
    );
    let calls = server.calls.lock().unwrap().clone();
    let (tool, args) = calls.last().unwrap();
    assert_eq!(tool, "stt_stop_session");
    assert_eq!(args["session_id"], "s1");
    assert!(!voice.stop().await, "nothing listens any more");
}

#[tokio::test]
async fn a_session_that_never_starts_listening_is_ended_with_a_reason() {
    let server = Arc::new(Scripted::default());
    server
        .updates
        .lock()
        .unwrap()
        .push_back(updates("starting", json!([]), 0));
    let voice = Voice::new(Timing {
        start_within: Duration::from_millis(300),
        ..fast()
    });
    let (sink, mut events) = sink();
    voice
        .start(server.clone(), VoiceSource::Microphone, None, sink)
        .await;
    let seen = events.until(VoiceState::Error).await;
    let why = error_detail(&seen);
    assert!(why.contains("did not start listening within"), "{why}");
    // The server is told to stop the session it could not start.
    let calls = server.calls.lock().unwrap().clone();
    assert_eq!(calls.last().unwrap().0, "stt_stop_session");
}

#[tokio::test]
async fn a_server_that_stops_answering_is_given_up_after_its_retries() {
    let server = Arc::new(Scripted {
        hang: true,
        ..Scripted::default()
    });
    let voice = Voice::new(fast());
    let (sink, mut events) = sink();
    voice
        .start(server.clone(), VoiceSource::Microphone, None, sink)
        .await;
    let seen = events.until(VoiceState::Error).await;
    let why = error_detail(&seen);
    assert!(why.contains("stopped answering (3 tries)"), "{why}");
    assert!(
        why.contains("stt_get_updates did not answer within"),
        "{why}"
    );
    let polls = server
        .calls
        .lock()
        .unwrap()
        .iter()
        .filter(|(t, _)| t == "stt_get_updates")
        .count();
    assert_eq!(polls, 3);
}

#[tokio::test]
async fn a_server_that_cannot_listen_says_why() {
    let server = Arc::new(Scripted::default());
    server.updates.lock().unwrap().push_back(Ok(json!({
        "state": "error", "events": [], "cursor": 0,
        "error": "no microphone: arecord exited (cannot find card)"
    })
    .to_string()));
    let voice = Voice::new(fast());
    let (sink, mut events) = sink();
    voice
        .start(server, VoiceSource::Microphone, None, sink)
        .await;
    let seen = events.until(VoiceState::Error).await;
    assert_eq!(
        error_detail(&seen),
        "the speech server cannot listen: no microphone: arecord exited (cannot find card)"
    );
    assert_eq!(voice.status().state, VoiceState::Error);
}

#[tokio::test]
async fn a_start_that_fails_or_answers_nonsense_is_an_error() {
    for (answer, says) in [
        (
            Err(SpeechError::Unavailable(
                "the MCP server \"voice\" cannot start: `x` was not found".to_owned(),
            )),
            "cannot start: `x` was not found",
        ),
        (Ok("Session started!".to_owned()), "has no session_id"),
    ] {
        let server = Arc::new(Scripted::default());
        *server.start.lock().unwrap() = Some(answer);
        let voice = Voice::new(fast());
        let (sink, mut events) = sink();
        voice
            .start(server, VoiceSource::Microphone, None, sink)
            .await;
        let seen = events.until(VoiceState::Error).await;
        let why = error_detail(&seen);
        assert!(
            why.starts_with("the speech server could not start a session: "),
            "{why}"
        );
        assert!(why.contains(says), "{why}");
    }
}

#[tokio::test]
async fn unreadable_updates_count_as_failures_and_a_new_start_replaces_the_session() {
    let server = Arc::new(Scripted::default());
    server
        .updates
        .lock()
        .unwrap()
        .push_back(Ok("<html>oops</html>".into()));
    let voice = Voice::new(fast());
    let (sink1, mut events1) = sink();
    voice
        .start(server, VoiceSource::Microphone, None, sink1)
        .await;
    let why = error_detail(&events1.until(VoiceState::Error).await);
    assert!(why.contains("not the JSON expected"), "{why}");

    // Starting while one listens stops that one first.
    let server = Arc::new(Scripted::default());
    server
        .updates
        .lock()
        .unwrap()
        .push_back(updates("listening", json!([]), 0));
    let (sink2, mut events2) = sink();
    voice
        .start(server.clone(), VoiceSource::Microphone, None, sink2)
        .await;
    events2.until(VoiceState::Listening).await;
    let (sink3, mut events3) = sink();
    voice
        .start(server.clone(), VoiceSource::Loopback, None, sink3)
        .await;
    events2.until(VoiceState::Off).await;
    events3.until(VoiceState::Listening).await;
    assert_eq!(voice.status().source, Some(VoiceSource::Loopback));
    assert!(voice.stop().await);
}

#[tokio::test]
async fn a_stop_while_the_server_starts_stops_the_session_it_made() {
    let server = Arc::new(Scripted {
        // Long enough that Stop comes first even on a loaded machine.
        start_after: Duration::from_secs(1),
        ..Scripted::default()
    });
    let voice = Voice::new(Timing {
        call_within: Duration::from_secs(10),
        ..fast()
    });
    let (sink, mut events) = sink();
    voice
        .start(server.clone(), VoiceSource::Microphone, None, sink)
        .await;
    events.until(VoiceState::Starting).await;
    assert!(voice.stop().await);
    let seen = events.until(VoiceState::Off).await;
    assert_eq!(
        seen.iter()
            .filter_map(state_of)
            .map(|(s, _)| s)
            .collect::<Vec<_>>(),
        [VoiceState::Stopping, VoiceState::Off]
    );
    let calls = server.calls.lock().unwrap().clone();
    let tools: Vec<&str> = calls.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(tools, ["stt_start_session", "stt_stop_session"]);
    assert_eq!(calls[1].1["session_id"], "s1");
}

#[tokio::test]
async fn a_final_with_the_end_of_speech_counts_the_clients_own_delay() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let server = Arc::new(Scripted::default());
    server.updates.lock().unwrap().extend([updates(
        "ended",
        json!([
            // Ended 1.5 s ago by this machine's clock: the server's 400 ms
            // left out the time until it was read.
            {"seq": 1, "kind": "final", "text": "One.", "latency_ms": 400, "speech_end_at_ms": now - 1500},
            // A clock far off (another machine): the server's measure.
            {"seq": 2, "kind": "final", "text": "Two.", "latency_ms": 300, "speech_end_at_ms": now + 3_600_000},
        ]),
        2,
    )]);
    let voice = Voice::new(fast());
    let (sink, mut events) = sink();
    voice
        .start(server, VoiceSource::File, Some("/tmp/a.wav".into()), sink)
        .await;
    let latencies: Vec<u64> = events
        .until(VoiceState::Off)
        .await
        .iter()
        .filter_map(|e| match e {
            VoiceEvent::VoiceFinal { latency_ms, .. } => *latency_ms,
            _ => None,
        })
        .collect();
    assert_eq!(latencies.len(), 2);
    assert!((1500..60_000).contains(&latencies[0]), "{latencies:?}");
    assert_eq!(latencies[1], 300);
}

#[tokio::test]
async fn what_a_stop_answer_could_not_hold_is_read_after_it() {
    let server = Arc::new(Scripted::default());
    server
        .updates
        .lock()
        .unwrap()
        .push_back(updates("listening", json!([]), 0));
    // The stop's answer holds one event and says there are more.
    *server.stop.lock().unwrap() = Some(
        json!({"state": "listening", "events": [{"seq": 1, "kind": "final", "text": "First part."}], "cursor": 1})
            .to_string(),
    );
    *server.after_stop.lock().unwrap() = Some(
        json!({"state": "ended", "events": [{"seq": 2, "kind": "final", "text": "Second part."}], "cursor": 2})
            .to_string(),
    );
    let voice = Voice::new(fast());
    let (sink, mut events) = sink();
    voice
        .start(server.clone(), VoiceSource::Microphone, None, sink)
        .await;
    events.until(VoiceState::Listening).await;
    assert!(voice.stop().await);
    let finals: Vec<String> = events
        .until(VoiceState::Off)
        .await
        .into_iter()
        .filter_map(|e| match e {
            VoiceEvent::VoiceFinal { text, .. } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(finals, ["First part.", "Second part."]);
    let calls = server.calls.lock().unwrap().clone();
    let (tool, args) = calls.last().unwrap();
    assert_eq!(
        (tool.as_str(), &args["cursor"]),
        ("stt_get_updates", &json!(1))
    );
}
