//! Model management endpoints, pull progress, and the `/sim/*` control
//! endpoints.

use hearth_sim::{ModelSpec, Reply, Script, Sim, Stats};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::support::{Raw, ask, chat, request};

#[tokio::test]
async fn version_tags_and_show() {
    let script = Script::default().with_model(ModelSpec::new("later:7b").with_installed(false));
    let sim = Sim::start(script).await.unwrap();
    let v = request(&sim, "GET", "/api/version", &json!(null))
        .await
        .json();
    assert_eq!(v, json!({"version": hearth_sim::OLLAMA_VERSION}));
    let root = request(&sim, "GET", "/", &json!(null)).await;
    assert_eq!(root.text(), "Ollama is running");

    let tags = request(&sim, "GET", "/api/tags", &json!(null)).await.json();
    let names: Vec<&str> = tags["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["llama3.2:3b", "qwen3:8b", "gemma3:1b"]);
    let first = &tags["models"][0];
    assert_eq!(first["digest"].as_str().unwrap().len(), 64);
    assert_eq!(first["details"]["family"], "llama");
    assert_eq!(first["capabilities"], json!(["completion", "tools"]));
    assert_eq!(first["details"]["context_length"], 131_072);

    let show = request(&sim, "POST", "/api/show", &json!({"model": "qwen3:8b"}))
        .await
        .json();
    assert_eq!(
        show["capabilities"],
        json!(["completion", "tools", "thinking"])
    );
    assert_eq!(show["model_info"]["qwen3.context_length"], 40960);
    assert_eq!(show["model_info"]["general.architecture"], "qwen3");
    assert_eq!(show["details"]["parameter_size"], "8.2B");
    let missing = request(&sim, "POST", "/api/show", &json!({"name": "later:7b"})).await;
    assert_eq!(missing.status, 404);
    assert_eq!(
        missing.json(),
        json!({"error": "model 'later:7b' not found"})
    );
}

#[tokio::test]
async fn legacy_tags_leave_capabilities_and_context_to_show() {
    let sim = Sim::start(Script::default().with_legacy_tags())
        .await
        .unwrap();
    let tags = request(&sim, "GET", "/api/tags", &json!(null)).await.json();
    let first = &tags["models"][0];
    assert_eq!(first["name"], "llama3.2:3b");
    assert_eq!(first.get("capabilities"), None);
    assert_eq!(first["details"].get("context_length"), None);
    let show = request(&sim, "POST", "/api/show", &json!({"model": "llama3.2:3b"}))
        .await
        .json();
    assert_eq!(show["capabilities"], json!(["completion", "tools"]));
}

#[tokio::test]
async fn a_name_without_a_tag_finds_latest() {
    let sim = Sim::start(Script::with_models(vec![ModelSpec::new("mistral:latest")]))
        .await
        .unwrap();
    assert_eq!(chat(&sim, ask("mistral", "hi")).await.status, 200);
    assert_eq!(sim.stats().loaded, ["mistral:latest"]);
}

#[tokio::test]
async fn ps_lists_loaded_runners() {
    let model = ModelSpec::new("split:13b")
        .with_size(10_000)
        .with_size_vram(6_000)
        .with_context_length(2048);
    let sim = Sim::start(Script::with_models(vec![model])).await.unwrap();
    assert_eq!(
        request(&sim, "GET", "/api/ps", &json!(null)).await.json(),
        json!({"models": []})
    );
    chat(
        &sim,
        json!({"model": "split:13b", "messages": [], "options": {"num_ctx": 8192}}),
    )
    .await;
    let ps = request(&sim, "GET", "/api/ps", &json!(null)).await.json();
    let m = &ps["models"][0];
    assert_eq!(
        (m["size"].clone(), m["size_vram"].clone()),
        (json!(10_000), json!(6_000))
    );
    // num_ctx is capped at the trained context length.
    assert_eq!(m["context_length"], 2048);
    let expires = chrono::DateTime::parse_from_rfc3339(m["expires_at"].as_str().unwrap()).unwrap();
    let left = expires
        .signed_duration_since(chrono::Utc::now())
        .num_seconds();
    assert!(
        (280..=300).contains(&left),
        "default keep_alive 5m, got {left}s"
    );
}

#[tokio::test]
async fn pull_streams_progress_and_installs() {
    let script = Script::default().with_model(
        ModelSpec::new("later:7b")
            .with_installed(false)
            .with_size(1000),
    );
    let sim = Sim::start(script).await.unwrap();
    let resp = request(&sim, "POST", "/api/pull", &json!({"model": "later:7b"})).await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("application/x-ndjson"));
    let lines = resp.lines();
    let statuses: Vec<&str> = lines
        .iter()
        .map(|l| l["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses[0], "pulling manifest");
    assert_eq!(
        &statuses[statuses.len() - 3..],
        ["verifying sha256 digest", "writing manifest", "success"]
    );
    let progress: Vec<&Value> = lines.iter().filter(|l| l.get("digest").is_some()).collect();
    assert!(progress.len() >= 3);
    assert!(
        progress[0]["status"]
            .as_str()
            .unwrap()
            .starts_with("pulling ")
    );
    assert!(
        progress[0]["digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert!(progress.iter().all(|p| p["total"] == 1000));
    let completed: Vec<u64> = progress
        .iter()
        .map(|p| p["completed"].as_u64().unwrap_or(0))
        .collect();
    assert!(completed.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(*completed.last().unwrap(), 1000);
    // Installed now: listed and usable.
    let tags = request(&sim, "GET", "/api/tags", &json!(null)).await.json();
    assert!(
        tags["models"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "later:7b")
    );
    assert_eq!(chat(&sim, ask("later:7b", "hi")).await.status, 200);
}

#[tokio::test]
async fn pulling_an_unknown_model_fails_in_band() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let resp = request(&sim, "POST", "/api/pull", &json!({"model": "nope:1b"})).await;
    assert_eq!(resp.status, 200);
    assert!(resp.complete);
    let lines = resp.lines();
    assert_eq!(
        lines.last().unwrap(),
        &json!({"error": "pull model manifest: file does not exist"})
    );
    let resp = request(
        &sim,
        "POST",
        "/api/pull",
        &json!({"model": "nope:1b", "stream": false}),
    )
    .await;
    assert_eq!(resp.status, 500);
}

#[tokio::test]
async fn control_endpoints() {
    let sim = Sim::start(Script::default()).await.unwrap();
    chat(&sim, ask("gemma3:1b", "hi")).await;
    let stats: Stats = serde_json::from_value(
        request(&sim, "GET", "/sim/stats", &json!(null))
            .await
            .json(),
    )
    .unwrap();
    assert_eq!(stats, sim.stats());
    assert_eq!(
        (stats.requests, stats.chat_requests, stats.loads),
        (1, 1, 1)
    );

    let recorded = request(&sim, "GET", "/sim/requests", &json!(null))
        .await
        .json();
    assert_eq!(
        recorded,
        json!([{"method": "POST", "path": "/api/chat", "body": ask("gemma3:1b", "hi")}])
    );
    assert_eq!(sim.requests().len(), 1, "/sim/* is not recorded");

    let script = json!({"models": [{"name": "only:1b"}], "replies": [{"content": "scripted"}]});
    assert_eq!(
        request(&sim, "POST", "/sim/script", &script).await.status,
        200
    );
    assert_eq!(chat(&sim, ask("only:1b", "x")).await.content(), "scripted");
    assert_eq!(chat(&sim, ask("gemma3:1b", "x")).await.status, 404);
    let bad = request(
        &sim,
        "POST",
        "/sim/script",
        &json!({"replies": [{"fault": "boom"}]}),
    )
    .await;
    assert_eq!(bad.status, 400);
    assert!(
        bad.json()["error"]
            .as_str()
            .unwrap()
            .contains("invalid fault")
    );

    let reply = serde_json::to_value(Reply::text("pushed")).unwrap();
    assert_eq!(
        request(&sim, "POST", "/sim/reply", &reply).await.status,
        200
    );
    assert_eq!(chat(&sim, ask("only:1b", "x")).await.content(), "pushed");

    assert_eq!(
        request(&sim, "POST", "/sim/reset", &json!(null))
            .await
            .status,
        200
    );
    let stats = sim.stats();
    assert_eq!((stats.requests, stats.loads), (0, 0));
    assert_eq!(
        stats.loaded,
        ["gemma3:1b", "only:1b"],
        "reset keeps runners"
    );
    assert!(sim.requests().is_empty());
}

#[tokio::test]
async fn push_reply_and_set_script_from_the_handle() {
    let sim = Sim::start(Script::default()).await.unwrap();
    sim.push_reply(Reply::text("one"));
    assert_eq!(chat(&sim, ask("gemma3:1b", "x")).await.content(), "one");
    sim.set_script(
        Script::with_models(vec![ModelSpec::new("z:1b")]).with_reply(Reply::text("zed")),
    );
    assert_eq!(chat(&sim, ask("z:1b", "x")).await.content(), "zed");
}

#[tokio::test]
async fn dropping_the_handle_stops_the_server() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let addr = sim.addr();
    let mut open = Raw::connect(&sim).await;
    drop(sim);
    assert!(open.closed().await, "open connections end too");
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn head_requests_get_no_body() {
    let sim = Sim::start(Script::default()).await.unwrap();
    let mut c = Raw::connect(&sim).await;
    c.send_raw("HEAD", "/", None, "").await;
    let head = c.read_until(b"\r\n\r\n").await;
    let text = String::from_utf8(head).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    assert!(text.contains("Content-Length: 17\r\n"), "{text}");
    // No body: the next bytes on the connection are the next response.
    c.send("GET", "/api/version", &json!(null)).await;
    let next = c.response().await;
    assert_eq!(next.status, 200);
    assert_eq!(next.json()["version"], hearth_sim::OLLAMA_VERSION);
}
