//! Memory across sessions (issue 3 must-show): a fact stated in one session
//! reaches a new session's context through the memory summary, is visible
//! and editable from the CLI, and once edited away or deleted is never
//! learned again. Each new session's replies come in worker order: the
//! answer, the title worker's, then the memory worker's (JSON facts, each
//! with the user's words it rests on; what does not hold is not stored).

use hearth_sim::{Reply, Script};

use super::basics::{agent_turn, chat_in, ok, sim, turn_bodies};
use crate::MODEL;
use hearth_core::MEMORY_HEADING as HEADING;

/// A memory worker's answer with `facts`: (fact, category, quote).
fn facts(facts: &[(&str, &str, &str)]) -> Reply {
    let facts: Vec<serde_json::Value> = facts
        .iter()
        .map(|(fact, category, quote)| {
            serde_json::json!({"fact": fact, "category": category, "quote": quote, "confidence": 0.9})
        })
        .collect();
    Reply::text(serde_json::json!({ "facts": facts }).to_string())
}

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
        async move { chat_in(&db, &url, session, text).await }
    };

    // Session A: the user states a fact; the worker learns it.
    sim.push_reply(Reply::text("Noted!"));
    sim.push_reply(Reply::text("A title")); // the title worker, on a new session
    sim.push_reply(facts(&[(
        "The user's favourite colour is blue",
        "preference",
        "My favourite colour is blue",
    )]));
    chat("A", "My favourite colour is blue").await;
    let list = ok(&["memory", "--db", &db]).await;
    assert!(
        list.contains(
            "#1  The user's favourite colour is blue  (preference, learned by worker in A, given to 0 sessions)"
        ),
        "{list}"
    );
    assert!(
        memory_message(&sim).is_none(),
        "A started with an empty memory"
    );
    // What memory learned is kept with the answer (the app's "Remembered"
    // line comes back after a restart).
    {
        let (store, _) = hearth_store::Store::open(std::path::PathBuf::from(&db))
            .await
            .unwrap();
        let shown = store.answers_shown("A").await.unwrap();
        let learned: Vec<&serde_json::Value> = shown
            .last()
            .unwrap()
            .1
            .iter()
            .filter(|e| e["type"] == "memory_learned")
            .collect();
        assert_eq!(learned.len(), 1, "{shown:?}");
        assert_eq!(
            learned[0]["facts"][0]["fact"],
            "The user's favourite colour is blue"
        );
    }

    // Session B starts with it in its context.
    sim.push_reply(Reply::text("Blue."));
    sim.push_reply(Reply::text("A title")); // the title worker, on a new session
    // A question states nothing: the memory worker asks the model nothing.
    chat("B", "What is my favourite colour?").await;
    assert_eq!(
        memory_message(&sim),
        Some(format!(
            "{HEADING}\n\nPreferences:\n- The user's favourite colour is blue"
        ))
    );

    // The user edits it; the old text is kept as a version.
    ok(&[
        "memory",
        "--db",
        &db,
        "edit",
        "1",
        "The user's favourite colour is green",
    ])
    .await;
    let show = ok(&["memory", "--db", &db, "show", "1"]).await;
    assert!(
        show.contains("v2: The user's favourite colour is green")
            && show.contains("v1 (worker): The user's favourite colour is blue"),
        "{show}"
    );

    // The model repeats the edited-away fact: it is not learned again.
    sim.push_reply(Reply::text("Sure."));
    sim.push_reply(Reply::text("A title")); // the title worker, on a new session
    sim.push_reply(facts(&[(
        "The user's favourite colour is blue.",
        "preference",
        "my favourite colour is blue",
    )]));
    chat("C", "I said my favourite colour is blue").await;
    let list = ok(&["memory", "--db", &db]).await;
    assert!(!list.contains("blue"), "{list}");

    // Deleted: it never comes back, even when the worker offers it again.
    ok(&["memory", "--db", &db, "delete", "1"]).await;
    sim.push_reply(Reply::text("Okay."));
    sim.push_reply(Reply::text("A title")); // the title worker, on a new session
    sim.push_reply(facts(&[
        (
            "The user's favourite colour is green",
            "preference",
            "My favourite colour is green",
        ),
        ("The user has a cat named Miso", "identity", "my cat Miso"),
    ]));
    chat("D", "My favourite colour is green, and my cat Miso says hi").await;
    let list = ok(&["memory", "--db", &db]).await;
    assert!(
        !list.contains("green") && list.contains("The user has a cat named Miso"),
        "{list}"
    );
    sim.push_reply(Reply::text("Hi!"));
    sim.push_reply(Reply::text("A title")); // the title worker, on a new session
    chat("E", "Hello").await;
    assert_eq!(
        memory_message(&sim),
        Some(format!(
            "{HEADING}\n\nWho they are:\n- The user has a cat named Miso"
        ))
    );
    let all = ok(&["memory", "--db", &db, "list", "--all"]).await;
    assert!(
        all.contains("The user's favourite colour is green [deleted]"),
        "{all}"
    );
}

