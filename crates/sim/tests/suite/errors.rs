//! Errors before any output: real statuses and Ollama's texts.

use hearth_sim::{ModelSpec, Reply, Script, Sim};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{Raw, ask, chat, request, with};

#[tokio::test]
async fn unknown_and_not_installed_models_are_404() {
    let script = Script::default().with_model(ModelSpec::new("later:7b").with_installed(false));
    let sim = Sim::start(script).await.unwrap();
    for name in ["nope:1b", "later:7b"] {
        let resp = chat(&sim, ask(name, "hi")).await;
        assert_eq!(resp.status, 404);
        assert_eq!(
            resp.header("content-type"),
            Some("application/json; charset=utf-8")
        );
        let want = format!("model \"{name}\" not found, try pulling it first");
        assert_eq!(resp.json(), json!({ "error": want }));
    }
    assert_eq!(sim.stats().loads, 0);
}

#[tokio::test]
async fn bad_keep_alive_is_400_with_gos_text() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let cases = [
        (json!("abc"), r#"time: invalid duration "abc""#),
        (json!("5"), r#"time: missing unit in duration "5""#),
        (json!("1d"), r#"time: unknown unit "d" in duration "1d""#),
    ];
    for (keep_alive, text) in cases {
        let resp = chat(
            &sim,
            with(
                ask("llama3.2:3b", "hi"),
                json!({ "keep_alive": keep_alive }),
            ),
        )
        .await;
        assert_eq!(resp.status, 400);
        assert_eq!(resp.json(), json!({ "error": text }));
    }
    // Go durations that parse are fine.
    for keep_alive in [
        json!("1h30m"),
        json!("1.5h"),
        json!("300ms"),
        json!("0"),
        json!(-1),
        json!(30),
    ] {
        let resp = chat(
            &sim,
            with(
                ask("llama3.2:3b", "hi"),
                json!({ "keep_alive": keep_alive }),
            ),
        )
        .await;
        assert_eq!(resp.status, 200, "{keep_alive}");
    }
}

#[tokio::test]
async fn think_and_tools_need_the_capability() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let resp = chat(&sim, with(ask("gemma3:1b", "hi"), json!({"think": true}))).await;
    assert_eq!(resp.status, 400);
    assert_eq!(
        resp.json(),
        json!({"error": "\"gemma3:1b\" does not support thinking"})
    );
    // `think: false` is fine for any model.
    let resp = chat(&sim, with(ask("gemma3:1b", "hi"), json!({"think": false}))).await;
    assert_eq!(resp.status, 200);

    let tools = json!([{"type": "function", "function": {"name": "t", "parameters": {}}}]);
    let resp = chat(&sim, with(ask("gemma3:1b", "hi"), json!({"tools": tools}))).await;
    assert_eq!(resp.status, 400);
    assert_eq!(
        resp.json(),
        json!({"error": "registry.ollama.ai/library/gemma3:1b does not support tools"})
    );
    // An empty tool list is no tools.
    let resp = chat(&sim, with(ask("gemma3:1b", "hi"), json!({"tools": []}))).await;
    assert_eq!(resp.status, 200);
    let resp = chat(
        &sim,
        with(
            ask("qwen3:8b", "hi"),
            json!({"think": "medium", "tools": tools}),
        ),
    )
    .await;
    assert_eq!(resp.status, 200);
    let resp = chat(&sim, with(ask("qwen3:8b", "hi"), json!({"think": "max"}))).await;
    assert_eq!(resp.status, 400);
}

#[tokio::test]
async fn malformed_bodies_are_400() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let mut c = Raw::connect(&sim).await;
    c.send_raw("POST", "/api/chat", Some(b"{not json"), "")
        .await;
    let resp = c.response().await;
    assert_eq!(resp.status, 400);
    assert!(resp.json()["error"].is_string());
    c.send_raw("POST", "/api/chat", None, "").await;
    assert_eq!(
        c.response().await.json(),
        json!({"error": "missing request body"})
    );
    // Arguments must be an object, as in Ollama.
    let body = json!({"model": "llama3.2:3b", "messages": [
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}
    ]});
    c.send("POST", "/api/chat", &body).await;
    assert_eq!(c.response().await.status, 400);
    c.send("POST", "/api/chat", &json!({"messages": []})).await;
    assert_eq!(
        c.response().await.json(),
        json!({"error": "model is required"})
    );
    let bad_option = with(
        ask("llama3.2:3b", "x"),
        json!({"options": {"num_ctx": "big"}}),
    );
    c.send("POST", "/api/chat", &bad_option).await;
    assert_eq!(
        c.response().await.json(),
        json!({"error": "option \"num_ctx\" must be of type integer"})
    );
}

#[tokio::test]
async fn a_chunked_request_body_is_refused() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let mut c = Raw::connect(&sim).await;
    let head = "POST /api/chat HTTP/1.1\r\nHost: sim\r\nTransfer-Encoding: chunked\r\n\r\n";
    c.send_raw_bytes(head.as_bytes()).await;
    let resp = c.response().await;
    assert_eq!(resp.status, 411);
    assert!(c.closed().await);
}

#[tokio::test]
async fn unknown_paths_are_gins_404() {
    let sim = Sim::start(Script::default()).await.unwrap();
    for (method, path) in [
        ("GET", "/api/nothing"),
        ("GET", "/api/chat"),
        ("POST", "/sim/nothing"),
    ] {
        let resp = request(&sim, method, path, &json!({})).await;
        assert_eq!(resp.status, 404);
        assert_eq!(resp.text(), "404 page not found");
    }
}

#[tokio::test]
async fn a_status_fault_answers_before_any_output_and_before_loading() {
    let script = Script::default().with_reply(Reply::status(503));
    let sim = Sim::start(script).await.unwrap();
    let resp = chat(&sim, ask("llama3.2:3b", "hi")).await;
    assert_eq!(resp.status, 503);
    assert_eq!(resp.json(), json!({"error": "simulated error 503"}));
    assert_eq!(sim.stats().loads, 0);
    // The next request gets the echo.
    assert_eq!(
        chat(&sim, ask("llama3.2:3b", "hi")).await.content(),
        "You said: hi"
    );
}
