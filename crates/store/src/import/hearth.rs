//! Hearth's own JSON export, read back: a session moved between machines
//! arrives whole, tool traffic and attached files included. Every carried
//! file is checked from its bytes before anything is written, as one
//! attached by hand is.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine as _;
use hearth_core::{Attachment, AttachmentKind, Body, ChatMessage, MessageStatus, Role};
use rusqlite::TransactionBehavior;
use serde_json::Value;

use super::{Conversation, refuse, str_of};
use crate::attachments;
use crate::error::StoreError;
use crate::export::EXPORT_VERSION;
use crate::store::Store;

/// A Hearth export: its messages as they were, tool calls and results
/// included (it is the same app); of version 2, every branch, the one it
/// showed shown again.
pub(super) fn hearth(v: &Value) -> Result<Conversation, StoreError> {
    let version = v.get("version").and_then(Value::as_i64).unwrap_or(1);
    if version > EXPORT_VERSION {
        return Err(refuse(format!(
            "a Hearth export of version {version}, from a newer Hearth: this one reads up to version {EXPORT_VERSION}"
        )));
    }
    let session = v.get("session");
    let title = session.and_then(|s| str_of(s, "title")).unwrap_or_default();
    let list = v
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| refuse("a Hearth export without its `messages`"))?;
    let mut out = Conversation {
        title,
        messages: Vec::new(),
        parents: Vec::new(),
        head: None,
        skipped: 0,
    };
    // Version 2 holds a tree: each message's export id stands for its place
    // among the messages kept; one left out stands for the one it follows,
    // so its children follow that one.
    let tree = version >= 2;
    let mut place: HashMap<i64, Option<usize>> = HashMap::new();
    // Each carried file decoded once, however many messages carry it: its
    // attachments share the bytes.
    let mut decoded = HashMap::new();
    for m in list {
        let parent = if tree {
            let id = m
                .get("id")
                .and_then(Value::as_i64)
                .ok_or_else(|| refuse("a Hearth export with a message without its numeric `id`"))?;
            let parent = match m.get("parent_id") {
                None | Some(Value::Null) => None,
                Some(p) => {
                    let p = p.as_i64().ok_or_else(|| {
                        refuse(format!(
                            "a Hearth export whose message {id} has a parent that is not a number"
                        ))
                    })?;
                    *place.get(&p).ok_or_else(|| {
                        refuse(format!(
                            "a Hearth export whose message {id} follows message {p}, which does not come before it"
                        ))
                    })?
                }
            };
            if place.contains_key(&id) {
                return Err(refuse(format!(
                    "a Hearth export with two messages numbered {id}"
                )));
            }
            // Where this id stands until the message is known to be kept.
            place.insert(id, parent);
            Some((id, parent))
        } else {
            None
        };
        let role = match m.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("tool") => Role::Tool,
            _ => {
                out.skipped += 1;
                continue;
            }
        };
        if let Some((id, parent)) = parent {
            place.insert(id, Some(out.messages.len()));
            out.parents.push(parent);
        }
        let tool_calls = m
            .get("tool_calls")
            .cloned()
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| {
                refuse(format!(
                    "a Hearth export with tool calls it cannot read ({e})"
                ))
            })?
            .unwrap_or_default();
        out.messages.push(ChatMessage {
            role,
            content: str_of(m, "content").unwrap_or_default(),
            thinking: str_of(m, "thinking"),
            tool_calls,
            tool_call_id: str_of(m, "tool_call_id"),
            tool_name: str_of(m, "tool_name"),
            status: match m.get("status").and_then(Value::as_str) {
                Some("interrupted") => MessageStatus::Interrupted,
                Some("error") => MessageStatus::Error,
                _ => MessageStatus::Complete,
            },
            attachments: match (role, m.get("attachments")) {
                (Role::User, Some(Value::Array(list))) => list
                    .iter()
                    .map(|a| attachment(a, v.get("files"), &mut decoded))
                    .collect::<Result<_, _>>()?,
                _ => Vec::new(),
            },
        });
    }
    if tree {
        // The branch shown ends at `head_id` (`null`: none is shown); one
        // the export does not carry leaves the last message's branch shown.
        out.head = match session.and_then(|s| s.get("head_id")) {
            Some(Value::Null) => Some(None),
            Some(h) => h.as_i64().and_then(|h| place.get(&h).copied()),
            None => None,
        };
    }
    Ok(out)
}

