//! The planning phase: DIRECT, a malformed answer and a real plan each take
//! their path; a plan streams, is announced, and is the prefill the model
//! continues from; what is stored stays a valid conversation.

use hearth_core::planning::{PLANNER_PROMPT, PLANNER_TEMPERATURE};
use hearth_core::tools::builtin_registry;
use hearth_core::{NO_TOOL_CALLS, Profile, Role};
use hearth_protocol::EventKind;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::fake::{FakeBackend, agent, call, done, events, kinds, text};

fn planner() -> Profile {
    Profile {
        planning_enabled: true,
        ..Profile::new("Agent", "m")
    }
}

#[tokio::test]
async fn direct_means_no_plan() {
    let backend = FakeBackend::new();
    backend.push(vec![text("DIRECT"), done()]);
    backend.push(vec![text("Hello!"), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), planner());
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    assert_eq!(kinds(&evs), vec!["run_started", "text", "usage", "end"]);
    let reqs = backend.requests();
    assert_eq!(reqs.len(), 2);
    // The planning call: the conversation plus the question, with the
    // answer's tools (its prompt starts as the answer's does), thinking
    // off, temperature 0.3.
    let ask = &reqs[0];
    assert_eq!(
        ask.messages.last().unwrap().content,
        format!("{PLANNER_PROMPT}\n\n{NO_TOOL_CALLS}")
    );
    assert_eq!(
        ask.messages[..ask.messages.len() - 1],
        reqs[1].messages[..],
        "same prefix"
    );
    assert_eq!(ask.tools, reqs[1].tools);
    assert!(!ask.tools.is_empty());
    assert_eq!(
        (ask.think, ask.temperature),
        (Some(hearth_core::Think::OFF), Some(PLANNER_TEMPERATURE))
    );
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[1].content, "Hello!");
}

#[tokio::test]
async fn a_malformed_answer_is_no_plan() {
    let backend = FakeBackend::new();
    backend.push(vec![text("I would simply answer the question."), done()]);
    backend.push(vec![text("42"), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), planner());
    let mut run = agent.run_stream("s", "answer?");
    let evs = events(&mut run).await;
    assert!(!kinds(&evs).iter().any(|k| k.starts_with("plan")));
    let second = &backend.requests()[1].messages;
    assert_eq!(second.last().unwrap().role, Role::User, "no prefill");
}

/// What Qwen2.5-Coder 0.5B answered the planner (user pass 2026-12, defect
/// 3): a DIRECT written as a numbered step, and a one-step "plan". Neither
/// is shown nor prefilled: the answer starts from the user's message, as
/// with planning off.
#[tokio::test]
async fn a_decorated_direct_or_a_single_step_is_no_plan() {
    for planner_said in [
        "1. Direct",
        "**direct**",
        "1. Directly call the run_shell function",
    ] {
        let backend = FakeBackend::new();
        backend.push(vec![text(planner_said), done()]);
        backend.push(vec![text("Done."), done()]);
        let (agent, _) = agent(backend.clone(), builtin_registry(), planner());
        let mut run = agent.run_stream("s", "Use run_shell to run: wc -l shopping.txt");
        let evs = events(&mut run).await;
        assert!(
            !kinds(&evs).iter().any(|k| k.starts_with("plan")),
            "{planner_said}: {:?}",
            kinds(&evs)
        );
        let second = &backend.requests()[1].messages;
        assert_eq!(
            second.last().unwrap().role,
            Role::User,
            "{planner_said}: no prefill"
        );
        let history = agent.store().history("s").await.unwrap();
        assert_eq!(history[1].content, "Done.", "{planner_said}");
    }
}

/// A model the server says is smaller than the planning floor is not asked
/// for a plan at all: one request, the answer's.
#[tokio::test]
async fn a_small_model_is_not_asked_for_a_plan() {
    let backend = FakeBackend::new();
    *backend.parameters.lock().unwrap() = Some(494_032_768);
    backend.push(vec![text("Done."), done()]);
    let (small, _) = agent(backend.clone(), builtin_registry(), planner());
    let mut run = small.run_stream("s", "list the files here");
    let evs = events(&mut run).await;
    assert!(!kinds(&evs).iter().any(|k| k.starts_with("plan")));
    let reqs = backend.requests();
    assert_eq!(reqs.len(), 1, "no planning call");
    assert!(
        !reqs[0]
            .messages
            .iter()
            .any(|m| m.content.contains(PLANNER_PROMPT))
    );
    // At the floor it is asked.
    let backend = FakeBackend::new();
    *backend.parameters.lock().unwrap() = Some(hearth_core::planning::PLANNING_MIN_PARAMETERS);
    backend.push(vec![text("DIRECT"), done()]);
    backend.push(vec![text("Done."), done()]);
    let (asked, _) = agent(backend.clone(), builtin_registry(), planner());
    let mut run = asked.run_stream("s", "list the files here");
    events(&mut run).await;
    assert_eq!(backend.requests().len(), 2, "asked for a plan");
}

