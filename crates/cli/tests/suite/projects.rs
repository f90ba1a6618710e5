//! `hearth projects` end to end: a project's chats get its folder,
//! instructions, profile and knowledge folders; sessions listed, searched,
//! exported and imported per project; a tool-less chat that asks for
//! knowledge gets passages with its message; an answer's sources are
//! printed, and a quotation not in its source is marked.

use hearth_sim::{Reply, ToolCallSpec};
use serde_json::json;

use super::basics::{hearth, ok, output, sim, turn_bodies, with_workers};
use crate::MODEL;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The system prompt and the last user message of a model call.
fn prompt_parts(body: &serde_json::Value) -> (String, String) {
    let messages = body["messages"].as_array().unwrap();
    let system = messages[0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let user = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    (system, user)
}

#[tokio::test]
async fn a_project_chat_searches_its_own_folders_and_its_quotes_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    let (garden, boat) = (dir.path().join("garden"), dir.path().join("boat"));
    for (folder, file, body) in [
        (
            &garden,
            "roses.md",
            "# Roses\n\nPrune the roses in late winter.\n",
        ),
        (
            &boat,
            "engine.md",
            "# Engine\n\nPrune nothing; change the impeller in late winter.\n",
        ),
    ] {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(folder.join(file), body).unwrap();
    }
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    ok(&[
        "profiles",
        "set",
        "--db",
        db,
        "Finder",
        "--model",
        MODEL,
        "--tools",
        "search_knowledge",
    ])
    .await;
    let made = ok(&[
        "projects",
        "create",
        "--db",
        db,
        "Garden",
        "--workspace",
        work.to_str().unwrap(),
        "--profile",
        "Finder",
        "--instructions",
        "Answer like a gardener.",
    ])
    .await;
    assert!(made.starts_with("Made project Garden (prj_"), "{made}");
    ok(&["projects", "create", "--db", db, "Boat"]).await;
    ok(&[
        "knowledge",
        "--db",
        db,
        "add",
        garden.to_str().unwrap(),
        "--project",
        "garden",
    ])
    .await;
    ok(&[
        "knowledge",
        "--db",
        db,
        "add",
        boat.to_str().unwrap(),
        "--project",
        "Boat",
    ])
    .await;
    ok(&["knowledge", "--db", db, "sync"]).await;
    let list = ok(&["knowledge", "--db", db, "list"]).await;
    assert!(
        list.contains("[project Garden]") && list.contains("[project Boat]"),
        "{list}"
    );

    let sim = sim(with_workers("Roses")
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "search_knowledge",
            json!({"query": "prune late winter"}),
        )]))
        .with_reply(Reply::text(
            "\"Prune the roses in late winter\" [1]. Also \"prune them in early spring\" [1], see [4].",
        )))
    .await;
    let url = sim.url();
    // The project's profile (Finder) without --profile.
    let out = output(hearth(&[
        "chat",
        "--db",
        db,
        "--url",
        &url,
        "--model",
        MODEL,
        "--project",
        "GARDEN",
        "When do I prune?",
    ]))
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bodies = turn_bodies(&sim);
    let (system, _) = prompt_parts(&bodies[0]);
    assert!(
        system.ends_with("## Project \"Garden\"\nAnswer like a gardener."),
        "{system}"
    );
    assert!(
        bodies[0]["tools"].to_string().contains("search_knowledge"),
        "the project's profile offers the tool"
    );
    let result = bodies.last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(result.contains("roses.md"), "{result}");
    assert!(
        !result.contains("engine.md"),
        "another project's folder: {result}"
    );

    let stdout = text(&out.stdout);
    let roses = garden.canonicalize().unwrap().join("roses.md");
    assert!(
        stdout.contains(&format!(
            "Sources:\n  [1] {}, lines 1–3 (Roses)",
            roses.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("[4] ⚠ no passage has this number"),
        "{stdout}"
    );
    assert!(
        stdout.contains("⚠ \"prune them in early spring\" is not in [1] nor in any passage given"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("⚠ \"Prune the roses"),
        "a true quote is not marked: {stdout}"
    );

    // The session is in the project; listed, searched and shown there.
    let in_garden = ok(&["sessions", "list", "--db", db, "--project", "Garden"]).await;
    assert_eq!(in_garden.lines().count(), 1, "{in_garden}");
    assert!(
        ok(&["sessions", "list", "--db", db, "--project", "Boat"])
            .await
            .contains("(no sessions)")
    );
    let found = ok(&[
        "sessions",
        "search",
        "--db",
        db,
        "--project",
        "Boat",
        "prune",
    ])
    .await;
    assert!(found.contains("(no matches)"), "{found}");
    let shown = ok(&["projects", "show", "--db", db, "Garden"]).await;
    assert!(
        shown.contains("instructions:\n    Answer like a gardener."),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "knowledge folder: {}",
            garden.canonicalize().unwrap().display()
        )),
        "{shown}"
    );
    assert!(shown.contains("sessions: 1"), "{shown}");

    // Exported and imported into another database: the project comes.
    let file = dir.path().join("garden.json");
    ok(&[
        "projects",
        "export",
        "--db",
        db,
        "Garden",
        "--format",
        "json",
        "--out",
        file.to_str().unwrap(),
    ])
    .await;
    let other = dir.path().join("other.sqlite");
    let other = other.to_str().unwrap();
    ok(&["profiles", "--db", other]).await;
    let imported = output(hearth(&[
        "sessions",
        "import",
        "--db",
        other,
        file.to_str().unwrap(),
    ]))
    .await;
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    let err = text(&imported.stderr);
    assert!(err.contains("in project Garden (prj_"), "{err}");
    assert!(
        err.contains("note: the project's profile `Finder` is not here"),
        "{err}"
    );
    // Its knowledge folder travels as a path, said and not added there.
    assert!(
        err.contains(&format!(
            "the project used the knowledge folders {}; a file does not add folders here",
            garden.canonicalize().unwrap().display()
        )),
        "{err}"
    );
    let made = err
        .split("in project Garden (")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .expect("the new project's id");
    let there = ok(&["knowledge", "--db", other, "list"]).await;
    assert!(
        !there.contains(&format!("[project {made}]")),
        "no folder added to the imported project: {there}"
    );
    let listed = ok(&["projects", "--db", other]).await;
    assert!(listed.contains("1 session   Garden"), "{listed}");

    // Deleted: the chat stays, outside; its folders are no longer searched.
    let deleted = ok(&["projects", "delete", "--db", db, "Garden"]).await;
    assert!(
        deleted
            .contains("1 session kept outside any project; 1 knowledge folder no longer searched"),
        "{deleted}"
    );
    let all = ok(&["sessions", "list", "--db", db]).await;
    assert_eq!(all.lines().count(), 1);
    let bad = output(hearth(&[
        "chat",
        "--db",
        db,
        "--url",
        &url,
        "--project",
        "Garden",
        "hi",
    ]))
    .await;
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("there is no project `Garden`"));
}

