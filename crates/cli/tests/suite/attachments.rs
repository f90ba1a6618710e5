//! `hearth chat --attach`: a picture reaches a model that can see as
//! Ollama's `images`, a text file goes into the message cut to the window
//! with a note, the agent reads the rest with `read_attachment`, a model
//! that cannot see refuses before anything is kept or sent, and a file
//! that is neither is refused at once.

use base64::Engine as _;
use hearth_core::SessionStore as _;
use hearth_sim::{ModelSpec, Reply, Script, ToolCallSpec};

use super::basics::{hearth, output, sim, with_workers};
use crate::MODEL;

const EYE: &str = "eye:latest";

/// The smallest PNG there is (1×1, grey): a real picture, not a stub.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x7e, 0x9b,
    0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x01, 0x48, 0xaf, 0xa4, 0x71, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// `hearth chat --db DB --url SIM --model MODEL` then `rest`.
async fn chat(
    db: &std::path::Path,
    sim: &hearth_sim::SimHandle,
    model: &str,
    rest: &[&str],
) -> std::process::Output {
    let url = sim.url();
    let mut args = vec![
        "chat",
        "--db",
        db.to_str().unwrap(),
        "--url",
        &url,
        "--model",
        model,
    ];
    args.extend_from_slice(rest);
    output(hearth(&args)).await
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The user messages of the chat requests whose last message starts with
/// `said`.
fn asked(sim: &hearth_sim::SimHandle, said: &str) -> Vec<serde_json::Value> {
    sim.chat_bodies()
        .into_iter()
        .filter_map(|b| b["messages"].as_array().and_then(|m| m.last().cloned()))
        .filter(|m| {
            m["role"] == "user" && m["content"].as_str().is_some_and(|c| c.starts_with(said))
        })
        .collect()
}

#[tokio::test]
async fn a_picture_goes_to_a_model_that_sees_and_a_text_file_is_cut_to_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let (png, notes) = (dir.path().join("dot.png"), dir.path().join("notes.txt"));
    std::fs::write(&png, PNG).unwrap();
    // Far more than half of any window the tests load: it must be cut.
    let long: String = (0..40_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&notes, &long).unwrap();
    let sim = sim(Script::default()
        .with_model(ModelSpec::new(EYE).with_capabilities(&["completion", "vision"])))
    .await;
    let out = chat(
        &db,
        &sim,
        EYE,
        &[
            "--session",
            "s1",
            "--attach",
            png.to_str().unwrap(),
            "--attach",
            notes.to_str().unwrap(),
            "what is this?",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));

    let sent = asked(&sim, "what is this?");
    assert!(!sent.is_empty(), "the message was sent");
    let m = &sent[0];
    let images = m["images"]
        .as_array()
        .expect("the picture went as `images`");
    assert_eq!(images.len(), 1);
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(images[0].as_str().unwrap())
        .unwrap();
    assert_eq!(decoded, PNG, "the picture's bytes, whole");
    let content = m["content"].as_str().unwrap();
    assert!(
        content.contains("<file name=\"notes.txt\">\nline 0\nline 1\n"),
        "{:.200}",
        content
    );
    assert!(
        content.contains("notes.txt is 428890 characters long; only its first"),
        "the model is told the file was cut"
    );
    assert!(
        content.len() < long.len() / 2,
        "cut to the window: {}",
        content.len()
    );
    // Every request of the session after it sends the same text (the
    // prefix cache holds).
    assert!(sent.iter().all(|s| s["content"] == m["content"]));

    // Kept with the message, bytes beside the database.
    let (store, _) = hearth_store::Store::open(&db).await.unwrap();
    let history = store.history("s1").await.unwrap();
    let user = &history[0];
    assert_eq!(
        user.content, "what is this?",
        "the typed text stays as typed"
    );
    let names: Vec<&str> = user.attachments.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["dot.png", "notes.txt"]);
    assert_eq!(user.attachments[0].body.as_ref().unwrap().0.as_ref(), PNG);
    assert_eq!(user.attachments[1].chars, Some(long.chars().count() as u64));
    assert!(user.attachments[1].given.unwrap() < 428_890);
    assert!(
        store
            .files_dir()
            .join(&user.attachments[0].sha256)
            .is_file()
    );
    drop(store);

    // The same session moved to a model that cannot see: the picture
    // already in it stays out of the request (Ollama would refuse every
    // one), and the model reads that it is there.
    let out = chat(&db, &sim, MODEL, &["--session", "s1", "and now?"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = sim
        .chat_bodies()
        .into_iter()
        .rev()
        .find(|b| {
            b["model"] == MODEL
                && b["messages"]
                    .as_array()
                    .is_some_and(|m| m.last().is_some_and(|l| l["content"] == "and now?"))
        })
        .expect("the second question was sent");
    let first = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert!(first.get("images").is_none(), "{first}");
    assert!(first["content"].as_str().unwrap().contains(
        "[Hearth: 1 picture(s) attached here are not shown: this model cannot see images.]"
    ));
}

#[tokio::test]
async fn a_model_that_cannot_see_refuses_the_picture_before_anything_is_kept_or_sent() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let png = dir.path().join("dot.png");
    std::fs::write(&png, PNG).unwrap();
    let sim = sim(Script::default()).await;
    let out = chat(
        &db,
        &sim,
        MODEL,
        &[
            "--session",
            "s1",
            "--attach",
            png.to_str().unwrap(),
            "look at this",
        ],
    )
    .await;
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("m:latest cannot see images, so a picture cannot be sent to it"),
        "{err}"
    );
    assert!(asked(&sim, "look at this").is_empty(), "nothing was sent");
    let (store, _) = hearth_store::Store::open(&db).await.unwrap();
    assert!(
        store.history("s1").await.unwrap().is_empty(),
        "nothing was kept"
    );

    // A file that is neither a picture nor text: refused before the run.
    let zip = dir.path().join("a.zip");
    std::fs::write(&zip, b"PK\x03\x04\x14\x00\x00\x00\x08\x00").unwrap();
    let out = chat(
        &db,
        &sim,
        MODEL,
        &["--attach", zip.to_str().unwrap(), "and this"],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot attach a.zip: it is application/zip"),
        "{err}"
    );
}

