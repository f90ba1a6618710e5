//! The runner table: loads, reloads, unloads, expiry, disconnects at each
//! stage, and per-model FIFO queueing.

use std::time::Duration;

use hearth_sim::{Hold, ModelSpec, Reply, Script, Sim};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::support::{Raw, T, ask, chat, request, with};

fn load(model: &str) -> Value {
    json!({"model": model, "messages": []})
}

#[tokio::test]
async fn load_and_unload_requests() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let resp = chat(&sim, load("llama3.2:3b")).await;
    assert_eq!(resp.status, 200);
    assert!(resp.header("content-length").is_some());
    let v = resp.json();
    assert_eq!(v["message"], json!({"role": "assistant", "content": ""}));
    assert_eq!(
        (v["done_reason"].clone(), v["done"].clone()),
        (json!("load"), json!(true))
    );
    assert_eq!(v["model"], "llama3.2:3b");
    assert_eq!(sim.stats().loaded, ["llama3.2:3b"]);

    let resp = chat(&sim, with(load("llama3.2:3b"), json!({"keep_alive": 0}))).await;
    assert_eq!(resp.json()["done_reason"], "unload");
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.unloads), (1, 1));
    assert!(stats.loaded.is_empty());

    // Unloading a model that is not loaded loads nothing.
    let resp = chat(&sim, with(load("gemma3:1b"), json!({"keep_alive": "0s"}))).await;
    assert_eq!(resp.json()["done_reason"], "unload");
    assert_eq!(sim.stats().loads, 1);
}

#[tokio::test]
async fn keep_alive_zero_on_a_chat_unloads_after_answering() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let resp = chat(&sim, with(ask("gemma3:1b", "hi"), json!({"keep_alive": 0}))).await;
    assert_eq!(resp.content(), "You said: hi");
    let stats = sim.wait_until(|s| s.unloads == 1, T).await.unwrap();
    assert!(stats.loaded.is_empty());
}

#[tokio::test]
async fn keep_alive_expires_and_omitted_keeps_the_runners_value() {
    let sim = Sim::start(Script::default()).await.unwrap();
    chat(
        &sim,
        with(load("gemma3:1b"), json!({"keep_alive": "300ms"})),
    )
    .await;
    // No keep_alive: the runner keeps its 300ms (Ollama's useLoadedRunner).
    chat(&sim, ask("gemma3:1b", "hi")).await;
    assert_eq!(sim.stats().loaded, ["gemma3:1b"]);
    let ps = request(&sim, "GET", "/api/ps", &json!(null)).await.json();
    assert_eq!(ps["models"][0]["name"], "gemma3:1b");
    let stats = sim.wait_until(|s| s.loaded.is_empty(), T).await.unwrap();
    assert_eq!(stats.unloads, 1);
    // Forever does not expire.
    chat(&sim, with(load("gemma3:1b"), json!({"keep_alive": -1}))).await;
    assert!(
        sim.wait_until(|s| s.loaded.is_empty(), Duration::from_millis(400))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn disconnect_during_prompt_eval_cancels_and_keeps_the_model() {
    let script = Script::default().with_reply(Reply::text("never").with_prompt_eval_ms(5_000));
    let sim = Sim::start(script).await.unwrap();
    chat(&sim, load("llama3.2:3b")).await;
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &ask("llama3.2:3b", "hi")).await;
    sim.wait_until(|s| s.prompt_evals == 1, T).await.unwrap();
    c.close();
    let stats = sim.wait_until(|s| s.cancelled == 1, T).await.unwrap();
    assert_eq!((stats.loads, stats.unloads, stats.aborted_loads), (1, 0, 0));
    assert_eq!(stats.loaded, ["llama3.2:3b"]);
    // The next request is served by the loaded model at once.
    assert_eq!(
        chat(&sim, ask("llama3.2:3b", "again")).await.content(),
        "You said: again"
    );
    assert_eq!(sim.stats().loads, 1);
}

#[tokio::test]
async fn disconnect_during_load_aborts_the_load() {
    let model = ModelSpec::new("big:70b").with_load_ms(5_000);
    let sim = Sim::start(Script::with_models(vec![model])).await.unwrap();
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &ask("big:70b", "hi")).await;
    sim.wait_until(|s| s.loads_started == 1, T).await.unwrap();
    c.close();
    let stats = sim.wait_until(|s| s.aborted_loads == 1, T).await.unwrap();
    assert_eq!((stats.loads, stats.cancelled), (0, 0));
    assert!(stats.loaded.is_empty());
}

#[tokio::test]
async fn a_held_load_ends_on_release_and_a_client_that_leaves_aborts_it() {
    let sim = Sim::start(Script::default()).await.unwrap();
    sim.hold(Hold::Load);
    // Held: the client leaves during the load, which aborts it.
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &load("llama3.2:3b")).await;
    sim.wait_until(|s| s.loads_started == 1, T).await.unwrap();
    c.close();
    let stats = sim.wait_until(|s| s.aborted_loads == 1, T).await.unwrap();
    assert_eq!(stats.loads, 0);
    // Held, then released: the load completes and the request is answered.
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &load("llama3.2:3b")).await;
    let stats = sim.wait_until(|s| s.loads_started == 2, T).await.unwrap();
    assert_eq!((stats.loads, stats.loaded.len()), (0, 0), "still loading");
    sim.release(Hold::Load);
    assert_eq!(c.response().await.json()["done_reason"], "load");
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.aborted_loads), (1, 1));
    assert_eq!(stats.loaded, ["llama3.2:3b"]);
}

