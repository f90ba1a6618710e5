//! Every simulator fault ends with a typed error (or, for split UTF-8, the
//! exact text), never a panic, and leaves the session usable.

use std::time::Duration;

use hearth_core::{MessageStatus, tools::builtin_registry};
use hearth_ollama::ClientOptions;
use hearth_protocol::{ErrorCode, EventKind, Recovery};
use hearth_sim::{Fault, Reply, Script};

use crate::support::{agent, agent_with, events, last, model, sim, text_of};

const TEXT: &str = "alpha beta gamma delta epsilon";

/// Run one turn whose reply carries `fault`; return the error code and the
/// partial text, after checking the session stays valid and usable.
async fn fault(fault: Fault, opts: ClientOptions) -> (ErrorCode, Recovery, String, String) {
    // Transient failures before any output are retried (3 attempts in
    // all): the fault is scripted once per attempt it must survive.
    let attempts = match fault {
        Fault::Status(s) if s == 429 || s >= 500 => 3,
        Fault::DropAfter(0) => 3,
        _ => 1,
    };
    let mut script = Script::with_models(vec![model()]);
    for _ in 0..attempts {
        script = script.with_reply(Reply::text(TEXT).with_fault(fault));
    }
    let sim = sim(script).await;
    let agent = agent_with(&sim, builtin_registry(), 20, opts);
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    let EventKind::Error {
        error,
        partial_text,
    } = last(&evs)
    else {
        panic!("{fault:?}: {evs:#?}")
    };
    // Nothing complete was lost; the failed answer is stored with its status.
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history[0].content, "hi");
    if history.len() > 1 {
        assert_eq!(history[1].status, MessageStatus::Error);
        assert_eq!(&history[1].content, partial_text);
    }
    // The next turn in the same session works.
    let answer = agent
        .run("s", "still there?", Default::default())
        .await
        .unwrap();
    assert!(answer.contains("still there?"), "{answer}");
    (
        error.code,
        error.recovery,
        partial_text.clone(),
        error.message.clone(),
    )
}

#[tokio::test]
async fn http_status_before_output() {
    let (code, recovery, partial, msg) = fault(Fault::Status(500), ClientOptions::default()).await;
    assert_eq!(
        (code, recovery),
        (ErrorCode::BackendFailed, Recovery::Retry)
    );
    assert_eq!(partial, "");
    assert!(msg.contains("simulated error 500"), "{msg}");
    let (code, ..) = fault(Fault::Status(400), ClientOptions::default()).await;
    assert_eq!(code, ErrorCode::BadRequest);
}

#[tokio::test]
async fn connection_dropped_mid_stream_is_truncated() {
    let (code, _, partial, _) = fault(Fault::DropAfter(2), ClientOptions::default()).await;
    assert_eq!(code, ErrorCode::StreamTruncated);
    assert_eq!(partial, "alpha beta");
}

#[tokio::test]
async fn in_band_error_is_an_error_not_an_end() {
    let (code, _, partial, msg) = fault(Fault::ErrorAfter(3), ClientOptions::default()).await;
    assert_eq!(code, ErrorCode::BackendFailed);
    assert_eq!(partial, "alpha beta gamma");
    assert!(msg.contains("simulated in-band error"), "{msg}");
}

#[tokio::test]
async fn malformed_line() {
    let (code, _, partial, _) = fault(Fault::MalformedAfter(1), ClientOptions::default()).await;
    assert_eq!(code, ErrorCode::MalformedReply);
    assert_eq!(partial, "alpha");
}

#[tokio::test]
async fn stall_times_out_and_closes_the_connection() {
    let opts = ClientOptions {
        idle_timeout: Duration::from_millis(300),
        ..ClientOptions::default()
    };
    let (code, recovery, partial, _) = fault(Fault::StallAfter(2), opts).await;
    assert_eq!((code, recovery), (ErrorCode::Timeout, Recovery::Retry));
    assert_eq!(partial, "alpha beta");
}

#[tokio::test]
async fn no_done_line_is_reported_as_truncated() {
    let (code, _, partial, _) = fault(Fault::NoDone, ClientOptions::default()).await;
    assert_eq!(code, ErrorCode::StreamTruncated);
    assert_eq!(partial, TEXT);
}

#[tokio::test]
async fn utf8_split_inside_characters_arrives_exact() {
    let text = "héllo wörld 🌍 — naïve café, 日本語 テキスト";
    let sim =
        sim(Script::with_models(vec![model()]).with_reply(Reply::text(text).with_split_utf8()))
            .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    assert_eq!(text_of(&evs), text);
}

