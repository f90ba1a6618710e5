//! What a run says while the model is slow to show anything (user pass
//! 2026-12, major 2): the model's load is announced and its end, and a
//! tool call a server streams is reported when it starts and every 200
//! characters, never once per token.

use hearth_core::{Profile, tools::builtin_registry};
use hearth_protocol::EventKind;
use serde_json::json;

use crate::fake::{FakeBackend, Piece, agent, call, done, events, text};
use hearth_core::ModelDelta;

fn writing(name: &str, chars: u32) -> Piece {
    Piece::Delta(ModelDelta::ToolCallProgress {
        name: name.into(),
        chars,
    })
}

#[tokio::test]
async fn the_load_and_a_call_being_written_are_reported() {
    let backend = FakeBackend::new();
    backend.push(vec![
        writing("calculator", 0),
        writing("calculator", 5),
        writing("calculator", 150),
        writing("calculator", 210),
        writing("calculator", 390),
        writing("calculator", 450),
        // A second call of the same tool starts again from nothing.
        writing("calculator", 3),
        call(None, "calculator", json!({"expression": "6*7"})),
        done(),
    ]);
    backend.push(vec![text("42."), done()]);
    let profile = Profile {
        auto_approve: vec!["calculator".into()],
        ..Profile::new("Agent", "m")
    };
    let (agent, _) = agent(backend, builtin_registry(), profile);
    let mut run = agent.run_stream("s", "what is 6*7?");
    let evs = events(&mut run).await;
    let progress: Vec<String> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ModelLoading { model } => Some(format!("loading {model}")),
            EventKind::ModelLoaded { model } => Some(format!("loaded {model}")),
            EventKind::ContextUsage { .. } => Some("context".into()),
            EventKind::ToolCallWriting { tool, chars } => Some(format!("{tool} {chars}")),
            EventKind::ToolStarted { .. } => Some("tool".into()),
            _ => None,
        })
        .collect();
    assert_eq!(
        progress,
        vec![
            "loading m",
            "loaded m",
            "context",
            "calculator 0",
            "calculator 210",
            "calculator 450",
            "calculator 3",
            "tool",
            "context",
        ]
    );
}

/// The default cap per answer follows the model's measured speed: after an
/// answer written at 20 tokens/s, the next asks for five minutes' worth
/// (6,000 tokens), not 16,384; a cap set in the profile is sent as set.
#[tokio::test]
async fn the_default_cap_fits_the_models_speed() {
    let backend = FakeBackend::new();
    let measured = hearth_core::DoneInfo {
        usage: hearth_protocol::Usage {
            completion_tokens: Some(400),
            tokens_per_second: Some(20.0),
            ..Default::default()
        },
    };
    backend.push(vec![
        text("A long answer."),
        Piece::Delta(ModelDelta::Done(measured)),
    ]);
    backend.push(vec![text("Another."), done()]);
    let (agent, profiles) = agent(
        backend.clone(),
        builtin_registry(),
        Profile::new("Agent", "m"),
    );
    for said in ["first", "second"] {
        let mut run = agent.run_stream("s", said);
        events(&mut run).await;
    }
    let caps: Vec<Option<u32>> = backend.requests().iter().map(|r| r.max_tokens).collect();
    assert_eq!(
        caps,
        vec![Some(Profile::DEFAULT_MAX_OUTPUT_TOKENS), Some(6_000)]
    );

    profiles.upsert(Profile {
        max_output_tokens: 30_000,
        ..Profile::new("Agent", "m")
    });
    backend.push(vec![text("Mine."), done()]);
    let mut run = agent.run_stream("s", "third");
    events(&mut run).await;
    assert_eq!(backend.requests().last().unwrap().max_tokens, Some(30_000));
}
