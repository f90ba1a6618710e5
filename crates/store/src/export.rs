//! Exporting a session: its current branch as Markdown for people, every
//! branch as JSON for programs (a versioned shape, documented on
//! [`Store::export_json`]).
//! Reads `sessions`, `messages` and the attached files; writes nothing and
//! knows no file paths (the caller decides where the text goes). The JSON
//! carries the attached files themselves, so a session moved to another
//! machine (Hearth's import) arrives whole; the Markdown names them.

use std::collections::HashMap;
use std::path::Path;

use base64::Engine as _;
use hearth_core::{Attachment, AttachmentKind, Body, ChatMessage, MessageStatus, Role};
use rusqlite::{Connection, OptionalExtension};
use serde_json::{Value, json};

use crate::attachments::read_body;
use crate::error::StoreError;
use crate::messages::{self, Stored, role_str, status_str};
use crate::store::Store;

/// The `format` field of a JSON export.
pub const EXPORT_FORMAT: &str = "hearth.session";
/// The `version` field of a JSON export; bumped when a field changes
/// meaning or goes away (new fields may appear without a bump). Version 2:
/// `messages` holds every branch, not only the current one (user pass
/// 2026-12, defect 33); Hearth still imports version 1.
pub const EXPORT_VERSION: i64 = 2;

/// A session's row.
struct Meta {
    id: String,
    title: String,
    head_id: Option<i64>,
    created_at: i64,
    updated_at: i64,
    deleted_at: Option<i64>,
}

/// The session and its messages (its current branch, or with `every`
/// all its branches), read in one job so they agree.
fn read(conn: &Connection, id: &str, every: bool) -> Result<(Meta, Vec<Stored>), StoreError> {
    let meta = conn
        .query_row(
            "SELECT title, head_id, created_at, updated_at, deleted_at FROM sessions WHERE id = ?1",
            [id],
            |r| {
                Ok(Meta {
                    id: id.to_owned(),
                    title: r.get(0)?,
                    head_id: r.get(1)?,
                    created_at: r.get(2)?,
                    updated_at: r.get(3)?,
                    deleted_at: r.get(4)?,
                })
            },
        )
        .optional()?
        .ok_or_else(|| StoreError::NoSession(id.to_owned()))?;
    let list = if every {
        messages::all(conn, id)?
    } else {
        messages::branch(conn, id, None)?
    };
    Ok((meta, list))
}

/// The bytes of every file the branch's messages carry, by SHA-256; a
/// file removed from the folder by hand is `None` (exported as missing,
/// as the app shows it), any other read failure is an error.
fn bodies(dir: &Path, branch: &[Stored]) -> Result<HashMap<String, Option<Body>>, StoreError> {
    let mut out = HashMap::new();
    for a in branch.iter().flat_map(|s| &s.message.attachments) {
        if out.contains_key(&a.sha256) {
            continue;
        }
        let body = match read_body(dir, &a.sha256) {
            Ok(b) => Some(b),
            Err(_) if !dir.join(&a.sha256).exists() => None,
            Err(e) => return Err(e),
        };
        out.insert(a.sha256.clone(), body);
    }
    Ok(out)
}

/// One attachment in the JSON export: what it is; its bytes are in the
/// export's `files`, once per content.
fn attachment_json(a: &Attachment) -> Value {
    json!({
        "name": a.name,
        "kind": match a.kind {
            AttachmentKind::Image => "image",
            AttachmentKind::Text => "text",
        },
        "mime": a.mime,
        "size": a.size,
        "sha256": a.sha256,
        "given": a.given,
        "chars": a.chars,
    })
}

/// The export's `files`: each file's bytes as kept, by SHA-256, a text as
/// `text` and a picture as `base64`. A file gone from the folder is left
/// out (its attachments stay, as the missing references they are).
fn files_json(branch: &[Stored], bodies: &HashMap<String, Option<Body>>) -> Value {
    let mut out = serde_json::Map::new();
    for a in branch.iter().flat_map(|s| &s.message.attachments) {
        let Some(Some(body)) = bodies.get(&a.sha256) else {
            continue;
        };
        if out.contains_key(&a.sha256) {
            continue;
        }
        // A text damaged on disk (it was UTF-8 when attached) goes with its
        // broken bytes replaced: the import takes it as a new text.
        let entry = match a.kind {
            AttachmentKind::Text => json!({ "text": String::from_utf8_lossy(&body.0) }),
            AttachmentKind::Image => {
                json!({ "base64": base64::engine::general_purpose::STANDARD.encode(&body.0) })
            }
        };
        out.insert(a.sha256.clone(), entry);
    }
    Value::Object(out)
}

