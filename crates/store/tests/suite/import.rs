//! Importing ChatGPT, Open WebUI and Hearth exports: the branch the other
//! app showed, user and assistant text, a title, what was left out counted;
//! a Hearth export whole, attached files included; anything else refused
//! with nothing written.

use base64::Engine as _;
use hearth_core::{AttachmentKind, ChatMessage, Role, SessionStore};
use hearth_store::{ImportSource, Store};
use serde_json::json;

fn said(history: &[ChatMessage]) -> Vec<(Role, &str)> {
    history
        .iter()
        .map(|m| (m.role, m.content.as_str()))
        .collect()
}

/// A ChatGPT `conversations.json` entry: a hidden system message, a
/// question asked twice (edited), each with its answer; the second shown.
fn chatgpt() -> serde_json::Value {
    let node = |id: &str, parent: Option<&str>, children: &[&str], message: serde_json::Value| json!({ "id": id, "parent": parent, "children": children, "message": message });
    let msg = |role: &str, text: &str| json!({ "author": { "role": role }, "content": { "content_type": "text", "parts": [text] }, "metadata": {} });
    // The assistant writing to ChatGPT's memory tool, not to the person.
    let mut bio = msg("assistant", "User likes black tea.");
    bio["recipient"] = json!("bio");
    let mut hidden = msg("system", "");
    hidden["metadata"] = json!({ "is_visually_hidden_from_conversation": true });
    json!([{
        "title": "Tea   brewing",
        "create_time": 1_700_000_000.0,
        "current_node": "a2",
        "mapping": {
            "root": node("root", None, &["sys"], serde_json::Value::Null),
            "sys": node("sys", Some("root"), &["u1", "u2"], hidden),
            "u1": node("u1", Some("sys"), &["a1"], msg("user", "How long for green tea?")),
            "a1": node("a1", Some("u1"), &[], msg("assistant", "Three minutes.")),
            "u2": node("u2", Some("sys"), &["b2"], msg("user", "How long for black tea?")),
            "b2": node("b2", Some("u2"), &["t2"], bio.clone()),
            "t2": node("t2", Some("b2"), &["a2"], msg("tool", "search results")),
            "a2": node("a2", Some("t2"), &[], msg("assistant", "Four to five minutes.")),
        }
    }])
}

/// An Open WebUI export: one chat with a history tree (a regenerated
/// answer; the second shown), one older chat with a flat list.
fn open_webui() -> serde_json::Value {
    json!([
        {
            "id": "c1", "title": "Rust closures",
            "chat": {
                "title": "Rust closures",
                "history": {
                    "currentId": "m3",
                    "messages": {
                        "m1": { "id": "m1", "parentId": null, "childrenIds": ["m2", "m3"], "role": "user", "content": "What is a closure?" },
                        "m2": { "id": "m2", "parentId": "m1", "childrenIds": [], "role": "assistant", "content": "First try." },
                        "m3": { "id": "m3", "parentId": "m1", "childrenIds": [], "role": "assistant", "content": "A function that captures its environment." }
                    }
                },
                "messages": []
            }
        },
        {
            "id": "c2",
            "chat": {
                "title": "Old chat",
                "messages": [
                    { "role": "system", "content": "be brief" },
                    { "role": "user", "content": "hi" },
                    { "role": "assistant", "content": "hello" }
                ]
            }
        }
    ])
}

#[tokio::test]
async fn chatgpt_and_open_webui_exports_become_sessions_of_the_branch_they_showed() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();

    let r = store.import(&chatgpt().to_string()).await.unwrap();
    assert_eq!(r.source, ImportSource::ChatGpt);
    assert_eq!(
        (r.sessions.len(), r.messages, r.skipped),
        (1, 2, 2),
        "the tool message and the memory write left out"
    );
    let h = store.history(&r.sessions[0]).await.unwrap();
    assert_eq!(
        said(&h),
        [
            (Role::User, "How long for black tea?"),
            (Role::Assistant, "Four to five minutes.")
        ]
    );

    let r = store.import(&open_webui().to_string()).await.unwrap();
    assert_eq!(r.source, ImportSource::OpenWebUi);
    assert_eq!(
        (r.sessions.len(), r.messages, r.skipped),
        (2, 4, 1),
        "the system prompt left out"
    );
    let h = store.history(&r.sessions[0]).await.unwrap();
    assert_eq!(
        said(&h),
        [
            (Role::User, "What is a closure?"),
            (Role::Assistant, "A function that captures its environment.")
        ]
    );
    assert_eq!(
        said(&store.history(&r.sessions[1]).await.unwrap()),
        [(Role::User, "hi"), (Role::Assistant, "hello")]
    );

    let titles: Vec<String> = store
        .sessions()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.title)
        .collect();
    for t in ["Tea brewing", "Rust closures", "Old chat"] {
        assert!(titles.iter().any(|x| x == t), "{t} in {titles:?}");
    }
}