#[tokio::test]
async fn a_model_that_is_not_installed_names_the_pull_command() {
    let sim = sim(Script::with_models(vec![model()])).await;
    let mut p = hearth_core::Profile::new("P", "llama9:70b");
    p.tools = Some(vec![]);
    let profiles = std::sync::Arc::new(hearth_core::StaticProfiles::single("", p));
    let backend = hearth_ollama::OllamaBackend::new(crate::support::client(&sim));
    let agent = hearth_core::Agent::builder(std::sync::Arc::new(backend), profiles).build();
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = last(&evs) else {
        panic!("{evs:#?}")
    };
    assert_eq!(
        (error.code, error.recovery),
        (ErrorCode::ModelNotFound, Recovery::PullModel)
    );
    assert!(
        error.message.contains("ollama pull llama9:70b"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_dead_server_asks_whether_ollama_is_running() {
    // Bind then drop a listener: a loopback port where nothing listens.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let client = hearth_ollama::Client::new(&url, ClientOptions::default()).unwrap();
    let err = client.ps().await.unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(&url) && msg.contains("is it running"), "{msg}");
    let backend: hearth_core::BackendError = err.into();
    assert_eq!(backend.to_info().code, ErrorCode::BackendUnreachable);
}

#[tokio::test]
async fn transient_failures_before_output_are_retried_then_the_answer_streams() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(Reply::text(TEXT).with_fault(Fault::Status(503)))
        .with_reply(Reply::text(TEXT).with_fault(Fault::DropAfter(0)))
        .with_reply(Reply::text("Third time lucky.")))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    assert_eq!(text_of(&evs), "Third time lucky.");
    let turns = sim
        .chat_bodies()
        .iter()
        .filter(|b| !b["messages"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(turns, 3, "two retries");
    // Each retry is preceded by its own preload (a crashed runner reloads
    // there, where a Stop cannot abort it), and nothing reloaded here.
    let preloads = sim
        .chat_bodies()
        .iter()
        .filter(|b| b["messages"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(preloads, 3);
    assert_eq!(sim.stats().loads, 1);
    // Nothing of the failed attempts reached the history.
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history.len(), 2);
}

#[tokio::test]
async fn a_429_is_retried_but_a_400_and_an_in_band_error_are_not() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(Reply::text(TEXT).with_fault(Fault::Status(429)))
        .with_reply(Reply::text("ok")))
    .await;
    let agent = agent(&sim);
    assert_eq!(
        agent.run("s", "hi", Default::default()).await.unwrap(),
        "ok"
    );
    for (fault, says) in [
        (Fault::Status(400), "simulated error 400"),
        (Fault::ErrorAfter(0), "simulated in-band error"),
    ] {
        sim.set_script(
            Script::with_models(vec![model()])
                .with_reply(Reply::text(TEXT).with_fault(fault))
                .with_reply(Reply::text("never")),
        );
        let err = agent
            .run("s", "again", Default::default())
            .await
            .unwrap_err();
        assert!(err.to_string().contains(says), "{err}");
        assert_eq!(sim.pending_replies(), 1, "{fault:?} was not retried");
    }
}

#[tokio::test]
async fn a_slow_trickle_is_not_a_stall_the_answer_arrives_whole() {
    // Twenty-four tokens 100 ms apart take longer than the 2 s idle
    // timeout, but every gap is a twentieth of it: the timeout is per gap
    // of the HTTP body, not per answer (nor a whole-request timeout). The
    // exact rule is unit-tested on a paused clock in `stream`; here only a
    // test process frozen for 1.9 s could fail.
    let text: String = (1..=24).map(|n| format!("w{n} ")).collect();
    let text = text.trim_end();
    let sim =
        sim(Script::with_models(vec![model()]).with_reply(Reply::text(text).with_token_ms(100)))
            .await;
    let idle = Duration::from_secs(2);
    let opts = ClientOptions {
        idle_timeout: idle,
        ..ClientOptions::default()
    };
    let agent = agent_with(&sim, builtin_registry(), 20, opts);
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    // The premise, by the server's own count: generating took longer than
    // the idle timeout (twenty-four 100 ms pauses).
    let eval_ms = evs
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Usage { usage } => usage.eval_ms,
            _ => None,
        })
        .expect("the done line's eval_duration");
    assert!(eval_ms >= 2400.0, "{eval_ms}");
    assert!(eval_ms > idle.as_secs_f64() * 1000.0);
    assert_eq!(text_of(&evs), text);
    let deltas = evs
        .iter()
        .filter(|e| matches!(e.kind, EventKind::TextDelta { .. }))
        .count();
    assert!(deltas >= 24, "streamed as it came: {deltas} deltas");
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history[1].content, text);
    assert_eq!(history[1].status, MessageStatus::Complete);
}