#[tokio::test]
async fn a_held_prompt_evaluation_writes_nothing_until_released() {
    let script = Script::default().with_reply(Reply::text("one two three"));
    let sim = Sim::start(script).await.unwrap();
    sim.hold(Hold::PromptEval);
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &ask("llama3.2:3b", "hi")).await;
    let stats = sim.wait_until(|s| s.prompt_evals == 1, T).await.unwrap();
    assert_eq!((stats.loads, stats.chunks_sent), (1, 0));
    sim.release(Hold::PromptEval);
    let resp = c.response().await;
    assert_eq!(resp.content(), "one two three");
    // Three token lines and the done line, one chunk each.
    assert_eq!(sim.stats().chunks_sent, 4);
}

#[tokio::test]
async fn changed_load_options_reload_and_same_options_do_not() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let opts = |o: Value| with(ask("llama3.2:3b", "hi"), json!({ "options": o }));
    chat(&sim, opts(json!({"num_ctx": 8192, "temperature": 0.3}))).await;
    // Same load-time options (other options do not matter; 8192.0 == 8192).
    chat(&sim, opts(json!({"num_ctx": 8192.0, "temperature": 0.9}))).await;
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.unloads), (1, 0));
    // num_ctx absent means 4096: a reload, as in Ollama.
    chat(&sim, ask("llama3.2:3b", "hi")).await;
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.unloads), (2, 1));
    chat(&sim, opts(json!({"num_ctx": 4096, "num_gpu": 10}))).await;
    assert_eq!(sim.stats().loads, 3);
    chat(
        &sim,
        opts(json!({"num_ctx": 4096, "num_gpu": 10, "use_mmap": false})),
    )
    .await;
    assert_eq!(sim.stats().loads, 4);
    let ps = request(&sim, "GET", "/api/ps", &json!(null)).await.json();
    assert_eq!(ps["models"][0]["context_length"], 4096);
}

#[tokio::test]
async fn requests_to_one_model_are_served_one_at_a_time_in_order() {
    let script = Script::default()
        .with_reply(Reply::text("first"))
        .with_reply(Reply::text("second"))
        .with_reply(Reply::text("third"));
    let sim = Sim::start(script).await.unwrap();
    // The first request stays in its evaluation until released.
    sim.hold(Hold::PromptEval);
    let mut clients = Vec::new();
    for i in 0..3u64 {
        let mut c = Raw::connect(&sim).await;
        c.send("POST", "/api/chat", &ask("llama3.2:3b", "q")).await;
        sim.wait_until(|s| s.chat_requests == i + 1, T)
            .await
            .unwrap();
        clients.push(c);
    }
    // While the first is evaluating, the others have received nothing and
    // wait in the queue (only one evaluation began).
    sim.wait_until(|s| s.prompt_evals == 1, T).await.unwrap();
    assert_eq!(clients[2].read_for(Duration::from_millis(50)).await, b"");
    assert_eq!(sim.stats().prompt_evals, 1);
    sim.release(Hold::PromptEval);
    let mut answers = Vec::new();
    for c in &mut clients {
        answers.push(c.response().await.content());
    }
    assert_eq!(answers, ["first", "second", "third"]);
}

#[tokio::test]
async fn a_client_leaving_the_queue_just_leaves() {
    let script = Script::default()
        .with_reply(Reply::text("first"))
        .with_reply(Reply::text("second"));
    let sim = Sim::start(script).await.unwrap();
    // `a` stays in its evaluation until released, so `b` is queued.
    sim.hold(Hold::PromptEval);
    let mut a = Raw::connect(&sim).await;
    a.send("POST", "/api/chat", &ask("llama3.2:3b", "q")).await;
    sim.wait_until(|s| s.prompt_evals == 1, T).await.unwrap();
    let mut b = Raw::connect(&sim).await;
    b.send("POST", "/api/chat", &ask("llama3.2:3b", "q")).await;
    sim.wait_until(|s| s.chat_requests == 2, T).await.unwrap();
    b.close();
    sim.wait_until(|s| s.left_queue == 1, T).await.unwrap();
    sim.release(Hold::PromptEval);
    assert_eq!(a.response().await.content(), "first");
    // The queued client took no reply and cancelled nothing.
    assert_eq!(
        chat(&sim, ask("llama3.2:3b", "q")).await.content(),
        "second"
    );
    let stats = sim.stats();
    assert_eq!((stats.cancelled, stats.loads), (0, 1));
}

#[tokio::test]
async fn different_models_do_not_queue_behind_each_other() {
    let script = Script::default().with_reply(
        Reply::text("slow")
            .for_model("qwen3:8b")
            // Longer than any test: queued behind it, `fast` would hang.
            .with_prompt_eval_ms(600_000),
    );
    let sim = Sim::start(script).await.unwrap();
    let mut slow = Raw::connect(&sim).await;
    slow.send("POST", "/api/chat", &ask("qwen3:8b", "q")).await;
    sim.wait_until(|s| s.prompt_evals == 1, T).await.unwrap();
    let fast = tokio::time::timeout(T, chat(&sim, ask("gemma3:1b", "q"))).await;
    assert_eq!(
        fast.expect("not queued behind the other model").content(),
        "You said: q"
    );
    slow.close();
    sim.wait_until(|s| s.cancelled == 1, T).await.unwrap();
}
