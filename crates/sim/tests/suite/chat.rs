//! `/api/chat` output: streaming and non-streaming shapes, thinking, tool
//! calls, scripted replies, the prefix cache and truncation.

use std::time::Duration;

use hearth_sim::{Hold, ModelSpec, Reply, Script, Sim, ToolCallSpec};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{Raw, T, ask, chat, done_line, with};

#[tokio::test]
async fn streams_the_echo_reply_token_by_token() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let resp = chat(&sim, ask("llama3.2:3b", "hello <there> & you")).await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("application/x-ndjson"));
    assert_eq!(resp.header("transfer-encoding"), Some("chunked"));
    assert!(resp.complete);
    // One chunk per line.
    assert_eq!(resp.chunks.len(), resp.lines().len());
    let lines = resp.lines();
    let tokens: Vec<&str> = lines[..lines.len() - 1]
        .iter()
        .map(|l| l["message"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        tokens,
        ["You", " said:", " hello", " <there>", " &", " you"]
    );
    // Go escapes HTML characters.
    assert!(
        resp.text().contains(r#"" \u003cthere\u003e""#),
        "{}",
        resp.text()
    );
    let first = &lines[0];
    assert_eq!(first["model"], "llama3.2:3b");
    assert_eq!(first["done"], false);
    assert_eq!(first["message"]["role"], "assistant");
    let created = first["created_at"].as_str().unwrap();
    assert!(
        chrono::DateTime::parse_from_rfc3339(created).is_ok(),
        "{created}"
    );
    assert!(created.ends_with('Z'));
    let done = done_line(&resp);
    assert_eq!(done["done_reason"], "stop");
    assert_eq!(done["message"], json!({"role": "assistant", "content": ""}));
    assert_eq!(done["eval_count"], 6);
    for key in [
        "total_duration",
        "load_duration",
        "prompt_eval_count",
        "prompt_eval_duration",
        "eval_duration",
    ] {
        assert!(done[key].as_u64().unwrap() > 0, "{key}: {done}");
    }
    assert_eq!(sim.stats().loads, 1);
}

#[tokio::test]
async fn stream_false_answers_one_object() {
    let script = Script::default().with_reply(Reply::text("Hi there").with_thinking("hmm"));
    let sim = Sim::start(script).await.unwrap();
    let body = with(
        ask("qwen3:8b", "x"),
        json!({"stream": false, "think": true}),
    );
    let resp = chat(&sim, body).await;
    assert_eq!(resp.status, 200);
    assert!(resp.header("content-length").is_some());
    assert_eq!(
        resp.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    let v = resp.json();
    assert_eq!(
        v["message"],
        json!({"role": "assistant", "content": "Hi there", "thinking": "hmm"})
    );
    assert_eq!(v["done"], true);
    assert_eq!(v["done_reason"], "stop");
    assert_eq!(v["eval_count"], 3);
}

#[tokio::test]
async fn nothing_is_written_before_the_first_token() {
    let script = Script::default().with_reply(Reply::text("late"));
    let sim = Sim::start(script).await.unwrap();
    // The evaluation lasts until the release: the window below is inside
    // it however slow the machine.
    sim.hold(Hold::PromptEval);
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &ask("llama3.2:3b", "hi")).await;
    sim.wait_until(|s| s.prompt_evals == 1, T).await.unwrap();
    assert_eq!(c.read_for(Duration::from_millis(150)).await, b"");
    sim.release(Hold::PromptEval);
    let resp = c.response().await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.content(), "late");
}

#[tokio::test]
async fn thinking_streams_first_and_only_when_asked() {
    let reply = || Reply::text("answer here").with_thinking("let me think");
    let script = Script::default().with_reply(reply()).with_reply(reply());
    let sim = Sim::start(script).await.unwrap();
    let resp = chat(&sim, with(ask("qwen3:8b", "q"), json!({"think": "high"}))).await;
    let lines = resp.lines();
    let thinking: String = lines
        .iter()
        .filter_map(|l| l["message"]["thinking"].as_str())
        .collect();
    assert_eq!(thinking, "let me think");
    assert_eq!(
        lines[0]["message"],
        json!({"role": "assistant", "content": "", "thinking": "let"})
    );
    let first_content = lines
        .iter()
        .position(|l| l["message"]["content"] != "")
        .unwrap();
    let last_thinking = lines
        .iter()
        .rposition(|l| l["message"].get("thinking").is_some())
        .unwrap();
    assert!(last_thinking < first_content);
    assert_eq!(resp.content(), "answer here");

    let resp = chat(&sim, with(ask("qwen3:8b", "q"), json!({"think": false}))).await;
    assert!(
        resp.lines()
            .iter()
            .all(|l| l["message"].get("thinking").is_none())
    );
    assert_eq!(resp.content(), "answer here");
}

