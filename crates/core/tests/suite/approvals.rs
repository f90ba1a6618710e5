//! Approvals: a mutating call waits for the user's answer (allow once,
//! allow for the session, deny); a stop withdraws the question; a run with
//! no one to ask denies; a profile can pre-approve.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hearth_core::{DENIED_RESULT, Profile, Role, ToolRegistry};
use hearth_protocol::{ApprovalDecision, EventKind, ToolOutcome};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::probe::Probe;
use crate::fake::{FakeBackend, agent, call, done, events, text};

/// Waits for the next approval request of a run and returns its id,
/// collecting the events seen on the way.
async fn next_request(
    run: &mut hearth_core::RunHandle,
    seen: &mut Vec<hearth_protocol::AgentEvent>,
) -> (String, String) {
    loop {
        let e = tokio::time::timeout(Duration::from_secs(5), run.next_event())
            .await
            .expect("an approval request")
            .expect("the run still going");
        let found = match &e.kind {
            EventKind::ApprovalRequested {
                request_id, reach, ..
            } => Some((request_id.clone(), reach.clone())),
            _ => None,
        };
        seen.push(e);
        if let Some(found) = found {
            return found;
        }
    }
}

/// An agent with one mutating probe tool (named `probe`) and no
/// pre-approvals, so every call asks.
fn probe_agent(backend: &Arc<FakeBackend>) -> (Arc<hearth_core::Agent>, Arc<Probe>) {
    let probe = Probe::new("probe", true);
    let mut reg = ToolRegistry::new();
    reg.register(probe.clone());
    let (agent, _) = agent(backend.clone(), reg, Profile::new("A", "m"));
    (agent, probe)
}

fn script(backend: &FakeBackend, tags: &[&str]) {
    for tag in tags {
        backend.push(vec![call(None, "probe", json!({"tag": tag})), done()]);
    }
    backend.push(vec![text("done"), done()]);
}

#[tokio::test]
async fn allow_once_runs_the_call_and_the_next_one_asks_again() {
    let backend = FakeBackend::new();
    script(&backend, &["a", "b"]);
    let (agent, probe) = probe_agent(&backend);
    let mut run = agent.run_stream("s", "go");
    let mut seen = Vec::new();
    let (first, reach) = next_request(&mut run, &mut seen).await;
    assert!(reach.contains("probe"), "{reach}");
    assert_eq!(
        probe.calls.load(Ordering::SeqCst),
        0,
        "nothing runs before the answer"
    );
    assert_eq!(agent.pending_approvals(), vec![first.clone()]);
    assert!(agent.approve(&first, ApprovalDecision::AllowOnce));
    assert!(
        !agent.approve(&first, ApprovalDecision::AllowOnce),
        "answered once"
    );
    let (second, _) = next_request(&mut run, &mut seen).await;
    assert_ne!(first, second);
    assert!(agent.approve(&second, ApprovalDecision::AllowOnce));
    seen.extend(events(&mut run).await);
    assert_eq!(probe.calls.load(Ordering::SeqCst), 2);
    assert!(matches!(
        seen.last().unwrap().kind,
        EventKind::StreamEnd { .. }
    ));
    let resolved = seen
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::ApprovalResolved {
                    decision: ApprovalDecision::AllowOnce,
                    ..
                }
            )
        })
        .count();
    assert_eq!(resolved, 2);
}

#[tokio::test]
async fn a_denied_call_does_not_run_and_the_model_is_told() {
    let backend = FakeBackend::new();
    script(&backend, &["a"]);
    let (agent, probe) = probe_agent(&backend);
    let mut run = agent.run_stream("s", "go");
    let mut seen = Vec::new();
    let (id, _) = next_request(&mut run, &mut seen).await;
    agent.approve(&id, ApprovalDecision::Deny);
    seen.extend(events(&mut run).await);
    assert_eq!(probe.calls.load(Ordering::SeqCst), 0);
    assert!(seen.iter().any(|e| matches!(
        &e.kind,
        EventKind::ToolEvent { outcome: ToolOutcome::Denied, output, .. } if output == DENIED_RESULT
    )));
    let second = &backend.requests()[1].messages;
    let result = second.iter().find(|m| m.role == Role::Tool).unwrap();
    assert_eq!(result.content, DENIED_RESULT);
}

