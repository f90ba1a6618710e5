//! Importing conversations other apps exported: ChatGPT's
//! `conversations.json`, Open WebUI's chat export, and Hearth's own JSON
//! export (a session moved between machines). Each conversation becomes a
//! new session holding the branch the other app showed (ChatGPT's
//! `current_node`, Open WebUI's `currentId`), user and assistant text only:
//! system prompts, tool traffic and pictures are left out, and the import
//! says how many messages it left out. A Hearth export arrives whole: tool
//! traffic and attached files too. The file is untrusted: a shape that is
//! not one of these is refused with what was expected, an attached file is
//! checked from its bytes as one attached by hand is, and nothing is
//! half-imported (every session is written in one transaction).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use base64::Engine as _;
use hearth_core::{Attachment, AttachmentKind, Body, ChatMessage, MessageStatus, Role};
use rusqlite::TransactionBehavior;
use serde_json::Value;

use crate::attachments;
use crate::error::StoreError;
use crate::export::EXPORT_FORMAT;
use crate::store::Store;
use crate::{messages, sessions};

/// Where an import came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportSource {
    /// ChatGPT's data export (`conversations.json`).
    ChatGpt,
    /// Open WebUI's chat export.
    OpenWebUi,
    /// Hearth's own JSON export.
    Hearth,
}

impl ImportSource {
    /// The app's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::ChatGpt => "ChatGPT",
            Self::OpenWebUi => "Open WebUI",
            Self::Hearth => "Hearth",
        }
    }
}

/// One conversation read from an export.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    /// Its title there ("" when it had none).
    pub title: String,
    /// User and assistant messages of the branch shown there, in order.
    pub messages: Vec<ChatMessage>,
    /// Messages of that branch left out (system, tool, pictures only).
    pub skipped: usize,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReport {
    /// The app the file came from.
    pub source: ImportSource,
    /// The new sessions, in the file's order.
    pub sessions: Vec<String>,
    /// Messages imported.
    pub messages: usize,
    /// Messages left out (system, tool, pictures only).
    pub skipped: usize,
}

/// The largest export read (ChatGPT's can be large; past this it is better
/// split).
pub const MAX_IMPORT_BYTES: usize = 200 << 20;

fn refuse(why: impl Into<String>) -> StoreError {
    StoreError::Attachment(why.into())
}

/// Read `text`, an export from ChatGPT, Open WebUI or Hearth.
pub fn parse(text: &str) -> Result<(ImportSource, Vec<Conversation>), StoreError> {
    if text.len() > MAX_IMPORT_BYTES {
        return Err(refuse(format!(
            "the file is {} MB; the most Hearth imports at once is {} MB",
            text.len() >> 20,
            MAX_IMPORT_BYTES >> 20
        )));
    }
    let v: Value = serde_json::from_str(text).map_err(|e| {
        refuse(format!(
            "the file is not JSON ({e}), so it is not an export Hearth reads"
        ))
    })?;
    if v.get("format").and_then(Value::as_str) == Some(EXPORT_FORMAT) {
        return Ok((ImportSource::Hearth, vec![hearth(&v)?]));
    }
    let list: Vec<&Value> = match &v {
        Value::Array(a) => a.iter().collect(),
        // One conversation on its own.
        Value::Object(_) => vec![&v],
        _ => Vec::new(),
    };
    if list.iter().any(|c| c.get("mapping").is_some()) {
        let out = list.into_iter().map(chatgpt).collect::<Result<_, _>>()?;
        return Ok((ImportSource::ChatGpt, out));
    }
    if list
        .iter()
        .any(|c| c.get("chat").is_some_and(Value::is_object))
    {
        let out = list.into_iter().map(open_webui).collect::<Result<_, _>>()?;
        return Ok((ImportSource::OpenWebUi, out));
    }
    Err(refuse(
        "this is not an export Hearth reads: expected ChatGPT's conversations.json, \
         an Open WebUI chat export, or a Hearth session export (JSON)",
    ))
}

fn role_of(s: &str) -> Option<Role> {
    match s {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        _ => None,
    }
}

/// A message to keep, or `None` for one left out.
fn keep(role: Option<&str>, text: String) -> Option<ChatMessage> {
    let role = role_of(role?)?;
    let text = text.trim().to_owned();
    if text.is_empty() {
        return None;
    }
    Some(ChatMessage {
        role,
        ..ChatMessage::user(text)
    })
}

