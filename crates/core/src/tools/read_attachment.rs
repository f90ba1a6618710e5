//! `read_attachment`: the agent reads the text of a file the person
//! attached to the conversation, a window at a time. A long file's message
//! holds only what fits the context window ([`crate::attachment::allot_text`]);
//! this is how the rest is reached, and a file attached turns ago read
//! again. Pictures are not text: a model that can see gets them with their
//! message.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::attachment::{Attachment, AttachmentKind};
use crate::message::Role;
use crate::store::SessionStore;
use crate::tool::{Tool, ToolContext, ToolEffect, ToolError, ToolSpec};

/// Characters one call gives when the model does not say.
const DEFAULT_CHARS: usize = 8_000;
/// The most one call gives: a tool result is part of the next prompt.
const MAX_CHARS: usize = 20_000;

/// The `read_attachment` tool over the store the conversation is kept in.
pub struct ReadAttachment(pub Arc<dyn SessionStore>);

#[async_trait]
impl Tool for ReadAttachment {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read_attachment".into(),
            description: "Read the text of a file the user attached to this conversation (a text file, or \
                          the text of a PDF), from a character offset. Use it for the part of a long file \
                          that was cut, or a file attached earlier."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "the file's name, as attached (may be left out when only one file is attached)"},
                    "offset": {"type": "integer", "description": "the first character to read (default 0)"},
                    "limit": {"type": "integer", "description": format!("how many characters (default {DEFAULT_CHARS}, at most {MAX_CHARS})")}
                }
            }),
        }
    }

    fn effect(&self, _arguments: &Value) -> ToolEffect {
        ToolEffect::ReadOnly
    }

    async fn call(&self, arguments: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let name = match arguments.get("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim()),
            Some(_) => {
                return Err(ToolError::InvalidArguments(
                    "`name` must be the file's name, a string".into(),
                ));
            }
        };
        let offset = count(&arguments, "offset")?.unwrap_or(0);
        let limit = count(&arguments, "limit")?
            .unwrap_or(DEFAULT_CHARS)
            .clamp(1, MAX_CHARS);

        let history = self
            .0
            .history(&ctx.conversation)
            .await
            .map_err(|e| ToolError::Failed(format!("reading the conversation failed: {e}")))?;
        let files: Vec<&Attachment> = history
            .iter()
            .filter(|m| m.role == Role::User)
            .flat_map(|m| m.attachments.iter())
            .collect();
        let file = pick(&files, name)?;
        let Some(body) = &file.body else {
            return Err(ToolError::Failed(format!(
                "`{}` is no longer on this computer",
                file.name
            )));
        };
        if file.kind == AttachmentKind::Image {
            return Err(ToolError::Failed(format!(
                "`{}` is a picture, not text: a model that can see is shown it with the message it came with",
                file.name
            )));
        }
        let text = String::from_utf8_lossy(&body.0);
        let total = text.chars().count();
        if offset >= total && total > 0 {
            return Err(ToolError::Failed(format!(
                "`{}` has {total} characters; offset {offset} is past its end",
                file.name
            )));
        }
        let part: String = text.chars().skip(offset).take(limit).collect();
        let end = offset + part.chars().count();
        let more = if end < total {
            format!("; the rest from offset {end}")
        } else {
            String::new()
        };
        Ok(format!(
            "[{}: characters {offset} to {end} of {total}{more}]\n{part}",
            file.name
        ))
    }
}

/// A whole number argument `key`, when given.
fn count(arguments: &Value, key: &str) -> Result<Option<usize>, ToolError> {
    match arguments.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| {
                ToolError::InvalidArguments(format!("`{key}` must be a whole number, 0 or more"))
            }),
    }
}

