//! Tool calling through the real client: a round trip, calls only on the
//! done line, calls without ids, an unknown tool, the iteration cap.

use hearth_core::{Role, tools::builtin_registry};
use hearth_ollama::ClientOptions;
use hearth_protocol::{ErrorCode, EventKind, ToolOutcome};
use hearth_sim::{Reply, Script, ToolCallSpec};
use serde_json::json;

use crate::support::{MODEL, agent, agent_with, events, last, model, sim, text_of};

fn tool_events(evs: &[hearth_protocol::AgentEvent]) -> Vec<(String, ToolOutcome, String)> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolEvent {
                name,
                outcome,
                output,
                ..
            } => Some((name.clone(), *outcome, output.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_tool_round_trip() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(Reply::tool_calls(vec![
            ToolCallSpec::new("calculator", json!({"expression": "12*12"})).with_id("call_x"),
        ]))
        .with_reply(Reply::text("It is 144.")))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "12 squared?");
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { iterations: 2 }),
        "{evs:#?}"
    );
    assert_eq!(
        tool_events(&evs),
        vec![("calculator".into(), ToolOutcome::Ok, "144".into())]
    );
    assert_eq!(text_of(&evs), "It is 144.");
    let bodies: Vec<_> = sim
        .chat_bodies()
        .into_iter()
        .filter(|b| !b["messages"].as_array().unwrap().is_empty())
        .collect();
    assert_eq!(bodies.len(), 2);
    let msgs = bodies[1]["messages"].as_array().unwrap();
    let tool = msgs.last().unwrap();
    assert_eq!(
        tool,
        &json!({"role": "tool", "content": "144", "tool_name": "calculator", "tool_call_id": "call_x"})
    );
    assert_eq!(
        bodies[1]["tools"], bodies[0]["tools"],
        "the tool list is byte-stable"
    );
}

#[tokio::test]
async fn calls_only_on_the_done_line_and_without_ids_are_executed() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(
            Reply::text("Let me check.")
                .with_tool_call(ToolCallSpec::new("current_time", json!({})))
                .with_tool_call(ToolCallSpec::new(
                    "calculator",
                    json!({"expression": "1+1"}),
                ))
                .with_tool_calls_on_done(),
        )
        .with_reply(Reply::text("done")))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "time and 1+1");
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    let tools = tool_events(&evs);
    assert_eq!(tools.len(), 2);
    assert!(tools.iter().all(|t| t.1 == ToolOutcome::Ok), "{tools:?}");
    // Minted ids pair each result with its call.
    let history = agent.store().history("s").await.unwrap();
    let ids: Vec<_> = history[1].tool_calls.iter().map(|c| c.id.clone()).collect();
    let answered: Vec<_> = history
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| m.tool_call_id.clone())
        .collect();
    assert_eq!(ids.len(), 2);
    assert!(
        ids.iter().all(|id| answered.contains(id)),
        "{ids:?} vs {answered:?}"
    );
}

#[tokio::test]
async fn an_unknown_tool_is_reported_to_the_model() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "launch_rockets",
            json!({"count": 3}),
        )]))
        .with_reply(Reply::text("I cannot do that.")))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "launch");
    let evs = events(&mut run).await;
    assert!(matches!(last(&evs), EventKind::StreamEnd { .. }));
    let tools = tool_events(&evs);
    assert_eq!(tools[0].1, ToolOutcome::Error);
    assert!(
        tools[0].2.contains("unknown tool `launch_rockets`"),
        "{}",
        tools[0].2
    );
    let body = &sim.chat_bodies().last().unwrap().clone();
    let sent = body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(sent.contains("calculator, current_time"), "{sent}");
}

#[tokio::test]
async fn a_model_that_keeps_calling_tools_stops_at_max_iterations() {
    let mut script = Script::with_models(vec![model()]);
    for _ in 0..10 {
        script = script.with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "current_time",
            json!({}),
        )]));
    }
    let sim = sim(script).await;
    let agent = agent_with(&sim, builtin_registry(), 3, ClientOptions::default());
    let mut run = agent.run_stream("s", "loop");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = last(&evs) else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::MaxIterations);
    let chats = sim
        .chat_bodies()
        .into_iter()
        .filter(|b| b["model"] == MODEL && !b["messages"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(chats, 3);
    assert_eq!(sim.pending_replies(), 7);
}
