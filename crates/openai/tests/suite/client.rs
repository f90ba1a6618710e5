//! Plain answers through the client and the agent: streaming, usage,
//! reasoning, the request shape, model listing, API keys, per-profile
//! selection.

use std::sync::Arc;

use futures::StreamExt;
use hearth_core::{Agent, ModelDelta, Profile, StaticProfiles, tools::builtin_registry};
use hearth_openai::{Client, ClientOptions, OpenAiBackend, wire};
use hearth_protocol::EventKind;
use hearth_sim::{Reply, Script};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::{MODEL, agent, base, client, client_with, events, last, model, sim, text_of};

fn ask(text: &str) -> wire::ChatRequest {
    wire::ChatRequest {
        model: MODEL.into(),
        messages: vec![wire::Message {
            role: "user",
            content: Some(text.into()),
            tool_calls: vec![],
            tool_call_id: None,
        }],
        tools: vec![],
        stream: true,
        stream_options: Some(wire::StreamOptions {
            include_usage: true,
        }),
        temperature: None,
        max_tokens: None,
        response_format: None,
    }
}

#[tokio::test]
async fn a_plain_answer_streams_token_by_token_with_usage() {
    let sim =
        sim(Script::with_models(vec![model()]).with_reply(Reply::text("Hello there, friend.")))
            .await;
    let deltas: Vec<ModelDelta> = client(&sim)
        .chat_stream(&ask("hi"))
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    let texts: Vec<&str> = deltas
        .iter()
        .filter_map(|d| match d {
            ModelDelta::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, vec!["Hello", " there,", " friend."]);
    let ModelDelta::Done(info) = deltas.last().unwrap() else {
        panic!("{deltas:?}")
    };
    assert_eq!(info.usage.completion_tokens, Some(3));
    assert!(info.usage.prompt_tokens.unwrap() > 0);
    assert!(info.usage.tokens_per_second.is_some());
    assert_eq!(info.usage.done_reason.as_deref(), Some("stop"));
}

#[tokio::test]
async fn through_the_agent_with_the_openai_request_shape() {
    let sim =
        sim(Script::with_models(vec![model()]).with_reply(Reply::text("Plain answer, streamed.")))
            .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { iterations: 1 }),
        "{evs:#?}"
    );
    assert_eq!(text_of(&evs), "Plain answer, streamed.");
    let deltas = evs
        .iter()
        .filter(|e| matches!(e.kind, EventKind::TextDelta { .. }))
        .count();
    assert_eq!(deltas, 4, "the answer streams token by token");
    assert!(evs.iter().any(
        |e| matches!(&e.kind, EventKind::Usage { usage } if usage.completion_tokens == Some(4))
    ));
    let bodies = sim.completion_bodies();
    assert_eq!(bodies.len(), 1);
    let body = &bodies[0];
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    // calculator, current_time, update_plan.
    assert_eq!(body["tools"].as_array().unwrap().len(), 3);
    assert_eq!(body["tools"][0]["type"], "function");
    for field in ["keep_alive", "options", "think", "shift"] {
        assert!(
            body.get(field).is_none(),
            "{field} is Ollama's, not sent: {body}"
        );
    }
    assert_eq!(body["messages"][0]["role"], "system");
    // No preload request and no unload: these servers have no such API.
    assert_eq!(sim.stats().requests, 1);
    assert!(sim.chat_bodies().is_empty());
}

#[tokio::test]
async fn reasoning_streams_as_thinking() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(Reply::text("Hi!").with_thinking("The user greets me.")))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    let thinking: String = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ThinkingDelta { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "The user greets me.");
    assert_eq!(text_of(&evs), "Hi!");
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history[1].thinking.as_deref(), Some("The user greets me."));
}

#[tokio::test]
async fn models_are_listed() {
    let sim = sim(Script::with_models(vec![
        model(),
        hearth_sim::ModelSpec::new("other:1b"),
    ]))
    .await;
    assert_eq!(
        client(&sim).models().await.unwrap(),
        vec![MODEL.to_owned(), "other:1b".to_owned()]
    );
}

