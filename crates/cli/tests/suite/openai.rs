//! `hearth chat --backend openai` against the simulator's `/v1` API: the
//! answer streams, tools run, Ctrl-C stops at once, the iteration cap ends
//! a runaway loop, keys are sent and never shown, mistakes say what to do.

use hearth_protocol::EventKind;
use hearth_sim::{Hold, Reply, Script, ToolCallSpec};
use serde_json::json;

use super::basics::{T, events, hearth, interrupt, output, run_end, sim};
use crate::MODEL;

fn v1(sim: &hearth_sim::SimHandle) -> String {
    format!("{}/v1", sim.url())
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test]
async fn an_answer_streams_from_an_openai_compatible_server() {
    let sim = sim(Script::default().with_reply(Reply::text("Hello from /v1."))).await;
    let url = v1(&sim);
    let out = output(hearth(&[
        "chat",
        "--backend",
        "openai",
        "--url",
        &url,
        "--model",
        MODEL,
        "--json",
        "hi",
    ]))
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let evs = events(&out.stdout);
    let text: Vec<String> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TextDelta { delta } => Some(delta.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(text, vec!["Hello", " from", " /v1."]);
    assert!(matches!(run_end(&evs), EventKind::StreamEnd { .. }));
    // Only the OpenAI API was used: no Ollama preload, chat or unload.
    // (Background workers may make requests of their own after the turn.)
    let bodies = sim.completion_bodies();
    assert_eq!(
        bodies[0]["messages"].as_array().unwrap().last().unwrap()["content"],
        "hi"
    );
    assert!(sim.chat_bodies().is_empty());

    // A bare host:port gets its /v1, in plain mode.
    sim.push_reply(Reply::text("Plain."));
    let out = output(hearth(&[
        "chat",
        "--backend",
        "openai",
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "hi",
    ]))
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Plain.\n");
}

#[tokio::test]
async fn a_tool_call_runs_and_the_iteration_cap_ends_a_runaway_loop() {
    let calc = || ToolCallSpec::new("calculator", json!({"expression": "1234*5678"}));
    // The Agent profile plans first: the planner is told DIRECT.
    let mut script = Script::default()
        .with_reply(Reply::text("DIRECT"))
        .with_reply(Reply::tool_calls(vec![calc()]));
    for _ in 0..5 {
        script = script.with_reply(Reply::tool_calls(vec![calc()]));
    }
    let sim = sim(script).await;
    let out = output(hearth(&[
        "chat",
        "--backend",
        "openai",
        "--url",
        &v1(&sim),
        "--model",
        MODEL,
        // The seeded default profile (Chat) offers no tools.
        "--profile",
        "Agent",
        "--max-iterations",
        "3",
        "multiply",
    ]))
    .await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("[tool] calculator → 7006652"), "{err}");
    assert!(err.contains("stopped after 3 model calls"), "{err}");
    assert_eq!(
        sim.completion_bodies().len(),
        4,
        "the planner, then 3 model calls"
    );
}

#[tokio::test]
async fn ctrl_c_stops_at_once_and_the_next_request_is_answered() {
    let sim = sim(Script::default().with_reply(Reply::text("never"))).await;
    // The prompt evaluation lasts until released: a stop that waited for
    // the server would never end.
    sim.hold(Hold::PromptEval);
    let url = v1(&sim);
    let child = hearth(&[
        "chat",
        "--backend",
        "openai",
        "--url",
        &url,
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
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let evs = events(&out.stdout);
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamStopped { .. }),
        "{evs:#?}"
    );
    let stats = sim.wait_until(|s| s.cancelled == 1, T).await.unwrap();
    assert_eq!((stats.unloads, stats.aborted_loads), (0, 0));
    assert_eq!(stats.chunks_sent, 0, "stopped before any token");

    // The next request is answered by the model still loaded.
    sim.release(Hold::PromptEval);
    let out = output(hearth(&[
        "chat",
        "--backend",
        "openai",
        "--url",
        &url,
        "--model",
        MODEL,
        "again",
    ]))
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "You said: again\n");
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.unloads), (1, 0));
}

#[tokio::test]
async fn the_api_key_comes_from_the_flag_or_the_environment_and_is_never_shown() {
    let sim = sim(Script::default().with_api_key("sk-sim-secret")).await;
    let url = v1(&sim);
    let args = [
        "chat",
        "--backend",
        "openai",
        "--url",
        &url,
        "--model",
        MODEL,
        "hi",
    ];

    let mut cmd = hearth(&args);
    cmd.env("HEARTH_API_KEY", "sk-sim-secret");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", stderr(&out));

    // On the command line a key is refused (security review N6: under
    // Landlock a sandboxed command read it from /proc/PID/cmdline), and
    // never echoed.
    let mut with_flag = args.to_vec();
    with_flag.splice(1..1, ["--api-key", "sk-sim-secret"]);
    let out = output(hearth(&with_flag)).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--api-key is refused") && err.contains("HEARTH_API_KEY"),
        "{err}"
    );
    assert!(!err.contains("sk-sim-secret"), "{err}");

    let mut cmd = hearth(&args);
    cmd.env("HEARTH_API_KEY", "sk-wrong-one");
    let out = output(cmd).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("refused the API key (HTTP 401)"), "{err}");
    assert!(!err.contains("sk-wrong-one"), "{err}");

    // An empty variable means no key (not a command-line error).
    let mut cmd = hearth(&args);
    cmd.env("HEARTH_API_KEY", "");
    let out = output(cmd).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("wants an API key") && err.contains("HEARTH_API_KEY"),
        "{err}"
    );

    // --help never prints the value.
    let mut cmd = hearth(&["chat", "--help"]);
    cmd.env("HEARTH_API_KEY", "sk-help-secret");
    let out = output(cmd).await;
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("HEARTH_API_KEY") && help.contains("--backend"),
        "{help}"
    );
    assert!(!help.contains("sk-help-secret"), "{help}");
}

#[tokio::test]
async fn a_dead_server_and_a_missing_model_say_what_to_do() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = output(hearth(&[
        "chat",
        "--backend",
        "openai",
        "--url",
        &url,
        "--model",
        MODEL,
        "hi",
    ]))
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains(&url) && err.contains("is it running"), "{err}");

    let sim = sim(Script::default()).await;
    let out = output(hearth(&[
        "chat",
        "--backend",
        "openai",
        "--url",
        &v1(&sim),
        "--model",
        "llama9:70b",
        "hi",
    ]))
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("does not serve model `llama9:70b`"), "{err}");
    assert!(!err.contains("ollama pull"), "{err}");
}