#[tokio::test]
async fn allow_for_the_session_stops_asking_in_that_session_only() {
    let backend = FakeBackend::new();
    script(&backend, &["a", "b"]);
    let (agent, probe) = probe_agent(&backend);
    let mut run = agent.run_stream("s", "go");
    let mut seen = Vec::new();
    let (id, _) = next_request(&mut run, &mut seen).await;
    agent.approve(&id, ApprovalDecision::AllowForSession);
    seen.extend(events(&mut run).await);
    assert_eq!(
        probe.calls.load(Ordering::SeqCst),
        2,
        "the second call did not ask"
    );
    let asked = seen
        .iter()
        .filter(|e| matches!(e.kind, EventKind::ApprovalRequested { .. }))
        .count();
    assert_eq!(asked, 1);
    // Another session is asked again.
    script(&backend, &["c"]);
    let mut other = agent.run_stream("t", "go");
    let mut seen = Vec::new();
    let (id, _) = next_request(&mut other, &mut seen).await;
    agent.approve(&id, ApprovalDecision::AllowOnce);
    events(&mut other).await;
    assert_eq!(probe.calls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_stop_while_waiting_withdraws_the_question() {
    let backend = FakeBackend::new();
    script(&backend, &["a"]);
    let (agent, probe) = probe_agent(&backend);
    let mut run = agent.run_stream("s", "go");
    let mut seen = Vec::new();
    let (id, _) = next_request(&mut run, &mut seen).await;
    run.stop();
    seen.extend(events(&mut run).await);
    assert!(matches!(
        seen.last().unwrap().kind,
        EventKind::StreamStopped { .. }
    ));
    assert!(agent.pending_approvals().is_empty());
    assert!(!agent.approve(&id, ApprovalDecision::AllowOnce));
    assert_eq!(probe.calls.load(Ordering::SeqCst), 0);
    let history = agent.store().history("s").await.unwrap();
    let results: Vec<_> = history.iter().filter(|m| m.role == Role::Tool).collect();
    assert_eq!(results.len(), 1);
    // It never ran: cancelled, with no "may have partly completed".
    assert_eq!(results[0].content, hearth_core::CANCELLED_RESULT);
    assert_eq!(results[0].status, hearth_core::MessageStatus::Interrupted);
}

#[tokio::test]
async fn with_no_one_to_ask_it_is_denied_and_a_profile_can_pre_approve() {
    let backend = FakeBackend::new();
    script(&backend, &["a"]);
    let probe = Probe::new("probe", true);
    let mut reg = ToolRegistry::new();
    reg.register(probe.clone());
    let (untrusted, _) = agent(backend.clone(), reg.clone(), Profile::new("A", "m"));
    let answer = untrusted.run("s", "go", Default::default()).await.unwrap();
    assert_eq!(answer, "done");
    assert_eq!(probe.calls.load(Ordering::SeqCst), 0);
    let tool = backend.requests()[1]
        .messages
        .iter()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .content
        .clone();
    assert!(tool.contains("no one is there"), "{tool}");

    let trusting = Profile {
        auto_approve: vec!["probe".into()],
        ..Profile::new("A", "m")
    };
    script(&backend, &["b"]);
    let (trusted, _) = agent(backend.clone(), reg, trusting);
    let mut run = trusted.run_stream("s", "go");
    let evs = events(&mut run).await;
    assert!(
        !evs.iter()
            .any(|e| matches!(e.kind, EventKind::ApprovalRequested { .. }))
    );
    assert_eq!(probe.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_allowance_covers_one_workspace_and_shell_commands_ask_every_time() {
    // A probe named run_shell: "allow for this session" is not offered and,
    // if answered anyway, counts once.
    let backend = FakeBackend::new();
    for tag in ["a", "b"] {
        backend.push(vec![call(None, "run_shell", json!({"tag": tag})), done()]);
    }
    backend.push(vec![text("done"), done()]);
    let shell = Arc::new(Probe {
        name: "run_shell",
        mutating: true,
        ask_every_time: true,
        ..Probe::default()
    });
    let mut reg = ToolRegistry::new();
    reg.register(shell.clone());
    let (agent, _) = agent(backend.clone(), reg, Profile::new("A", "m"));
    let mut run = agent.run_stream("s", "go");
    let mut seen = Vec::new();
    let (id, _) = next_request(&mut run, &mut seen).await;
    assert!(seen.iter().any(|e| matches!(
        e.kind,
        EventKind::ApprovalRequested {
            session_allowed: false,
            ..
        }
    )));
    agent.approve(&id, ApprovalDecision::AllowForSession);
    let (again, _) = next_request(&mut run, &mut seen).await;
    agent.approve(&again, ApprovalDecision::AllowOnce);
    events(&mut run).await;
    assert_eq!(shell.calls.load(Ordering::SeqCst), 2);

    // An allowance for one workspace does not cover another.
    let backend = FakeBackend::new();
    backend.push(vec![call(None, "probe", json!({"tag": "a"})), done()]);
    backend.push(vec![text("ok"), done()]);
    let probe = Probe::new("probe", true);
    let mut reg = ToolRegistry::new();
    reg.register(probe.clone());
    let profiles = std::sync::Arc::new(hearth_core::StaticProfiles::single(
        "",
        Profile {
            workspace: Some("/tmp/one".into()),
            ..Profile::new("A", "m")
        },
    ));
    let agent = hearth_core::Agent::builder(backend.clone(), profiles.clone())
        .tools(reg)
        .build();
    let mut run = agent.run_stream("s", "go");
    let mut seen = Vec::new();
    let (id, _) = next_request(&mut run, &mut seen).await;
    agent.approve(&id, ApprovalDecision::AllowForSession);
    events(&mut run).await;
    profiles.upsert(Profile {
        workspace: Some("/tmp/two".into()),
        ..Profile::new("A", "m")
    });
    backend.push(vec![call(None, "probe", json!({"tag": "b"})), done()]);
    backend.push(vec![text("ok"), done()]);
    let mut run = agent.run_stream("s", "again");
    let mut seen = Vec::new();
    let (id, _) = next_request(&mut run, &mut seen).await;
    agent.approve(&id, ApprovalDecision::Deny);
    events(&mut run).await;
    assert_eq!(
        probe.calls.load(Ordering::SeqCst),
        1,
        "asked again for the other folder"
    );
}

#[tokio::test]
async fn pre_approvals_come_from_the_profile_the_run_started_with() {
    // The model switches to a profile that pre-approves `probe`: within
    // the run, that grants nothing.
    let backend = FakeBackend::new();
    backend.push(vec![
        call(None, "switch_profile", json!({"name": "Trusting"})),
        done(),
    ]);
    backend.push(vec![call(None, "probe", json!({"tag": "a"})), done()]);
    backend.push(vec![text("done"), done()]);
    let probe = Probe::new("probe", true);
    let profiles = std::sync::Arc::new(hearth_core::StaticProfiles::single(
        "",
        Profile::new("A", "m"),
    ));
    profiles.upsert(Profile {
        auto_approve: vec!["probe".into()],
        ..Profile::new("Trusting", "m")
    });
    let mut reg = ToolRegistry::new();
    reg.register(probe.clone())
        .register(std::sync::Arc::new(super::probe::Switch(profiles.clone())));
    let agent = hearth_core::Agent::builder(backend.clone(), profiles)
        .tools(reg)
        .build();
    let mut run = agent.run_stream("s", "go");
    let mut seen = Vec::new();
    let (id, _) = next_request(&mut run, &mut seen).await;
    agent.approve(&id, ApprovalDecision::Deny);
    events(&mut run).await;
    assert_eq!(probe.calls.load(Ordering::SeqCst), 0);
}