#[tokio::test]
async fn the_agent_reads_the_part_of_a_long_file_its_message_could_not_hold() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let notes = dir.path().join("notes.txt");
    let long: String = (0..40_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&notes, &long).unwrap();
    // The seeded Chat profile offers no tools: one that offers this one.
    let set = output(hearth(&[
        "profiles",
        "set",
        "--db",
        db.to_str().unwrap(),
        "Reader",
        "--model",
        MODEL,
        "--tools",
        "read_attachment",
    ]))
    .await;
    assert!(set.status.success(), "{}", text(&set.stderr));
    // A small window for this model (a small model on a small machine).
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "INSERT INTO model_settings (model, num_ctx, keep_alive, shift, updated_at) VALUES (?1, 4096, 1800, 1, 0)",
            [MODEL],
        )
        .unwrap();
    // Far past any cut: the model asks for a window near the end.
    let offset = 400_000;
    let sim = sim(with_workers("Notes")
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "read_attachment",
            serde_json::json!({"name": "notes.txt", "offset": offset, "limit": 60}),
        )]))
        // Then the start, without saying how much.
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "read_attachment",
            serde_json::json!({"name": "notes.txt"}),
        )]))
        .with_reply(Reply::text("The file ends with line 39999.")))
    .await;
    let out = chat(
        &db,
        &sim,
        MODEL,
        &[
            "--session",
            "s1",
            "--profile",
            "Reader",
            "--attach",
            notes.to_str().unwrap(),
            "how does it end?",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("The file ends with line 39999."));

    // The first request offered the tool, and the message was cut.
    let first = &asked(&sim, "how does it end?")[0];
    assert!(
        first["content"]
            .as_str()
            .unwrap()
            .contains("read_attachment tool")
    );
    let offered = sim.chat_bodies().into_iter().any(|b| {
        b["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "read_attachment"))
    });
    assert!(offered, "read_attachment is offered");
    // The model got exactly that window of the file, said as such.
    let window: String = long.chars().skip(offset).take(60).collect();
    let expected = format!(
        "[notes.txt: characters {offset} to {} of 428890; the rest from offset {}]\n{window}",
        offset + 60,
        offset + 60
    );
    let results: Vec<String> = sim
        .chat_bodies()
        .into_iter()
        .flat_map(|b| b["messages"].as_array().cloned().unwrap_or_default())
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect();
    assert!(
        results.iter().any(|r| r.contains(&expected)),
        "{expected:?} not in {results:?}"
    );
    // Without a limit, the model gets what its window holds well: a
    // quarter of it (four characters a token), not the 8,000 characters
    // a large window gets.
    let num_ctx = run_options(&sim)["num_ctx"].as_u64().unwrap() as usize;
    assert_eq!(num_ctx, 4096);
    let start = format!(
        "[notes.txt: characters 0 to {num_ctx} of 428890; the rest from offset {num_ctx}]\n"
    );
    assert!(
        results
            .iter()
            .any(|r| r.starts_with(&start) && r.len() == start.len() + num_ctx),
        "{start:?} not in {:?}",
        results.iter().map(|r| r.lines().next()).collect::<Vec<_>>()
    );
}

/// The options of the run's first request (the window the model runs
/// with): the one that offers tools, which the workers' never do.
fn run_options(sim: &hearth_sim::SimHandle) -> serde_json::Value {
    sim.chat_bodies()
        .into_iter()
        .find(|b| b["tools"].is_array())
        .expect("a request of the run")["options"]
        .clone()
}