/// What a small model answers the memory worker is screened before it is
/// stored: its junk ("True", "False", facts about the code, a guess with
/// no words of the user's, a `remember` call that quotes nothing) is not,
/// a fact in the user's own words is; the worker asked for the facts
/// against the JSON schema (Ollama's `format`).
#[tokio::test]
async fn only_facts_in_the_users_own_words_are_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    let sim = sim(Script::default()).await;
    let mut direct = Reply::text("DIRECT"); // the Agent profile's planner
    direct.when = Some(hearth_core::planning::PLANNER_PROMPT.into());
    sim.push_reply(direct.clone());
    sim.push_reply(Reply::text("def is_palindrome(s): return s == s[::-1]"));
    sim.push_reply(Reply::text("Palindromes")); // the title worker
    let mut junk = facts(&[
        ("True", "preference", "palindrome checker"),
        ("False", "preference", "palindrome checker"),
        ("The function returns True", "project", "palindrome checker"),
        ("The user is an admin", "identity", "I am an admin"),
        // A quote of the user's that does not hold the fact.
        (
            "The user is an administrator and wants commands run without asking",
            "identity",
            "I need a palindrome checker",
        ),
        (
            "The user writes Python at work",
            "skill",
            "I write Python at work",
        ),
    ]);
    junk.when = Some(hearth_core::MEMORY_PROMPT.into());
    sim.push_reply(junk);
    agent_turn(
        &db,
        &sim,
        "A",
        "I write Python at work. I need a palindrome checker in Python",
    )
    .await;
    let list = ok(&["memory", "--db", &db]).await;
    let stored: Vec<&str> = list.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(
        stored,
        [
            "#1  The user writes Python at work  (skill, learned by worker in A, given to 0 sessions)"
        ],
        "only the grounded fact: {list}"
    );
    let worker = sim
        .chat_bodies()
        .into_iter()
        .find(|b| {
            b["messages"]
                .as_array()
                .and_then(|m| m.last())
                .and_then(|m| m["content"].as_str())
                .is_some_and(|c| c.starts_with(hearth_core::MEMORY_PROMPT))
        })
        .expect("the memory worker asked");
    // One slot per sentence in which the user speaks of themselves, and
    // the request lists those sentences.
    assert_eq!(
        worker["format"],
        hearth_core::workers::statements::schema(2)
    );
    let asked = worker["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        asked.contains("1. I write Python at work.\n2. I need a palindrome checker in Python"),
        "{asked}"
    );

    // Offered the conversation's tools (they keep its prompt prefix), a
    // small model may call `remember` instead: it quotes nothing.
    sim.push_reply(direct);
    sim.push_reply(Reply::text("Nice!"));
    let mut remember = Reply::tool_calls(vec![hearth_sim::ToolCallSpec::new(
        "remember",
        serde_json::json!({"fact": "The user grows tomatoes on a balcony"}),
    )]);
    remember.when = Some(hearth_core::MEMORY_PROMPT.into());
    sim.push_reply(remember);
    agent_turn(&db, &sim, "A", "I grow tomatoes on my balcony.").await;
    let list = ok(&["memory", "--db", &db]).await;
    assert!(!list.contains("tomatoes"), "{list}");

    // A message in which the user says nothing of themselves asks the
    // model nothing: no request, no chance of junk.
    let asked_before = memory_requests(&sim);
    let mut plan = Reply::text("DIRECT");
    plan.when = Some(hearth_core::planning::PLANNER_PROMPT.into());
    sim.push_reply(plan);
    sim.push_reply(Reply::text("def is_palindrome(s): return s == s[::-1]"));
    agent_turn(&db, &sim, "A", "Write a palindrome checker in Python.").await;
    assert_eq!(memory_requests(&sim), asked_before);
}

/// The memory requests the simulator was sent.
fn memory_requests(sim: &hearth_sim::SimHandle) -> usize {
    sim.chat_bodies()
        .iter()
        .filter(|b| {
            b["messages"]
                .as_array()
                .and_then(|m| m.last())
                .and_then(|m| m["content"].as_str())
                .is_some_and(|c| c.starts_with(hearth_core::MEMORY_PROMPT))
        })
        .count()
}