/// The file `name` names (the latest of that name; its case may differ),
/// or the only one when no name is given.
fn pick<'a>(files: &[&'a Attachment], name: Option<&str>) -> Result<&'a Attachment, ToolError> {
    let names = || {
        let mut n: Vec<String> = files.iter().map(|f| format!("`{}`", f.name)).collect();
        n.dedup();
        n.join(", ")
    };
    if files.is_empty() {
        return Err(ToolError::Failed(
            "no file is attached to this conversation".into(),
        ));
    }
    let Some(name) = name else {
        let mut distinct: Vec<&str> = files.iter().map(|f| f.sha256.as_str()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        return match distinct.len() {
            1 => Ok(files[files.len() - 1]),
            _ => Err(ToolError::InvalidArguments(format!(
                "say which file, by `name`: {}",
                names()
            ))),
        };
    };
    files
        .iter()
        .rev()
        .find(|f| f.name == name)
        .or_else(|| {
            files
                .iter()
                .rev()
                .find(|f| f.name.eq_ignore_ascii_case(name))
        })
        .copied()
        .ok_or_else(|| {
            ToolError::Failed(format!(
                "no file named `{name}` is attached to this conversation; attached: {}",
                names()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachment::tests::text_file;
    use crate::message::ChatMessage;
    use crate::store::InMemoryStore;

    fn ctx(conversation: &str) -> ToolContext {
        ToolContext {
            session_id: "subagent_000000000000".into(),
            conversation: conversation.into(),
            run_id: "r".into(),
            call_id: "c".into(),
            cancel: Default::default(),
            events: crate::events::EventSink::discard(hearth_protocol::RunScope::top("s1", "r")),
            workspace: None,
            scope: Default::default(),
            approver: None,
            depth: 1,
            sandbox_off: false,
            read_only: false,
        }
    }

    async fn store_with(files: Vec<Attachment>) -> Arc<InMemoryStore> {
        let store = Arc::new(InMemoryStore::new());
        let mut m = ChatMessage::user("look at these");
        m.attachments = files;
        store.append("s1", "r0", m).await.unwrap();
        store
    }

    async fn read(store: &Arc<InMemoryStore>, args: Value) -> Result<String, ToolError> {
        ReadAttachment(store.clone()).call(args, &ctx("s1")).await
    }

    #[tokio::test]
    async fn reads_a_window_of_the_conversations_file_by_characters() {
        // Multi-byte characters: offsets count characters, never bytes.
        let text: String = (0..5000).map(|i| format!("é{i:04}\n")).collect();
        let store = store_with(vec![text_file("notes.txt", &text)]).await;
        let out = read(&store, json!({"offset": 1000, "limit": 10}))
            .await
            .unwrap();
        let total = text.chars().count();
        assert_eq!(
            out,
            format!(
                "[notes.txt: characters 1000 to 1010 of {total}; the rest from offset 1010]\n{}",
                text.chars().skip(1000).take(10).collect::<String>()
            )
        );
        // The last window says nothing more follows.
        let out = read(&store, json!({"name": "NOTES.TXT", "offset": total - 5}))
            .await
            .unwrap();
        assert!(out.starts_with(&format!(
            "[notes.txt: characters {} to {total} of {total}]\n",
            total - 5
        )));
        let err = read(&store, json!({"offset": total})).await.unwrap_err();
        assert!(err.to_string().contains("past its end"), "{err}");
        // A huge limit gives at most MAX_CHARS.
        let out = read(&store, json!({"limit": 1_000_000})).await.unwrap();
        assert!(
            out.contains(&format!("characters 0 to {MAX_CHARS} of")),
            "{out:.80}"
        );
    }

    #[tokio::test]
    async fn names_the_files_when_it_cannot_tell_which_and_refuses_pictures_and_nonsense() {
        let mut png = text_file("dot.png", "\u{89}PNG");
        png.kind = AttachmentKind::Image;
        png.sha256 = "ab".repeat(32);
        let store = store_with(vec![text_file("a.txt", "alpha"), png]).await;
        let err = read(&store, json!({})).await.unwrap_err();
        assert!(err.to_string().contains("`a.txt`, `dot.png`"), "{err}");
        let err = read(&store, json!({"name": "dot.png"})).await.unwrap_err();
        assert!(err.to_string().contains("is a picture"), "{err}");
        let err = read(&store, json!({"name": "b.txt"})).await.unwrap_err();
        assert!(err.to_string().contains("no file named `b.txt`"), "{err}");
        let err = read(&store, json!({"name": "a.txt", "offset": -3}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::InvalidArguments(_)), "{err}");
        assert_eq!(
            read(&store, json!({"name": "a.txt"})).await.unwrap(),
            "[a.txt: characters 0 to 5 of 5]\nalpha"
        );
        // Another conversation's files are not this one's.
        let other = ReadAttachment(store.clone())
            .call(json!({}), &ctx("s2"))
            .await
            .unwrap_err();
        assert!(other.to_string().contains("no file is attached"), "{other}");
    }
}