#[tokio::test]
async fn tool_calls_come_on_their_own_chunk_with_ids_only_when_scripted() {
    let calls = vec![
        ToolCallSpec::new("read_file", json!({"path": "a.txt"})),
        ToolCallSpec::new("search", json!({"q": "x"})).with_id("call_7"),
    ];
    let script =
        Script::default().with_reply(Reply::tool_calls(calls).with_content("Let me look."));
    let sim = Sim::start(script).await.unwrap();
    let tools = json!([{"type": "function", "function": {"name": "read_file"}}]);
    let resp = chat(
        &sim,
        with(ask("llama3.2:3b", "go"), json!({"tools": tools})),
    )
    .await;
    let lines = resp.lines();
    let n = lines.len();
    assert_eq!(
        lines[n - 2]["message"],
        json!({"role": "assistant", "content": "", "tool_calls": [
            {"function": {"index": 0, "name": "read_file", "arguments": {"path": "a.txt"}}},
            {"id": "call_7", "function": {"index": 1, "name": "search", "arguments": {"q": "x"}}},
        ]})
    );
    assert_eq!(lines[n - 1]["done"], true);
    assert!(lines[n - 1]["message"].get("tool_calls").is_none());
    assert_eq!(resp.content(), "Let me look.");
}

#[tokio::test]
async fn tool_calls_can_arrive_only_on_the_done_line() {
    let call = ToolCallSpec::new("now", json!({}));
    let script =
        Script::default().with_reply(Reply::tool_calls(vec![call]).with_tool_calls_on_done());
    let sim = Sim::start(script).await.unwrap();
    let resp = chat(&sim, ask("llama3.2:3b", "time?")).await;
    let lines = resp.lines();
    assert_eq!(lines.len(), 1, "{}", resp.text());
    assert_eq!(lines[0]["done"], true);
    assert_eq!(
        lines[0]["message"]["tool_calls"],
        json!([{"function": {"index": 0, "name": "now", "arguments": {}}}])
    );
}

#[tokio::test]
async fn replies_for_another_model_are_skipped() {
    let script = Script::default()
        .with_reply(Reply::text("for qwen").for_model("qwen3:8b"))
        .with_reply(Reply::text("for anyone"));
    let sim = Sim::start(script).await.unwrap();
    assert_eq!(
        chat(&sim, ask("llama3.2:3b", "a")).await.content(),
        "for anyone"
    );
    assert_eq!(chat(&sim, ask("qwen3:8b", "b")).await.content(), "for qwen");
    assert_eq!(
        chat(&sim, ask("qwen3:8b", "c")).await.content(),
        "You said: c"
    );
    assert_eq!(sim.pending_replies(), 0);
}

#[tokio::test]
async fn replies_for_another_prompt_are_skipped() {
    let mut for_title = Reply::text("A title");
    for_title.when = Some("title for".into());
    let script = Script::default()
        .with_reply(for_title)
        .with_reply(Reply::text("an answer"));
    let sim = Sim::start(script).await.unwrap();
    assert_eq!(
        chat(&sim, ask("llama3.2:3b", "hello")).await.content(),
        "an answer"
    );
    assert_eq!(
        chat(&sim, ask("llama3.2:3b", "Write a title for this"))
            .await
            .content(),
        "A title"
    );
    assert_eq!(sim.pending_replies(), 0);
}

#[tokio::test]
async fn the_prefix_cache_saves_time_and_the_count_is_the_whole_prompt() {
    // Ollama reports the whole prompt in `prompt_eval_count` (cached
    // prefix included); the cache shows in `prompt_eval_duration`. 2 ms
    // per evaluated token makes that visible.
    let model = ModelSpec::new("llama3.2:3b")
        .with_capabilities(&["completion", "tools"])
        .with_prompt_us_per_token(2_000);
    let sim = Sim::start(Script::with_models(vec![model])).await.unwrap();
    let ms = |d: &serde_json::Value| d["prompt_eval_duration"].as_u64().unwrap() / 1_000_000;
    let count = |d: &serde_json::Value| d["prompt_eval_count"].as_u64().unwrap();
    let sys =
        json!({"role": "system", "content": "You are a helpful assistant who answers briefly."});
    let first =
        json!({"model": "llama3.2:3b", "messages": [sys, {"role": "user", "content": "hello"}]});
    let done1 = done_line(&chat(&sim, first).await);
    let whole = count(&done1);
    assert!(whole > 8, "{done1}");
    assert!(ms(&done1) >= whole * 2, "every token evaluated: {done1}");

    // The history echoed back exactly: only the new turn is evaluated, but
    // the count is the whole, longer prompt.
    let second = json!({"model": "llama3.2:3b", "messages": [
        sys,
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "You said: hello"},
        {"role": "user", "content": "and again"},
    ]});
    let done2 = done_line(&chat(&sim, second.clone()).await);
    assert!(count(&done2) > whole, "the whole prompt: {done2}");
    // Under half the cost of evaluating it all (2 ms a token).
    assert!(
        ms(&done2) < count(&done2),
        "the cached prefix costs nothing: {done2}"
    );

    // The same prompt again: fully cached, one token re-evaluated.
    let again =
        json!({"model": "llama3.2:3b", "messages": second["messages"].as_array().unwrap()[..3]});
    done_line(&chat(&sim, again.clone()).await);
    let done4 = done_line(&chat(&sim, again.clone()).await);
    assert!(count(&done4) > whole, "{done4}");
    assert!(
        ms(&done4) < count(&done4),
        "one token re-evaluated: {done4}"
    );

    // A different tool list changes the start of the prompt: all of it again.
    let tools = json!([{"type": "function", "function": {"name": "t"}}]);
    let done5 = done_line(&chat(&sim, with(again, json!({"tools": tools}))).await);
    assert!(count(&done5) > whole, "{done5}");
    assert!(ms(&done5) >= count(&done5) * 2, "nothing cached: {done5}");
    assert_eq!(sim.stats().loads, 1);
}

