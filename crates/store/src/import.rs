//! Importing conversations other apps exported: ChatGPT's
//! `conversations.json`, Open WebUI's chat export, and Hearth's own JSON
//! export (a session moved between machines). Each conversation becomes a
//! new session holding the branch the other app showed (ChatGPT's
//! `current_node`, Open WebUI's `currentId`), user and assistant text only:
//! system prompts, tool traffic and pictures are left out, and the import
//! says how many messages it left out. A Hearth export arrives whole: every
//! branch (version 2), tool traffic and attached files too. The file is untrusted: a shape that is
//! not one of these is refused with what was expected, an attached file is
//! checked from its bytes as one attached by hand is, and nothing is
//! half-imported (every session is written in one transaction).

mod hearth;

use std::collections::HashSet;

use hearth_core::{ChatMessage, Role};
use rusqlite::TransactionBehavior;
use serde_json::Value;

use crate::error::StoreError;
use crate::export::EXPORT_FORMAT;
use crate::export_project::{PROJECT_EXPORT_FORMAT, PROJECT_EXPORT_VERSION};
use crate::projects::ProjectDraft;
use crate::store::Store;
use crate::{messages, sessions};

use hearth::{check_files, hearth};

/// Where an import came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportSource {
    /// ChatGPT's data export (`conversations.json`).
    ChatGpt,
    /// Open WebUI's chat export.
    OpenWebUi,
    /// Hearth's own JSON export.
    Hearth,
    /// Hearth's export of a project (its settings and sessions).
    HearthProject,
}

impl ImportSource {
    /// The app's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::ChatGpt => "ChatGPT",
            Self::OpenWebUi => "Open WebUI",
            Self::Hearth | Self::HearthProject => "Hearth",
        }
    }
}

/// One conversation read from an export.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    /// Its title there ("" when it had none).
    pub title: String,
    /// User and assistant messages of the branch shown there, in order;
    /// of a Hearth export, every message of every branch, each after the
    /// one it follows.
    pub messages: Vec<ChatMessage>,
    /// The place in `messages` of the message each one follows (`None`: a
    /// first message), one per message; empty for one branch in order.
    pub parents: Vec<Option<usize>>,
    /// Where the branch shown ends: `None` at the last message written;
    /// `Some(Some(i))` at `messages[i]`; `Some(None)`: no branch is shown
    /// (a Hearth session forked before its first message).
    pub head: Option<Option<usize>>,
    /// Messages left out (system, tool, pictures only).
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
    /// The project a project export described: the caller makes it (or
    /// finds one of its name) and puts `sessions` in it.
    pub project: Option<crate::projects::ProjectDraft>,
    /// The knowledge folders the exported project had, as the file names
    /// them (at most [`MAX_LISTED_FOLDERS`]): said to the person, never
    /// added (a file must not choose what gets indexed on this machine).
    pub knowledge_folders: Vec<String>,
}

/// The most knowledge folders of a project export that are listed.
pub const MAX_LISTED_FOLDERS: usize = 20;

/// The largest export read (ChatGPT's can be large; past this it is better
/// split).
pub const MAX_IMPORT_BYTES: usize = 200 << 20;

fn refuse(why: impl Into<String>) -> StoreError {
    StoreError::Attachment(why.into())
}

/// Read `text`, an export from ChatGPT, Open WebUI or Hearth.
pub fn parse(text: &str) -> Result<(ImportSource, Vec<Conversation>), StoreError> {
    parse_with_project(text).map(|(source, conversations, _)| (source, conversations))
}

/// A project export's settings and the knowledge folders it names.
type ProjectPart = (ProjectDraft, Vec<String>);

