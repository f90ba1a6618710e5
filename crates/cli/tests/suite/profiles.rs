//! Profiles from the CLI: seeded defaults, editing with validation, and a
//! switch in the middle of a tool loop that applies at the next model call.

use hearth_sim::{ModelSpec, Reply, Script, ToolCallSpec};
use serde_json::json;

use super::basics::{hearth, ok, output, sim, turn_bodies};
use crate::MODEL;

fn db() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    (dir, path)
}

#[tokio::test]
async fn seeded_profiles_can_be_edited_and_are_validated() {
    let (_dir, db) = db();
    let list = ok(&["profiles", "--db", &db]).await;
    assert!(
        list.contains("Chat (default)") && list.contains("no tools"),
        "{list}"
    );
    assert!(
        list.contains("Agent") && list.contains("all tools") && list.contains("planning=on"),
        "{list}"
    );
    ok(&[
        "profiles",
        "--db",
        &db,
        "set",
        "Writer",
        "--model",
        "qwen3:8b",
        "--tools",
        "current_time",
        "--temperature",
        "0.7",
    ])
    .await;
    let show = ok(&["profiles", "--db", &db, "show", "Writer"]).await;
    let v: serde_json::Value = serde_json::from_str(&show).unwrap();
    assert_eq!(
        (
            v["model"].clone(),
            v["tools"].clone(),
            v["temperature"].clone()
        ),
        (json!("qwen3:8b"), json!(["current_time"]), json!(0.7))
    );
    let bad = output(hearth(&[
        "profiles",
        "--db",
        &db,
        "set",
        "Writer",
        "--temperature",
        "9",
    ]))
    .await;
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("temperature must be between 0 and 2"));
    ok(&["profiles", "--db", &db, "default", "Writer"]).await;
    ok(&["profiles", "--db", &db, "delete", "Writer"]).await;
    let list = ok(&["profiles", "--db", &db]).await;
    assert!(
        !list.contains("Writer") && list.contains("(default)"),
        "a new default was chosen: {list}"
    );
    ok(&[
        "profiles",
        "--db",
        &db,
        "persona",
        "You are talking to Sam.",
    ])
    .await;
    assert_eq!(
        ok(&["profiles", "--db", &db, "persona"]).await.trim(),
        "You are talking to Sam."
    );
}

#[tokio::test]
async fn a_switch_mid_tool_loop_applies_at_the_next_model_call() {
    let (_dir, db) = db();
    let sim = sim(Script::default()
        .with_model(ModelSpec::new("coder:7b").with_capabilities(&["tools"]))
        .with_reply(
            Reply::tool_calls(vec![ToolCallSpec::new(
                "switch_profile",
                json!({"name": "Coder"}),
            )])
            .for_model(MODEL),
        )
        .with_reply(Reply::text("Coding now.").for_model("coder:7b"))
        // The post-turn worker: the title (memory asks nothing, as "switch
        // to coder" says nothing of the user).
        .with_reply(Reply::text("Coder session").for_model("coder:7b"))
        .with_reply(Reply::text("Still coding.").for_model("coder:7b")))
    .await;
    let url = sim.url();
    // Planning off: this test is about the switch (planning has its own).
    ok(&[
        "profiles",
        "--db",
        &db,
        "set",
        "Agent",
        "--model",
        MODEL,
        "--planning",
        "off",
    ])
    .await;
    ok(&[
        "profiles",
        "--db",
        &db,
        "set",
        "Coder",
        "--model",
        "coder:7b",
        "--prompt",
        "You write code.",
        "--tools",
        "none",
    ])
    .await;
    ok(&["profiles", "--db", &db, "persona", "P"]).await;
    let answer = ok(&[
        "chat",
        "--db",
        &db,
        "--url",
        &url,
        "--profile",
        "Agent",
        "--session",
        "s",
        "switch to coder",
    ])
    .await;
    assert_eq!(answer.trim(), "Coding now.");

    let bodies = turn_bodies(&sim);
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["model"], MODEL);
    let tools: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"switch_profile"), "{tools:?}");
    assert_eq!(bodies[1]["model"], "coder:7b");
    assert!(
        bodies[1].get("tools").is_none(),
        "the Coder profile offers no tools"
    );
    assert_eq!(
        bodies[1]["messages"][0]["content"],
        "P\n\n---\n\nYou write code."
    );
    // The switch is stored: the session goes on with Coder.
    let again = ok(&["chat", "--db", &db, "--url", &url, "--session", "s", "more"]).await;
    assert_eq!(again.trim(), "Still coding.");
    assert_eq!(turn_bodies(&sim).last().unwrap()["model"], "coder:7b");
}

#[tokio::test]
async fn the_first_chat_moves_the_seeded_profiles_to_a_model_the_server_has_once() {
    // A new user's server: no `llama3.2`, one tool-capable model and one
    // without tools, newer.
    let sim = hearth_sim::Sim::start(
        Script::with_models(vec![
            ModelSpec::new("qwen2.5:7b").with_capabilities(&["completion", "tools"]),
            ModelSpec::new("gemma3:1b").with_capabilities(&["completion"]),
        ])
        .with_reply(Reply::text("Hello!")),
    )
    .await
    .unwrap();
    let (_dir, db) = db();
    let url = sim.url();
    let out = output(hearth(&["chat", "--db", &db, "--url", &url, "hi"])).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the profiles Agent, Chat now use qwen2.5:7b"),
        "{stderr}"
    );
    assert_eq!(turn_bodies(&sim)[0]["model"], "qwen2.5:7b");
    let list = ok(&["profiles", "--db", &db]).await;
    assert!(!list.contains(hearth_store::SEED_MODEL), "{list}");

    // Said once: a model chosen afterwards stays.
    ok(&[
        "profiles",
        "--db",
        &db,
        "set",
        "Chat",
        "--model",
        "gemma3:1b",
    ])
    .await;
    let again = output(hearth(&["chat", "--db", &db, "--url", &url, "hi"])).await;
    assert!(again.status.success());
    assert!(!String::from_utf8_lossy(&again.stderr).contains("now use"));
    assert_eq!(turn_bodies(&sim).last().unwrap()["model"], "gemma3:1b");
}

#[tokio::test]
async fn think_is_set_as_a_switch_or_a_level_and_a_bad_value_is_refused() {
    let (_dir, db) = db();
    ok(&[
        "profiles", "--db", &db, "set", "Deep", "--model", MODEL, "--think", "high",
    ])
    .await;
    let show = ok(&["profiles", "--db", &db, "show", "Deep"]).await;
    let v: serde_json::Value = serde_json::from_str(&show).unwrap();
    assert_eq!(v["think"], json!("high"));
    ok(&["profiles", "--db", &db, "set", "Deep", "--think", "off"]).await;
    let v: serde_json::Value =
        serde_json::from_str(&ok(&["profiles", "--db", &db, "show", "Deep"]).await).unwrap();
    assert_eq!(v["think"], json!(false));
    let bad = output(hearth(&[
        "profiles", "--db", &db, "set", "Deep", "--think", "loud",
    ]))
    .await;
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("--think takes default, on, off, low, medium or high")
    );
}
