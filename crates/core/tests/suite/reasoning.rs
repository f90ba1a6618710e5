//! Reasoning a model writes inline, in tags, is the core's to split: every
//! front end gets thinking events and a stored answer without the tags.

use hearth_core::{Profile, ToolRegistry};
use hearth_protocol::EventKind;

use crate::fake::{FakeBackend, agent, done, events, text};

/// Reasoning written inline (`<think>…</think>` in the text, as qwen3 does
/// on many Ollama versions) becomes thinking events in the core, cut
/// wherever the stream cuts it; the stored answer keeps it apart, so the
/// answer looks the same live and stored in every front end.
#[tokio::test(start_paused = true)]
async fn reasoning_in_tags_streams_as_thinking_and_is_stored_apart() {
    let backend = FakeBackend::new();
    backend.push(vec![
        text("<thi"),
        text("nk>The user greets"),
        text(" me.</th"),
        text("ink>Hello"),
        text(" there."),
        done(),
    ]);
    let (agent, _) = agent(backend, ToolRegistry::new(), Profile::new("Chat", "m"));
    let evs = events(&mut agent.run_stream("s", "hi")).await;
    let (mut thinking, mut shown) = (String::new(), String::new());
    for e in &evs {
        match &e.kind {
            EventKind::ThinkingDelta { delta } => thinking.push_str(delta),
            EventKind::TextDelta { delta } => shown.push_str(delta),
            _ => {}
        }
    }
    assert_eq!(thinking, "The user greets me.");
    assert_eq!(shown, "Hello there.");
    let stored = agent.store().history("s").await.unwrap()[1].clone();
    assert_eq!(stored.content, "Hello there.");
    assert_eq!(stored.thinking.as_deref(), Some("The user greets me."));
}
