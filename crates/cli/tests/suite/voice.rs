//! `hearth voice` against Hearth's own speech-to-text server (`voice/`,
//! installed with its Python packages and the tiny English Whisper model
//! by `scripts/setup.sh --test`) and speech made here: espeak-ng speaks
//! known sentences to WAV files, sox puts pauses between them and mixes
//! in noise. What is heard must be close to what was said (word error
//! rate), each utterance must reach the model as the user's message
//! (hearth-sim captures the requests), and every way voice cannot start
//! ends with a reason and an exit status, never a hang.

use std::path::{Path, PathBuf};
use std::process::Command as Std;

use hearth_protocol::{AgentEvent, VoiceEvent, VoiceState};
use hearth_sim::Reply;
pub(super) use hearth_test_support::speech::{tools, voice_python, wer, words};

use super::basics::{T, hearth, ok, sim, stderr_lines, turn_bodies, until_line, with_workers};

/// The bound on the word error rate for clean speech.
const CLEAN_WER: f64 = 0.2;
/// The bound with white noise mixed in (about 20 dB below the speech).
const NOISY_WER: f64 = 0.35;

const SAID: [&str; 3] = [
    "What is the capital of France?",
    "Please write a short poem about the sea.",
    "How many legs does a spider have?",
];

/// The server's command: the environment's Python and the script.
pub(super) fn stt_command() -> Vec<String> {
    let python = voice_python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../voice/hearth_stt.py");
    vec![
        python.display().to_string(),
        script.canonicalize().unwrap().display().to_string(),
    ]
}

/// `hearth mcp add voice` with `env` (NAME=value) and `command`.
pub(super) async fn add_voice(db: &str, env: &[&str], command: &[String]) {
    let mut args = vec!["mcp", "add", "--db", db];
    for e in env {
        args.extend(["--env", e]);
    }
    args.extend(["voice", "--"]);
    args.extend(command.iter().map(String::as_str));
    ok(&args).await;
}

fn run(program: &str, args: &[&str]) {
    let out = Std::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} cannot run ({e}): run scripts/setup.sh --test"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// sox with `args`, in its repeatable mode: without it, sox dithers (and
/// makes noise) with a new random seed each time, and the same sentences
/// were heard differently from one run to the next.
pub(super) fn sox(args: &[&str]) {
    let mut all = vec!["-R"];
    all.extend_from_slice(args);
    run("sox", &all);
}

/// `sentences` spoken by espeak-ng, 1.2 s of quiet between them, as a
/// 16 kHz mono WAV file.
pub(super) fn speak(dir: &Path, name: &str, sentences: &[&str]) -> PathBuf {
    let quiet = dir.join("quiet.wav");
    sox(&[
        "-n",
        "-r",
        "22050",
        "-c",
        "1",
        "-b",
        "16",
        quiet.to_str().unwrap(),
        "trim",
        "0",
        "1.2",
    ]);
    let mut parts = vec![quiet.display().to_string()];
    for (i, s) in sentences.iter().enumerate() {
        let part = dir.join(format!("{name}-{i}.wav"));
        run(
            "espeak-ng",
            &["-v", "en-us", "-s", "150", "-w", part.to_str().unwrap(), s],
        );
        parts.push(part.display().to_string());
        parts.push(quiet.display().to_string());
    }
    let out = dir.join(format!("{name}.wav"));
    let mut args: Vec<&str> = parts.iter().map(String::as_str).collect();
    args.extend(["-r", "16000", "-c", "1", "-b", "16", out.to_str().unwrap()]);
    sox(&args);
    out
}

