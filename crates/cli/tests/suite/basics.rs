//! chat, ps and errors as a person sees them.

use std::process::Stdio;
use std::time::{Duration, Instant};

use hearth_protocol::{AgentEvent, EventKind};
use hearth_sim::{ModelSpec, Reply, Script, Sim, SimHandle};
use tokio::process::Command;

use crate::MODEL;

pub(crate) async fn sim(script: Script) -> SimHandle {
    Sim::start(script.with_model(ModelSpec::new(MODEL).with_capabilities(&["tools"])))
        .await
        .unwrap()
}

/// A test database folder, removed when the process ends.
static DB_DIR: std::sync::LazyLock<tempfile::TempDir> =
    std::sync::LazyLock::new(|| tempfile::tempdir().unwrap());

pub(crate) fn hearth(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hearth"));
    c.args(args)
        .env_remove("OLLAMA_HOST")
        // Never the user's real database.
        .env("HEARTH_DB", DB_DIR.path().join("default.sqlite"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    c
}

pub(crate) async fn output(mut cmd: Command) -> std::process::Output {
    tokio::time::timeout(Duration::from_secs(20), cmd.output())
        .await
        .expect("hearth finished in time")
        .unwrap()
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
    let out = output(hearth(&[
        "chat",
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "--json",
        "hi",
    ]))
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let evs = events(&out.stdout);
    assert!(matches!(evs[0].kind, EventKind::RunStarted { .. }));
    assert!(matches!(
        evs.last().unwrap().kind,
        EventKind::StreamEnd { .. }
    ));
    let text: String = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TextDelta { delta } => Some(delta.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Hello there, friend.");
    assert!(evs.iter().all(|e| e.scope.run_id == evs[0].scope.run_id));
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

#[tokio::test]
async fn ctrl_c_stops_at_once_exits_130_and_keeps_the_model_loaded() {
    let sim =
        sim(Script::default().with_reply(Reply::text("never").with_prompt_eval_ms(5000))).await;
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
    sim.wait_until(|s| s.chat_requests >= 2, Duration::from_secs(10))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let pid = child.id().unwrap().to_string();
    let t = Instant::now();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = tokio::time::timeout(Duration::from_secs(5), child.wait_with_output())
        .await
        .expect("exits after SIGINT")
        .unwrap();
    let took = t.elapsed();
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
    let stats = sim
        .wait_until(|s| s.cancelled == 1, Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!((stats.unloads, stats.aborted_loads), (0, 0));
    assert_eq!(stats.loaded, vec![MODEL.to_owned()]);
    // Process exit included: generous, but it shows the stop is not a timeout.
    assert!(took < Duration::from_secs(2), "{took:?}");
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
/// messages) and not the memory worker's (one user message, no system).
pub(crate) fn turn_bodies(sim: &SimHandle) -> Vec<serde_json::Value> {
    sim.chat_bodies()
        .into_iter()
        .filter(|b| {
            b["messages"]
                .as_array()
                .and_then(|m| m.first())
                .is_some_and(|m| m["role"] == "system")
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