#[tokio::test]
async fn an_api_key_is_sent_as_a_bearer_token_and_never_shown() {
    let sim = sim(Script::with_models(vec![model()]).with_api_key("sk-right")).await;
    let ok = client_with(&sim, Some("sk-right"), ClientOptions::default());
    assert_eq!(ok.models().await.unwrap(), vec![MODEL.to_owned()]);
    let answer = crate::support::agent_over(ok, builtin_registry(), 5)
        .run("s", "hello", Default::default())
        .await
        .unwrap();
    assert_eq!(answer, "You said: hello");

    let wrong = client_with(&sim, Some("sk-wrong"), ClientOptions::default());
    let err = crate::support::agent_over(wrong, builtin_registry(), 5)
        .run("s", "hello", Default::default())
        .await
        .unwrap_err();
    let info = err.to_info();
    assert_eq!(info.code, hearth_protocol::ErrorCode::BadRequest);
    assert_eq!(info.recovery, hearth_protocol::Recovery::FixConfig);
    assert!(
        info.message.contains("refused the API key (HTTP 401)"),
        "{}",
        info.message
    );
    assert!(!info.message.contains("sk-wrong"), "{}", info.message);

    let none = client_with(&sim, None, ClientOptions::default());
    let err = none.models().await.unwrap_err().to_string();
    assert!(
        err.contains("wants an API key") && err.contains("HEARTH_API_KEY"),
        "{err}"
    );
}

#[tokio::test]
async fn a_profile_selects_the_openai_backend_by_name() {
    let sim = sim(Script::with_models(vec![model()]).with_reply(Reply::text("from /v1"))).await;
    // The default backend points where nothing listens: it must not be used.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dead = Client::new(
        &format!("http://127.0.0.1:{port}/v1"),
        None,
        ClientOptions::default(),
    )
    .unwrap();
    let mut p = Profile::new("Local", MODEL);
    p.backend = Some("llama.cpp".into());
    let agent = Agent::builder(
        Arc::new(OpenAiBackend::new(dead)),
        Arc::new(StaticProfiles::single("", p)),
    )
    .named_backend("llama.cpp", Arc::new(OpenAiBackend::new(client(&sim))))
    .build();
    let answer = agent.run("s", "hi", Default::default()).await.unwrap();
    assert_eq!(answer, "from /v1");
    assert_eq!(base(&sim), format!("{}/v1", sim.url()));
}

/// A server (or a proxy before it) whose error echoes the request's key,
/// inside the event stream or as one JSON object with a 200, never shows
/// the key in the error (security review L2).
#[tokio::test]
async fn an_error_inside_the_stream_never_echoes_the_key() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const KEY: &str = "sk-echo-7741";
    for (content_type, body) in [
        (
            "text/event-stream",
            "event: error\ndata: {\"error\":{\"message\":\"upstream refused Authorization: Bearer KEY\"}}\n\n",
        ),
        (
            "application/json",
            "{\"error\":{\"message\":\"upstream refused Authorization: Bearer KEY\"}}",
        ),
    ] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let body = body.replace("KEY", KEY);
        let server = tokio::spawn(async move {
            let (mut conn, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = conn.read(&mut buf).await.unwrap();
                assert!(n > 0, "the request ended early");
                seen.extend_from_slice(&buf[..n]);
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            conn.write_all(head.as_bytes()).await.unwrap();
            conn.write_all(body.as_bytes()).await.unwrap();
            String::from_utf8_lossy(&seen).contains(KEY)
        });
        let client = Client::new(
            &format!("http://127.0.0.1:{port}/v1"),
            hearth_openai::ApiKey::new(KEY),
            ClientOptions::default(),
        )
        .unwrap();
        let err = match client.chat_stream(&ask("hi")).await {
            Err(e) => e,
            Ok(mut deltas) => deltas.next().await.expect("an item").expect_err("an error"),
        };
        assert!(server.await.unwrap(), "the key was sent");
        let text = err.to_string();
        assert!(
            !text.contains(KEY) && text.contains("***"),
            "{content_type}: {text}"
        );
    }
}
