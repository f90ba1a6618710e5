//! `hearth skills` and skills in `hearth chat`: a folder of `SKILL.md`
//! skills beside the database is listed (a broken one with its reason),
//! the model is offered `load_skill` naming them, loads one and a file
//! beside it, and a profile that turns skills off sends no such tool.

use hearth_protocol::{EventKind, ToolOutcome};
use hearth_sim::{Reply, ToolCallSpec};
use serde_json::{Value, json};

use super::basics::{answering, hearth, ok, run_end, sim, turn_bodies, with_workers};

const BODY: &str = "# Release notes\n\nGroup the changes by kind; start from template.md.";

fn tool_named<'a>(body: &'a Value, name: &str) -> Option<&'a Value> {
    body["tools"]
        .as_array()?
        .iter()
        .find(|t| t["function"]["name"] == name)
}

#[tokio::test]
async fn skills_beside_the_database_are_listed_offered_and_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    let skills = dir.path().join("skills");
    std::fs::create_dir_all(skills.join("release-notes")).unwrap();
    std::fs::write(
        skills.join("release-notes/SKILL.md"),
        format!(
            "---\nname: release-notes\ndescription: >\n  Writes release notes from a change list.\n  Use when asked for release notes.\n---\n{BODY}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        skills.join("release-notes/template.md"),
        "## Added\n## Fixed\n",
    )
    .unwrap();
    std::fs::create_dir_all(skills.join("Broken")).unwrap();
    std::fs::write(
        skills.join("Broken/SKILL.md"),
        "---\nname: Broken\ndescription: x\n---\nB\n",
    )
    .unwrap();

    let listed = ok(&["skills", "list", "--db", db]).await;
    assert!(
        listed.contains("release-notes  Writes release notes from a change list. Use when asked for release notes.\n"),
        "{listed}"
    );
    assert!(
        listed.contains("[not offered] ")
            && listed.contains("Broken: the name \"Broken\" does not fit the format"),
        "{listed}"
    );
    assert_eq!(
        ok(&["skills", "path", "--db", db]).await.trim(),
        skills.to_str().unwrap()
    );
    let shown = ok(&["skills", "show", "--db", db, "release-notes"]).await;
    assert!(
        shown.starts_with("<skill name=\"release-notes\"")
            && shown.contains(BODY)
            && shown.contains("template.md"),
        "{shown}"
    );
    let out = super::basics::output(hearth(&["skills", "show", "--db", db, "Broken"])).await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used: the name"));

    ok(&[
        "profiles",
        "set",
        "--db",
        db,
        "Writer",
        "--model",
        crate::MODEL,
        "--tools",
        "all",
    ])
    .await;
    let sim = sim(with_workers("Notes")
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "load_skill",
            json!({"name": "release-notes"}),
        )]))
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "load_skill",
            json!({"name": "release-notes", "file": "template.md"}),
        )]))
        .with_reply(Reply::text("Here are the notes.")))
    .await;
    let chat = |text: &'static str| {
        hearth(&[
            "chat",
            "--db",
            db,
            "--url",
            &sim.url(),
            "--profile",
            "Writer",
            "--json",
            text,
        ])
    };
    // No approval is asked: stdin is empty, so a question would deny.
    let evs = answering(chat("release notes for 1.2, please"), "").await;
    assert!(
        matches!(run_end(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    let results: Vec<(ToolOutcome, String)> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolEvent {
                outcome, output, ..
            } => Some((*outcome, output.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 2, "{results:#?}");
    assert_eq!(results[0].0, ToolOutcome::Ok);
    assert!(results[0].1.contains(BODY), "{}", results[0].1);
    assert_eq!(
        results[1],
        (ToolOutcome::Ok, "## Added\n## Fixed\n".to_owned())
    );

    let turns = turn_bodies(&sim);
    assert_eq!(turns.len(), 3);
    let first = tool_named(&turns[0], "load_skill").expect("load_skill offered");
    let description = first["function"]["description"].as_str().unwrap();
    assert!(
        description.ends_with("Skills:\n- release-notes: Writes release notes from a change list. Use when asked for release notes."),
        "{description}"
    );
    assert!(!description.contains("Broken"));
    for turn in &turns[1..] {
        assert_eq!(
            tool_named(turn, "load_skill"),
            Some(first),
            "the same tool, byte for byte"
        );
    }
    let told = turns[1]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(told["role"], "tool");
    assert!(told["content"].as_str().unwrap().contains(BODY), "{told}");

    ok(&["profiles", "set", "--db", db, "Writer", "--skills", "none"]).await;
    let before = turn_bodies(&sim).len();
    let evs = answering(chat("and for 1.3?"), "").await;
    assert!(
        matches!(run_end(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    let turns = turn_bodies(&sim);
    assert!(turns.len() > before);
    for turn in &turns[before..] {
        assert!(tool_named(turn, "load_skill").is_none(), "{turn}");
    }
}
