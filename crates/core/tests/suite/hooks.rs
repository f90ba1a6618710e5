//! The hook points in the loop (the command hooks have their own tests in
//! the CLI): a batch a hook ends answers its unstarted calls without
//! running them, a result a hook replaces is what the model and the store
//! see, and the context hook changes what a model call sends.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use async_trait::async_trait;
use hearth_core::hooks::{After, BATCH_ENDED_RESULT, Hooks, Outcome};
use hearth_core::{
    Agent, ChatMessage, Profile, Role, StaticProfiles, ToolCall, ToolContext, ToolRegistry,
};
use hearth_protocol::{EventKind, ToolOutcome};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::probe::Probe;
use crate::fake::{FakeBackend, call, done, events, text};

struct Recorder;

#[async_trait]
impl Hooks for Recorder {
    async fn after_tool_call(
        &self,
        call: &ToolCall,
        outcome: Outcome<'_>,
        _ctx: &ToolContext,
    ) -> After {
        match outcome.output {
            "probe:b" => After::EndBatch(Some(format!("{}: b, and that is enough", call.name))),
            _ => After::Pass,
        }
    }

    async fn before_model_call(
        &self,
        messages: &[ChatMessage],
        _session: &str,
    ) -> Option<Vec<ChatMessage>> {
        let mut out = messages.to_vec();
        out.push(ChatMessage::user("(hook) answer in French"));
        Some(out)
    }
}

#[tokio::test]
async fn a_hook_ends_the_batch_replaces_a_result_and_shapes_the_context() {
    let backend = FakeBackend::new();
    backend.push(vec![
        call(None, "probe", json!({"tag": "a"})),
        call(None, "probe", json!({"tag": "b"})),
        call(None, "probe", json!({"tag": "c"})),
        done(),
    ]);
    backend.push(vec![text("Fini."), done()]);
    // A mutating tool: the batch runs one call at a time, so the third
    // has not started when the second ends the batch.
    let probe = Probe::new("probe", true);
    let mut tools = ToolRegistry::new();
    tools.register(probe.clone());
    let profile = Profile {
        auto_approve: vec!["probe".into()],
        ..Profile::new("Agent", "m")
    };
    let profiles = Arc::new(StaticProfiles::single("", profile));
    let agent = Agent::builder(backend.clone(), profiles)
        .tools(tools)
        .hooks(Arc::new(Recorder))
        .build();
    let mut run = agent.run_stream("s", "add things");
    let evs = events(&mut run).await;
    let results: Vec<(ToolOutcome, String)> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolEvent {
                outcome, output, ..
            } => Some((*outcome, output.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        vec![
            (ToolOutcome::Ok, "probe:a".to_owned()),
            (ToolOutcome::Ok, "probe: b, and that is enough".to_owned()),
            (ToolOutcome::Cancelled, BATCH_ENDED_RESULT.to_owned()),
        ]
    );
    assert_eq!(
        probe.calls.load(Ordering::SeqCst),
        2,
        "the third call never ran"
    );
    let sent = &backend.requests()[1].messages;
    let tool_results: Vec<&str> = sent
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(
        tool_results,
        vec![
            "probe:a",
            "probe: b, and that is enough",
            BATCH_ENDED_RESULT
        ]
    );
    assert_eq!(
        sent.last().map(|m| m.content.as_str()),
        Some("(hook) answer in French"),
        "the context hook's message is sent"
    );
    assert_eq!(
        backend.requests()[0].messages.last().unwrap().content,
        "(hook) answer in French"
    );
}