#[tokio::test]
async fn a_hearth_export_comes_back_whole_and_a_stranger_file_is_refused_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let call = hearth_core::ToolCall {
        id: "c1".into(),
        name: "calc".into(),
        arguments: json!({ "expr": "1+1" }),
    };
    let mut asked = ChatMessage::assistant("");
    asked.tool_calls = vec![call.clone()];
    for m in [
        ChatMessage::user("1+1?"),
        asked,
        ChatMessage::tool_result(&call, "2"),
        ChatMessage::assistant("2"),
    ] {
        store.append("s", "r", m).await.unwrap();
    }
    store.rename("s", "Sums").await.unwrap();
    let exported = store.export_json("s").await.unwrap().to_string();
    let r = store.import(&exported).await.unwrap();
    assert_eq!(r.source, ImportSource::Hearth);
    assert_eq!(
        store.history(&r.sessions[0]).await.unwrap(),
        store.history("s").await.unwrap()
    );
    // Beside its original the copy says it is one (user pass 2026-12,
    // defect 33); a second copy is numbered.
    let again = store.import(&exported).await.unwrap();
    let title_of = |id: String| {
        let store = store.clone();
        async move {
            store
                .sessions()
                .await
                .unwrap()
                .into_iter()
                .find(|s| s.id == id)
                .unwrap()
                .title
        }
    };
    assert_eq!(title_of(r.sessions[0].clone()).await, "Sums (imported)");
    assert_eq!(
        title_of(again.sessions[0].clone()).await,
        "Sums (imported 2)"
    );
    assert_eq!(title_of("s".into()).await, "Sums");

    let before = store.sessions().await.unwrap().len();
    for (file, why) in [
        ("not json", "is not JSON"),
        (r#"{"hello": 1}"#, "expected ChatGPT's conversations.json"),
        (
            r#"[{"title": "x", "mapping": {}}]"#,
            "no conversation with a message",
        ),
    ] {
        let e = store.import(file).await.unwrap_err().to_string();
        assert!(e.contains(why), "{file}: {e}");
    }
    assert_eq!(store.sessions().await.unwrap().len(), before);
}

/// User pass 2026-12, defect 33: every branch of a session travels with its
/// export, the branch it showed is shown again, the others are a switch
/// away; a version 1 export (one branch) still imports, a newer version
/// and a message that follows one not before it are refused.
#[tokio::test]
async fn every_branch_travels_with_a_hearth_export() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    for m in [
        ChatMessage::user("name a colour"),
        ChatMessage::assistant("red"),
    ] {
        store.append("s", "r", m).await.unwrap();
    }
    // Regenerated twice (three answers), then the conversation goes on
    // from the second, and the first question is edited too.
    store.fork("s", 2).await.unwrap();
    store
        .append("s", "r", ChatMessage::assistant("green"))
        .await
        .unwrap();
    store.fork("s", 2).await.unwrap();
    store
        .append("s", "r", ChatMessage::assistant("blue"))
        .await
        .unwrap();
    store.switch_branch("s", 3).await.unwrap();
    for m in [
        ChatMessage::user("another"),
        ChatMessage::assistant("yellow"),
    ] {
        store.append("s", "r", m).await.unwrap();
    }
    store.fork("s", 1).await.unwrap();
    store
        .append("s", "r", ChatMessage::user("name a fruit"))
        .await
        .unwrap();
    store.switch_branch("s", 3).await.unwrap();
    let shown = said(&store.history("s").await.unwrap())
        .into_iter()
        .map(|(r, t)| (r, t.to_owned()))
        .collect::<Vec<_>>();
    assert_eq!(shown.len(), 4);

    let exported = store.export_json("s").await.unwrap();
    assert_eq!(exported["messages"].as_array().unwrap().len(), 7);
    let r = store.import(&exported.to_string()).await.unwrap();
    assert_eq!(r.messages, 7);
    let copy = r.sessions[0].clone();
    let h = store.history(&copy).await.unwrap();
    assert_eq!(
        said(&h)
            .into_iter()
            .map(|(r, t)| (r, t.to_owned()))
            .collect::<Vec<_>>(),
        shown
    );
    // The same forks: three answers to the colour, two first questions.
    let forks = |id: String| {
        let store = store.clone();
        async move {
            let mut sizes: Vec<usize> = store
                .forks(&id)
                .await
                .unwrap()
                .iter()
                .map(Vec::len)
                .collect();
            sizes.sort_unstable();
            sizes
        }
    };
    assert_eq!(forks(copy.clone()).await, [2, 3]);
    assert_eq!(forks(copy.clone()).await, forks("s".into()).await);
    // A branch not shown is there, whole: the fruit question.
    let again = store.export_json(&copy).await.unwrap();
    let fruit = again["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["content"] == "name a fruit")
        .and_then(|m| m["id"].as_i64())
        .unwrap();
    store.switch_branch(&copy, fruit).await.unwrap();
    assert_eq!(
        said(&store.history(&copy).await.unwrap()),
        [(Role::User, "name a fruit")]
    );

    // Version 1 (one branch, in order) still imports as that branch.
    let mut v1 = exported.clone();
    v1["version"] = json!(1);
    let branch: Vec<serde_json::Value> = store
        .history("s")
        .await
        .unwrap()
        .iter()
        .map(|m| json!({"role": "user", "content": m.content}))
        .collect();
    v1["messages"] = json!(branch);
    let old = store.import(&v1.to_string()).await.unwrap();
    assert_eq!(store.history(&old.sessions[0]).await.unwrap().len(), 4);

    let before = store.sessions().await.unwrap().len();
    let mut newer = exported.clone();
    newer["version"] = json!(3);
    let e = store.import(&newer.to_string()).await.unwrap_err();
    assert!(e.to_string().contains("newer Hearth"), "{e}");
    let mut forward = exported.clone();
    forward["messages"][0]["parent_id"] = json!(99);
    let e = store.import(&forward.to_string()).await.unwrap_err();
    assert!(e.to_string().contains("does not come before it"), "{e}");
    assert_eq!(store.sessions().await.unwrap().len(), before);
}

