//! MCP tools in a run, through the core, with the model scripted on
//! hearth-sim: offered only to the profile that names the server, asked
//! about before they run (unless pre-approved), stopped mid-call, and a
//! server that cannot start costs the run nothing but its tools.

use std::sync::Arc;
use std::time::Duration;

use hearth_core::{Agent, Approvals, Profile, RunHandle, StaticProfiles, ToolRegistry};
use hearth_mcp::Hub;
use hearth_ollama::{Client, ClientOptions, OllamaBackend};
use hearth_protocol::{AgentEvent, ApprovalDecision, EventKind, ToolOutcome};
use hearth_sim::{ModelSpec, Reply, Script, Sim, SimHandle, ToolCallSpec};
use serde_json::json;

use crate::support::{WAIT, everything};

const MODEL: &str = "m:latest";

fn script() -> Script {
    Script::with_models(vec![
        ModelSpec::new(MODEL).with_capabilities(&["completion", "tools"]),
    ])
}

fn agent(
    sim: &SimHandle,
    hub: Arc<Hub>,
    profile: Profile,
    approvals: Arc<Approvals>,
) -> Arc<Agent> {
    let mut tools = ToolRegistry::new();
    tools.add_source(hub);
    let client = Client::new(&sim.url(), ClientOptions::default()).unwrap();
    Agent::builder(
        Arc::new(OllamaBackend::new(client)),
        Arc::new(StaticProfiles::single("", profile)),
    )
    .tools(tools)
    .approvals(approvals)
    .build()
}

fn profile(servers: &[&str]) -> Profile {
    let mut p = Profile::new("Agent", MODEL);
    p.mcp_servers = servers.iter().map(|s| (*s).to_owned()).collect();
    p
}

/// The run's events until its end, answering each approval with
/// `decision` (every wait bounded).
async fn events(
    run: &mut RunHandle,
    approvals: &Approvals,
    decision: ApprovalDecision,
) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    loop {
        let e = tokio::time::timeout(WAIT, run.next_event())
            .await
            .unwrap_or_else(|_| panic!("run did not end: {out:#?}"))
            .expect("a terminal event");
        if let EventKind::ApprovalRequested { request_id, .. } = &e.kind {
            assert!(approvals.answer(request_id, decision));
        }
        let end = e.kind.is_terminal();
        out.push(e);
        if end {
            return out;
        }
    }
}

fn offered(sim: &SimHandle) -> Vec<Vec<String>> {
    sim.chat_bodies()
        .iter()
        .filter(|b| b["messages"].as_array().is_some_and(|m| !m.is_empty()))
        .map(|b| {
            b["tools"]
                .as_array()
                .map(|t| {
                    t.iter()
                        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

/// A run's parts: the model calls `tool` of server-everything with
/// `arguments`, then answers `answer`; the profile names the server.
async fn everything_run(
    tool: &str,
    arguments: serde_json::Value,
    answer: &str,
) -> (SimHandle, Arc<Hub>, Arc<Approvals>, Arc<Agent>) {
    let sim = Sim::start(
        script()
            .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(tool, arguments)]))
            .with_reply(Reply::text(answer)),
    )
    .await
    .unwrap();
    let hub = Hub::new([("everything".to_owned(), everything())].into());
    let approvals = Arc::new(Approvals::default());
    let agent = agent(
        &sim,
        hub.clone(),
        profile(&["everything"]),
        approvals.clone(),
    );
    (sim, hub, approvals, agent)
}

#[tokio::test]
async fn a_profile_that_names_the_server_gets_its_tools_and_is_asked_first() {
    let (sim, hub, approvals, agent) = everything_run(
        "everything__get-sum",
        json!({"a": 2, "b": 3}),
        "2 and 3 make 5.",
    )
    .await;
    let mut run = agent.run_stream("s", "add 2 and 3");
    let evs = events(&mut run, &approvals, ApprovalDecision::AllowOnce).await;
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    let asked = evs.iter().find_map(|e| match &e.kind {
        EventKind::ApprovalRequested { tool, reach, .. } => Some((tool.clone(), reach.clone())),
        _ => None,
    });
    let (tool, reach) = asked.expect("the call was asked about");
    assert_eq!(tool, "everything__get-sum");
    assert!(
        reach.contains("on the MCP server \"everything\""),
        "{reach}"
    );
    let result = evs.iter().find_map(|e| match &e.kind {
        EventKind::ToolEvent {
            outcome, output, ..
        } => Some((*outcome, output.clone())),
        _ => None,
    });
    let (outcome, output) = result.expect("a tool result");
    assert_eq!(outcome, ToolOutcome::Ok, "{output}");
    assert!(output.contains('5'), "{output}");
    let lists = offered(&sim);
    assert_eq!(lists.len(), 2);
    assert!(
        lists[0].contains(&"everything__echo".to_owned()),
        "{:?}",
        lists[0]
    );
    assert_eq!(
        lists[0], lists[1],
        "the tool list is byte-stable across calls"
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn other_profiles_are_not_offered_the_servers_tools_and_a_pre_approval_is_not_asked() {
    let sim = Sim::start(script().with_reply(Reply::text("hi")))
        .await
        .unwrap();
    let hub = Hub::new([("everything".to_owned(), everything())].into());
    let approvals = Arc::new(Approvals::default());
    let plain = agent(&sim, hub.clone(), profile(&[]), approvals.clone());
    let mut run = plain.run_stream("s", "hello");
    events(&mut run, &approvals, ApprovalDecision::Deny).await;
    assert!(offered(&sim)[0].is_empty(), "{:?}", offered(&sim));
    assert_eq!(
        hub.server("everything").unwrap().status(),
        hearth_mcp::Status::Stopped
    );

    sim.set_script(
        script()
            .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
                "everything__echo",
                json!({"message": "trusted"}),
            )]))
            .with_reply(Reply::text("done")),
    );
    let mut trusting = profile(&["everything"]);
    trusting.auto_approve = vec!["everything__echo".into()];
    let agent = agent(&sim, hub.clone(), trusting, approvals.clone());
    let mut run = agent.run_stream("s2", "echo");
    let evs = events(&mut run, &approvals, ApprovalDecision::Deny).await;
    assert!(
        !evs.iter()
            .any(|e| matches!(e.kind, EventKind::ApprovalRequested { .. })),
        "pre-approved: {evs:#?}"
    );
    assert!(evs.iter().any(|e| matches!(&e.kind,
        EventKind::ToolEvent { output, .. } if output == "Echo: trusted")));
    hub.shutdown().await;
}