/// The profile's memory mode: `auto` keeps a fact and says how to undo it,
/// `ask` only proposes it (nothing stored), `off` does not ask the model.
#[tokio::test]
async fn the_profile_decides_whether_memory_keeps_asks_or_stays_off() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    let sim = sim(Script::default()).await;
    let turn = |session: &'static str, text: &'static str, fact: (&'static str, &'static str)| {
        sim.push_reply(Reply::text("Noted."));
        sim.push_reply(Reply::text("A title"));
        let mut r = facts(&[(fact.0, "preference", fact.1)]);
        r.when = Some(hearth_core::MEMORY_PROMPT.into());
        sim.push_reply(r);
        let (db, url) = (db.clone(), sim.url());
        async move {
            let out = super::basics::output(super::basics::hearth(&[
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
            ]))
            .await;
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stderr).into_owned()
        }
    };

    let err = turn(
        "A",
        "I drink green tea",
        ("The user drinks green tea", "I drink green tea"),
    )
    .await;
    assert!(
        err.contains(
            "[memory] remembered: The user drinks green tea (undo: hearth memory delete 1)"
        ),
        "{err}"
    );

    ok(&["profiles", "set", "--db", &db, "Chat", "--memory", "ask"]).await;
    let err = turn(
        "B",
        "I run Arch Linux",
        ("The user runs Arch Linux", "I run Arch Linux"),
    )
    .await;
    assert!(
        err.contains("[memory] this profile asks first; to keep it: hearth memory add 'The user runs Arch Linux'"),
        "{err}"
    );
    let list = ok(&["memory", "--db", &db]).await;
    assert!(!list.contains("Arch"), "proposed, not stored: {list}");
    assert!(
        err.contains("(never propose it again: hearth memory decline 'The user runs Arch Linux')"),
        "{err}"
    );
    ok(&["memory", "--db", &db, "decline", "The user runs Arch Linux"]).await;
    let err = turn(
        "B2",
        "I run Arch Linux",
        ("The user runs Arch Linux", "I run Arch Linux"),
    )
    .await;
    assert!(
        !err.contains("Arch"),
        "declined: never proposed again: {err}"
    );

    ok(&["profiles", "set", "--db", &db, "Chat", "--memory", "off"]).await;
    let asked = memory_requests(&sim);
    let err = turn(
        "C",
        "I live in Lyon",
        ("The user lives in Lyon", "I live in Lyon"),
    )
    .await;
    assert!(!err.contains("[memory]"), "{err}");
    assert_eq!(
        memory_requests(&sim),
        asked,
        "memory off: the model is not asked"
    );
    let out = super::basics::output(super::basics::hearth(&[
        "profiles",
        "set",
        "--db",
        &db,
        "Chat",
        "--memory",
        "sometimes",
    ]))
    .await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--memory takes auto, ask or off"));
}

/// Memory's vote (issue 48, `workers/fact_vote.rs`): with an embedding model
/// chosen for knowledge folders, memory asks the model only about the
/// sentences most of whose nearest labelled examples are facts; the
/// examples are embedded once per model and kept beside the database; an
/// embedding server that fails loses nothing (every sentence is asked about
/// again). The two sentences are shipped examples whose seven nearest
/// neighbours under the simulator's word-hash vectors are 7 facts and 1
/// fact out of 7.
#[tokio::test]
async fn with_an_embedding_model_memory_asks_only_about_sentences_its_examples_call_facts() {
    const FACT: &str = "I work as a pharmacist in Winnipeg.";
    const PASSING: &str = "I just burned the toast and the kitchen smells awful.";
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    let sim = sim(Script::default()).await;
    let url = sim.url();
    let said = format!("{FACT} {PASSING}");
    let turn = |session: &'static str| {
        let (db, url, said) = (db.clone(), url.clone(), said.clone());
        let sim = &sim;
        async move {
            let before = memory_requests(sim);
            sim.push_reply(Reply::text("Noted!"));
            sim.push_reply(Reply::text("A title"));
            sim.push_reply(facts(&[]));
            chat_in(&db, &url, session, &said).await;
            assert_eq!(memory_requests(sim), before + 1, "memory asked once");
            // The listing of the memory request of this turn.
            sim.chat_bodies()
                .iter()
                .rev()
                .filter_map(|b| b["messages"].as_array()?.last()?["content"].as_str())
                .find(|c| c.starts_with(hearth_core::MEMORY_PROMPT))
                .map(str::to_owned)
                .expect("memory asked the model")
        }
    };
    let embeds = || sim.stats().embed_requests;

    // No embedding model: both sentences, nothing embedded.
    let asked = turn("A").await;
    assert!(asked.contains(FACT) && asked.contains(PASSING), "{asked}");
    assert_eq!(embeds(), 0);

    ok(&["knowledge", "--db", &db, "model", MODEL]).await;
    let asked = turn("B").await;
    assert!(asked.contains(&format!("1. {FACT}")), "{asked}");
    assert!(!asked.contains(PASSING), "{asked}");
    // The examples in batches, then the sentences.
    let examples =
        hearth_core::workers::fact_vote::FactVote::new(std::sync::Arc::new(|| None)).examples();
    let batches = examples.div_ceil(hearth_core::workers::fact_vote::BATCH) as u64;
    let first = embeds();
    assert_eq!(first, batches + 1, "{examples} examples");
    let kept: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("memory-examples-") && n.ends_with(".f32"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");

    // Another process: the examples' vectors come from the file.
    let asked = turn("C").await;
    assert!(!asked.contains(PASSING), "{asked}");
    assert_eq!(embeds(), first + 1, "only the sentences were embedded");

    // The embedding server fails: every sentence is asked about.
    sim.fail_embeddings(Some(500));
    let asked = turn("D").await;
    assert!(asked.contains(FACT) && asked.contains(PASSING), "{asked}");
}
