//! The context window against hearth-sim, which counts a token per word
//! and refuses a prompt over `num_ctx` when asked not to truncate: a long
//! message is shortened with a note, an overflow the estimate missed is
//! summarized away, one that cannot be is a clear error — and the stored
//! conversation is always whole.

use std::sync::Arc;

use hearth_core::{
    Agent, ChatMessage, LoadOptions, MessageStatus, Profile, StaticProfiles, ToolRegistry,
    tools::builtin_registry,
};
use hearth_ollama::{ClientOptions, OllamaBackend};
use hearth_protocol::{ErrorCode, EventKind, Recovery};
use hearth_sim::{Reply, Script, SimHandle};

use crate::support::{MODEL, client_with, events, last, model, sim};

fn profile(system_prompt: &str) -> Profile {
    let mut p = Profile::new("Agent", MODEL);
    p.system_prompt = system_prompt.to_owned();
    p
}

/// An agent over the sim with `window` for the model, and its profiles.
fn agent_with_profiles(
    sim: &SimHandle,
    window: u32,
    system_prompt: &str,
    tools: ToolRegistry,
) -> (Arc<Agent>, Arc<StaticProfiles>) {
    let profiles = Arc::new(StaticProfiles::single("", profile(system_prompt)));
    let backend = OllamaBackend::new(client_with(sim, ClientOptions::default()));
    let agent = Agent::builder(Arc::new(backend), profiles.clone())
        .tools(tools)
        .build();
    agent.settings().set(
        MODEL,
        LoadOptions {
            num_ctx: window,
            ..LoadOptions::default()
        },
    );
    (agent, profiles)
}

fn agent_in(sim: &SimHandle, window: u32, system_prompt: &str, tools: ToolRegistry) -> Arc<Agent> {
    agent_with_profiles(sim, window, system_prompt, tools).0
}

fn turn_bodies(sim: &SimHandle) -> Vec<serde_json::Value> {
    sim.chat_bodies()
        .into_iter()
        .filter(|b| b["messages"].as_array().is_some_and(|m| !m.is_empty()))
        .collect()
}

#[tokio::test]
async fn a_message_too_long_for_the_window_is_shortened_the_model_told_and_the_text_kept() {
    let sim = sim(Script::with_models(vec![model().with_context_length(2048)])).await;
    let agent = agent_in(&sim, 2048, "Be brief.", builtin_registry());
    // A 10 MB paste.
    let huge = format!("{} and the question at the end?", "word ".repeat(2_000_000));
    let mut run = agent.run_stream("s", &huge);
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    let bodies = turn_bodies(&sim);
    let sent = bodies[0]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        sent.len() < huge.len() / 3,
        "shortened: {} chars",
        sent.len()
    );
    assert!(sent.contains("the question at the end?"), "the end is kept");
    assert!(sent.contains(&format!("this message is {} characters long", huge.len())));
    assert_eq!(bodies[0]["truncate"], false);
    assert_eq!(sim.stats().truncated_prompts, 0);
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history[0].content, huge, "the full text is stored");
    assert_eq!(history[1].status, MessageStatus::Complete);
}

#[tokio::test]
async fn an_overflow_the_estimate_missed_is_summarized_away_and_answered() {
    // "w w w": two characters a token in the sim, four in Hearth's first,
    // uncalibrated estimate — so this prompt looks like ~75 % of the
    // window but is over it. The server refuses (truncate: false), Hearth
    // summarizes the older messages and asks again.
    let mut summary = Reply::text("The user sent eight long messages of w.");
    summary.when = Some("Summarize this conversation".into());
    let sim =
        sim(Script::with_models(vec![model().with_context_length(1024)]).with_reply(summary)).await;
    // No tools: their schemas would make the estimate alone cross 95 %.
    let agent = agent_in(&sim, 1024, "Be brief.", ToolRegistry::new());
    let words = "w ".repeat(130);
    for i in 0..8 {
        let store = agent.store();
        store
            .append("s", "old", ChatMessage::user(format!("{i} {words}")))
            .await
            .unwrap();
        store
            .append("s", "old", ChatMessage::assistant("ok"))
            .await
            .unwrap();
    }
    let mut run = agent.run_stream("s", "and now?");
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    assert!(
        evs.iter().any(
            |e| matches!(e.kind, EventKind::ContextCompacted { summarized, .. } if summarized >= 12)
        ),
        "{evs:#?}"
    );
    let bodies = turn_bodies(&sim);
    assert_eq!(bodies.len(), 3, "the refused turn, the summary, the retry");
    assert!(bodies.iter().all(|b| b["truncate"] == false));
    let retry = bodies[2]["messages"].as_array().unwrap();
    assert!(retry.iter().any(|m| {
        m["content"]
            .as_str()
            .unwrap()
            .contains("eight long messages")
    }));
    assert_eq!(sim.stats().truncated_prompts, 0, "nothing dropped silently");
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(
        history.len(),
        18,
        "nothing deleted: 16 old, the question, the answer"
    );
    assert_eq!(history[17].content, "You said: and now?");
}

#[tokio::test]
async fn an_overflow_nothing_can_fix_is_a_clear_error_and_the_message_is_kept() {
    // The profile's own prompt is larger than the window: no summary of
    // the conversation can help.
    let sim = sim(Script::with_models(vec![model().with_context_length(512)])).await;
    let (agent, profiles) =
        agent_with_profiles(&sim, 512, &"rule ".repeat(1000), builtin_registry());
    let mut run = agent.run_stream("s", "hello");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = last(&evs) else {
        panic!("{evs:#?}")
    };
    assert_eq!(
        error.code,
        ErrorCode::ContextLimitExceeded,
        "{}",
        error.message
    );
    assert_eq!(error.recovery, Recovery::FixConfig);
    assert!(
        error.message.contains("context window"),
        "{}",
        error.message
    );
    assert_eq!(turn_bodies(&sim).len(), 1, "refused by the server, once");
    assert!(turn_bodies(&sim).iter().all(|b| b["truncate"] == false));
    assert_eq!(sim.stats().truncated_prompts, 0);
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history[0].content, "hello");

    // A short prompt is answered, and the server's count calibrates the
    // estimate for this model ...
    profiles.upsert(profile("Be brief."));
    let mut run = agent.run_stream("t", "hi");
    assert!(matches!(
        last(&events(&mut run).await),
        EventKind::StreamEnd { .. }
    ));
    let sent = turn_bodies(&sim).len();
    // ... so now the budget itself refuses the huge prompt: nothing more
    // reaches the server.
    profiles.upsert(profile(&"rule ".repeat(1000)));
    let mut run = agent.run_stream("u", "again");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = last(&evs) else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::ContextLimitExceeded);
    assert!(
        error.message.contains("context window is 512"),
        "{}",
        error.message
    );
    assert_eq!(turn_bodies(&sim).len(), sent, "refused before sending");
}

#[tokio::test]
async fn the_window_is_what_the_server_gives_the_loaded_model() {
    // num_ctx asks for 8192 but the model was trained on 2048: Ollama caps
    // it, `/api/ps` says so, and the budget counts against 2048.
    let sim = sim(Script::with_models(vec![model().with_context_length(2048)])).await;
    let agent = agent_in(&sim, 8192, "Be brief.", builtin_registry());
    let mut run = agent.run_stream("s", "hello");
    let evs = events(&mut run).await;
    let windows: Vec<u32> = evs
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::ContextUsage { window, .. } => Some(window),
            _ => None,
        })
        .collect();
    assert_eq!(windows, [2048], "{evs:#?}");
}
