//! The OpenAI-compatible API (`/v1`), asserted on the bytes of the wire:
//! event framing, tool-call fragments, usage, `[DONE]`, faults, keys.

use hearth_sim::{Fault, ModelSpec, Reply, Script, Sim, SimHandle, ToolCallSpec};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::support::{Raw, Response, T, request};

const MODEL: &str = "llama3.2:3b";

async fn sim_with(reply: Reply) -> SimHandle {
    Sim::start(Script::default().with_reply(reply))
        .await
        .unwrap()
}

fn ask(text: &str) -> Value {
    json!({"model": MODEL, "stream": true, "stream_options": {"include_usage": true},
           "messages": [{"role": "user", "content": text}]})
}

async fn completions(sim: &SimHandle, body: &Value) -> Response {
    request(sim, "POST", "/v1/chat/completions", body).await
}

/// The `data:` payloads of an event stream, `[DONE]` as a string.
fn data(resp: &Response) -> Vec<Value> {
    let text = resp.text();
    assert!(text.ends_with("\n\n") || text.is_empty(), "{text:?}");
    text.split("\n\n")
        .filter(|e| !e.is_empty())
        .map(|e| {
            let d = e.strip_prefix("data: ").unwrap_or_else(|| panic!("{e:?}"));
            serde_json::from_str(d).unwrap_or_else(|_| Value::String(d.to_owned()))
        })
        .collect()
}

fn content(events: &[Value]) -> String {
    events
        .iter()
        .filter_map(|e| e["choices"][0]["delta"]["content"].as_str())
        .collect()
}

#[tokio::test]
async fn a_plain_answer_streams_as_events_with_usage_and_done() {
    let sim = sim_with(Reply::text("Hello there, friend.").with_thinking("Greet.")).await;
    let resp = completions(&sim, &ask("hi")).await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("text/event-stream"));
    assert!(resp.complete);
    let events = data(&resp);
    assert_eq!(events.last().unwrap(), &json!("[DONE]"));
    let first = &events[0];
    assert_eq!(first["object"], "chat.completion.chunk");
    assert_eq!(first["choices"][0]["delta"]["role"], "assistant");
    assert_eq!(first["choices"][0]["delta"]["reasoning_content"], "Greet.");
    assert_eq!(content(&events), "Hello there, friend.");
    let n = events.len();
    assert_eq!(events[n - 3]["choices"][0]["finish_reason"], "stop");
    let usage = &events[n - 2];
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(usage["usage"]["completion_tokens"], 4);
    assert!(usage["usage"]["prompt_tokens"].as_u64().unwrap() > 0);
    assert!(usage["timings"]["predicted_per_second"].is_number());
    // Every event is its own chunk, so clients see real boundaries.
    assert_eq!(resp.chunks.len(), n);
    assert_eq!(sim.stats().chat_requests, 1);
    assert_eq!(sim.completion_bodies(), vec![ask("hi")]);
}

