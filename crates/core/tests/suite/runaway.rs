//! A runaway answer ends with a notice: at the profile's token limit (sent
//! as `max_tokens`), or when the model repeats itself (the stream is
//! dropped, so the server stops generating and keeps the model).

use std::sync::atomic::Ordering;

use hearth_core::{DoneInfo, ModelDelta, Profile, ToolRegistry};
use hearth_protocol::{EventKind, Usage};

use crate::fake::{FakeBackend, Piece, agent, events, text};

fn capped() -> Profile {
    Profile {
        max_output_tokens: 64,
        ..Profile::new("Chat", "m")
    }
}

#[tokio::test(start_paused = true)]
async fn the_profiles_token_limit_is_sent_and_reaching_it_is_said() {
    let backend = FakeBackend::new();
    backend.push(vec![
        text("The list goes on: one, two, thr"),
        Piece::Delta(ModelDelta::Done(DoneInfo {
            usage: Usage {
                done_reason: Some("length".into()),
                ..Usage::default()
            },
        })),
    ]);
    let (agent, _) = agent(backend.clone(), ToolRegistry::new(), capped());
    let evs = events(&mut agent.run_stream("s", "count")).await;
    assert!(matches!(
        evs.last().unwrap().kind,
        EventKind::StreamEnd { .. }
    ));
    assert_eq!(backend.requests.lock().unwrap()[0].max_tokens, Some(64));
    let answer = agent.store().history("s").await.unwrap()[1].content.clone();
    assert!(
        answer.starts_with("The list goes on: one, two, thr"),
        "{answer}"
    );
    assert!(answer.contains("limit of 64 tokens per answer"), "{answer}");
}

#[tokio::test(start_paused = true)]
async fn a_model_that_repeats_itself_is_ended_with_a_notice() {
    let backend = FakeBackend::new();
    let mut pieces: Vec<Piece> = (0..2_000)
        .map(|_| text("I will now call the tool. "))
        .collect();
    // Were it not ended, it would wait here forever.
    pieces.push(Piece::Stall);
    backend.push(pieces);
    let (agent, _) = agent(backend.clone(), ToolRegistry::new(), capped());
    let evs = events(&mut agent.run_stream("s", "go")).await;
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamEnd { .. }),
        "{:?}",
        evs.last()
    );
    assert_eq!(
        backend.dropped.load(Ordering::SeqCst),
        1,
        "the stream was closed"
    );
    let answer = agent.store().history("s").await.unwrap()[1].content.clone();
    assert!(answer.contains("repeating the same text"), "{answer}");
    assert!(answer.len() < 4_000, "ended early: {} bytes", answer.len());
}
