//! A speech server's start is bounded apart from its calls: read aloud's
//! first sentence waits for a server that loads its voice slowly (a loaded
//! machine took more than the 15 s a call may take, and the sentence was
//! lost), and a server that never starts is given up with a reason. Tokio's
//! clock is paused, so the minutes below take no time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use hearth_core::voice::{Aloud, START_WITHIN, SpeechError, SpeechServer};
use serde_json::{Value, json};

/// A text-to-speech server that takes `start_takes` to start, then answers
/// every call at once; the calls it answered.
struct SlowStart {
    start_takes: Duration,
    started: AtomicBool,
    calls: Mutex<Vec<String>>,
}

impl SlowStart {
    fn new(start_takes: Duration) -> Arc<Self> {
        Arc::new(Self {
            start_takes,
            started: AtomicBool::new(false),
            calls: Mutex::new(Vec::new()),
        })
    }
}

#[async_trait]
impl SpeechServer for SlowStart {
    async fn start(&self) -> Result<(), SpeechError> {
        if !self.started.load(Ordering::SeqCst) {
            tokio::time::sleep(self.start_takes).await;
            self.started.store(true, Ordering::SeqCst);
        }
        Ok(())
    }

    async fn call(&self, tool: &str, _arguments: Value) -> Result<String, SpeechError> {
        assert!(
            self.started.load(Ordering::SeqCst),
            "{tool} called before the start"
        );
        self.calls.lock().unwrap().push(tool.to_owned());
        Ok(json!({"id": 7, "state": "speaking", "queued": 0}).to_string())
    }
}

/// Read aloud on `server`; the failures it reported.
fn aloud_on(server: Arc<SlowStart>) -> (Arc<Aloud>, Arc<Mutex<Vec<String>>>) {
    let failures = Arc::new(Mutex::new(Vec::new()));
    let seen = failures.clone();
    let sink = move |e: &SpeechError| seen.lock().unwrap().push(e.to_string());
    (Aloud::new(server, Arc::new(sink)), failures)
}

#[tokio::test(start_paused = true)]
async fn a_speech_server_slow_to_start_is_waited_for_and_the_first_sentence_is_read() {
    // Longer than a call may take (15 s), shorter than a start may.
    let server = SlowStart::new(Duration::from_secs(40));
    let (aloud, failures) = aloud_on(server.clone());
    assert_eq!(aloud.say("The first sentence.").await, Some(7));
    assert_eq!(aloud.say("The second one.").await, Some(7));
    assert_eq!(*server.calls.lock().unwrap(), ["tts_speak", "tts_speak"]);
    assert!(
        failures.lock().unwrap().is_empty(),
        "{:?}",
        failures.lock().unwrap()
    );
}

#[tokio::test(start_paused = true)]
async fn a_speech_server_that_never_starts_is_given_up_with_a_reason() {
    let server = SlowStart::new(START_WITHIN * 10);
    let (aloud, failures) = aloud_on(server.clone());
    assert_eq!(aloud.say("Never heard.").await, None);
    assert!(server.calls.lock().unwrap().is_empty());
    let failures = failures.lock().unwrap();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].contains(&format!(
            "did not start within {} s",
            START_WITHIN.as_secs()
        )),
        "{failures:?}"
    );
}
