//! `/plan`: explore, plan, implement, review, against a scripted model —
//! the phases in order with the tools each may use (as the requests show
//! them), the core refusing a write in a read-only phase, the punch list
//! sent back and the bound on passes, an unreadable verdict forgiven once,
//! the plan's edit and cancel, and Stop in every phase.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hearth_core::{Agent, ChatMessage, InMemoryStore, Profile, Role, SessionStore, ToolRegistry};
use hearth_protocol::{
    AgentEvent, EventKind, PhaseOutcome, PlanAnswer, PlanChoice, Verdict, WorkflowPhase,
};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::probe::Probe;
use crate::fake::{FakeBackend, Piece, call, done, text};

struct Setup {
    agent: Arc<Agent>,
    store: Arc<InMemoryStore>,
    backend: Arc<FakeBackend>,
    write_file: Arc<Probe>,
    run_shell: Arc<Probe>,
    read_file: Arc<Probe>,
}

/// An agent with a read-only `read_file`, and `write_file` and `run_shell`
/// that change things (pre-approved, so no question interrupts the flow),
/// `max_fixes` fix passes, and a session that already holds a chat.
async fn setup(max_fixes: u32) -> Setup {
    let backend = FakeBackend::new();
    let (read_file, write_file, run_shell) = (
        Probe::new("read_file", false),
        Probe::new("write_file", true),
        Probe::new("run_shell", true),
    );
    let mut tools = ToolRegistry::new();
    tools.register(read_file.clone());
    tools.register(write_file.clone());
    tools.register(run_shell.clone());
    let profile = Profile {
        auto_approve: vec!["write_file".into(), "run_shell".into()],
        review_cycles: max_fixes,
        planning_enabled: true,
        ..Profile::new("Agent", "m")
    };
    let store = Arc::new(InMemoryStore::new());
    for m in [
        ChatMessage::user("earlier: the project is a calculator"),
        ChatMessage::assistant("noted"),
    ] {
        store.append("s", "earlier", m).await.unwrap();
    }
    let agent = Agent::builder(
        backend.clone(),
        Arc::new(hearth_core::StaticProfiles::single("Persona", profile)),
    )
    .tools(tools)
    .store(store.clone())
    .build();
    Setup {
        agent,
        store,
        backend,
        write_file,
        run_shell,
        read_file,
    }
}

/// Events until `until` holds for one (returned last), or the run's end.
async fn events_until(
    run: &mut hearth_core::RunHandle,
    until: impl Fn(&AgentEvent) -> bool,
) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    loop {
        let e = tokio::time::timeout(Duration::from_secs(10), run.next_event())
            .await
            .unwrap_or_else(|_| panic!("no event in time; so far: {out:#?}"))
            .unwrap_or_else(|| panic!("the run ended early: {out:#?}"));
        let end = until(&e) || (e.kind.is_terminal() && !e.scope.is_subagent);
        out.push(e);
        if end {
            return out;
        }
    }
}

fn is_end(e: &AgentEvent) -> bool {
    e.kind.is_terminal() && !e.scope.is_subagent
}

fn proposed(e: &AgentEvent) -> Option<String> {
    match &e.kind {
        EventKind::PlanProposed { request_id, .. } => Some(request_id.clone()),
        _ => None,
    }
}

/// The workflow's own steps, in order: phases begun and ended, the plan
/// asked and answered, verdicts, the end.
fn steps(evs: &[AgentEvent]) -> Vec<String> {
    let name = |p: &WorkflowPhase| format!("{p:?}").to_lowercase();
    evs.iter()
        .filter(|e| !e.scope.is_subagent)
        .filter_map(|e| match &e.kind {
            EventKind::PhaseStarted { phase, cycle, .. } => {
                Some(format!("{} {cycle}", name(phase)))
            }
            EventKind::PhaseEnded {
                phase,
                cycle,
                outcome,
                ..
            } => Some(format!("{} {cycle} {outcome:?}", name(phase))),
            EventKind::PlanProposed { .. } => Some("proposed".into()),
            EventKind::PlanAnswered { choice, .. } => Some(format!("answered {choice:?}")),
            EventKind::ReviewVerdict {
                verdict, fixing, ..
            } => Some(format!("verdict {verdict:?} fixing={fixing}")),
            EventKind::StreamEnd { .. } => Some("end".into()),
            EventKind::StreamStopped { .. } => Some("stopped".into()),
            EventKind::Error { .. } => Some("error".into()),
            _ => None,
        })
        .collect()
}