/// A server that never says the model's size does not hold the run: after
/// a short wait the model is asked for a plan, as one of unknown size.
#[tokio::test(start_paused = true)]
async fn a_server_slow_to_say_the_size_does_not_hold_the_run() {
    let backend = FakeBackend::new();
    backend
        .size_hangs
        .store(true, std::sync::atomic::Ordering::SeqCst);
    backend.push(vec![text("DIRECT"), done()]);
    backend.push(vec![text("Done."), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), planner());
    let mut run = agent.run_stream("s", "list the files here");
    let evs = events(&mut run).await;
    assert_eq!(
        kinds(&evs).last().copied(),
        Some("end"),
        "{:?}",
        kinds(&evs)
    );
    assert_eq!(
        backend.requests().len(),
        2,
        "asked for a plan, then answered"
    );
}

#[tokio::test]
async fn a_plan_streams_is_continued_and_stored_as_the_answers_start() {
    let backend = FakeBackend::new();
    backend.push(vec![
        text("1. Work out"),
        text(" 6*7\n2. Tell the user"),
        done(),
    ]);
    backend.push(vec![
        call(None, "update_plan", json!({"done": [1]})),
        call(None, "calculator", json!({"expression": "6*7"})),
        done(),
    ]);
    backend.push(vec![text("It is 42."), done()]);
    let (agent, _) = agent(backend.clone(), builtin_registry(), planner());
    let mut run = agent.run_stream("s", "what is 6*7?");
    let evs = events(&mut run).await;
    let k = kinds(&evs);
    // Shown once it is a plan: at its second step.
    assert_eq!(
        &k[..3],
        ["run_started", "plan_delta", "plan_ready"],
        "{k:?}"
    );
    let streamed: String = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::PlanDelta { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, "1. Work out 6*7\n2. Tell the user");
    assert!(
        evs.iter()
            .any(|e| matches!(&e.kind, EventKind::PlanProgress { done } if done == &[1]))
    );
    // The model continues from the plan: it is the last message it gets.
    let reqs = backend.requests();
    assert_eq!(
        reqs.len(),
        3,
        "planner, the answer that calls tools, the last answer"
    );
    let prefill = reqs[1].messages.last().unwrap();
    assert_eq!(
        (prefill.role, prefill.content.as_str()),
        (Role::Assistant, "1. Work out 6*7\n2. Tell the user")
    );
    // And it is in every later request as the start of the first answer:
    // user, assistant (plan + calls), tool, tool — no two assistants in a row.
    let roles: Vec<Role> = reqs[2].messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Tool
        ]
    );
    assert!(reqs[2].messages[2].content.starts_with("1. Work out 6*7"));
    let history = agent.store().history("s").await.unwrap();
    assert!(
        history
            .windows(2)
            .all(|w| !(w[0].role == Role::Assistant && w[1].role == Role::Assistant))
    );
    assert_eq!(history.last().unwrap().content, "It is 42.");
}

#[tokio::test]
async fn no_planning_outside_the_streaming_path_or_when_the_profile_is_off() {
    let backend = FakeBackend::new();
    backend.push(vec![text("plain"), done()]);
    let (plain, _) = agent(backend.clone(), builtin_registry(), planner());
    let answer = plain.run("s", "hi", Default::default()).await.unwrap();
    assert_eq!(answer, "plain");
    assert_eq!(backend.requests().len(), 1);

    let backend = FakeBackend::new();
    backend.push(vec![text("plain"), done()]);
    let (agent, _) = agent(
        backend.clone(),
        builtin_registry(),
        Profile::new("Chat", "m"),
    );
    let mut run = agent.run_stream("s", "hi");
    events(&mut run).await;
    assert_eq!(backend.requests().len(), 1);
}
