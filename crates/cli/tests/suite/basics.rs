//! chat, ps and errors as a person sees them.

use std::process::Stdio;
use std::time::Duration;

use hearth_core::side_purpose;
use hearth_protocol::{AgentEvent, EventKind};
use hearth_sim::{Hold, ModelSpec, Reply, Script, Sim, SimHandle};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use crate::MODEL;

/// The bound on every wait in these tests: it only ends a hang.
pub(crate) const T: Duration = Duration::from_secs(20);

/// What `hearth chat` says when a Ctrl-C came during a model load.
const WAITING_FOR_LOAD: &str =
    "waiting for the model to finish loading (Ctrl-C again to leave now)";

pub(crate) async fn sim(script: Script) -> SimHandle {
    Sim::start(script.with_model(ModelSpec::new(MODEL).with_capabilities(&["tools"])))
        .await
        .unwrap()
}

/// A test database folder, removed when the process ends.
static DB_DIR: std::sync::LazyLock<tempfile::TempDir> =
    std::sync::LazyLock::new(|| tempfile::tempdir().unwrap());

/// The CLI under test: the one cargo built for this test binary, or a copy
/// of it (`HEARTH_TEST_CLI`) where this binary runs as another user who
/// cannot read the target directory (tests/unprivileged/run.sh).
pub(crate) fn cli_path() -> std::path::PathBuf {
    std::env::var_os("HEARTH_TEST_CLI")
        .map_or_else(|| env!("CARGO_BIN_EXE_hearth").into(), Into::into)
}

pub(crate) fn hearth(args: &[&str]) -> Command {
    let mut c = Command::new(cli_path());
    c.args(args)
        .env_remove("OLLAMA_HOST")
        // Skills beside the test's database, never the user's.
        .env_remove("HEARTH_SKILLS_DIR")
        // Never the user's real database.
        .env("HEARTH_DB", DB_DIR.path().join("default.sqlite"))
        // Never the user's keyring: a bus where nothing listens (the
        // secret store's tests start one of their own).
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            format!("unix:path={}", DB_DIR.path().join("no-bus").display()),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    c
}

pub(crate) async fn output(mut cmd: Command) -> std::process::Output {
    tokio::time::timeout(T, cmd.output())
        .await
        .expect("hearth finished in time")
        .unwrap()
}

/// A script whose background workers (title, memory) take their own
/// replies, so the conversation's replies do not depend on when they run.
pub(crate) fn with_workers(title: &str) -> Script {
    let mut script = Script::default();
    for (when, text) in [("Write a title", title), ("durable facts", "NONE")] {
        let mut r = Reply::text(text);
        r.when = Some(when.into());
        script = script.with_reply(r);
    }
    script
}

/// Runs `cmd` (a `hearth chat --json`), answering its approval questions
/// with `answers` (one letter a line), and returns the events it printed.
pub(crate) async fn answering(mut cmd: Command, answers: &str) -> Vec<AgentEvent> {
    use tokio::io::AsyncWriteExt;
    cmd.stdin(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(answers.as_bytes()).await.unwrap();
    drop(stdin);
    let out = tokio::time::timeout(3 * T, child.wait_with_output())
        .await
        .expect("hearth finished in time")
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    events(&out.stdout)
}

/// The run's end: its terminal event, after which only what its post-turn
/// work reports (a generated title) may come.
pub(crate) fn run_end(evs: &[AgentEvent]) -> &EventKind {
    let at = evs
        .iter()
        .rposition(|e| e.kind.is_terminal() && !e.scope.is_subagent)
        .expect("the run ended");
    assert!(
        evs[at + 1..]
            .iter()
            .all(|e| matches!(e.kind, EventKind::SessionTitled { .. })),
        "{:?}",
        &evs[at + 1..]
    );
    &evs[at].kind
}

/// One turn of the Agent profile (planning, every tool, the workers) in
/// `session` of the database `db`, against `sim`; it must succeed.
pub(crate) async fn agent_turn(db: &str, sim: &SimHandle, session: &str, message: &str) {
    ok(&[
        "chat",
        "--db",
        db,
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "--profile",
        "Agent",
        "--session",
        session,
        message,
    ])
    .await;
}

/// `hearth chat --url <sim> --model MODEL --json <message>`, which must
/// succeed; the events it printed.
pub(crate) async fn chat_json(sim: &SimHandle, message: &str) -> Vec<AgentEvent> {
    let out = output(hearth(&[
        "chat",
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "--json",
        message,
    ]))
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    events(&out.stdout)
}

pub(crate) fn events(stdout: &[u8]) -> Vec<AgentEvent> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not an event: {l}: {e}")))
        .collect()
}