fn tool_names(r: &hearth_core::ModelRequest) -> Vec<String> {
    r.tools.iter().map(|t| t.name.clone()).collect()
}

fn said(r: &hearth_core::ModelRequest) -> String {
    r.messages
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Explore reads a file and reports; plan writes the plan.
fn script_explore_and_plan(b: &FakeBackend) {
    b.push(vec![
        call(Some("e1"), "read_file", json!({"tag": "calc.rs"})),
        done(),
    ]);
    b.push(vec![
        text("## Relevant files\n- calc.rs: add() subtracts"),
        done(),
    ]);
    b.push(vec![
        text("## Steps\n1. make add() add in calc.rs\n## Verify\n- run the tests"),
        done(),
    ]);
}

/// One implement pass: write, then say what changed.
fn script_implement(b: &FakeBackend, said: &str) {
    b.push(vec![
        call(None, "write_file", json!({"tag": "calc.rs"})),
        done(),
    ]);
    b.push(vec![text(said), done()]);
}

/// One review: run the tests, then the verdict.
fn script_review(b: &FakeBackend, verdict: &str) {
    b.push(vec![
        call(None, "run_shell", json!({"tag": "cargo test"})),
        done(),
    ]);
    b.push(vec![text(verdict), done()]);
}

/// Run the workflow, answering the plan with `answer`, to its end.
async fn run_through(s: &Setup, answer: PlanAnswer) -> Vec<AgentEvent> {
    let mut run = s.agent.plan_stream("s", "fix add() in calc.rs");
    let mut evs = events_until(&mut run, |e| proposed(e).is_some()).await;
    let id = proposed(evs.last().unwrap()).expect("the plan is proposed");
    assert!(s.agent.answer_plan(&id, answer));
    evs.extend(events_until(&mut run, is_end).await);
    evs
}

#[tokio::test]
async fn the_four_phases_run_in_order_each_offered_only_its_tools() {
    let s = setup(2).await;
    script_explore_and_plan(&s.backend);
    script_implement(&s.backend, "add() now adds");
    script_review(&s.backend, "Tests pass.\n{\"verdict\": \"DONE\"}");
    let evs = run_through(&s, PlanAnswer::Run { plan: None }).await;
    assert_eq!(
        steps(&evs),
        [
            "explore 0",
            "explore 0 Done",
            "plan 0",
            "plan 0 Done",
            "proposed",
            "answered Run",
            "implement 1",
            "implement 1 Done",
            "review 1",
            "review 1 Done",
            "verdict Done fixing=false",
            "end",
        ]
    );
    let reqs = s.backend.requests();
    assert_eq!(reqs.len(), 7, "explore 2, plan 1, implement 2, review 2");
    let ro = ["read_file"];
    for (i, want) in [
        (0, &ro[..]),
        (1, &ro[..]),
        (2, &ro[..]),
        (3, &["read_file", "run_shell", "write_file"][..]),
        (4, &["read_file", "run_shell", "write_file"][..]),
        (5, &["read_file", "run_shell"][..]),
        (6, &["read_file", "run_shell"][..]),
    ] {
        assert_eq!(tool_names(&reqs[i]), want, "request {i}");
    }
    // Explore starts from the conversation; plan only from the findings.
    assert!(said(&reqs[0]).contains("the project is a calculator"));
    assert!(!said(&reqs[2]).contains("the project is a calculator"));
    assert!(
        said(&reqs[2]).contains("add() subtracts"),
        "{}",
        said(&reqs[2])
    );
    // The implement run answers the approved plan; the reviewer sees it
    // and what the implementer said, not the implement transcript.
    assert!(said(&reqs[3]).contains("1. make add() add in calc.rs"));
    assert!(said(&reqs[5]).contains("add() now adds"));
    assert!(said(&reqs[5]).contains("1. make add() add in calc.rs"));
    assert!(!said(&reqs[5]).contains("the project is a calculator"));
    assert_eq!(s.read_file.calls.load(Ordering::SeqCst), 1);
    assert_eq!(s.write_file.calls.load(Ordering::SeqCst), 1);
    assert_eq!(s.run_shell.calls.load(Ordering::SeqCst), 1);
    // The verdict says the reviewer checked something (its one command).
    let checks = evs.iter().find_map(|e| match &e.kind {
        EventKind::ReviewVerdict { checks, .. } => Some(*checks),
        _ => None,
    });
    assert_eq!(checks, Some(1));
    // The session holds the command, the plan it answered, and the work;
    // the phases' own talk stayed in their sub-runs.
    let history = s.store.history("s").await.unwrap();
    assert_eq!(history[2].content, "/plan fix add() in calc.rs");
    assert_eq!(history[3].role, Role::User);
    assert!(history[3].content.contains("1. make add() add in calc.rs"));
    assert_eq!(history.last().unwrap().content, "add() now adds");
    assert!(!history.iter().any(|m| m.content.contains("Relevant files")));
    // Every phase's events are its sub-run's, named for the phase.
    let explore: Vec<_> = evs
        .iter()
        .filter(|e| e.scope.parent_call_id.as_deref() == Some("phase_explore_0"))
        .collect();
    assert!(explore.iter().all(|e| e.scope.is_subagent));
    assert!(
        explore
            .iter()
            .any(|e| matches!(e.kind, EventKind::ToolEvent { .. }))
    );
    // What each phase produced is in its end event.
    let report = evs.iter().find_map(|e| match &e.kind {
        EventKind::PhaseEnded {
            phase: WorkflowPhase::Plan,
            report,
            ..
        } => Some(report.clone()),
        _ => None,
    });
    assert_eq!(
        report.as_deref(),
        Some("## Steps\n1. make add() add in calc.rs\n## Verify\n- run the tests")
    );
}

#[tokio::test]
async fn a_read_only_phase_that_asks_to_write_is_refused_by_the_core() {
    let s = setup(2).await;
    // The exploring model is talked into writing (and running).
    s.backend.push(vec![
        call(Some("w"), "write_file", json!({"tag": "evil"})),
        call(Some("x"), "run_shell", json!({"tag": "rm -rf"})),
        done(),
    ]);
    s.backend.push(vec![text("findings"), done()]);
    s.backend.push(vec![text("1. nothing"), done()]);
    let mut run = s.agent.plan_stream("s", "tidy up");
    let evs = events_until(&mut run, |e| proposed(e).is_some()).await;
    assert!(
        proposed(evs.last().unwrap()).is_some(),
        "{:#?}",
        steps(&evs)
    );
    assert_eq!(s.write_file.calls.load(Ordering::SeqCst), 0);
    assert_eq!(s.run_shell.calls.load(Ordering::SeqCst), 0);
    let second = &s.backend.requests()[1];
    let results: Vec<&ChatMessage> = second
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .collect();
    assert_eq!(results.len(), 2);
    for r in results {
        assert!(r.content.contains("unknown tool"), "{}", r.content);
    }
    run.stop();
}

#[tokio::test]
async fn needs_fix_sends_the_punch_list_back_and_done_ends_the_work() {
    let s = setup(2).await;
    script_explore_and_plan(&s.backend);
    script_implement(&s.backend, "done, I think");
    script_review(
        &s.backend,
        "{\"verdict\": \"NEEDS_FIX\", \"punch_list\": [\"test_add fails: 2+2 gives 0\"]}",
    );
    script_implement(&s.backend, "fixed the sign");
    script_review(&s.backend, "{\"verdict\": \"DONE\"}");
    let evs = run_through(&s, PlanAnswer::Run { plan: None }).await;
    assert_eq!(
        steps(&evs)[6..],
        [
            "implement 1",
            "implement 1 Done",
            "review 1",
            "review 1 Done",
            "verdict NeedsFix fixing=true",
            "implement 2",
            "implement 2 Done",
            "review 2",
            "review 2 Done",
            "verdict Done fixing=false",
            "end",
        ]
    );
    let reqs = s.backend.requests();
    // The second pass answers the punch list, in the same conversation.
    let fix = said(&reqs[7]);
    assert!(fix.contains("test_add fails: 2+2 gives 0"), "{fix}");
    assert!(fix.contains("done, I think"), "{fix}");
    assert_eq!(
        tool_names(&reqs[7]),
        ["read_file", "run_shell", "write_file"]
    );
    assert_eq!(s.write_file.calls.load(Ordering::SeqCst), 2);
    let history = s.store.history("s").await.unwrap();
    assert_eq!(history.last().unwrap().content, "fixed the sign");
}

#[tokio::test]
async fn the_bound_on_fix_passes_holds() {
    let s = setup(1).await;
    script_explore_and_plan(&s.backend);
    for pass in 0..2 {
        script_implement(&s.backend, &format!("pass {pass}"));
        script_review(
            &s.backend,
            "{\"verdict\": \"NEEDS_FIX\", \"punch_list\": [\"still broken\"]}",
        );
    }
    // A third pass would find this; it must never be asked for.
    script_implement(&s.backend, "pass 3");
    let evs = run_through(&s, PlanAnswer::Run { plan: None }).await;
    let steps = steps(&evs);
    assert_eq!(
        steps[steps.len() - 3..],
        ["review 2 Done", "verdict NeedsFix fixing=false", "end"]
    );
    assert_eq!(s.backend.requests().len(), 3 + 2 * 4);
    assert_eq!(s.write_file.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn an_unreadable_verdict_is_a_needs_fix_once_then_it_is_reported() {
    let s = setup(5).await;
    script_explore_and_plan(&s.backend);
    script_implement(&s.backend, "first");
    script_review(&s.backend, "Looks fine to me!");
    script_implement(&s.backend, "second");
    script_review(&s.backend, "{\"verdict\": \"maybe\"}");
    let evs = run_through(&s, PlanAnswer::Run { plan: None }).await;
    let verdicts: Vec<_> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ReviewVerdict {
                verdict,
                fixing,
                punch_list,
                ..
            } => Some((*verdict, *fixing, punch_list.len())),
            _ => None,
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            (Verdict::Unreadable, true, 1),
            (Verdict::Unreadable, false, 1)
        ]
    );
    assert!(is_end(evs.last().unwrap()));
    assert!(matches!(
        evs.last().unwrap().kind,
        EventKind::StreamEnd { .. }
    ));
    assert_eq!(s.backend.requests().len(), 3 + 2 * 4);
}

#[tokio::test]
async fn an_edited_plan_is_the_one_carried_out_and_a_cancel_carries_out_nothing() {
    let s = setup(2).await;
    script_explore_and_plan(&s.backend);
    script_implement(&s.backend, "did the edited step");
    script_review(&s.backend, "{\"verdict\": \"DONE\"}");
    let evs = run_through(
        &s,
        PlanAnswer::Run {
            plan: Some("1. only rename add() to plus()".into()),
        },
    )
    .await;
    assert!(steps(&evs).contains(&"answered Edited".to_owned()));
    let implement = said(&s.backend.requests()[3]);
    assert!(
        implement.contains("1. only rename add() to plus()"),
        "{implement}"
    );
    assert!(!implement.contains("make add() add"), "{implement}");

    let s = setup(2).await;
    script_explore_and_plan(&s.backend);
    let evs = run_through(&s, PlanAnswer::Cancel).await;
    assert_eq!(
        steps(&evs)[4..],
        ["proposed", "answered Cancelled", "stopped"]
    );
    assert_eq!(s.backend.requests().len(), 3, "nothing after the plan");
    let history = s.store.history("s").await.unwrap();
    assert_eq!(
        history.last().unwrap().content,
        "/plan fix add() in calc.rs"
    );
}

/// Where a stop lands.
#[derive(Debug, Clone, Copy)]
enum StopIn {
    Explore,
    PlanCard,
    Implement,
    Review,
}

#[tokio::test]
async fn stop_ends_the_whole_workflow_in_every_phase() {
    for at in [
        StopIn::Explore,
        StopIn::PlanCard,
        StopIn::Implement,
        StopIn::Review,
    ] {
        let s = setup(2).await;
        match at {
            StopIn::Explore => s.backend.push(vec![text("reading"), Piece::Stall]),
            StopIn::PlanCard => script_explore_and_plan(&s.backend),
            StopIn::Implement => {
                script_explore_and_plan(&s.backend);
                s.backend.push(vec![text("editing"), Piece::Stall]);
            }
            StopIn::Review => {
                script_explore_and_plan(&s.backend);
                script_implement(&s.backend, "done");
                s.backend.push(vec![text("checking"), Piece::Stall]);
            }
        }
        let mut run = s.agent.plan_stream("s", "fix add() in calc.rs");
        let mut evs = Vec::new();
        if !matches!(at, StopIn::Explore) {
            evs = events_until(&mut run, |e| proposed(e).is_some()).await;
            let id = proposed(evs.last().unwrap()).unwrap();
            if !matches!(at, StopIn::PlanCard) {
                assert!(s.agent.answer_plan(&id, PlanAnswer::Run { plan: None }));
            }
        }
        // The stalled phase has begun streaming (or the card waits).
        if !matches!(at, StopIn::PlanCard) {
            evs.extend(
                events_until(&mut run, |e| {
                    matches!(e.kind, EventKind::TextDelta { .. })
                        && e.scope.is_subagent == !matches!(at, StopIn::Implement)
                })
                .await,
            );
        }
        run.stop();
        evs.extend(events_until(&mut run, is_end).await);
        let steps = steps(&evs);
        let want_last: &[&str] = match at {
            StopIn::Explore => &["explore 0 Stopped", "stopped"],
            StopIn::PlanCard => &["answered Cancelled", "stopped"],
            StopIn::Implement => &["implement 1 Stopped", "stopped"],
            StopIn::Review => &["review 1 Stopped", "stopped"],
        };
        assert_eq!(steps[steps.len() - 2..], *want_last, "{at:?}: {steps:?}");
        let ended = evs
            .iter()
            .filter(|e| e.kind.is_terminal() && !e.scope.is_subagent)
            .count();
        assert_eq!(ended, 1, "{at:?}: one end");
        if let Some(id) = evs.iter().find_map(proposed) {
            assert!(
                !s.agent.answer_plan(&id, PlanAnswer::Cancel),
                "{at:?}: the plan no longer waits after the end"
            );
        }
        // What ran before the stop is kept; nothing runs after it.
        let outcome = run.outcome().await;
        assert!(
            matches!(outcome, hearth_core::RunOutcome::Stopped { .. }),
            "{at:?}: {outcome:?}"
        );
        if matches!(at, StopIn::Review) {
            let history = s.store.history("s").await.unwrap();
            assert!(history.iter().any(|m| m.content == "done"));
        }
    }
}

#[tokio::test]
async fn plan_with_nothing_to_do_says_what_to_write() {
    let s = setup(2).await;
    let mut run = s.agent.plan_stream("s", "   ");
    let evs = events_until(&mut run, is_end).await;
    match &evs.last().unwrap().kind {
        EventKind::Error { error, .. } => {
            assert!(error.message.contains("after /plan"), "{error:?}")
        }
        other => panic!("{other:?}"),
    }
    assert!(s.backend.requests().is_empty());
    let _ = PhaseOutcome::Done;
    let _ = PlanChoice::Run;
}

#[tokio::test]
async fn a_review_that_fails_counts_as_an_unreadable_verdict() {
    let s = setup(2).await;
    script_explore_and_plan(&s.backend);
    script_implement(&s.backend, "first");
    // The reviewer says nothing at all: the phase fails, the work goes back.
    s.backend.push(vec![text(""), done()]);
    script_implement(&s.backend, "second");
    script_review(&s.backend, "{\"verdict\": \"DONE\"}");
    let evs = run_through(&s, PlanAnswer::Run { plan: None }).await;
    let checks: Vec<u32> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ReviewVerdict { checks, .. } => Some(*checks),
            _ => None,
        })
        .collect();
    assert_eq!(checks, [0, 1], "the failed review checked nothing");
    let steps = steps(&evs);
    assert!(steps.contains(&"review 1 Failed".to_owned()), "{steps:?}");
    assert!(
        steps.contains(&"verdict Unreadable fixing=true".to_owned()),
        "{steps:?}"
    );
    assert_eq!(steps.last().unwrap(), "end");
    assert!(
        steps.contains(&"verdict Done fixing=false".to_owned()),
        "{steps:?}"
    );
}

