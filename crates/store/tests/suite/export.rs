//! Export of a session to Markdown (its current branch) and JSON (every
//! branch), compared whole.

use std::path::Path;

use hearth_core::{ChatMessage, MessageStatus, SessionStore, ToolCall};
use hearth_store::{EXPORT_FORMAT, EXPORT_VERSION, Store, StoreError};
use pretty_assertions::assert_eq;
use serde_json::json;

/// 2025-01-01 00:00 UTC.
const T0: i64 = 1_735_689_600_000;

/// A turn with reasoning and a tool call, a regenerated answer that was
/// interrupted inside a code block, and an answer ended by an error. Times
/// are pinned so the exports are exact.
async fn session(store: &Store, path: &Path) {
    let call = ToolCall {
        id: "c1".into(),
        name: "calculator".into(),
        arguments: json!({"expression": "1+1"}),
    };
    let mut asks_tool = ChatMessage::assistant("");
    asks_tool.thinking = Some("Let me compute.".into());
    asks_tool.tool_calls = vec![call.clone()];
    let msgs = [
        ChatMessage::user("What is 1+1? Use `calculator`."),
        asks_tool,
        ChatMessage::tool_result(&call, "2"),
        ChatMessage::assistant("It is **2**."),
        ChatMessage::user("Show a fence"),
        ChatMessage::assistant("An answer that was regenerated"),
    ];
    for m in msgs {
        store.append("s", "r", m).await.unwrap();
    }
    store.fork("s", 6).await.unwrap();
    for m in [
        ChatMessage {
            status: MessageStatus::Interrupted,
            ..ChatMessage::assistant("Here:\n```rust\nfn main() {")
        },
        ChatMessage::user("go on"),
        ChatMessage {
            status: MessageStatus::Error,
            ..ChatMessage::assistant("Sorr")
        },
    ] {
        store.append("s", "r", m).await.unwrap();
    }
    store.rename("s", "Arithmetic\nand fences").await.unwrap();
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute(
        "UPDATE sessions SET created_at = ?1, updated_at = ?1 + 60000",
        [T0],
    )
    .unwrap();
    c.execute("UPDATE messages SET created_at = ?1 + id * 1000", [T0])
        .unwrap();
}

#[tokio::test]
async fn json_export_has_the_documented_shape() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let (store, _) = Store::open(&path).await.unwrap();
    session(&store, &path).await;
    let msg = |id: i64, parent: Option<i64>, role: &str, status: &str, content: &str| {
        json!({
            "id": id, "parent_id": parent, "role": role, "status": status,
            "created_at_ms": T0 + id * 1000, "content": content, "thinking": null,
            "tool_calls": [], "tool_call_id": null, "tool_name": null,
            "attachments": [],
        })
    };
    let mut asks_tool = msg(2, Some(1), "assistant", "complete", "");
    asks_tool["thinking"] = json!("Let me compute.");
    asks_tool["tool_calls"] = json!([
        {"id": "c1", "name": "calculator", "arguments": {"expression": "1+1"}}
    ]);
    let mut result = msg(3, Some(2), "tool", "complete", "2");
    result["tool_call_id"] = json!("c1");
    result["tool_name"] = json!("calculator");
    assert_eq!(
        store.export_json("s").await.unwrap(),
        json!({
            "format": "hearth.session",
            "version": 2,
            "session": {
                "id": "s",
                "title": "Arithmetic\nand fences",
                "created_at_ms": T0,
                "updated_at_ms": T0 + 60_000,
                "deleted_at_ms": null,
                "head_id": 9,
            },
            "messages": [
                msg(1, None, "user", "complete", "What is 1+1? Use `calculator`."),
                asks_tool,
                result,
                msg(4, Some(3), "assistant", "complete", "It is **2**."),
                msg(5, Some(4), "user", "complete", "Show a fence"),
                // The answer regenerated, on the branch not shown: it goes
                // too (user pass 2026-12, defect 33).
                msg(6, Some(5), "assistant", "complete", "An answer that was regenerated"),
                msg(7, Some(5), "assistant", "interrupted", "Here:\n```rust\nfn main() {"),
                msg(8, Some(7), "user", "complete", "go on"),
                msg(9, Some(8), "assistant", "error", "Sorr"),
            ],
            "files": {},
        })
    );
    assert_eq!((EXPORT_FORMAT, EXPORT_VERSION), ("hearth.session", 2));
}

#[tokio::test]
async fn markdown_export_reads_as_the_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let (store, _) = Store::open(&path).await.unwrap();
    session(&store, &path).await;
    let expected = "# Arithmetic and fences

Session `s` · started 2025-01-01 00:00 UTC · 8 messages

## You

What is 1+1? Use `calculator`.

## Assistant

<details><summary>Thinking</summary>

Let me compute.

</details>

**Tool call** `calculator` (`c1`):

```json
{
  \"expression\": \"1+1\"
}
```

## Tool result · `calculator` (`c1`)

```
2
```

## Assistant

It is **2**.

## You

Show a fence

## Assistant · interrupted

Here:
```rust
fn main() {
```

_Interrupted: this message is incomplete._

## You

go on

## Assistant · error

Sorr

_Ended by an error: this message is incomplete._
";
    assert_eq!(store.export_markdown("s").await.unwrap(), expected);
}

#[tokio::test]
async fn empty_untitled_and_unknown_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let (store, _) = Store::open(&path).await.unwrap();
    store
        .append("s", "r", ChatMessage::user("only"))
        .await
        .unwrap();
    store.fork("s", 1).await.unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE sessions SET created_at = ?1", [T0])
        .unwrap();
    assert_eq!(
        store.export_markdown("s").await.unwrap(),
        "# Untitled session\n\nSession `s` · started 2025-01-01 00:00 UTC · 0 messages\n"
    );
    // The JSON holds every branch: the hidden message goes, and the
    // branch shown is none.
    let j = store.export_json("s").await.unwrap();
    assert_eq!(j["session"]["head_id"], json!(null));
    let contents: Vec<&serde_json::Value> = j["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["content"])
        .collect();
    assert_eq!(contents, [&json!("only")]);
    // Imported, it is the same: the message kept, no branch shown.
    let copy = store.import(&j.to_string()).await.unwrap().sessions[0].clone();
    assert!(store.history(&copy).await.unwrap().is_empty());
    let again = store.export_json(&copy).await.unwrap();
    assert_eq!(again["session"]["head_id"], json!(null));
    assert_eq!(again["messages"].as_array().unwrap().len(), 1);
    assert!(matches!(
        store.export_markdown("nobody").await,
        Err(StoreError::NoSession(id)) if id == "nobody"
    ));
    assert!(matches!(
        store.export_json("nobody").await,
        Err(StoreError::NoSession(_))
    ));
    // Still one message stored: the fork hid it, nothing deleted it.
    store.switch_branch("s", 1).await.unwrap();
    assert_eq!(store.history("s").await.unwrap().len(), 1);
}