#[tokio::test]
async fn tool_calls_arrive_as_a_head_then_argument_fragments() {
    let sim = sim_with(Reply::tool_calls(vec![
        ToolCallSpec::new("calculator", json!({"expression": "12*12"})).with_id("call_x"),
        ToolCallSpec::new("current_time", json!({})),
    ]))
    .await;
    let events = data(&completions(&sim, &ask("go")).await);
    let pieces: Vec<&Value> = events
        .iter()
        .filter_map(|e| e["choices"][0]["delta"]["tool_calls"].get(0))
        .collect();
    assert_eq!(
        pieces[0],
        &json!({"index": 0, "id": "call_x", "type": "function",
                "function": {"name": "calculator", "arguments": ""}})
    );
    let args = |i: u64| -> String {
        pieces
            .iter()
            .filter(|p| p["index"] == i)
            .filter_map(|p| p["function"]["arguments"].as_str())
            .collect()
    };
    assert_eq!(args(0), r#"{"expression":"12*12"}"#);
    assert!(pieces.iter().filter(|p| p["index"] == 0).count() > 3);
    let second = pieces.iter().find(|p| p["index"] == 1).unwrap();
    assert!(second["id"].as_str().unwrap().starts_with("call_"));
    assert_eq!(args(1), "{}");
    let finish: Vec<&Value> = events
        .iter()
        .filter(|e| !e["choices"][0]["finish_reason"].is_null())
        .collect();
    assert_eq!(finish.len(), 1);
    assert_eq!(finish[0]["choices"][0]["finish_reason"], "tool_calls");
}

#[tokio::test]
async fn calls_on_done_come_whole_in_the_finish_chunk_and_whole_answers_work() {
    let call = ToolCallSpec::new("t", json!({"a": 1})).with_id("c1");
    let sim = sim_with(
        Reply::tool_calls(vec![call.clone()])
            .with_content("ok")
            .with_tool_calls_on_done(),
    )
    .await;
    let events = data(&completions(&sim, &ask("go")).await);
    let finish = events
        .iter()
        .find(|e| e["choices"][0]["finish_reason"] == "tool_calls")
        .unwrap();
    assert_eq!(
        finish["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"],
        r#"{"a":1}"#
    );
    // stream: false (the API's default): one chat.completion object.
    sim.push_reply(Reply::tool_calls(vec![call]).with_content("ok"));
    let mut body = ask("go");
    body.as_object_mut().unwrap().remove("stream");
    let resp = completions(&sim, &body).await;
    let v = resp.json();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["choices"][0]["message"]["content"], "ok");
    assert_eq!(
        v["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
        r#"{"a":1}"#
    );
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
}

#[tokio::test]
async fn faults_map_to_the_openai_shapes() {
    // status: a real status and an OpenAI error object, before any output.
    let sim = sim_with(Reply::status(500)).await;
    let resp = completions(&sim, &ask("hi")).await;
    assert_eq!(resp.status, 500);
    assert_eq!(resp.json()["error"]["message"], "simulated error 500");
    assert_eq!(resp.json()["error"]["type"], "server_error");

    // error_after: an in-band error event, then [DONE].
    sim.push_reply(Reply::text("one two three").with_fault(Fault::ErrorAfter(1)));
    let events = data(&completions(&sim, &ask("hi")).await);
    assert_eq!(content(&events), "one");
    assert_eq!(events[1]["error"]["message"], "simulated in-band error");
    assert_eq!(events[2], json!("[DONE]"));

    // malformed_after: a data line that is not JSON.
    sim.push_reply(Reply::text("one two").with_fault(Fault::MalformedAfter(1)));
    let resp = completions(&sim, &ask("hi")).await;
    assert!(
        resp.text()
            .contains("data: {\"id\": \"chatcmpl-x\", \"choices\": [{\n\n")
    );

    // no_done: every token, then a proper end without finish_reason or [DONE].
    sim.push_reply(Reply::text("one two").with_fault(Fault::NoDone));
    let resp = completions(&sim, &ask("hi")).await;
    assert!(resp.complete);
    let events = data(&resp);
    assert_eq!(content(&events), "one two");
    assert!(
        events
            .iter()
            .all(|e| e["choices"][0]["finish_reason"].is_null())
    );
    assert!(!events.contains(&json!("[DONE]")));

    // drop_after: the socket closes mid-body.
    sim.push_reply(Reply::text("one two three").with_fault(Fault::DropAfter(2)));
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/v1/chat/completions", &ask("hi")).await;
    let resp = c.response().await;
    assert!(!resp.complete);
    assert_eq!(content(&data(&resp)), "one two");
    assert!(c.closed().await);
    assert_eq!(sim.stats().cancelled, 0);
}

#[tokio::test]
async fn split_utf8_cuts_events_inside_a_character() {
    let text = "héllo wörld 🌍";
    let sim = sim_with(Reply::text(text).with_split_utf8()).await;
    let resp = completions(&sim, &ask("hi")).await;
    assert!(
        resp.chunks.iter().any(|c| std::str::from_utf8(c).is_err()),
        "some chunk ends inside a character"
    );
    assert_eq!(content(&data(&resp)), text);
}

#[tokio::test]
async fn a_client_that_leaves_during_prompt_evaluation_is_counted_cancelled() {
    let sim = sim_with(Reply::text("never").with_prompt_eval_ms(5000)).await;
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/v1/chat/completions", &ask("hi")).await;
    sim.wait_until(|s| s.chat_requests == 1, T).await.unwrap();
    assert_eq!(c.read_for(std::time::Duration::from_millis(100)).await, b"");
    c.close();
    let stats = sim.wait_until(|s| s.cancelled == 1, T).await.unwrap();
    assert_eq!(stats.loaded, [MODEL]);
    // The next request is answered at once.
    let resp = completions(&sim, &ask("again")).await;
    assert_eq!(content(&data(&resp)), "You said: again");
}

#[tokio::test]
async fn keys_models_and_unknown_paths() {
    let sim = Sim::start(
        Script::with_models(vec![
            ModelSpec::new("a:1b"),
            ModelSpec::new("b:1b").with_installed(false),
        ])
        .with_api_key("sk-test"),
    )
    .await
    .unwrap();
    let resp = request(&sim, "GET", "/v1/models", &Value::Null).await;
    assert_eq!(resp.status, 401);
    assert_eq!(resp.json()["error"]["code"], "invalid_api_key");
    let mut c = Raw::connect(&sim).await;
    c.send_raw(
        "GET",
        "/v1/models",
        None,
        "Authorization: Bearer sk-test\r\n",
    )
    .await;
    let resp = c.response().await;
    assert_eq!(resp.status, 200);
    assert_eq!(
        resp.json()["data"],
        json!([{"id": "a:1b", "object": "model", "created": 1_759_320_000, "owned_by": "library",
                "meta": {"n_params": 3_200_000_000_u64}}])
    );
    c.send_raw("GET", "/v1/models", None, "Authorization: Bearer wrong\r\n")
        .await;
    let resp = c.response().await;
    assert_eq!(
        resp.json()["error"]["message"],
        "Incorrect API key provided."
    );
    c.send_raw("GET", "/v1/nope", None, "Authorization: Bearer sk-test\r\n")
        .await;
    assert_eq!(c.response().await.status, 404);
    // The Ollama API never asks for a key.
    let resp = request(&sim, "GET", "/api/tags", &Value::Null).await;
    assert_eq!(resp.status, 200);
}

#[tokio::test]
async fn openai_validation_is_a_400_with_openais_words() {
    let sim = sim_with(Reply::text("x")).await;
    let body = json!({"model": MODEL, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "t", "arguments": {"a": 1}}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "2"}]});
    let resp = completions(&sim, &body).await;
    assert_eq!(resp.status, 400);
    let msg = resp.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        msg.contains("expected a string, but got an object"),
        "{msg}"
    );
    // An unknown model is a 404 that names the model.
    let resp = completions(
        &sim,
        &json!({"model": "nope:1b", "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    assert_eq!(resp.status, 404);
    assert_eq!(resp.json()["error"]["code"], "model_not_found");
    assert_eq!(
        sim.pending_replies(),
        1,
        "no reply is used by a refused request"
    );
}
