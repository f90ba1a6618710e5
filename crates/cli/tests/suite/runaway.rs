//! A hostile or broken model that never stops: the real agent against
//! hearth-sim sends the profile's token limit on the wire and ends a
//! looping answer with a notice; what is stored stays small.

use hearth_sim::Reply;

use super::basics::{ok, sim, turn_bodies, with_workers};
use crate::MODEL;

#[tokio::test]
async fn a_looping_answer_is_ended_and_the_limit_is_on_the_wire() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    let script = with_workers("Loop");
    let looping = "I will now call the tool. ".repeat(4_000);
    let sim = sim(script
        .with_reply(Reply::text(&looping))
        .with_reply(Reply::text("Sorry about that.")))
    .await;
    let out = ok(&[
        "chat",
        "--db",
        &db,
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "hello",
    ])
    .await;
    assert!(
        out.contains("[Hearth ended this answer: the model was repeating"),
        "{out}"
    );
    assert!(
        out.len() < 8_000,
        "the answer was ended early: {} bytes",
        out.len()
    );
    let body = turn_bodies(&sim).into_iter().next().unwrap();
    assert_eq!(body["options"]["num_predict"], 16_384, "{body}");
    let session = ok(&["sessions", "--db", &db]).await;
    let id = session.split_whitespace().next().unwrap().to_owned();
    let shown = ok(&["sessions", "--db", &db, "show", &id]).await;
    assert!(shown.contains("repeating the same text"), "{shown}");
    assert!(shown.len() < 8_000, "{} bytes stored", shown.len());

    // The next turn sends the ended answer back without Hearth's notice:
    // it is Hearth's word to the user, not the model's (user pass
    // 2026-12, defect 9).
    ok(&[
        "chat",
        "--db",
        &db,
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "--session",
        &id,
        "and now?",
    ])
    .await;
    let next = turn_bodies(&sim)
        .into_iter()
        .find(|b| b.to_string().contains("and now?"))
        .expect("the second turn's request");
    let sent = next["messages"].to_string();
    assert!(sent.contains("I will now call the tool."), "{sent}");
    assert!(!sent.contains("Hearth ended this answer"), "{sent}");
}