#[tokio::test]
async fn a_chat_without_tools_that_asks_for_knowledge_gets_passages_with_each_message() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("ferry.md"),
        "# Ferry\n\nThe ferry to the island leaves at nine.\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("bread.md"),
        "# Bread\n\nA sourdough loaf needs a long, cool proof.\n",
    )
    .unwrap();
    ok(&["knowledge", "--db", db, "add", docs.to_str().unwrap()]).await;
    ok(&["knowledge", "--db", db, "sync"]).await;
    let sim = sim(with_workers("Ferry")
        .with_reply(Reply::text("It leaves \"at nine\" [1]."))
        .with_reply(Reply::text("A \"long, cool proof\" [1]."))
        .with_reply(Reply::text("No idea.")))
    .await;
    let url = sim.url();
    let chat = |extra: &[&str], message: &str| {
        let mut args = vec![
            "chat",
            "--db",
            db,
            "--url",
            &url,
            "--model",
            MODEL,
            "--no-tools",
        ];
        args.extend_from_slice(extra);
        args.push(message);
        args.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()
    };
    let run = |args: Vec<String>| async move {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        output(hearth(&refs)).await
    };
    let first = run(chat(&["--knowledge"], "When does the ferry leave?")).await;
    assert!(first.status.success(), "{}", text(&first.stderr));
    let session = text(&first.stderr)
        .lines()
        .find_map(|l| {
            l.strip_prefix("[session ")
                .map(|r| r.split(']').next().unwrap().to_owned())
        })
        .unwrap();
    let (_, user) = prompt_parts(turn_bodies(&sim).last().unwrap());
    assert!(
        user.contains("The ferry to the island leaves at nine."),
        "{user}"
    );
    assert!(user.contains("knowledge-passages.md"), "{user}");
    assert!(user.contains("When does the ferry leave?"), "{user}");
    assert!(
        text(&first.stdout).contains("Sources:\n  [1] "),
        "{}",
        text(&first.stdout)
    );

    // The session keeps asking for them; the next message's are its own.
    let second = run(chat(
        &["--session", &session],
        "How long does sourdough proof?",
    ))
    .await;
    assert!(second.status.success(), "{}", text(&second.stderr));
    let (_, user) = prompt_parts(turn_bodies(&sim).last().unwrap());
    assert!(user.contains("long, cool proof"), "{user}");
    assert!(
        !text(&second.stdout).contains("⚠"),
        "{}",
        text(&second.stdout)
    );

    // Turned off: the message goes alone.
    let third = run(chat(
        &["--session", &session, "--no-knowledge"],
        "And the ferry back?",
    ))
    .await;
    assert!(third.status.success());
    let (_, user) = prompt_parts(turn_bodies(&sim).last().unwrap());
    assert_eq!(user, "And the ferry back?");
    assert!(!text(&third.stdout).contains("Sources"));
}
