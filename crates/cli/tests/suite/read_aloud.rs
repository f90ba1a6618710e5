//! `hearth voice --speak`: the answers read aloud by Hearth's own
//! text-to-speech server (voice/hearth_tts.py, Piper, writing to a file at
//! the speed it plays) and heard back by its speech-to-text server: the
//! words are the answer's; the user talking over an answer cuts it.

use std::path::Path;

use hearth_sim::Reply;

use super::basics::{ok, sim, with_workers};
use super::voice::{add_voice, finals, printed, speak, stt_command, voice, voice_python, wer};

/// `hearth mcp add speaker`: the TTS server writing to `output`.
async fn add_speaker(db: &str, output: &Path) {
    let python = voice_python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../voice/hearth_tts.py");
    ok(&[
        "mcp",
        "add",
        "--db",
        db,
        "speaker",
        "--",
        python.to_str().unwrap(),
        script.canonicalize().unwrap().to_str().unwrap(),
        "--engine",
        "piper",
        "--output",
        output.to_str().unwrap(),
    ])
    .await;
}

/// What Hearth's own speech-to-text hears in `wav`.
async fn heard_back(db: &str, wav: &Path) -> String {
    let out = voice(&[
        "voice",
        "--db",
        db,
        "--json",
        "--no-send",
        "--file",
        wav.to_str().unwrap(),
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    finals(&printed(&out.stdout).0).join(" ")
}

/// `hearth voice --speak` listening to `source` (`--file` and a recording,
/// or `--source microphone`), answered by `sim`: it succeeds; its output.
async fn voice_speaking(db: &str, sim_url: &str, source: &[&str]) -> std::process::Output {
    let mut args = vec!["voice", "--db", db, "--url", sim_url, "--json", "--speak"];
    args.extend_from_slice(source);
    let out = voice(&args).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

const ANSWER: [&str; 5] = [
    "The capital of France is Paris.",
    "It stands on the river Seine.",
    "Millions of people visit it every year.",
    "The tower was built for a world fair.",
    "Spring is the best time to go.",
];

#[tokio::test]
async fn the_answer_is_read_aloud_sentence_by_sentence_and_heard_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    let spoken = dir.path().join("spoken.wav");
    add_voice(db, &[], &stt_command()).await;
    add_speaker(db, &spoken).await;
    let question = speak(dir.path(), "q", &["What is the capital of France?"]);
    // Markdown as a model writes it: marks are not read, code is summed up.
    let answer = format!(
        "**{}** {}\n\n- {}\n- {}\n\n```text\nnot read aloud\n```\n\n{}",
        ANSWER[0], ANSWER[1], ANSWER[2], ANSWER[3], ANSWER[4]
    );
    let sim = sim(with_workers("Paris").with_reply(Reply::text(answer))).await;
    let out = voice_speaking(db, &sim.url(), &["--file", question.to_str().unwrap()]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("[speaker]"), "{stderr}");

    let back = heard_back(db, &spoken).await;
    let mut reference: Vec<&str> = ANSWER[..4].to_vec();
    reference.push("A code block in text, one line.");
    reference.push(ANSWER[4]);
    let reference = reference.join(" ");
    let error = wer(&reference, &back);
    eprintln!("read aloud and heard back: {back:?}, word error rate {error:.2}");
    assert!(error <= 0.2, "heard {back:?} for {reference:?}: {error:.2}");
}

#[tokio::test]
async fn talking_over_an_answer_stops_it_and_the_next_answer_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    let spoken = dir.path().join("spoken.wav");
    // Two questions, the second said once the first answer is being read:
    // the "microphone" (HEARTH_STT_CAPTURE) says the first, then gives
    // quiet as a microphone does, a quarter second at a time, until the
    // speaker has written 3 s of the answer (its first sentence heard),
    // then says the second over it. A recording with a fixed pause between
    // them was the clock's to decide: on loaded machines the answer had not
    // begun (2026-12-07, a 6 s pause) or not got past its first words (a
    // new machine, a 16 s pause). The answer is long (twelve sentences,
    // about 40 s played): it cannot be over before the second question,
    // and the test fails if talking over it does not cut it.
    let first = speak(dir.path(), "q1", &["Tell me about Paris."]);
    let second = speak(dir.path(), "q2", &["Thank you, that is enough."]);
    // 3 s of Piper's 22,050 Hz 16-bit mono, after the 44-byte header; the
    // wait is bounded (480 quarters: 2 minutes), then the question is said.
    let raw = "-t raw -r 16000 -e signed -b 16 -c 1 -";
    let microphone = format!(
        "sh -c 'sox -R {first} {raw}; i=0; \
         while [ $(stat -c %s {spoken} 2>/dev/null || echo 0) -lt 132344 ] && [ $i -lt 480 ]; do \
         sox -R -n {raw} trim 0 0.25; sleep 0.25; i=$((i + 1)); done; \
         sox -R {second} {raw}'",
        first = first.display(),
        second = second.display(),
        spoken = spoken.display(),
    );
    let capture = format!("HEARTH_STT_CAPTURE={microphone}");
    add_voice(db, &[&capture], &stt_command()).await;
    add_speaker(db, &spoken).await;
    let long: Vec<String> = (1..=12)
        .map(|i| format!("This is sentence number {i} of a very long answer about the city."))
        .collect();
    let sim = sim(with_workers("Paris")
        .with_reply(Reply::text(long.join(" ")))
        .with_reply(Reply::text("You are welcome, enjoy the trip.")))
    .await;
    let out = voice_speaking(db, &sim.url(), &["--source", "microphone"]).await;
    let (heard, _) = printed(&out.stdout);
    assert_eq!(finals(&heard).len(), 2, "{heard:?}");

    let back = heard_back(db, &spoken).await.to_lowercase();
    eprintln!("heard back: {back:?}");
    assert!(
        back.contains("sentence number one") || back.contains("sentence number 1"),
        "{back}"
    );
    // Cut when the user spoke: the end of the first answer was never read.
    assert!(!back.contains("12") && !back.contains("twelve"), "{back}");
    assert!(
        back.contains("welcome"),
        "the second answer was not read: {back}"
    );
}