/// [`parse`], and the project a project export describes.
fn parse_with_project(
    text: &str,
) -> Result<(ImportSource, Vec<Conversation>, Option<ProjectPart>), StoreError> {
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
        return Ok((ImportSource::Hearth, vec![hearth(&v)?], None));
    }
    if v.get("format").and_then(Value::as_str) == Some(PROJECT_EXPORT_FORMAT) {
        let (draft, folders, conversations) = project(&v)?;
        return Ok((
            ImportSource::HearthProject,
            conversations,
            Some((draft, folders)),
        ));
    }
    let list: Vec<&Value> = match &v {
        Value::Array(a) => a.iter().collect(),
        // One conversation on its own.
        Value::Object(_) => vec![&v],
        _ => Vec::new(),
    };
    if list.iter().any(|c| c.get("mapping").is_some()) {
        let out = list.into_iter().map(chatgpt).collect::<Result<_, _>>()?;
        return Ok((ImportSource::ChatGpt, out, None));
    }
    if list
        .iter()
        .any(|c| c.get("chat").is_some_and(Value::is_object))
    {
        let out = list.into_iter().map(open_webui).collect::<Result<_, _>>()?;
        return Ok((ImportSource::OpenWebUi, out, None));
    }
    Err(refuse(
        "this is not an export Hearth reads: expected ChatGPT's conversations.json, \
         an Open WebUI chat export, or a Hearth session or project export (JSON)",
    ))
}

/// A project export: its settings as a draft, the knowledge folders it
/// names (strings only, at most [`MAX_LISTED_FOLDERS`], each shown as
/// the person can read it), and its sessions.
fn project(v: &Value) -> Result<(ProjectDraft, Vec<String>, Vec<Conversation>), StoreError> {
    let version = v.get("version").and_then(Value::as_i64).unwrap_or(1);
    if version > PROJECT_EXPORT_VERSION {
        return Err(refuse(format!(
            "a Hearth project export of version {version}, from a newer Hearth: this one reads up to version {PROJECT_EXPORT_VERSION}"
        )));
    }
    let p = v
        .get("project")
        .filter(|p| p.is_object())
        .ok_or_else(|| refuse("a Hearth project export without its `project`"))?;
    let text = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_owned);
    let draft = ProjectDraft {
        name: text("name").unwrap_or_default(),
        workspace: text("workspace").map(std::path::PathBuf::from),
        profile: text("profile"),
        model: text("model"),
        instructions: text("instructions").unwrap_or_default(),
    };
    let folders = p
        .get("knowledge_folders")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .filter(|f| !f.trim().is_empty())
                .take(MAX_LISTED_FOLDERS)
                .map(|f| {
                    hearth_core::visible::visible(f, false)
                        .chars()
                        .take(1024)
                        .collect()
                })
                .collect()
        })
        .unwrap_or_default();
    let sessions = v
        .get("sessions")
        .and_then(Value::as_array)
        .ok_or_else(|| refuse("a Hearth project export without its `sessions`"))?;
    let conversations = sessions.iter().map(hearth).collect::<Result<_, _>>()?;
    Ok((draft, folders, conversations))
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