/// A session with a picture, a text file cut for the model, and a file
/// removed from the store's folder by hand, exported and imported into
/// another store: the same history, bytes included.
#[tokio::test]
async fn attached_files_travel_with_a_hearth_export_and_a_forged_one_is_refused() {
    let here = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(here.path().join("h.sqlite")).await.unwrap();
    let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;".to_vec();
    let pic = store.add_file("cat.gif", gif.clone()).await.unwrap();
    let mut notes = store
        .add_file("notes.md", "# é notes\n".into())
        .await
        .unwrap();
    // As the app keeps a text cut for the model: 4 of its 10 characters.
    (notes.given, notes.chars) = (Some(4), Some(10));
    let gone = store.add_file("gone.txt", "removed".into()).await.unwrap();
    let mut m = ChatMessage::user("look");
    m.attachments = vec![pic.clone(), notes, gone.clone()];
    store.append("s", "r", m).await.unwrap();
    store
        .append("s", "r", ChatMessage::assistant("A cat."))
        .await
        .unwrap();
    std::fs::remove_file(store.files_dir().join(&gone.sha256)).unwrap();

    let exported = store.export_json("s").await.unwrap();
    let listed = &exported["messages"][0]["attachments"];
    assert_eq!(listed[0]["name"], "cat.gif");
    assert_eq!(listed[0]["kind"], "image");
    assert_eq!(
        (listed[1]["given"].clone(), listed[1]["chars"].clone()),
        (json!(4), json!(10))
    );
    // The bytes, once per content; none for the file removed by hand.
    let b64 = base64::engine::general_purpose::STANDARD.encode(&gif);
    assert_eq!(
        exported["files"],
        json!({
            pic.sha256.clone(): { "base64": b64 },
            listed[1]["sha256"].as_str().unwrap(): { "text": "# é notes\n" },
        })
    );
    let md = store.export_markdown("s").await.unwrap();
    assert!(
        md.contains("**Attached** `cat.gif` (image/gif, 14 B)"),
        "{md}"
    );
    assert!(
        md.contains("**Attached** `notes.md` (text/plain, 11 B)"),
        "{md}"
    );

    // Another machine: another store, another folder.
    let there = tempfile::tempdir().unwrap();
    let (other, _) = Store::open(there.path().join("h.sqlite")).await.unwrap();
    let r = other.import(&exported.to_string()).await.unwrap();
    assert_eq!(
        (r.source, r.messages, r.skipped),
        (ImportSource::Hearth, 2, 0)
    );
    let moved = other.history(&r.sessions[0]).await.unwrap();
    assert_eq!(moved, store.history("s").await.unwrap());
    assert_eq!(
        moved[0].attachments[0].body.as_ref().unwrap().0.as_ref(),
        &gif[..]
    );
    assert!(other.files_dir().join(&pic.sha256).exists());
    assert!(
        !other.files_dir().join(&gone.sha256).exists(),
        "still missing"
    );

    // A "picture" that is a program, a text with a NUL, bad base64, a
    // missing file without its SHA-256, no name: each refused, naming the
    // file, with no session written and no file left behind.
    let empty = tempfile::tempdir().unwrap();
    let (fresh, _) = Store::open(empty.path().join("h.sqlite")).await.unwrap();
    let before = other.sessions().await.unwrap().len();
    let forged = |list: serde_json::Value, files: serde_json::Value| {
        let mut e = exported.clone();
        e["messages"][0]["attachments"] = list;
        e["files"] = files;
        e.to_string()
    };
    let elf = base64::engine::general_purpose::STANDARD.encode(b"\x7fELF\x02\x01\x01\x00rest");
    let (x, y) = ("a".repeat(64), "b".repeat(64));
    let text = |name: &str| json!({"name": name, "kind": "text", "sha256": "a".repeat(64)});
    let pict = |name: &str| json!({"name": name, "kind": "image", "sha256": "b".repeat(64)});
    for (list, files, why) in [
        (
            json!([text("fine.txt"), pict("cat.png")]),
            json!({ &x: {"text": "fine"}, &y: {"base64": elf} }),
            "cannot attach cat.png",
        ),
        (
            json!([text("a.txt")]),
            json!({ &x: {"text": "a\u{0}b"} }),
            "cannot attach a.txt",
        ),
        (
            json!([pict("b.gif")]),
            json!({ &y: {"base64": "%%"} }),
            "`b.gif` is not base64",
        ),
        (
            json!([{"name": "c.txt", "kind": "text", "sha256": "../../etc"}]),
            json!({}),
            "`c.txt` has neither",
        ),
        (
            json!([{"kind": "text", "sha256": x}]),
            json!({}),
            "without its name",
        ),
    ] {
        for s in [&other, &fresh] {
            let e = s
                .import(&forged(list.clone(), files.clone()))
                .await
                .unwrap_err()
                .to_string();
            assert!(e.contains(why), "{list}: {e}");
        }
    }
    assert_eq!(other.sessions().await.unwrap().len(), before);
    assert!(fresh.sessions().await.unwrap().is_empty());
    assert!(
        !fresh.files_dir().exists() || std::fs::read_dir(fresh.files_dir()).unwrap().count() == 0,
        "nothing written for a refused import"
    );

    // A text is never read as anything else (a PDF's text may begin like
    // a PDF); a reference cannot make a carried text a picture; a media
    // type is plain or not kept.
    let pdf_text = json!({ &x: {"text": "%PDF-1.7 is a version"} });
    let paper =
        json!({"name": "paper.pdf", "kind": "text", "mime": "application/pdf", "sha256": x});
    // The text's own address, from an import elsewhere.
    let (scratch, _) = Store::open(empty.path().join("scratch.sqlite"))
        .await
        .unwrap();
    let r = scratch
        .import(&forged(json!([paper]), pdf_text.clone()))
        .await
        .unwrap();
    let real = scratch.history(&r.sessions[0]).await.unwrap()[0].attachments[0]
        .sha256
        .clone();
    // First the reference alone: a missing file, as claimed.
    let fake = json!({"name": "fake.png", "kind": "image", "mime": "image/png", "sha256": real});
    let first = fresh
        .import(&forged(json!([fake]), json!({})))
        .await
        .unwrap();
    let claimed = &fresh.history(&first.sessions[0]).await.unwrap()[0].attachments[0];
    assert_eq!(
        (claimed.kind, claimed.body.is_none()),
        (AttachmentKind::Image, true)
    );
    let list = json!([
        // Not carried here: a reference to the text, claiming a picture.
        fake,
        {"name": "paper.pdf", "kind": "text", "mime": "application/pdf", "sha256": x},
        {"name": "gone.bin", "kind": "image", "mime": "image/png\n# Title", "sha256": "c".repeat(64)},
    ]);
    let r = fresh.import(&forged(list, pdf_text)).await.unwrap();
    let got = &fresh.history(&r.sessions[0]).await.unwrap()[0].attachments;
    assert_eq!(
        got.iter()
            .map(|a| (a.name.as_str(), a.kind, a.mime.as_str()))
            .collect::<Vec<_>>(),
        [
            ("fake.png", AttachmentKind::Text, "application/pdf"),
            ("paper.pdf", AttachmentKind::Text, "application/pdf"),
            (
                "gone.bin",
                AttachmentKind::Image,
                "application/octet-stream"
            ),
        ]
    );
    assert_eq!(
        got[0].body.as_ref().unwrap().0.as_ref(),
        b"%PDF-1.7 is a version"
    );
    // The file, checked, is what it is for the first import too.
    let now = &fresh.history(&first.sessions[0]).await.unwrap()[0].attachments[0];
    assert_eq!(
        (now.kind, now.mime.as_str()),
        (AttachmentKind::Text, "application/pdf")
    );
    assert!(now.body.is_some());
}