/// The JSON export (shape documented on [`Store::export_json`]).
fn to_json(meta: &Meta, branch: &[Stored], files: &HashMap<String, Option<Body>>) -> Value {
    let messages: Vec<Value> = branch
        .iter()
        .map(|s| {
            let m = &s.message;
            json!({
                "id": s.id,
                "parent_id": s.parent_id,
                "role": role_str(m.role),
                "status": status_str(m.status),
                "created_at_ms": s.created_at,
                "content": m.content,
                "thinking": m.thinking,
                "tool_calls": m.tool_calls.iter().map(|c| json!({
                    "id": c.id,
                    "name": c.name,
                    "arguments": c.arguments,
                })).collect::<Vec<_>>(),
                "tool_call_id": m.tool_call_id,
                "tool_name": m.tool_name,
                "attachments": m.attachments.iter().map(attachment_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "session": {
            "id": meta.id,
            "title": meta.title,
            "created_at_ms": meta.created_at,
            "updated_at_ms": meta.updated_at,
            "deleted_at_ms": meta.deleted_at,
            "head_id": meta.head_id,
        },
        "messages": messages,
        "files": files_json(branch, files),
    })
}

/// The Markdown export.
fn to_markdown(meta: &Meta, branch: &[Stored]) -> String {
    let title = meta.title.split_whitespace().collect::<Vec<_>>().join(" ");
    let title = if title.is_empty() {
        "Untitled session"
    } else {
        &title
    };
    let mut out = format!(
        "# {title}\n\nSession `{}` · started {} · {} message{}\n",
        meta.id,
        utc(meta.created_at),
        branch.len(),
        if branch.len() == 1 { "" } else { "s" }
    );
    for s in branch {
        message_markdown(&mut out, &s.message);
    }
    out
}

/// One message: a heading saying who (and whether it is incomplete), the
/// reasoning folded away, the text, then the tool calls.
fn message_markdown(out: &mut String, m: &ChatMessage) {
    let who = match m.role {
        Role::System => "System".to_owned(),
        Role::User => "You".to_owned(),
        Role::Assistant => "Assistant".to_owned(),
        Role::Tool => match (&m.tool_name, &m.tool_call_id) {
            (Some(name), Some(id)) => format!("Tool result · `{name}` (`{id}`)"),
            (Some(name), None) => format!("Tool result · `{name}`"),
            (None, Some(id)) => format!("Tool result (`{id}`)"),
            (None, None) => "Tool result".to_owned(),
        },
    };
    let status = match m.status {
        MessageStatus::Complete => "",
        MessageStatus::Interrupted => " · interrupted",
        MessageStatus::Error => " · error",
    };
    out.push_str(&format!("\n## {who}{status}\n"));
    if let Some(thinking) = m.thinking.as_deref().filter(|t| !t.trim().is_empty()) {
        out.push_str(&format!(
            "\n<details><summary>Thinking</summary>\n\n{}\n\n</details>\n",
            thinking.trim_end()
        ));
    }
    if !m.content.is_empty() {
        if m.role == Role::Tool {
            // Tool output is data, not Markdown: shown verbatim.
            out.push_str(&fenced("", &m.content));
        } else {
            out.push_str(&format!("\n{}\n", close_fences(m.content.trim_end())));
        }
    }
    for a in &m.attachments {
        // The name is the person's file's, the type an import's: both kept
        // out of the Markdown's way.
        let plain =
            |s: &str| -> String { s.chars().filter(|c| !c.is_control() && *c != '`').collect() };
        out.push_str(&format!(
            "\n**Attached** `{}` ({}, {})\n",
            plain(&a.name),
            plain(&a.mime),
            size_text(a.size)
        ));
    }
    for c in &m.tool_calls {
        let args =
            serde_json::to_string_pretty(&c.arguments).unwrap_or_else(|_| c.arguments.to_string());
        out.push_str(&format!("\n**Tool call** `{}` (`{}`):\n", c.name, c.id));
        out.push_str(&fenced("json", &args));
    }
    match m.status {
        MessageStatus::Complete => {}
        MessageStatus::Interrupted => {
            out.push_str("\n_Interrupted: this message is incomplete._\n");
        }
        MessageStatus::Error => {
            out.push_str("\n_Ended by an error: this message is incomplete._\n");
        }
    }
}

/// `text` in a code fence longer than any run of backticks inside it, so
/// the text cannot close the fence early.
fn fenced(lang: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!(
        "\n{fence}{lang}\n{}\n{fence}\n",
        text.trim_end_matches('\n')
    )
}

/// `text` with a code fence it leaves open closed at its end: an answer cut
/// off inside a code block would otherwise swallow the rest of the export.
fn close_fences(text: &str) -> String {
    // The fence character and length of the block that is open, if any.
    let mut open: Option<(char, usize)> = None;
    for line in text.lines() {
        let line = line.trim_start();
        let Some(c) = line.chars().next().filter(|c| *c == '`' || *c == '~') else {
            continue;
        };
        let run = line.chars().take_while(|x| *x == c).count();
        if run < 3 {
            continue;
        }
        match open {
            None => open = Some((c, run)),
            Some((oc, orun)) if oc == c && run >= orun && line[run..].trim().is_empty() => {
                open = None;
            }
            Some(_) => {}
        }
    }
    match open {
        None => text.to_owned(),
        Some((c, run)) => format!("{text}\n{}", c.to_string().repeat(run)),
    }
}

/// A file's size as people read it.
fn size_text(bytes: u64) -> String {
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} KB", bytes as f64 / 1e3),
        _ => format!("{:.1} MB", bytes as f64 / 1e6),
    }
}

/// `YYYY-MM-DD HH:MM UTC` for ms since the epoch (no time-zone database in
/// the store; a UTC stamp is unambiguous in a file that travels).
fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, sec_of_day) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        sec_of_day / 3600,
        sec_of_day % 3600 / 60
    )
}