#[tokio::test]
async fn prompt_eval_cost_follows_uncached_tokens() {
    let model = ModelSpec::new("slow:1b").with_prompt_us_per_token(20_000);
    let sim = Sim::start(Script::with_models(vec![model])).await.unwrap();
    let long = "word ".repeat(20);
    let done = done_line(&chat(&sim, ask("slow:1b", &long)).await);
    let count = done["prompt_eval_count"].as_u64().unwrap();
    assert!(count >= 20);
    assert!(done["prompt_eval_duration"].as_u64().unwrap() >= count * 20_000_000);
}

#[tokio::test]
async fn context_overflow_truncates_or_fails() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let history: Vec<_> = (0..30)
        .map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": format!("message number {i} with some words")}))
        .chain([json!({"role": "user", "content": "the last question"})])
        .collect();
    let mut messages = vec![json!({"role": "system", "content": "system prompt"})];
    messages.extend(history);
    let body = json!({"model": "llama3.2:3b", "messages": messages, "options": {"num_ctx": 64}});
    let resp = chat(&sim, body.clone()).await;
    assert_eq!(resp.status, 200);
    let done = done_line(&resp);
    assert!(done["prompt_eval_count"].as_u64().unwrap() <= 64, "{done}");
    assert_eq!(resp.content(), "You said: the last question");
    assert_eq!(sim.stats().truncated_prompts, 1);

    let resp = chat(&sim, with(body, json!({"truncate": false}))).await;
    assert_eq!(resp.status, 400);
    assert_eq!(
        resp.json(),
        json!({"error": "the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length"})
    );
    assert_eq!(sim.stats().truncated_prompts, 1);
}

#[tokio::test]
async fn keeps_the_connection_alive_between_requests() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &ask("gemma3:1b", "one")).await;
    assert_eq!(c.response().await.content(), "You said: one");
    c.send(
        "POST",
        "/api/chat",
        &with(ask("gemma3:1b", "two"), json!({"stream": false})),
    )
    .await;
    assert_eq!(
        c.response().await.json()["message"]["content"],
        "You said: two"
    );
    c.send_raw("GET", "/api/version", None, "Connection: close\r\n")
        .await;
    let resp = c.response().await;
    assert_eq!(resp.header("connection"), Some("close"));
    assert!(c.closed().await);
    let bodies = sim.chat_bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[1]["messages"][0]["content"], "two");
}

/// `POST /sim/tokens` on a connection of its own.
async fn tokens(sim: &hearth_sim::SimHandle, body: serde_json::Value) {
    let mut c = Raw::connect(sim).await;
    c.send("POST", "/sim/tokens", &body).await;
    assert_eq!(c.response().await.status, 200);
}

#[tokio::test]
async fn a_token_budget_lets_a_streamed_reply_out_step_by_step() {
    let script = Script::default().with_reply(Reply::text("one two three four five"));
    let sim = Sim::start(script).await.unwrap();
    tokens(&sim, json!({"budget": 0})).await;
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &ask("llama3.2:3b", "count"))
        .await;
    sim.wait_until(|s| s.prompt_evals == 1, T).await.unwrap();
    // Held at the budget: nothing of the answer comes.
    assert!(
        sim.wait_until(|s| s.chunks_sent > 0, Duration::from_millis(150))
            .await
            .is_err()
    );
    tokens(&sim, json!({"allow": 2})).await;
    sim.wait_until(|s| s.chunks_sent == 2, T).await.unwrap();
    assert!(
        sim.wait_until(|s| s.chunks_sent > 2, Duration::from_millis(150))
            .await
            .is_err(),
        "no more than allowed"
    );
    tokens(&sim, json!({"budget": null})).await;
    let resp = c.response().await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.content(), "one two three four five");
    // A body that says neither is refused.
    let mut bad = Raw::connect(&sim).await;
    bad.send("POST", "/sim/tokens", &json!({"more": 1})).await;
    assert_eq!(bad.response().await.status, 400);
}
