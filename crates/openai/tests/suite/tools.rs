//! Tool calling through the real client: fragments put together, several
//! calls in one message run in order, calls in the finish chunk, arguments
//! that are not JSON, the iteration cap. The simulator enforces OpenAI's
//! pairing rules, so every follow-up request is also checked for them.

use futures::StreamExt;
use hearth_core::{ModelDelta, RawToolCall, Role};
use hearth_openai::ClientOptions;
use hearth_protocol::{AgentEvent, ErrorCode, EventKind, ToolOutcome};
use hearth_sim::{Reply, Script, ToolCallSpec};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::{agent, agent_with, client, events, last, model, sim, text_of};

fn tool_events(evs: &[AgentEvent]) -> Vec<(String, ToolOutcome, String)> {
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
async fn argument_fragments_are_put_together() {
    let args = json!({"expression": "(1234 + 5678) * sqrt(16) / 7", "note": "héllo 🌍"});
    let sim = sim(
        Script::with_models(vec![model()]).with_reply(Reply::tool_calls(vec![
            ToolCallSpec::new("calculator", args.clone()).with_id("call_frag"),
        ])),
    )
    .await;
    let mut wire = hearth_openai::wire::ChatRequest {
        model: crate::support::MODEL.into(),
        messages: vec![],
        tools: vec![],
        stream: true,
        stream_options: None,
        temperature: None,
        max_tokens: None,
        response_format: None,
    };
    wire.messages.push(hearth_openai::wire::Message {
        role: "user",
        content: Some("go".into()),
        tool_calls: vec![],
        tool_call_id: None,
    });
    let all: Vec<ModelDelta> = client(&sim)
        .chat_stream(&wire)
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    let (progress, deltas): (Vec<ModelDelta>, Vec<ModelDelta>) = all
        .into_iter()
        .partition(|d| matches!(d, ModelDelta::ToolCallProgress { .. }));
    // Each fragment said how far the call had got, ending at its whole
    // arguments' length.
    let lengths: Vec<u32> = progress
        .iter()
        .filter_map(|d| match d {
            ModelDelta::ToolCallProgress { name, chars } if name == "calculator" => Some(*chars),
            _ => None,
        })
        .collect();
    assert!(lengths.len() >= 2, "{progress:?}");
    assert!(lengths.windows(2).all(|w| w[0] <= w[1]), "{lengths:?}");
    assert_eq!(
        *lengths.last().unwrap() as usize,
        args.to_string().chars().count(),
        "{lengths:?}"
    );
    assert_eq!(
        deltas[0],
        ModelDelta::ToolCalls(vec![RawToolCall {
            id: Some("call_frag".into()),
            name: "calculator".into(),
            arguments: args,
        }])
    );
    assert!(
        matches!(&deltas[1], ModelDelta::Done(i) if i.usage.done_reason.as_deref() == Some("tool_calls"))
    );
}

#[tokio::test]
async fn several_calls_in_one_message_run_and_answer_in_call_order() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(
            Reply::text("Let me work.")
                .with_tool_call(
                    ToolCallSpec::new("calculator", json!({"expression": "2+3"})).with_id("call_a"),
                )
                .with_tool_call(ToolCallSpec::new("current_time", json!({})))
                .with_tool_call(
                    ToolCallSpec::new("calculator", json!({"expression": "6*7"})).with_id("call_c"),
                ),
        )
        .with_reply(Reply::text("5 and 42.")))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "work");
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { iterations: 2 }),
        "{evs:#?}"
    );
    let started: Vec<String> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolStarted {
                name, arguments, ..
            } => Some(format!("{name} {arguments}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        started,
        vec![
            r#"calculator {"expression":"2+3"}"#,
            "current_time {}",
            r#"calculator {"expression":"6*7"}"#
        ]
    );
    let tools = tool_events(&evs);
    assert_eq!(tools.len(), 3);
    assert!(tools.iter().all(|t| t.1 == ToolOutcome::Ok), "{tools:?}");
    assert_eq!(text_of(&evs), "Let me work.5 and 42.");

    // The follow-up carries the calls (arguments as JSON strings) and the
    // results in call order, each naming its call.
    let bodies = sim.completion_bodies();
    let msgs = bodies[1]["messages"].as_array().unwrap();
    let n = msgs.len();
    let assistant = &msgs[n - 4];
    assert_eq!(assistant["content"], "Let me work.");
    let calls = assistant["tool_calls"].as_array().unwrap();
    assert_eq!(calls[0]["function"]["arguments"], r#"{"expression":"2+3"}"#);
    assert_eq!(calls[0]["type"], "function");
    let ids: Vec<&str> = calls.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids[0], "call_a");
    assert_eq!(ids[2], "call_c");
    let results: Vec<(&str, &str)> = msgs[n - 3..]
        .iter()
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(results[0], ("call_a", "5"));
    assert_eq!(results[1].0, ids[1]);
    assert_eq!(results[2], ("call_c", "42"));
    assert!(msgs[n - 3..].iter().all(|m| m["role"] == "tool"));
}

#[tokio::test]
async fn calls_in_the_finish_chunk_are_executed() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(
            Reply::tool_calls(vec![ToolCallSpec::new(
                "calculator",
                json!({"expression": "12*12"}),
            )])
            .with_tool_calls_on_done(),
        )
        .with_reply(Reply::text("144.")))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "12 squared?");
    let evs = events(&mut run).await;
    assert_eq!(
        tool_events(&evs),
        vec![("calculator".into(), ToolOutcome::Ok, "144".into())]
    );
    assert_eq!(text_of(&evs), "144.");
}

#[tokio::test]
async fn arguments_that_are_not_json_are_reported_to_the_model() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(Reply::tool_calls(vec![
            ToolCallSpec::new("calculator", json!("{\"expression\": \"1+")).with_id("call_bad"),
        ]))
        .with_reply(Reply::text("Sorry.")))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "add");
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    let tools = tool_events(&evs);
    assert_eq!(tools[0].1, ToolOutcome::Error);
    assert!(tools[0].2.contains("invalid arguments"), "{}", tools[0].2);
    // The model sees its own text back, and the error as the result.
    let body = sim.completion_bodies()[1].clone();
    let msgs = body["messages"].as_array().unwrap();
    let n = msgs.len();
    assert_eq!(
        msgs[n - 2]["tool_calls"][0]["function"]["arguments"],
        "{\"expression\": \"1+"
    );
    assert!(
        msgs[n - 1]["content"]
            .as_str()
            .unwrap()
            .contains("invalid arguments")
    );
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history.iter().filter(|m| m.role == Role::Tool).count(), 1);
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
    let agent = agent_with(&sim, 3, ClientOptions::default());
    let mut run = agent.run_stream("s", "loop");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = last(&evs) else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::MaxIterations);
    assert!(
        error.message.contains("stopped after 3 model calls"),
        "{}",
        error.message
    );
    assert_eq!(sim.completion_bodies().len(), 3);
    assert_eq!(sim.pending_replies(), 7);
    // Every call got a result (the last one "not run"), so the session
    // still satisfies OpenAI's pairing rules: the next turn is accepted.
    sim.set_script(Script::with_models(vec![model()]).with_reply(Reply::text("ok")));
    let answer = agent.run("s", "enough", Default::default()).await.unwrap();
    assert_eq!(answer, "ok");
    let body = sim.completion_bodies().last().unwrap().clone();
    let results: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(results.len(), 3);
    assert!(results[2].starts_with("not run"), "{results:?}");
}