/// Year, month, day of a day count since 1970-01-01 in the proleptic
/// Gregorian calendar (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

impl Store {
    /// The session's current branch as Markdown: the title as a heading,
    /// then each message under a heading saying who wrote it (marked
    /// `interrupted` or `error` when incomplete), reasoning in a folded
    /// `<details>`, tool calls as JSON blocks, tool results verbatim, and
    /// the files a message carries named with their type and size.
    /// [`StoreError::NoSession`] for an unknown id.
    pub async fn export_markdown(&self, session_id: &str) -> Result<String, StoreError> {
        let id = session_id.to_owned();
        let (meta, branch) = self.db().call(move |c| read(c, &id, false)).await?;
        Ok(to_markdown(&meta, &branch))
    }

    /// The session as JSON, every branch of it. Every key is always
    /// present (`null` or `[]` when empty); times are ms since the epoch:
    ///
    /// ```json
    /// { "format": "hearth.session", "version": 2,
    ///   "session": { "id": "…", "title": "…", "created_at_ms": 0,
    ///                "updated_at_ms": 0, "deleted_at_ms": null, "head_id": 4 },
    ///   "messages": [
    ///     { "id": 1, "parent_id": null,
    ///       "role": "system | user | assistant | tool",
    ///       "status": "complete | interrupted | error",
    ///       "created_at_ms": 0, "content": "…", "thinking": null,
    ///       "tool_calls": [ { "id": "…", "name": "…", "arguments": {} } ],
    ///       "tool_call_id": null, "tool_name": null,
    ///       "attachments": [
    ///         { "name": "notes.md", "kind": "image | text",
    ///           "mime": "text/plain", "size": 0, "sha256": "…",
    ///           "given": null, "chars": null } ] } ],
    ///   "files": { "<sha256>": { "text": "…" },
    ///              "<sha256>": { "base64": "…" } } }
    /// ```
    ///
    /// `messages` holds every message of every branch, oldest first, so a
    /// parent always comes before its children; each one's `parent_id` is
    /// the `id` of the message it follows (`null`: a first message). A
    /// message with several children is where an edit or a regenerate
    /// forked the conversation; `head_id` is the last message of the branch
    /// shown (walk its `parent_id`s for that branch alone). In version 1
    /// `messages` held only that branch. `files` holds the bytes Hearth keeps of each attached
    /// file (a PDF's text, not the PDF), once per content: a text as
    /// `text`, a picture as `base64`. A file removed from the store's
    /// folder has no entry. `size` is of the bytes kept; `given` is the
    /// characters of a text the model was given (`null`: all), `chars` the
    /// whole text's. The pictures make the file as large as they are, and
    /// an import reads at most [`crate::MAX_IMPORT_BYTES`].
    /// [`StoreError::NoSession`] for an unknown id.
    pub async fn export_json(&self, session_id: &str) -> Result<Value, StoreError> {
        let id = session_id.to_owned();
        let (meta, branch) = self.db().call(move |c| read(c, &id, true)).await?;
        let dir = self.files_dir();
        tokio::task::spawn_blocking(move || {
            let files = bodies(&dir, &branch)?;
            Ok(to_json(&meta, &branch, &files))
        })
        .await
        .map_err(|e| StoreError::Attachment(format!("reading the attached files failed: {e}")))?
    }
}

#[cfg(test)]
mod tests {
    use super::{close_fences, fenced, utc};

    #[test]
    fn utc_stamps_known_instants() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_735_689_599_000), "2024-12-31 23:59 UTC");
        assert_eq!(utc(-1), "1969-12-31 23:59 UTC");
    }

    #[test]
    fn an_open_code_block_is_closed() {
        assert_eq!(
            close_fences("a\n```rust\nfn x() {"),
            "a\n```rust\nfn x() {\n```"
        );
        assert_eq!(close_fences("````\n```\nx"), "````\n```\nx\n````");
        assert_eq!(close_fences("~~~\nx\n~~~"), "~~~\nx\n~~~");
        assert_eq!(close_fences("inline ``` is text"), "inline ``` is text");
        assert_eq!(close_fences("```\nx\n```\n"), "```\nx\n```\n");
    }

    #[test]
    fn a_fence_outgrows_the_backticks_inside() {
        assert_eq!(fenced("", "a"), "\n```\na\n```\n");
        assert_eq!(fenced("", "x ```` y\n"), "\n`````\nx ```` y\n`````\n");
    }
}