#[tokio::test]
async fn json_mode_prints_one_protocol_event_per_line() {
    let sim = sim(Script::default().with_reply(Reply::text("Hello there, friend."))).await;
    let evs = chat_json(&sim, "hi").await;
    assert!(matches!(evs[0].kind, EventKind::RunStarted { .. }));
    assert!(matches!(run_end(&evs), EventKind::StreamEnd { .. }));
    let text: String = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TextDelta { delta } => Some(delta.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Hello there, friend.");
    assert!(evs.iter().all(|e| e.scope.run_id == evs[0].scope.run_id));
    // Numbered by the core's live-run registry, as in the app: 1, 2, 3 …
    let seqs: Vec<u32> = evs.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (1..=u32::try_from(evs.len()).unwrap()).collect::<Vec<_>>()
    );
    // What the run stored is announced: the question, then the answer.
    let stored: Vec<&str> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::MessageStored { message, .. } => Some(message.content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(stored, ["hi", "Hello there, friend."]);
}

/// The process stays until the run's post-turn workers are done: the
/// session has its generated title when `hearth chat` returns.
#[tokio::test]
async fn chat_waits_for_the_title_before_it_exits() {
    let sim = sim(with_workers("Friendly greetings").with_reply(Reply::text("Hello!"))).await;
    let evs = chat_json(&sim, "hi").await;
    let session = evs[0].scope.session_id.clone();
    // Told after the run's end, on the same stream.
    assert!(matches!(run_end(&evs), EventKind::StreamEnd { .. }));
    assert!(matches!(
        &evs.last().unwrap().kind,
        EventKind::SessionTitled { title } if title == "Friendly greetings"
    ));
    let (store, _) = hearth_store::Store::open(DB_DIR.path().join("default.sqlite"))
        .await
        .unwrap();
    let title = hearth_core::SessionStore::title(&store, &session)
        .await
        .unwrap();
    assert_eq!(title.as_deref(), Some("Friendly greetings"));
}

#[tokio::test]
async fn plain_mode_prints_the_answer_and_uses_ollama_host() {
    let sim = sim(Script::default().with_reply(Reply::text("Plain answer."))).await;
    let mut cmd = hearth(&["chat", "--model", MODEL, "hi"]);
    cmd.env("OLLAMA_HOST", sim.url());
    let out = output(cmd).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Plain answer.\n");
}

/// A model that writes its reasoning inline (`<think>` in the text) prints
/// it as thinking, never the raw tags: the core splits it out.
#[tokio::test]
async fn reasoning_in_tags_prints_as_thinking_never_as_tags() {
    let reply = Reply::text("<think>The user says hi.</think>Hello there.");
    let sim = sim(Script::default().with_reply(reply)).await;
    let out = output(hearth(&[
        "chat",
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "hi",
    ]))
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Hello there.\n");
    assert!(stderr.contains("[thinking] The user says hi."), "{stderr}");
    assert!(
        !stderr.contains("<think>") && !stderr.contains("</think>"),
        "{stderr}"
    );
}

/// Sends SIGINT (Ctrl-C) to a running child.
pub(crate) fn interrupt(child: &Child) {
    let pid = child.id().expect("still running").to_string();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(kill.success());
}

/// The lines a child writes to stderr, as they come.
pub(crate) fn stderr_lines(child: &mut Child) -> mpsc::UnboundedReceiver<String> {
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Waits (within `T`) for a stderr line containing `needle`; returns the
/// lines up to it.
pub(crate) async fn until_line(
    lines: &mut mpsc::UnboundedReceiver<String>,
    needle: &str,
) -> String {
    let mut seen = String::new();
    loop {
        match tokio::time::timeout(T, lines.recv()).await {
            Ok(Some(line)) => {
                seen.push_str(&line);
                seen.push('\n');
                if line.contains(needle) {
                    return seen;
                }
            }
            Ok(None) => panic!("stderr ended without {needle:?}:\n{seen}"),
            Err(_) => panic!("no {needle:?} on stderr within {T:?}:\n{seen}"),
        }
    }
}

#[tokio::test]
async fn ctrl_c_stops_at_once_exits_130_and_keeps_the_model_loaded() {
    let sim = sim(Script::default().with_reply(Reply::text("never"))).await;
    // The prompt evaluation lasts until released: a stop that waited for
    // the server would never end.
    sim.hold(Hold::PromptEval);
    let child = hearth(&[
        "chat",
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "--json",
        "think hard",
    ])
    .spawn()
    .unwrap();
    sim.wait_until(|s| s.prompt_evals == 1, T).await.unwrap();
    interrupt(&child);
    let out = tokio::time::timeout(T, child.wait_with_output())
        .await
        .expect("exits after SIGINT, with the server still evaluating")
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let evs = events(&out.stdout);
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamStopped { .. }),
        "{evs:#?}"
    );
    let stats = sim.wait_until(|s| s.cancelled == 1, T).await.unwrap();
    assert_eq!((stats.unloads, stats.aborted_loads), (0, 0));
    assert_eq!(stats.chunks_sent, 0, "stopped before any token");
    assert_eq!(stats.loaded, vec![MODEL.to_owned()]);
}

