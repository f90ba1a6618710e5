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
    assert_eq!(thought_between(&evs), 1);
    let stored = agent.store().history("s").await.unwrap()[1].clone();
    assert_eq!(stored.content, "Hello there.");
    assert_eq!(stored.thinking.as_deref(), Some("The user greets me."));
}

/// A template that opens the tag itself (or a small model that leaves the
/// opening one out) streams reasoning as if it were the answer, then
/// `</think>`: what was shown is taken back and shown as reasoning, and the
/// stored answer is only what came after.
#[tokio::test(start_paused = true)]
async fn a_closing_tag_alone_turns_what_was_shown_into_reasoning() {
    let backend = FakeBackend::new();
    backend.push(vec![
        text("Step 1: add.\n"),
        text("17 + 25 = 42\n</thi"),
        text("nk>\nThe answer"),
        text(" is 42."),
        done(),
    ]);
    let (agent, _) = agent(backend, ToolRegistry::new(), Profile::new("Chat", "m"));
    let evs = events(&mut agent.run_stream("s", "17 + 25?")).await;
    let (mut thinking, mut shown, mut replaced) = (String::new(), String::new(), 0);
    for e in &evs {
        match &e.kind {
            EventKind::ThinkingDelta { delta } => thinking.push_str(delta),
            EventKind::TextDelta { delta } => shown.push_str(delta),
            EventKind::TextReplaced { text } => {
                replaced += 1;
                shown.clone_from(text);
            }
            _ => {}
        }
    }
    assert_eq!(replaced, 1, "the text shown so far is taken back once");
    assert_eq!(thought_between(&evs), 1);
    assert_eq!(thinking, "Step 1: add.\n17 + 25 = 42\n");
    assert_eq!(shown.trim(), "The answer is 42.");
    let stored = agent.store().history("s").await.unwrap()[1].clone();
    assert_eq!(stored.content.trim(), "The answer is 42.");
    assert_eq!(
        stored.thinking.as_deref(),
        Some("Step 1: add.\n17 + 25 = 42\n")
    );
}

/// How many `thinking_ended` the run sent, checking that each follows the
/// reasoning it times and comes before any answer text after it.
fn thought_between(evs: &[hearth_protocol::AgentEvent]) -> usize {
    let kinds: Vec<&EventKind> = evs.iter().map(|e| &e.kind).collect();
    let ended: Vec<usize> = (0..kinds.len())
        .filter(|&i| matches!(kinds[i], EventKind::ThinkingEnded { .. }))
        .collect();
    for &i in &ended {
        assert!(
            kinds[..i]
                .iter()
                .any(|k| matches!(k, EventKind::ThinkingDelta { .. })),
            "thinking_ended after the reasoning: {kinds:?}"
        );
        assert!(
            !kinds[i + 1..]
                .iter()
                .any(|k| matches!(k, EventKind::ThinkingDelta { .. })),
            "no reasoning after it: {kinds:?}"
        );
        assert!(
            kinds[i + 1..]
                .iter()
                .any(|k| matches!(k, EventKind::TextDelta { .. })),
            "the answer after it: {kinds:?}"
        );
    }
    ended.len()
}

/// A call without reasoning reports no reasoning time.
#[tokio::test(start_paused = true)]
async fn an_answer_without_reasoning_reports_no_reasoning_time() {
    let backend = FakeBackend::new();
    backend.push(vec![text("Hello"), text(" there."), done()]);
    let (agent, _) = agent(backend, ToolRegistry::new(), Profile::new("Chat", "m"));
    let evs = events(&mut agent.run_stream("s", "hi")).await;
    assert_eq!(thought_between(&evs), 0);
}
