//! docs/design.md §4: every request to one model carries the same keep_alive,
//! num_ctx and shift; keep_alive 0 is sent only by the explicit unload.

use std::sync::Arc;

use hearth_core::{
    Agent, KeepAlive, LoadOptions, ModelBackend, ModelSettings, Profile, StaticProfiles,
    tools::builtin_registry,
};
use hearth_ollama::OllamaBackend;
use hearth_sim::{Reply, Script, ToolCallSpec};
use serde_json::json;

use crate::support::{MODEL, client, model, sim};

#[tokio::test]
async fn every_request_to_a_model_carries_the_same_load_options() {
    let sim = sim(
        Script::with_models(vec![model(), hearth_sim::ModelSpec::new("other:1b")])
            .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
                "calculator",
                json!({"expression": "2+2"}),
            )]))
            .with_reply(Reply::text("four")),
    )
    .await;
    let settings = Arc::new(ModelSettings::default());
    let custom = LoadOptions {
        num_ctx: 16384,
        keep_alive: KeepAlive::FOREVER,
        shift: false,
    };
    settings.set(MODEL, custom);
    let mut chat = Profile::new("Chat", MODEL);
    chat.temperature = Some(0.2);
    let profiles = Arc::new(StaticProfiles::single("", chat));
    let mut other = Profile::new("Other", MODEL);
    other.temperature = Some(0.9);
    other.think = None;
    profiles.upsert(other);
    let backend = Arc::new(OllamaBackend::new(client(&sim)));
    let agent = Agent::builder(backend.clone(), profiles.clone())
        .tools(builtin_registry())
        .settings(settings.clone())
        .build();
    agent.run("s", "2+2?", Default::default()).await.unwrap();
    // Another profile on the same model: different sampling, same load options.
    profiles.switch("Other");
    agent
        .run("s", "and again", Default::default())
        .await
        .unwrap();

    let bodies: Vec<_> = sim
        .chat_bodies()
        .into_iter()
        .filter(|b| b["model"] == MODEL)
        .collect();
    assert!(
        bodies.len() >= 4,
        "preload + 2 calls + 1 call: {}",
        bodies.len()
    );
    for b in &bodies {
        assert_eq!(b["keep_alive"], json!(-1), "{b}");
        assert_eq!(b["options"]["num_ctx"], json!(16384), "{b}");
        assert_eq!(b["shift"], json!(false), "{b}");
    }
    let temps: Vec<_> = bodies
        .iter()
        .map(|b| b["options"]["temperature"].clone())
        .collect();
    assert!(
        temps.contains(&json!(0.2)) && temps.contains(&json!(0.9)),
        "{temps:?}"
    );
    assert_eq!(sim.stats().loads, 1);
    assert_eq!(sim.stats().unloads, 0);

    // The explicit unload is the only request with keep_alive 0.
    backend.unload(MODEL).await.unwrap();
    let zero: Vec<_> = sim
        .chat_bodies()
        .into_iter()
        .filter(|b| b["keep_alive"] == json!(0))
        .collect();
    assert_eq!(zero.len(), 1);
    assert_eq!(sim.chat_bodies().last().unwrap()["keep_alive"], json!(0));
    let stats = sim
        .wait_until(|s| s.unloads == 1, std::time::Duration::from_secs(2))
        .await
        .unwrap();
    assert!(stats.loaded.is_empty());
}

#[tokio::test]
async fn changing_a_models_settings_reloads_it_once() {
    let sim = sim(Script::with_models(vec![model()])).await;
    let settings = Arc::new(ModelSettings::default());
    let profiles = Arc::new(StaticProfiles::single("", Profile::new("P", MODEL)));
    let agent = Agent::builder(Arc::new(OllamaBackend::new(client(&sim))), profiles)
        .settings(settings.clone())
        .build();
    agent.run("s", "one", Default::default()).await.unwrap();
    agent.run("s", "two", Default::default()).await.unwrap();
    assert_eq!((sim.stats().loads, sim.stats().unloads), (1, 0));
    settings.set(
        MODEL,
        LoadOptions {
            num_ctx: 2048,
            ..LoadOptions::default()
        },
    );
    agent.run("s", "three", Default::default()).await.unwrap();
    assert_eq!(
        (sim.stats().loads, sim.stats().unloads),
        (2, 1),
        "one deliberate reload"
    );
}

#[tokio::test]
async fn think_goes_as_a_level_where_the_profile_sets_one_and_off_is_sent_explicitly() {
    use hearth_core::{Think, ThinkLevel};
    let thinker = model().with_capabilities(&["completion", "tools", "thinking"]);
    let sim = sim(Script::with_models(vec![thinker])
        .with_reply(Reply::text("deep"))
        .with_reply(Reply::text("quick"))
        .with_reply(Reply::text("default")))
    .await;
    let mut chat = Profile::new("Chat", MODEL);
    chat.tools = Some(Vec::new());
    chat.think = Some(Think::Level(ThinkLevel::High));
    let profiles = Arc::new(StaticProfiles::single("", chat.clone()));
    let backend = Arc::new(OllamaBackend::new(client(&sim)));
    let agent = Agent::builder(backend, profiles.clone()).build();
    agent
        .run("s", "think hard", Default::default())
        .await
        .unwrap();
    chat.think = Some(Think::OFF);
    profiles.upsert(chat.clone());
    agent.run("s", "quickly", Default::default()).await.unwrap();
    chat.think = None;
    profiles.upsert(chat);
    agent
        .run("s", "as you like", Default::default())
        .await
        .unwrap();

    let sent: Vec<_> = sim
        .chat_bodies()
        .into_iter()
        .filter(|b| b["messages"].as_array().is_some_and(|m| !m.is_empty()))
        .map(|b| b.get("think").cloned())
        .collect();
    // A thinking model thinks when the field is absent: "off" must be sent.
    assert_eq!(sent, [Some(json!("high")), Some(json!(false)), None]);
}