#[tokio::test]
async fn stop_ends_a_long_call_and_the_server_stays_usable() {
    let (_sim, hub, approvals, agent) = everything_run(
        "everything__trigger-long-running-operation",
        json!({"duration": 600, "steps": 600}),
        "never",
    )
    .await;
    let mut run = agent.run_stream("s", "take your time");
    // Approve, then stop once the call is under way.
    let mut seen = Vec::new();
    loop {
        let e = tokio::time::timeout(WAIT, run.next_event())
            .await
            .unwrap()
            .unwrap();
        match &e.kind {
            EventKind::ApprovalRequested { request_id, .. } => {
                assert!(approvals.answer(request_id, ApprovalDecision::AllowOnce));
            }
            EventKind::ApprovalResolved { .. } => run.stop(),
            _ => {}
        }
        let end = e.kind.is_terminal();
        seen.push(e);
        if end {
            break;
        }
    }
    assert!(
        matches!(seen.last().unwrap().kind, EventKind::StreamStopped { .. }),
        "{seen:#?}"
    );
    let ended = seen.iter().find_map(|e| match &e.kind {
        EventKind::ToolEvent { outcome, .. } => Some(*outcome),
        _ => None,
    });
    assert_eq!(ended, Some(ToolOutcome::Cancelled), "{seen:#?}");
    // The server was told to cancel, not killed: the next call works.
    let echo = crate::support::tool(&hub, "everything", "everything__echo");
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        echo.call(json!({"message": "still here"}), &crate::support::ctx()),
    )
    .await
    .unwrap();
    assert_eq!(out.unwrap(), "Echo: still here");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_server_that_cannot_start_is_announced_once_and_the_run_still_answers() {
    // Two model calls (a call of the other server's tool, then the
    // answer): the missing server is announced once.
    let sim = Sim::start(
        script()
            .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
                "everything__echo",
                json!({"message": "still works"}),
            )]))
            .with_reply(Reply::text("Answered without it.")),
    )
    .await
    .unwrap();
    let missing = hearth_mcp::ServerConfig {
        command: Some("npx-not-installed-here".into()),
        ..Default::default()
    };
    let hub = Hub::new(
        [
            ("web".to_owned(), missing),
            ("everything".to_owned(), everything()),
        ]
        .into(),
    );
    let approvals = Arc::new(Approvals::default());
    let agent = agent(
        &sim,
        hub.clone(),
        profile(&["web", "everything"]),
        approvals.clone(),
    );
    let mut run = agent.run_stream("s", "search the web");
    let evs = events(&mut run, &approvals, ApprovalDecision::AllowOnce).await;
    assert_eq!(offered(&sim).len(), 2, "two model calls");
    assert!(evs.iter().any(|e| matches!(&e.kind,
        EventKind::ToolEvent { output, .. } if output == "Echo: still works")));
    let told: Vec<_> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolsUnavailable { server, reason } => {
                Some((server.clone(), reason.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(told.len(), 1, "{evs:#?}");
    assert_eq!(told[0].0, "web");
    assert!(
        told[0].1.contains("`npx-not-installed-here` was not found"),
        "{told:?}"
    );
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    hub.shutdown().await;
}
