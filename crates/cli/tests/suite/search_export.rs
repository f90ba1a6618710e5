//! `hearth sessions search` and `hearth sessions export` over sessions that
//! `hearth chat` stored.

use hearth_sim::{Reply, Script};

use super::basics::{hearth, output, sim};
use crate::MODEL;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[tokio::test]
async fn sessions_can_be_searched_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    // The second turn gets the simulator's default (echo) answer.
    // The answer, then the title worker's reply.
    let sim = sim(Script::default()
        .with_reply(Reply::text("Noted: blue."))
        .with_reply(Reply::text("Favourite colour")))
    .await;
    let url = sim.url();
    for (session, said) in [("s1", "My favourite colour is blue"), ("s2", "Now green")] {
        let out = output(hearth(&[
            "chat",
            "--db",
            db,
            "--url",
            &url,
            "--model",
            MODEL,
            "--session",
            session,
            said,
        ]))
        .await;
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let sessions = |args: &[&str]| {
        let mut all = vec!["sessions", "--db", db];
        all.extend_from_slice(args);
        output(hearth(&all))
    };

    // Search: newest first, matched words marked (stdout is a pipe here).
    let found = sessions(&["search", "blue"]).await;
    assert!(found.status.success(), "{}", text(&found.stderr));
    assert_eq!(
        text(&found.stdout),
        "s1  #2  model  Favourite colour\n    Noted: **blue**.\n\
         s1  #1  you  Favourite colour\n    My favourite colour is **blue**\n"
    );
    let two_words = sessions(&["search", "favourite", "BLU"]).await;
    assert_eq!(text(&two_words.stdout).lines().count(), 2);
    for hostile in ["\"", "NEAR(", "-", "*", "🌍", "a\"b OR"] {
        let out = sessions(&["search", "--", hostile]).await;
        assert!(out.status.success(), "{hostile}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "(no matches)\n", "{hostile}");
    }

    // Export: Markdown to stdout by default, JSON to a file.
    let md = sessions(&["export", "s1"]).await;
    assert!(md.status.success(), "{}", text(&md.stderr));
    let md = text(&md.stdout);
    assert!(
        md.starts_with("# Favourite colour\n\nSession `s1` · started "),
        "{md}"
    );
    assert!(
        md.ends_with(
            " · 2 messages\n\n## You\n\nMy favourite colour is blue\n\n## Assistant\n\nNoted: blue.\n"
        ),
        "{md}"
    );
    let file = dir.path().join("s1.json");
    let json = sessions(&[
        "export",
        "s1",
        "--format",
        "json",
        "--out",
        file.to_str().unwrap(),
    ])
    .await;
    assert!(json.status.success(), "{}", text(&json.stderr));
    assert!(json.stdout.is_empty());
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(j["format"], "hearth.session");
    assert_eq!(j["session"]["id"], "s1");
    let said: Vec<(&str, &str, &str)> = j["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap(),
                m["status"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("user", "complete", "My favourite colour is blue"),
            ("assistant", "complete", "Noted: blue.")
        ]
    );

    let missing = sessions(&["export", "nope"]).await;
    assert!(!missing.status.success());
    assert!(text(&missing.stderr).contains("no session `nope`"));

    // A deleted session is not searched; `show` still works on the rest.
    assert!(sessions(&["delete", "s1"]).await.status.success());
    let gone = sessions(&["search", "blue"]).await;
    assert_eq!(text(&gone.stdout), "(no matches)\n");
    let show = sessions(&["show", "s2"]).await;
    assert!(
        text(&show.stdout).starts_with("you: Now green\n"),
        "{}",
        text(&show.stdout)
    );

    // Exported as JSON, imported again: a new session saying the same.
    let file = dir.path().join("s2.json");
    let out = sessions(&[
        "export",
        "s2",
        "--format",
        "json",
        "--out",
        file.to_str().unwrap(),
    ])
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let imported = sessions(&["import", file.to_str().unwrap()]).await;
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    assert_eq!(
        text(&imported.stderr),
        "imported 1 conversation(s) from Hearth with 2 message(s)\n"
    );
    let new_id = text(&imported.stdout).trim().to_owned();
    assert_ne!(new_id, "s2");
    assert_eq!(
        text(&sessions(&["show", &new_id]).await.stdout),
        text(&show.stdout)
    );

    // Open WebUI's export, with a system prompt left out.
    let webui = dir.path().join("webui.json");
    std::fs::write(
        &webui,
        r#"[{"id":"c","title":"From WebUI","chat":{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}}]"#,
    )
    .unwrap();
    let imported = sessions(&["import", webui.to_str().unwrap()]).await;
    assert_eq!(
        text(&imported.stderr),
        "imported 1 conversation(s) from Open WebUI with 2 message(s); 1 left out (system prompts, tool messages, pictures)\n"
    );
    let bad = sessions(&["import", file.with_extension("nope").to_str().unwrap()]).await;
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("cannot read"),
        "{}",
        text(&bad.stderr)
    );
}