/// `clean` with white noise mixed in.
fn noisy(dir: &Path, clean: &Path) -> PathBuf {
    let noise = dir.join("noise.wav");
    let out = dir.join("noisy.wav");
    sox(&[
        clean.to_str().unwrap(),
        noise.to_str().unwrap(),
        "synth",
        "whitenoise",
        "vol",
        "0.02",
    ]);
    sox(&[
        "-m",
        clean.to_str().unwrap(),
        noise.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    out
}

/// What `hearth voice --json` printed: the voice events and the runs'.
pub(super) fn printed(stdout: &[u8]) -> (Vec<VoiceEvent>, Vec<AgentEvent>) {
    let (mut voice, mut runs) = (Vec::new(), Vec::new());
    for line in String::from_utf8_lossy(stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("one JSON object a line");
        if v["type"].as_str().is_some_and(|t| t.starts_with("voice_")) {
            voice.push(serde_json::from_value(v).unwrap());
        } else {
            runs.push(serde_json::from_value(v).unwrap());
        }
    }
    (voice, runs)
}

pub(super) fn finals(voice: &[VoiceEvent]) -> Vec<String> {
    voice
        .iter()
        .filter_map(|e| match e {
            VoiceEvent::VoiceFinal { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn last_state(voice: &[VoiceEvent]) -> (VoiceState, Option<String>) {
    voice
        .iter()
        .rev()
        .find_map(|e| match e {
            VoiceEvent::VoiceState { state, detail, .. } => Some((*state, detail.clone())),
            _ => None,
        })
        .expect("a voice state")
}

pub(super) async fn voice(args: &[&str]) -> std::process::Output {
    // The recording plays in real time (about 10 s), and the first model
    // load comes before it.
    tokio::time::timeout(4 * T, hearth(args).output())
        .await
        .expect("hearth voice finished in time")
        .unwrap()
}

#[tokio::test]
async fn each_utterance_is_sent_as_the_users_message_and_heard_within_the_error_bound() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    add_voice(db, &[], &stt_command()).await;
    let clean = speak(dir.path(), "clean", &SAID);
    let sim = sim(with_workers("Questions")
        .with_reply(Reply::text("First answer."))
        .with_reply(Reply::text("Second answer."))
        .with_reply(Reply::text("Third answer.")))
    .await;
    let out = voice(&[
        "voice",
        "--db",
        db,
        "--url",
        &sim.url(),
        "--json",
        "--file",
        clean.to_str().unwrap(),
    ])
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let (heard, runs) = printed(&out.stdout);

    let states: Vec<VoiceState> = heard
        .iter()
        .filter_map(|e| match e {
            VoiceEvent::VoiceState { state, .. } => Some(*state),
            _ => None,
        })
        .collect();
    assert_eq!(
        states,
        [VoiceState::Starting, VoiceState::Listening, VoiceState::Off],
        "{heard:?}"
    );
    assert_eq!(last_state(&heard).1.as_deref(), Some("the recording ended"));

    let finals = finals(&heard);
    let error = wer(&SAID.join(" "), &finals.join(" "));
    eprintln!("clean speech: word error rate {error:.2}, heard {finals:?}");
    assert!(
        error <= CLEAN_WER,
        "word error rate {error:.2} > {CLEAN_WER}: {finals:?}"
    );

    // Each utterance reached the model as the user's own message, in order.
    let bodies = turn_bodies(&sim);
    let last = bodies.last().expect("the model was asked");
    let users: Vec<&str> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(
        users,
        finals.iter().map(String::as_str).collect::<Vec<_>>(),
        "{last}"
    );
    let ended = runs
        .iter()
        .filter(|e| matches!(e.kind, hearth_protocol::EventKind::StreamEnd { .. }))
        .count();
    assert!(ended >= 1, "{runs:?}");
}

#[tokio::test]
async fn noisy_speech_is_heard_within_its_bound_and_no_send_sends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    add_voice(db, &[], &stt_command()).await;
    let clean = speak(dir.path(), "clean", &SAID);
    let noisy = noisy(dir.path(), &clean);
    let sim = sim(with_workers("Unused")).await;
    let out = voice(&[
        "voice",
        "--db",
        db,
        "--url",
        &sim.url(),
        "--json",
        "--no-send",
        "--file",
        noisy.to_str().unwrap(),
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (heard, runs) = printed(&out.stdout);
    let finals = finals(&heard);
    let error = wer(&SAID.join(" "), &finals.join(" "));
    eprintln!("noisy speech: word error rate {error:.2}, heard {finals:?}");
    assert!(
        error <= NOISY_WER,
        "word error rate {error:.2} > {NOISY_WER}: {finals:?}"
    );
    assert!(runs.is_empty(), "{runs:?}");
    assert!(sim.chat_bodies().is_empty());
}

#[tokio::test]
async fn without_a_speech_server_it_says_how_to_set_one_up() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let sim = sim(with_workers("Unused")).await;
    let out = voice(&["voice", "--db", db.to_str().unwrap(), "--url", &sim.url()]).await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("there is no speech-to-text server named `voice`"),
        "{err}"
    );
    assert!(err.contains("voice/setup.sh"), "{err}");
}

/// A failure case: its name, the server's environment and command, the
/// arguments of `hearth voice`, and what the error must say.
type Case = (
    &'static str,
    Vec<&'static str>,
    Vec<String>,
    Vec<&'static str>,
    &'static str,
);

/// Each way voice cannot start: the last state is an error that says why,
/// and the exit status is 1.
#[tokio::test]
async fn a_dead_server_a_stranger_server_a_missing_device_and_a_missing_file_say_why() {
    let time_server = tools()
        .join("mcp-venv/bin/mcp-server-time")
        .display()
        .to_string();
    let stt = stt_command();
    let cases: [Case; 4] = [
        (
            "dead",
            vec![],
            vec!["hearth-no-such-stt-server".to_owned()],
            vec![],
            "the speech server could not start a session: the MCP server \"voice\" cannot start",
        ),
        (
            "stranger",
            vec![],
            vec![time_server],
            vec![],
            "has no tool `stt_start_session`",
        ),
        (
            // The capture program names a device that does not exist, so
            // the test is the same on a machine with a microphone (and
            // where ALSA's default is PulseAudio or PipeWire).
            "no device",
            vec!["HEARTH_STT_CAPTURE=arecord -q -D hw:97,0 -t raw -f S16_LE -r 16000 -c 1"],
            stt.clone(),
            vec!["--source", "microphone"],
            "the speech server cannot listen: no microphone",
        ),
        (
            "no file",
            vec![],
            stt,
            vec!["--file", "/nonexistent/said.wav"],
            "no such audio file: /nonexistent/said.wav",
        ),
    ];
    for (name, env, command, extra, says) in cases {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("h.sqlite");
        let db = db.to_str().unwrap();
        add_voice(db, &env, &command).await;
        let sim = sim(with_workers("Unused")).await;
        let url = sim.url();
        let mut args = vec!["voice", "--db", db, "--url", &url, "--json"];
        args.extend(extra);
        let out = voice(&args).await;
        assert_eq!(
            out.status.code(),
            Some(1),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (heard, _) = printed(&out.stdout);
        let (state, detail) = last_state(&heard);
        assert_eq!(state, VoiceState::Error, "{name}: {heard:?}");
        let detail = detail.unwrap_or_default();
        assert!(detail.contains(says), "{name}: {detail}");
        assert!(sim.chat_bodies().is_empty(), "{name}");
    }
}

#[tokio::test]
async fn ctrl_c_mid_sentence_finishes_it_prints_it_sends_nothing_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    add_voice(db, &[], &stt_command()).await;
    // A long first sentence (about 7 s): Ctrl-C comes well inside it.
    let said = speak(
        dir.path(),
        "said",
        &[
            "Please tell me everything you know about the long history of the Roman Empire and about all of its emperors, one by one.",
            SAID[1],
        ],
    );
    let sim = sim(with_workers("Unused")).await;
    let mut child = hearth(&[
        "voice",
        "--db",
        db,
        "--url",
        &sim.url(),
        "--file",
        said.to_str().unwrap(),
    ])
    // Its own process group, which Ctrl-C at a terminal signals whole: the
    // speech server must not die of it (it has a group of its own).
    .process_group(0)
    .spawn()
    .unwrap();
    let mut lines = stderr_lines(&mut child);
    until_line(&mut lines, "[voice] listening to the recording").await;
    // A partial: the first sentence is being said.
    until_line(&mut lines, "[hearing] ").await;
    let group = format!("-{}", child.id().unwrap());
    let sent = Std::new("kill")
        .args(["-INT", "--", &group])
        .status()
        .unwrap();
    assert!(sent.success());
    until_line(
        &mut lines,
        "[voice] stopping: finishing what was being said",
    )
    .await;
    let out = tokio::time::timeout(T, child.wait_with_output())
        .await
        .expect("hearth voice ended in time")
        .unwrap();
    assert_eq!(out.status.code(), Some(130));
    let printed = String::from_utf8_lossy(&out.stdout);
    let heard: Vec<&str> = printed
        .lines()
        .filter_map(|l| l.strip_prefix("> "))
        .collect();
    assert_eq!(heard.len(), 1, "{printed}");
    // Cut where Ctrl-C came, so only its start is certain.
    assert_eq!(
        words(heard[0]).first().map(String::as_str),
        Some("please"),
        "{heard:?}"
    );
    assert!(sim.chat_bodies().is_empty(), "nothing was sent");
}

/// What is not speech sends nothing: a click (a 0.1 s burst of noise in
/// quiet) is no utterance, and a capture program that ends on half a
/// sample ends the session instead of keeping it busy.
#[tokio::test]
async fn a_click_is_no_utterance_and_a_capture_ending_on_half_a_sample_ends() {
    let dir = tempfile::tempdir().unwrap();
    let click = dir.path().join("click.wav");
    sox(&[
        "-n",
        "-r",
        "16000",
        "-c",
        "1",
        "-b",
        "16",
        click.to_str().unwrap(),
        "synth",
        "0.1",
        "whitenoise",
        "vol",
        "0.5",
        "pad",
        "1",
        "2",
    ]);
    for (name, env, extra) in [
        ("click", vec![], vec!["--file", click.to_str().unwrap()]),
        (
            "half a sample",
            vec!["HEARTH_STT_CAPTURE=printf abc"],
            vec!["--source", "microphone"],
        ),
    ] {
        let db = dir.path().join(format!("{name}.sqlite"));
        let db = db.to_str().unwrap();
        add_voice(db, &env, &stt_command()).await;
        let sim = sim(with_workers("Unused")).await;
        let url = sim.url();
        let mut args = vec!["voice", "--db", db, "--url", &url, "--json"];
        args.extend(extra);
        let out = voice(&args).await;
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (heard, _) = printed(&out.stdout);
        assert_eq!(finals(&heard), Vec::<String>::new(), "{name}");
        assert_eq!(last_state(&heard).0, VoiceState::Off, "{name}: {heard:?}");
        assert!(sim.chat_bodies().is_empty(), "{name}");
    }
}
