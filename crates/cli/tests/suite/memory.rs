//! Memory across sessions (issue 3 must-show): a fact stated in one session
//! reaches a new session's context through the memory summary, is visible
//! and editable from the CLI, and once edited away or deleted is never
//! learned again. Each new session's replies come in worker order: the
//! answer, the title worker's, then the memory worker's.

use hearth_sim::{Reply, Script};

use super::basics::{agent_turn, ok, sim, turn_bodies};
use crate::MODEL;
use hearth_core::MEMORY_HEADING as HEADING;

/// The memory message of the last turn's request, if any.
fn memory_message(sim: &hearth_sim::SimHandle) -> Option<String> {
    let body = turn_bodies(sim).last().cloned().unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .filter_map(|m| m["content"].as_str())
        .find(|c| c.starts_with(HEADING))
        .map(str::to_owned)
}

#[tokio::test]
async fn a_fact_reaches_new_sessions_is_editable_and_once_deleted_never_returns() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    let sim = sim(Script::default()).await;
    let url = sim.url();
    let chat = |session: &'static str, text: &'static str| {
        let (db, url) = (db.clone(), url.clone());
        async move {
            ok(&[
                "chat",
                "--db",
                &db,
                "--url",
                &url,
                "--model",
                MODEL,
                "--session",
                session,
                text,
            ])
            .await
        }
    };

    // Session A: the user states a fact; the worker learns it.
    sim.push_reply(Reply::text("Noted!"));
    sim.push_reply(Reply::text("A title")); // the title worker, on a new session
    sim.push_reply(Reply::text("- Favourite colour is blue"));
    chat("A", "My favourite colour is blue").await;
    let list = ok(&["memory", "--db", &db]).await;
    assert!(
        list.contains("#1  Favourite colour is blue  (learned by worker in A)"),
        "{list}"
    );
    assert!(
        memory_message(&sim).is_none(),
        "A started with an empty memory"
    );

    // Session B starts with it in its context.
    sim.push_reply(Reply::text("Blue."));
    sim.push_reply(Reply::text("A title")); // the title worker, on a new session
    sim.push_reply(Reply::text("NONE"));
    chat("B", "What is my favourite colour?").await;
    assert_eq!(
        memory_message(&sim),
        Some(format!("{HEADING}\n\n- Favourite colour is blue"))
    );

    // The user edits it; the old text is kept as a version.
    ok(&[
        "memory",
        "--db",
        &db,
        "edit",
        "1",
        "Favourite colour is green",
    ])
    .await;
    let show = ok(&["memory", "--db", &db, "show", "1"]).await;
    assert!(
        show.contains("v2: Favourite colour is green")
            && show.contains("v1 (worker): Favourite colour is blue"),
        "{show}"
    );

    // The model repeats the edited-away fact: it is not learned again.
    sim.push_reply(Reply::text("Sure."));
    sim.push_reply(Reply::text("A title")); // the title worker, on a new session
    sim.push_reply(Reply::text("- Favourite colour is blue."));
    chat("C", "I said my favourite colour is blue").await;
    let list = ok(&["memory", "--db", &db]).await;
    assert!(!list.contains("blue"), "{list}");

    // Deleted: it never comes back, even when the worker offers it again.
    ok(&["memory", "--db", &db, "delete", "1"]).await;
    sim.push_reply(Reply::text("Okay."));
    sim.push_reply(Reply::text("A title")); // the title worker, on a new session
    sim.push_reply(Reply::text(
        "- Favourite colour is green\n- Owns a cat named Miso",
    ));
    chat("D", "Green, and my cat Miso says hi").await;
    let list = ok(&["memory", "--db", &db]).await;
    assert!(
        !list.contains("green") && list.contains("Owns a cat named Miso"),
        "{list}"
    );
    sim.push_reply(Reply::text("Hi!"));
    sim.push_reply(Reply::text("A title")); // the title worker, on a new session
    sim.push_reply(Reply::text("NONE"));
    chat("E", "Hello").await;
    assert_eq!(
        memory_message(&sim),
        Some(format!("{HEADING}\n\n- Owns a cat named Miso"))
    );
    let all = ok(&["memory", "--db", &db, "list", "--all"]).await;
    assert!(all.contains("Favourite colour is green [deleted]"), "{all}");
}

/// Offered the conversation's tools (they keep its prompt prefix), a small
/// model may answer the memory worker with a `remember` call instead of a
/// list: the fact is learned all the same.
#[tokio::test]
async fn a_remember_call_in_the_memory_answer_is_a_fact() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    let sim = sim(Script::default()).await;
    let mut direct = Reply::text("DIRECT"); // the Agent profile's planner
    direct.when = Some(hearth_core::planning::PLANNER_PROMPT.into());
    sim.push_reply(direct);
    sim.push_reply(Reply::text("Nice!"));
    sim.push_reply(Reply::text("Balcony garden")); // the title worker
    let mut remember = Reply::tool_calls(vec![hearth_sim::ToolCallSpec::new(
        "remember",
        serde_json::json!({"fact": "Grows tomatoes on a balcony"}),
    )]);
    remember.when = Some(hearth_core::MEMORY_PROMPT.into());
    sim.push_reply(remember);
    agent_turn(&db, &sim, "A", "I grow tomatoes on my balcony.").await;
    let list = ok(&["memory", "--db", &db]).await;
    assert!(
        list.contains("#1  Grows tomatoes on a balcony  (learned by worker in A)"),
        "{list}"
    );
}