#[tokio::test]
async fn each_fix_pass_gets_the_cap_on_model_calls_afresh() {
    let s = setup(2).await;
    let profile = Profile {
        auto_approve: vec!["write_file".into(), "run_shell".into()],
        max_iterations: 2,
        ..Profile::new("Agent", "m")
    };
    let agent = Agent::builder(
        s.backend.clone(),
        Arc::new(hearth_core::StaticProfiles::single("Persona", profile)),
    )
    .tools({
        let mut t = ToolRegistry::new();
        t.register(s.read_file.clone());
        t.register(s.write_file.clone());
        t.register(s.run_shell.clone());
        t
    })
    .store(s.store.clone())
    .build();
    script_explore_and_plan(&s.backend);
    // Each pass: a write, then its answer — two calls, the whole cap.
    script_implement(&s.backend, "first");
    script_review(
        &s.backend,
        "{\"verdict\": \"NEEDS_FIX\", \"punch_list\": [\"again\"]}",
    );
    script_implement(&s.backend, "second");
    script_review(&s.backend, "{\"verdict\": \"DONE\"}");
    let mut run = agent.plan_stream("s", "fix add()");
    let mut evs = events_until(&mut run, |e| proposed(e).is_some()).await;
    let id = proposed(evs.last().unwrap()).unwrap();
    assert!(agent.answer_plan(&id, PlanAnswer::Run { plan: None }));
    evs.extend(events_until(&mut run, is_end).await);
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamEnd { .. }),
        "{:?}",
        steps(&evs)
    );
    assert_eq!(s.write_file.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn the_messages_the_workflow_wrote_are_named_and_a_retry_runs_it_again() {
    let s = setup(2).await;
    // The first try: the server fails while exploring.
    s.backend
        .push(vec![Piece::Fail(hearth_core::BackendError::BadRequest {
            message: "the server refused it".into(),
        })]);
    let mut run = s.agent.plan_stream("s", "fix add() in calc.rs");
    let evs = events_until(&mut run, is_end).await;
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::Error { .. }),
        "{:?}",
        steps(&evs)
    );
    drop(run);
    // Retry answers the /plan message again: the workflow, not the bare command.
    script_explore_and_plan(&s.backend);
    script_implement(&s.backend, "done");
    script_review(&s.backend, "{\"verdict\": \"DONE\"}");
    let mut run = s.agent.regenerate_stream("s");
    let mut evs = events_until(&mut run, |e| proposed(e).is_some()).await;
    let id = proposed(evs.last().unwrap()).expect("the workflow ran again");
    assert!(s.agent.answer_plan(&id, PlanAnswer::Run { plan: None }));
    evs.extend(events_until(&mut run, is_end).await);
    assert_eq!(steps(&evs).last().unwrap(), "end");
    // The plan message is the one the implement pass names; the user's
    // own message is not.
    let fed: Vec<i64> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::PhaseStarted {
                message_id: Some(id),
                ..
            } => Some(*id),
            _ => None,
        })
        .collect();
    let stored: Vec<(i64, String)> = evs
        .iter()
        .filter(|e| !e.scope.is_subagent)
        .filter_map(|e| match &e.kind {
            EventKind::MessageStored { message, .. } => Some((message.id, message.content.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(fed.len(), 1);
    let plan_message = stored
        .iter()
        .find(|(id, _)| *id == fed[0])
        .expect("stored in this run");
    assert!(
        plan_message.1.starts_with("Carry out this approved plan"),
        "{}",
        plan_message.1
    );
    let history = s.store.history("s").await.unwrap();
    assert_eq!(
        history
            .iter()
            .filter(|m| m.content == "/plan fix add() in calc.rs")
            .count(),
        1,
        "the command is kept once"
    );
}

#[tokio::test]
async fn an_exploring_phase_reads_the_files_attached_to_the_conversation() {
    // The phase runs in a scratch session of its own; the file is the
    // conversation's, attached in an earlier message.
    let backend = FakeBackend::new();
    let store = Arc::new(InMemoryStore::new());
    let mut tools = ToolRegistry::new();
    tools.register(Arc::new(hearth_core::tools::ReadAttachment(store.clone())));
    let mut asked = ChatMessage::user("here are my notes");
    asked.attachments = vec![hearth_core::Attachment {
        sha256: "cd".repeat(32),
        name: "notes.txt".into(),
        kind: hearth_core::AttachmentKind::Text,
        mime: "text/plain".into(),
        size: 14,
        given: None,
        chars: None,
        body: Some(hearth_core::Body(Arc::from(&b"add() subtracts"[..]))),
    }];
    store.append("s", "earlier", asked).await.unwrap();
    let agent = Agent::builder(
        backend.clone(),
        Arc::new(hearth_core::StaticProfiles::single(
            "Persona",
            Profile::new("Agent", "m"),
        )),
    )
    .tools(tools)
    .store(store.clone())
    .build();
    backend.push(vec![
        call(Some("e1"), "read_attachment", json!({"name": "notes.txt"})),
        done(),
    ]);
    backend.push(vec![text("findings"), done()]);
    backend.push(vec![text("1. nothing"), done()]);
    let mut run = agent.plan_stream("s", "fix what the notes say");
    let mut evs = events_until(&mut run, |e| proposed(e).is_some()).await;
    let id = proposed(evs.last().unwrap()).expect("the plan is proposed");
    assert!(agent.answer_plan(&id, PlanAnswer::Cancel));
    evs.extend(events_until(&mut run, is_end).await);
    assert_eq!(
        tool_names(&backend.requests()[0]),
        ["read_attachment"],
        "a read-only tool, offered to the phase"
    );
    let read = evs.iter().find_map(|e| match &e.kind {
        EventKind::ToolEvent { output, .. }
            if e.scope.parent_call_id.as_deref() == Some("phase_explore_0") =>
        {
            Some(output.clone())
        }
        _ => None,
    });
    assert_eq!(
        read.as_deref(),
        Some("[notes.txt: characters 0 to 15 of 15]\nadd() subtracts")
    );
}
