//! The planning phase as the simulator sees it: the Agent profile asks the
//! planner first; a plan is the next request's prefill; DIRECT is not.

use hearth_core::NO_TOOL_CALLS;
use hearth_core::planning::PLANNER_PROMPT;
use hearth_sim::{Reply, Script};

use super::basics::{hearth, ok, output, side_bodies, sim, turn_bodies};
use crate::MODEL;

fn when(text: &str, on: &str) -> Reply {
    let mut r = Reply::text(text);
    r.when = Some(on.into());
    r
}

/// Worker replies first (they match only their own prompts), then the turn.
fn script(turn: Vec<Reply>) -> Script {
    let mut s = Script::default()
        .with_reply(when("Planning", "Write a title"))
        .with_reply(when("NONE", "durable facts"));
    for r in turn {
        s = s.with_reply(r);
    }
    s
}

#[tokio::test]
async fn a_plan_is_sent_back_as_the_start_of_the_answer_and_direct_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    ok(&["profiles", "--db", &db, "set", "Agent", "--model", MODEL]).await;
    let plan = "1. Look at the question\n2. Answer it briefly";
    let sim = sim(script(vec![Reply::text(plan), Reply::text(" Noon.")])).await;
    let out = output(hearth(&[
        "chat",
        "--db",
        &db,
        "--url",
        &sim.url(),
        "--profile",
        "Agent",
        "--session",
        "s",
        "when is lunch?",
    ]))
    .await;
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("[plan]\n{plan}")), "{stderr}");
    let planners = side_bodies(&sim, "plan");
    let bodies = turn_bodies(&sim);
    assert_eq!(
        (planners.len(), bodies.len()),
        (1, 1),
        "the planner, then the answer"
    );
    let planner = &planners[0];
    let asked = planner["messages"].as_array().unwrap();
    let last = asked.last().unwrap();
    assert_eq!(
        (last["role"].as_str(), last["content"].as_str()),
        (
            Some("user"),
            Some(format!("{PLANNER_PROMPT}\n\n{NO_TOOL_CALLS}").as_str())
        )
    );
    assert_eq!(planner["options"]["temperature"], 0.3);
    let answer = &bodies[0];
    let msgs = answer["messages"].as_array().unwrap();
    // The planner's prompt starts as the answer's, byte for byte: same
    // tools, same messages up to the question; no reasoning before a plan.
    assert!(planner.get("tools").is_some_and(|t| t == &answer["tools"]));
    // (The client leaves `think: false` out for a model without thinking.)
    assert_ne!(planner["think"], true);
    assert_eq!(asked[..asked.len() - 1], msgs[..msgs.len() - 1]);
    let prefill = msgs.last().unwrap();
    assert_eq!(
        (prefill["role"].as_str(), prefill["content"].as_str()),
        (Some("assistant"), Some(plan))
    );
    assert_eq!(msgs[msgs.len() - 2]["content"], "when is lunch?");

    // What the answer showed besides its messages is kept with its run, so
    // the app shows the plan card again after a restart: the plan, the
    // speed, the end; none of the streamed text.
    {
        let (store, _) = hearth_store::Store::open(std::path::PathBuf::from(&db))
            .await
            .unwrap();
        let shown = store.answers_shown("s").await.unwrap();
        assert_eq!(shown.len(), 1);
        let events = &shown[0].1;
        let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
        assert_eq!(kinds.first(), Some(&"run_started"), "{kinds:?}");
        assert_eq!(kinds.last(), Some(&"stream_end"), "{kinds:?}");
        assert!(kinds.contains(&"usage"), "{kinds:?}");
        let ready: Vec<_> = events
            .iter()
            .filter(|e| e["type"] == "plan_ready")
            .collect();
        assert_eq!(ready.len(), 1, "{kinds:?}");
        assert_eq!(ready[0]["plan"], plan);
        assert!(!kinds.iter().any(|k| k.ends_with("_delta")), "{kinds:?}");
        assert!(!serde_json::to_string(events).unwrap().contains("Noon"));
    }

    // The next turn sees the plan as the start of the first answer; its
    // planner says DIRECT, so no prefill.
    sim.push_reply(Reply::text("DIRECT"));
    sim.push_reply(Reply::text("At one."));
    let out = output(hearth(&[
        "chat",
        "--db",
        &db,
        "--url",
        &sim.url(),
        "--profile",
        "Agent",
        "--session",
        "s",
        "and dinner?",
    ]))
    .await;
    assert!(out.status.success());
    let bodies = turn_bodies(&sim);
    let last_turn = bodies.last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .clone();
    let contents: Vec<(&str, &str)> = last_turn
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        contents[1..],
        [
            ("user", "when is lunch?"),
            (
                "assistant",
                "1. Look at the question\n2. Answer it briefly Noon."
            ),
            ("user", "and dinner?"),
        ]
    );
}