/// The chain from the root to `leaf`, following `parent_of`; a cycle or a
/// missing node ends it.
fn chain(leaf: Option<String>, parent_of: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut at = leaf;
    while let Some(id) = at {
        if !seen.insert(id.clone()) {
            break;
        }
        at = parent_of(&id);
        out.push(id);
    }
    out.reverse();
    out
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A ChatGPT conversation: `mapping` is a tree of nodes, `current_node` the
/// leaf of the branch shown; a message's text is its `content.parts`.
fn chatgpt(c: &Value) -> Result<Conversation, StoreError> {
    let mapping = c
        .get("mapping")
        .and_then(Value::as_object)
        .ok_or_else(|| refuse("a ChatGPT conversation without its `mapping`"))?;
    // Without `current_node`, the leaf whose chain is longest.
    let leaf = str_of(c, "current_node")
        .filter(|n| mapping.contains_key(n))
        .or_else(|| {
            mapping
                .iter()
                .filter(|(_, n)| {
                    n.get("children")
                        .and_then(Value::as_array)
                        .is_none_or(Vec::is_empty)
                })
                .map(|(id, _)| id.clone())
                .max_by_key(|id| {
                    chain(Some(id.clone()), |x| {
                        mapping.get(x).and_then(|n| str_of(n, "parent"))
                    })
                    .len()
                })
        });
    let ids = chain(leaf, |id| mapping.get(id).and_then(|n| str_of(n, "parent")));
    let mut out = Conversation {
        title: str_of(c, "title").unwrap_or_default(),
        messages: Vec::new(),
        skipped: 0,
    };
    for id in ids {
        let Some(m) = mapping
            .get(&id)
            .and_then(|n| n.get("message"))
            .filter(|m| !m.is_null())
        else {
            continue;
        };
        let role = m
            .get("author")
            .and_then(|a| a.get("role"))
            .and_then(Value::as_str);
        let parts = m
            .get("content")
            .and_then(|c| c.get("parts"))
            .and_then(Value::as_array)
            .map(|p| {
                p.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        // ChatGPT's own hidden system and context messages.
        let hidden = m
            .get("metadata")
            .and_then(|x| x.get("is_visually_hidden_from_conversation"))
            .and_then(Value::as_bool)
            == Some(true);
        // The assistant talking to one of ChatGPT's tools (memory, images,
        // browsing), not to the person.
        if m.get("recipient")
            .and_then(Value::as_str)
            .is_some_and(|r| r != "all")
        {
            out.skipped += 1;
            continue;
        }
        match keep(role, parts).filter(|_| !hidden) {
            Some(msg) => out.messages.push(msg),
            None if role == Some("system") && hidden => {}
            None => out.skipped += 1,
        }
    }
    Ok(out)
}

/// An Open WebUI chat: `chat.history.messages` by id with `parentId`, and
/// `chat.history.currentId` the leaf shown; older exports have only
/// `chat.messages`, in order.
fn open_webui(c: &Value) -> Result<Conversation, StoreError> {
    let chat = c
        .get("chat")
        .ok_or_else(|| refuse("an Open WebUI export entry without its `chat`"))?;
    let title = str_of(c, "title")
        .or_else(|| str_of(chat, "title"))
        .unwrap_or_default();
    let history = chat
        .get("history")
        .and_then(|h| h.get("messages"))
        .and_then(Value::as_object);
    let list: Vec<Value> = match history {
        Some(by_id) if !by_id.is_empty() => {
            let ids = chain(
                chat.get("history").and_then(|h| str_of(h, "currentId")),
                |id| by_id.get(id).and_then(|m| str_of(m, "parentId")),
            );
            ids.iter().filter_map(|id| by_id.get(id).cloned()).collect()
        }
        _ => Vec::new(),
    };
    // No usable `currentId`: the flat list older exports carry.
    let list = if list.is_empty() {
        chat.get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    } else {
        list
    };
    let mut out = Conversation {
        title,
        messages: Vec::new(),
        skipped: 0,
    };
    for m in &list {
        match keep(
            m.get("role").and_then(Value::as_str),
            str_of(m, "content").unwrap_or_default(),
        ) {
            Some(msg) => out.messages.push(msg),
            None => out.skipped += 1,
        }
    }
    Ok(out)
}

/// A Hearth export: its messages as they were, tool calls and results
/// included (it is the same app).
fn hearth(v: &Value) -> Result<Conversation, StoreError> {
    let title = v
        .get("session")
        .and_then(|s| str_of(s, "title"))
        .unwrap_or_default();
    let list = v
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| refuse("a Hearth export without its `messages`"))?;
    let mut out = Conversation {
        title,
        messages: Vec::new(),
        skipped: 0,
    };
    // Each carried file decoded once, however many messages carry it: its
    // attachments share the bytes.
    let mut decoded = HashMap::new();
    for m in list {
        let role = match m.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("tool") => Role::Tool,
            _ => {
                out.skipped += 1;
                continue;
            }
        };
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
struct Checked {
    kind: AttachmentKind,
    mime: String,
    bytes: Body,
}

/// Check every file the import carries, from its bytes, before anything
/// is written: a text is UTF-8 without NUL, a picture one a model takes,
/// each within the sizes a file attached by hand has (a text is never
/// read as anything else: the text of a PDF may start like a program). A
/// file that fails refuses the import, naming it: an export is one piece.
/// Each file is checked once, however many attachments share it.
fn check_files(conversations: &mut [Conversation]) -> Result<Vec<Checked>, StoreError> {
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
                bytes: body.clone(),
            });
        }
        let (place, mime, chars) = seen[&key].clone();
        // A PDF's text says it came from one, as it did when attached.
        if !(a.kind == AttachmentKind::Text && a.mime == "application/pdf") {
            a.mime = mime;
        }
        out[place].mime.clone_from(&a.mime);
        a.size = body.0.len() as u64;
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
    async fn keep_files(&self, files: Vec<Checked>) -> Result<Vec<String>, StoreError> {
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
            .map(|(f, sha)| (sha.clone(), f.kind, f.mime.clone(), f.bytes.0.len() as u64))
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

impl Store {
    /// Import `text` (see [`parse`]): one new session per conversation
    /// that has a message, all written in one transaction.
    pub async fn import(&self, text: &str) -> Result<ImportReport, StoreError> {
        // Parsing a large export is work for a blocking thread.
        let owned = text.to_owned();
        let (source, mut conversations, files) = tokio::task::spawn_blocking(move || {
            let (source, mut conversations) = parse(&owned)?;
            let files = check_files(&mut conversations)?;
            Ok::<_, StoreError>((source, conversations, files))
        })
        .await
        .map_err(|e| refuse(format!("reading the export failed: {e}")))??;
        let carried = files.len();
        let shas = self.keep_files(files).await?;
        // Each carried file's place becomes its address.
        for m in conversations.iter_mut().flat_map(|c| &mut c.messages) {
            for a in m.attachments.iter_mut().filter(|a| a.sha256.len() != 64) {
                match a.sha256.parse::<usize>().ok().and_then(|i| shas.get(i)) {
                    Some(sha) => a.sha256.clone_from(sha),
                    None => {
                        return Err(refuse(format!(
                            "an imported file was lost between its check and its keeping ({carried} kept)"
                        )));
                    }
                }
            }
        }
        let skipped = conversations.iter().map(|c| c.skipped).sum();
        let conversations: Vec<Conversation> = conversations
            .into_iter()
            .filter(|c| !c.messages.is_empty())
            .collect();
        if conversations.is_empty() {
            return Err(refuse(format!(
                "the {} export has no conversation with a message to import",
                source.name()
            )));
        }
        let count = conversations.iter().map(|c| c.messages.len()).sum();
        let ids = self
            .db()
            .call(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let mut ids = Vec::with_capacity(conversations.len());
                for conv in conversations {
                    let id = hearth_core::new_session_id();
                    let run = format!("import-{}", uuid::Uuid::new_v4());
                    sessions::ensure(&tx, &id)?;
                    for m in conv.messages {
                        messages::append(&tx, &id, &run, m)?;
                    }
                    let title: String = conv.title.split_whitespace().collect::<Vec<_>>().join(" ");
                    if !title.is_empty() {
                        sessions::rename(&tx, &id, &title)?;
                    }
                    ids.push(id);
                }
                tx.commit()?;
                Ok(ids)
            })
            .await?;
        Ok(ImportReport {
            source,
            sessions: ids,
            messages: count,
            skipped,
        })
    }
}