/// `hearth chat` interrupted once while the simulator holds its model load:
/// returns when the CLI has said it waits for the load, with its stderr
/// still read (kept alive by the caller: a closed pipe would fail a write).
async fn interrupted_during_a_held_load() -> (SimHandle, Child, mpsc::UnboundedReceiver<String>) {
    let sim = sim(Script::default()).await;
    sim.hold(Hold::Load);
    let mut child = hearth(&[
        "chat",
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "--json",
        "hi",
    ])
    .spawn()
    .unwrap();
    let mut stderr = stderr_lines(&mut child);
    sim.wait_until(|s| s.loads_started == 1, T).await.unwrap();
    interrupt(&child);
    until_line(&mut stderr, WAITING_FOR_LOAD).await;
    (sim, child, stderr)
}

#[tokio::test]
async fn ctrl_c_while_the_model_loads_lets_the_load_finish_then_exits() {
    // The load lasts until released, however slow the machine.
    let (sim, mut child, _stderr) = interrupted_during_a_held_load().await;
    // Stopped, but still here: its load is under way, not aborted.
    assert!(child.try_wait().unwrap().is_none(), "left during the load");
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.aborted_loads), (0, 0));

    sim.release(Hold::Load);
    let out = tokio::time::timeout(T, child.wait_with_output())
        .await
        .expect("exits once the load is done")
        .unwrap();
    assert_eq!(out.status.code(), Some(130));
    let evs = events(&out.stdout);
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamStopped { .. }),
        "{evs:#?}"
    );
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.aborted_loads), (1, 0));
    assert_eq!(
        stats.loaded,
        vec![MODEL.to_owned()],
        "the model is resident"
    );
    assert_eq!(
        stats.chat_requests, 1,
        "only the load: no chat after the stop"
    );
}

#[tokio::test]
async fn a_second_ctrl_c_while_the_model_loads_leaves_at_once() {
    // Never released: only leaving ends the wait.
    let (sim, mut child, _stderr) = interrupted_during_a_held_load().await;
    interrupt(&child);
    let status = tokio::time::timeout(T, child.wait())
        .await
        .expect("left at the second Ctrl-C, with the load still held")
        .unwrap();
    assert_eq!(status.code(), Some(130));
    // What the first Ctrl-C avoids: leaving closed the load's connection,
    // and the server aborted the load.
    let stats = sim.wait_until(|s| s.aborted_loads == 1, T).await.unwrap();
    assert_eq!(stats.loads, 0);
    assert!(stats.loaded.is_empty(), "{stats:?}");
}

#[tokio::test]
async fn ps_lists_resident_models() {
    let sim = sim(Script::default()).await;
    let out = output(hearth(&["ps", "--url", &sim.url()])).await;
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("(no model is loaded)"));
    let chat = output(hearth(&[
        "chat",
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "hi",
    ]))
    .await;
    assert!(chat.status.success());
    let out = output(hearth(&["ps", "--url", &sim.url()])).await;
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    let row = table
        .lines()
        .find(|l| l.starts_with(MODEL))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        row.contains("GPU") && row.contains("8192") && row.contains("minutes from now"),
        "{row}"
    );
}

#[tokio::test]
async fn a_dead_server_and_a_missing_model_say_what_to_do() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let out = output(hearth(&["chat", "--url", &url, "--model", MODEL, "hi"])).await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is it running"), "{err}");

    let sim = sim(Script::default()).await;
    let out = output(hearth(&[
        "chat",
        "--url",
        &sim.url(),
        "--model",
        "llama9:70b",
        "hi",
    ]))
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ollama pull llama9:70b"), "{err}");
}

/// Bodies of the conversation's own model calls: not the preloads (no
/// messages) and not the side requests (the planner's, the workers').
pub(crate) fn turn_bodies(sim: &SimHandle) -> Vec<serde_json::Value> {
    sim.chat_bodies()
        .into_iter()
        .filter(|b| {
            // A side request (the planner, a worker) sends the same
            // messages, its own instruction last.
            let messages = b["messages"].as_array();
            let first_is_system = messages
                .and_then(|m| m.first())
                .is_some_and(|m| m["role"] == "system");
            let last = messages.and_then(|m| m.last());
            let side = last.is_some_and(|m| {
                m["role"] == "user" && side_purpose(m["content"].as_str().unwrap_or("")).is_some()
            });
            first_is_system && !side
        })
        .collect()
}

/// Bodies of the side requests for `purpose` (`plan`, `title`, `memory`).
pub(crate) fn side_bodies(sim: &SimHandle, purpose: &str) -> Vec<serde_json::Value> {
    sim.chat_bodies()
        .into_iter()
        .filter(|b| {
            b["messages"]
                .as_array()
                .and_then(|m| m.last())
                .and_then(|m| m["content"].as_str())
                .and_then(side_purpose)
                == Some(purpose)
        })
        .collect()
}

/// Run `hearth` with `args`, assert it succeeded, return its stdout.
pub(crate) async fn ok(args: &[&str]) -> String {
    let out = output(hearth(args)).await;
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `hearth chat` of `text` in `session` of the database `db`, against the
/// server at `url` with the tests' model; asserts it succeeded, returns its
/// stdout.
pub(crate) async fn chat_in(db: &str, url: &str, session: &str, text: &str) -> String {
    ok(&[
        "chat",
        "--db",
        db,
        "--url",
        url,
        "--model",
        MODEL,
        "--session",
        session,
        text,
    ])
    .await
}