/// An attachment of a Hearth export, with its bytes from the export's
/// `files` when it carries them: `text` makes it a text, `base64` a
/// picture, whatever the attachment claims. Its SHA-256, type and size
/// come from the bytes once they are checked ([`keep_files`]). One whose
/// file is not carried (removed from the exporting store's folder) stays
/// a reference to a missing file, as the app showed it.
fn attachment(
    v: &Value,
    files: Option<&Value>,
    decoded: &mut HashMap<String, (AttachmentKind, Body)>,
) -> Result<Attachment, StoreError> {
    let name = str_of(v, "name")
        .map(|n| n.trim().chars().take(255).collect::<String>())
        .filter(|n| !n.is_empty())
        .ok_or_else(|| refuse("a Hearth export with an attached file without its name"))?;
    let count = |key: &str| v.get(key).and_then(Value::as_u64);
    let sha = str_of(v, "sha256").unwrap_or_default();
    let carried = match decoded.get(&sha) {
        Some(known) => Some(known.clone()),
        None => {
            let file = files.and_then(|f| f.get(&sha));
            let text = file.and_then(|f| f.get("text")).and_then(Value::as_str);
            let b64 = file.and_then(|f| f.get("base64")).and_then(Value::as_str);
            let found = match (text, b64) {
                (Some(text), _) => Some((AttachmentKind::Text, text.as_bytes().to_vec())),
                (None, Some(b64)) => Some((
                    AttachmentKind::Image,
                    base64::engine::general_purpose::STANDARD
                        .decode(b64.as_bytes())
                        .map_err(|e| {
                            refuse(format!(
                                "a Hearth export whose file `{name}` is not base64 ({e})"
                            ))
                        })?,
                )),
                (None, None) => None,
            };
            found.map(|(kind, bytes)| {
                let known = (kind, Body(Arc::from(bytes)));
                decoded.insert(sha.clone(), known.clone());
                known
            })
        }
    };
    let claimed_kind = match v.get("kind").and_then(Value::as_str) {
        Some("image") => AttachmentKind::Image,
        Some("text") => AttachmentKind::Text,
        other => {
            return Err(refuse(format!(
                "a Hearth export whose file `{name}` is of kind {other:?} (expected image or text)"
            )));
        }
    };
    // A media type is shown and exported: a plain `type/subtype` only.
    let mime = str_of(v, "mime")
        .filter(|m| plain_mime(m))
        .unwrap_or_else(|| "application/octet-stream".to_owned());
    let mut a = Attachment {
        sha256: String::new(),
        name,
        kind: claimed_kind,
        mime,
        size: count("size").unwrap_or(0),
        given: count("given"),
        chars: count("chars"),
        body: None,
    };
    match carried {
        Some((kind, bytes)) => {
            a.kind = kind;
            a.body = Some(bytes);
        }
        None if sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()) => {
            a.sha256 = sha.to_ascii_lowercase();
        }
        None => {
            return Err(refuse(format!(
                "a Hearth export whose file `{}` has neither its bytes nor a SHA-256",
                a.name
            )));
        }
    }
    Ok(a)
}

/// `type/subtype`, lower case, nothing else.
fn plain_mime(m: &str) -> bool {
    let mut parts = m.splitn(2, '/');
    let ok = |s: Option<&str>, extra: &str| {
        s.is_some_and(|s| {
            !s.is_empty()
                && s.len() <= 60
                && s.bytes().all(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || extra.as_bytes().contains(&b)
                })
        })
    };
    ok(parts.next(), "") && ok(parts.next(), ".+-")
}

/// A file an import carries, checked and ready to write.
pub(super) struct Checked {
    kind: AttachmentKind,
    mime: String,
    bytes: Body,
    /// The size shown: the bytes', or for a PDF's text the PDF's as the
    /// export says (the text cannot tell it).
    size: u64,
}

