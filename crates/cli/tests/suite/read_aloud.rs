//! `hearth voice --speak`: the answers read aloud by Hearth's own
//! text-to-speech server (voice/hearth_tts.py, Piper, writing to a file at
//! the speed it plays) and heard back by its speech-to-text server: the
//! words are the answer's; the user talking over an answer cuts it.

use std::path::Path;

use hearth_sim::Reply;

use super::basics::{ok, sim, with_workers};
use super::voice::{add_voice, finals, printed, sox, speak, stt_command, voice, voice_python, wer};

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

/// `hearth voice --speak` on the recording `wav`, answered by `sim`: it
/// succeeds; its output.
async fn voice_speaking(db: &str, sim_url: &str, wav: &Path) -> std::process::Output {
    let out = voice(&[
        "voice",
        "--db",
        db,
        "--url",
        sim_url,
        "--json",
        "--speak",
        "--file",
        wav.to_str().unwrap(),
    ])
    .await;
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
    let out = voice_speaking(db, &sim.url(), &question).await;
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
    add_voice(db, &[], &stt_command()).await;
    add_speaker(db, &spoken).await;
    // Two questions, the second said while the first answer is read: 16 s
    // of quiet between them, so that on a loaded machine the first answer
    // has begun (heard, transcribed, answered, its first sentence made
    // and played) before the second is said — with 6 s, two loaded runs
    // on 2026-12-07 heard none of it. The answer is long (twelve
    // sentences, about 40 s played): it cannot be over before the second
    // question, and the test fails if talking over it does not cut it.
    let first = speak(dir.path(), "q1", &["Tell me about Paris."]);
    let second = speak(dir.path(), "q2", &["Thank you, that is enough."]);
    let quiet = dir.path().join("quiet16.wav");
    sox(&[
        "-n",
        "-r",
        "16000",
        "-c",
        "1",
        "-b",
        "16",
        quiet.to_str().unwrap(),
        "trim",
        "0",
        "16",
    ]);
    let questions = dir.path().join("questions.wav");
    sox(&[
        first.to_str().unwrap(),
        quiet.to_str().unwrap(),
        second.to_str().unwrap(),
        questions.to_str().unwrap(),
    ]);
    let long: Vec<String> = (1..=12)
        .map(|i| format!("This is sentence number {i} of a very long answer about the city."))
        .collect();
    let sim = sim(with_workers("Paris")
        .with_reply(Reply::text(long.join(" ")))
        .with_reply(Reply::text("You are welcome, enjoy the trip.")))
    .await;
    let out = voice_speaking(db, &sim.url(), &questions).await;
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
