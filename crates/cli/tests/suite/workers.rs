//! Post-turn work as the CLI runs it: a title after the first answer, and
//! compaction of a long session into summaries that stand in for old
//! messages in what is sent — while every message stays stored and no
//! request ever forces a reload. (The simulator's echo answers the workers.)

use hearth_core::NO_TOOL_CALLS;
use hearth_sim::{Reply, Script};
use serde_json::json;

use super::basics::{agent_turn, ok, side_bodies, sim, turn_bodies};
use crate::MODEL;

#[tokio::test]
async fn a_title_after_the_first_answer_and_compaction_of_a_long_session() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let db = path.to_str().unwrap().to_owned();
    // Summaries are scripted (an echo of the summarizer's prompt would be
    // longer than what it summarizes); everything else is echoed.
    let mut script = Script::default();
    for _ in 0..6 {
        let mut r = Reply::text("The user is planning a garden: tomatoes and basil.");
        r.when = Some("Summarize this conversation".into());
        script = script.with_reply(r);
    }
    let sim = sim(script).await;
    let url = sim.url();
    // A small window for this model, so a few turns pass the threshold
    // (the sim counts a token per word: 400 holds about five turns).
    ok(&["profiles", "--db", &db]).await;
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute(
            "INSERT INTO model_settings (model, num_ctx, keep_alive, shift, updated_at) VALUES (?1, 400, 1800, 1, 0)",
            [MODEL],
        )
        .unwrap();
    }
    let long = "Please remember this detail about the garden plan: ".to_owned()
        + &"tomatoes and basil ".repeat(8);
    for i in 0..6 {
        let msg = format!("turn {i}: {long}");
        ok(&[
            "chat",
            "--db",
            &db,
            "--url",
            &url,
            "--model",
            MODEL,
            "--session",
            "s",
            &msg,
        ])
        .await;
    }

    // A title was generated once, after the first answer.
    let list = ok(&["sessions", "--db", &db]).await;
    let row = list
        .lines()
        .find(|l| l.starts_with("s "))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(row.contains("You said: Write a title"), "{row}");
    let title_calls = sim
        .chat_bodies()
        .iter()
        .filter(|b| b.to_string().contains("Write a title"))
        .count();
    assert_eq!(title_calls, 1);

    // Compaction: the last turn sent a summary instead of the oldest turns.
    let last = turn_bodies(&sim).last().cloned().unwrap();
    let msgs = last["messages"].as_array().unwrap();
    assert!(
        msgs.iter().any(|m| m["content"]
            .as_str()
            .unwrap()
            .starts_with("## Summary of the earlier conversation")),
        "{last}"
    );
    let users = msgs.iter().filter(|m| m["role"] == "user").count();
    assert!(
        users < 6,
        "old turns were replaced by the summary: {users} user messages sent"
    );
    // Nothing was deleted: all 12 messages are stored.
    let shown = ok(&["sessions", "--db", &db, "show", "s"]).await;
    assert_eq!(
        shown.lines().filter(|l| l.starts_with("you: turn")).count(),
        6,
        "{shown}"
    );
    let c = rusqlite::Connection::open(&path).unwrap();
    let summaries: i64 = c
        .query_row("SELECT count(*) FROM summaries", [], |r| r.get(0))
        .unwrap();
    assert!(summaries >= 1);

    // Every request to the model — turns, title, memory, compaction, preloads
    // — carried the same load options: loaded once, never reloaded.
    for b in sim.chat_bodies() {
        assert_eq!(
            (b["options"]["num_ctx"].clone(), b["keep_alive"].clone()),
            (json!(400), json!(1800)),
            "{b}"
        );
    }
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.unloads), (1, 0));
}

/// The title and memory requests after an answer start exactly as the
/// next turn's request does — the same messages, tool list and reasoning
/// switch, byte for byte — and put their question last, so a server with
/// one cache slot serves them from the conversation's cache and still
/// holds it for the next turn (docs/design.md §5).
#[tokio::test]
async fn the_workers_send_the_next_turns_prefix_and_their_question_last() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    let sim = sim(Script::default()).await;
    for question in [
        "I grow tomatoes on my balcony.",
        "I have room for two more pots. What should I plant next?",
    ] {
        agent_turn(&db, &sim, "s", question).await;
    }
    let turns = turn_bodies(&sim);
    let title = side_bodies(&sim, "title");
    let memory = side_bodies(&sim, "memory");
    assert_eq!((turns.len(), title.len(), memory.len()), (2, 1, 2));
    let next = &turns[1];
    let sent = next["messages"].as_array().unwrap();
    for side in [&title[0], &memory[0]] {
        let asked = side["messages"].as_array().unwrap();
        let (question, prefix) = asked.split_last().unwrap();
        assert_eq!(question["role"], "user");
        assert!(
            question["content"]
                .as_str()
                .unwrap()
                .ends_with(NO_TOOL_CALLS)
        );
        // Everything before the question is how the next turn begins.
        assert_eq!(prefix, &sent[..prefix.len()]);
        assert_eq!(
            sent[prefix.len()]["content"],
            "I have room for two more pots. What should I plant next?"
        );
        assert_eq!(
            prefix.len() + 1,
            sent.len(),
            "the next turn adds only its question"
        );
        assert!(side.get("tools").is_some_and(|t| t == &next["tools"]));
        assert_eq!(side.get("think"), next.get("think"));
        assert_eq!(side["options"]["num_ctx"], next["options"]["num_ctx"]);
    }
}