/// Check every file the import carries, from its bytes, before anything
/// is written: a text is UTF-8 without NUL, a picture one a model takes,
/// each within the sizes a file attached by hand has (a text is never
/// read as anything else: the text of a PDF may start like a program). A
/// file that fails refuses the import, naming it: an export is one piece.
/// Each file is checked once, however many attachments share it.
pub(super) fn check_files(conversations: &mut [Conversation]) -> Result<Vec<Checked>, StoreError> {
    let mut out: Vec<Checked> = Vec::new();
    // By the address of the shared bytes: their place in `out`, their
    // media type as checked, and a text's characters.
    let mut seen: HashMap<*const u8, (usize, String, Option<u64>)> = HashMap::new();
    let list = conversations
        .iter_mut()
        .flat_map(|c| &mut c.messages)
        .flat_map(|m| &mut m.attachments);
    for a in list {
        let Some(body) = a.body.take() else {
            continue;
        };
        let key = body.0.as_ptr();
        if let std::collections::hash_map::Entry::Vacant(slot) = seen.entry(key) {
            let fail = |e: StoreError| refuse(format!("cannot import this session: {e}"));
            let (mime, chars) = match a.kind {
                AttachmentKind::Image => (
                    attachments::check_picture(&a.name, &body.0).map_err(fail)?,
                    None,
                ),
                AttachmentKind::Text => {
                    attachments::check_text(&a.name, &body.0).map_err(fail)?;
                    let chars = std::str::from_utf8(&body.0).map_or(0, |t| t.chars().count());
                    ("text/plain".to_owned(), Some(chars as u64))
                }
            };
            slot.insert((out.len(), mime.clone(), chars));
            out.push(Checked {
                kind: a.kind,
                mime,
                size: body.0.len() as u64,
                bytes: body.clone(),
            });
        }
        let (place, mime, chars) = seen[&key].clone();
        // A PDF's text says it came from one, as it did when attached, and
        // its size is the PDF's (shown on its chip), which the text cannot
        // tell.
        if a.kind == AttachmentKind::Text && a.mime == "application/pdf" {
            out[place].size = a.size;
        } else {
            a.mime = mime;
            a.size = body.0.len() as u64;
        }
        out[place].mime.clone_from(&a.mime);
        // What the model was given is kept (the same history makes the
        // same prompt), but never more than the text has.
        let given = a.given.take();
        a.chars = chars;
        a.given = chars.and_then(|c| given.map(|g| g.min(c)));
        // Its place in `out`, until it is written and has its address.
        a.sha256 = place.to_string();
    }
    Ok(out)
}

impl Store {
    /// Write the checked files into the store's folder, each recorded in
    /// `files` at once, so a file whose import then fails is swept with
    /// the other unused ones; the SHA-256 of each, in order.
    pub(super) async fn keep_files(&self, files: Vec<Checked>) -> Result<Vec<String>, StoreError> {
        if files.is_empty() {
            return Ok(Vec::new());
        }
        let (files, shas) = tokio::task::spawn_blocking(move || {
            let shas: Vec<String> = files
                .iter()
                .map(|f| attachments::address(&f.bytes.0))
                .collect();
            (files, shas)
        })
        .await
        .map_err(|e| refuse(format!("keeping the imported files failed: {e}")))?;
        // Recorded before written: a sweep in another process then leaves
        // a file that already existed unused alone until it is referred to.
        let rows: Vec<(String, AttachmentKind, String, u64)> = files
            .iter()
            .zip(&shas)
            .map(|(f, sha)| (sha.clone(), f.kind, f.mime.clone(), f.size))
            .collect();
        self.db()
            .call(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                for (sha, kind, mime, size) in &rows {
                    attachments::add(&tx, sha, *kind, mime, *size)?;
                }
                tx.commit()?;
                Ok(())
            })
            .await?;
        let dir = self.files_dir();
        tokio::task::spawn_blocking(move || {
            files
                .iter()
                .try_for_each(|f| attachments::write_file(&dir, &f.bytes.0).map(drop))
        })
        .await
        .map_err(|e| refuse(format!("keeping the imported files failed: {e}")))??;
        Ok(shas)
    }
}