/// The length of each node's chain to its root (as `chain` counts it: a
/// parent the mapping lacks is one more node, a cycle ends the chain),
/// each node walked once: the deepest leaf of a ChatGPT export without
/// `current_node` was found by walking every leaf's whole chain, quadratic
/// in the nodes (8,000 took 54 s: security review N10).
fn depths<'a>(
    ids: impl Iterator<Item = &'a str>,
    mut parent_of: impl FnMut(&str) -> Option<&'a str>,
) -> std::collections::HashMap<&'a str, usize> {
    let mut depth = std::collections::HashMap::new();
    for start in ids {
        let mut path: Vec<&str> = Vec::new();
        let mut on_path = HashSet::new();
        let mut base = 0;
        let mut at = Some(start);
        while let Some(id) = at {
            if let Some(&d) = depth.get(id) {
                base = d;
                break;
            }
            if !on_path.insert(id) {
                break;
            }
            path.push(id);
            at = parent_of(id);
        }
        for (i, id) in path.iter().rev().enumerate() {
            depth.insert(*id, base + i + 1);
        }
    }
    depth
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
            let depth = depths(mapping.keys().map(String::as_str), |x| {
                mapping
                    .get(x)
                    .and_then(|n| n.get("parent"))
                    .and_then(Value::as_str)
            });
            mapping
                .iter()
                .filter(|(_, n)| {
                    n.get("children")
                        .and_then(Value::as_array)
                        .is_none_or(Vec::is_empty)
                })
                .map(|(id, _)| id.clone())
                .max_by_key(|id| depth.get(id.as_str()).copied().unwrap_or(0))
        });
    let ids = chain(leaf, |id| mapping.get(id).and_then(|n| str_of(n, "parent")));
    let mut out = Conversation {
        title: str_of(c, "title").unwrap_or_default(),
        messages: Vec::new(),
        parents: Vec::new(),
        head: None,
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
        parents: Vec::new(),
        head: None,
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

impl Store {
    /// Import `text` (see [`parse`]): one new session per conversation
    /// that has a message, all written in one transaction.
    pub async fn import(&self, text: &str) -> Result<ImportReport, StoreError> {
        // Parsing a large export is work for a blocking thread.
        let owned = text.to_owned();
        let (source, mut conversations, files, project) = tokio::task::spawn_blocking(move || {
            let (source, mut conversations, project) = parse_with_project(&owned)?;
            let files = check_files(&mut conversations)?;
            Ok::<_, StoreError>((source, conversations, files, project))
        })
        .await
        .map_err(|e| refuse(format!("reading the export failed: {e}")))??;
        let (project, knowledge_folders) = match project {
            Some((draft, folders)) => (Some(draft), folders),
            None => (None, Vec::new()),
        };
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
        if conversations.is_empty() && project.is_some() {
            // A project with no session yet: its settings are the import.
            return Ok(ImportReport {
                source,
                sessions: Vec::new(),
                messages: 0,
                skipped,
                project,
                knowledge_folders,
            });
        }
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
                    // Each message is appended after the one it follows
                    // (the head is put there first): the branches arrive
                    // as they were, the one shown last.
                    let mut stored: Vec<i64> = Vec::with_capacity(conv.messages.len());
                    let at = |place: Option<usize>, stored: &[i64]| match place {
                        None => Ok(None),
                        Some(p) => stored.get(p).copied().map(Some).ok_or_else(|| {
                            refuse("an imported message follows one that comes after it")
                        }),
                    };
                    for (i, m) in conv.messages.into_iter().enumerate() {
                        if let Some(&parent) = conv.parents.get(i) {
                            sessions::set_head(&tx, &id, at(parent, &stored)?)?;
                        }
                        stored.push(messages::append(&tx, &id, &run, m)?.id);
                    }
                    if let Some(head) = conv.head {
                        sessions::set_head(&tx, &id, at(head, &stored)?)?;
                    }
                    let title: String = conv.title.split_whitespace().collect::<Vec<_>>().join(" ");
                    if !title.is_empty() {
                        let title = sessions::unused_title(&tx, &title, "imported")?;
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
            project,
            knowledge_folders,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A comb (a chain with a leaf beside every node): each node's parent
    /// is looked up once, not once per leaf below it.
    #[test]
    fn depths_walk_each_node_once() {
        let n = 2_000;
        let mut parent: std::collections::HashMap<String, String> = Default::default();
        for i in 1..n {
            parent.insert(format!("c{i}"), format!("c{}", i - 1));
            parent.insert(format!("leaf{i}"), format!("c{i}"));
        }
        let ids: Vec<String> = (0..n)
            .map(|i| format!("c{i}"))
            .chain((1..n).map(|i| format!("leaf{i}")))
            .collect();
        let mut lookups = 0;
        let depth = depths(ids.iter().map(String::as_str), |x| {
            lookups += 1;
            parent.get(x).map(String::as_str)
        });
        assert!(
            lookups <= ids.len(),
            "{lookups} lookups for {} nodes",
            ids.len()
        );
        assert_eq!(depth[format!("leaf{}", n - 1).as_str()], n + 1);
        assert_eq!(depth["c0"], 1);
        // A cycle ends the chain instead of going round.
        let cyc = depths(["a", "b"].into_iter(), |x| {
            Some(if x == "a" { "b" } else { "a" })
        });
        assert!(cyc["a"] <= 2 && cyc["b"] <= 2, "{cyc:?}");
    }
}
