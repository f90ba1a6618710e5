//! `read_attachment`: the agent reads the text of a file the person
//! attached to the conversation, a window at a time. A long file's message
//! holds only what fits the context window ([`crate::attached::allot_text`]);
//! this is how the rest is reached, and a file attached turns ago read
//! again. Pictures are not text: a model that can see gets them with their
//! message.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::attachment::{Attachment, AttachmentKind, shown_name};
use crate::budget::long_message_limit;
use crate::store::SessionStore;
use crate::tool::{Tool, ToolContext, ToolEffect, ToolError, ToolSpec};

/// Characters one call gives when the model does not say (less for a
/// small window: [`limits`]).
const DEFAULT_CHARS: usize = 8_000;
/// The most one call gives on a large (or unknown) window: a tool result
/// is part of the next prompt.
const MAX_CHARS: usize = 20_000;
/// The least a small window still gets, by default and at most.
const FLOOR_CHARS: usize = 1_000;

/// The default and the most one call gives with a context window of
/// `window` tokens (0: not known): by default a quarter of the window, at
/// most half (the share one user message may take), so that a long file
/// read on a small model leaves room for the conversation and the answer;
/// never under [`FLOOR_CHARS`] (a window under 500 tokens gets that much,
/// most of it), never over [`DEFAULT_CHARS`] and [`MAX_CHARS`].
fn limits(window: u32) -> (usize, usize) {
    if window == 0 {
        return (DEFAULT_CHARS, MAX_CHARS);
    }
    let half = long_message_limit(window).max(FLOOR_CHARS);
    let most = MAX_CHARS.min(half);
    (DEFAULT_CHARS.min(half / 2).max(FLOOR_CHARS).min(most), most)
}

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
                    "name": {"type": "string", "description": "the file's name, as attached (may be left out when only one text file is attached)"},
                    "offset": {"type": "integer", "minimum": 0, "description": "the first character to read, counted from 0 (characters, not lines; default 0)"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_CHARS, "description": format!("how many characters (at most {MAX_CHARS}; by default up to {DEFAULT_CHARS}, fewer for a model with a small context)")}
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
        let (default, most) = limits(ctx.window);
        let limit = match count(&arguments, "limit")? {
            None => default,
            Some(0) => {
                return Err(ToolError::InvalidArguments(
                    "`limit` must be 1 or more".into(),
                ));
            }
            Some(n) => n.min(most),
        };

        // The current branch of the conversation, never any other: the
        // session comes from the run, not from the model's arguments.
        let failed = |e| ToolError::Failed(format!("reading the conversation failed: {e}"));
        let listed = self
            .0
            .branch_attachments(&ctx.conversation)
            .await
            .map_err(failed)?;
        let files: Vec<&Attachment> = listed.iter().collect();
        let mut file = pick(&files, name)?.clone();
        let shown = shown_name(&file.name);
        if file.kind == AttachmentKind::Image {
            return Err(ToolError::Failed(format!(
                "`{shown}` is a picture, not text: a model that can see is shown it with the message it came with"
            )));
        }
        // Only the file chosen is read.
        if file.body.is_none() {
            file.body = self.0.attachment_body(&file.sha256).await.map_err(failed)?;
        }
        if file.body.is_none() {
            return Err(ToolError::Failed(format!(
                "`{shown}` is no longer on this computer"
            )));
        }
        // The same text the message gives, so offsets agree with its note.
        let text = file.text();
        let total = text.chars().count();
        if offset > 0 && offset >= total {
            return Err(ToolError::Failed(format!(
                "`{shown}` has {total} characters; offset {offset} is past its end"
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
            "[{shown}: characters {offset} to {end} of {total}{more}]\n{part}"
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

/// The file `name` names: by its name, then by the name the model was
/// shown ([`shown_name`]), then ignoring case; of several with that name,
/// the latest. With no name, the only text file.
fn pick<'a>(files: &[&'a Attachment], name: Option<&str>) -> Result<&'a Attachment, ToolError> {
    let names = || {
        let mut seen = std::collections::HashSet::new();
        files
            .iter()
            .map(|f| shown_name(&f.name))
            .filter(|n| seen.insert(n.clone()))
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if files.is_empty() {
        return Err(ToolError::Failed(
            "no file is attached to this conversation".into(),
        ));
    }
    let Some(name) = name else {
        let texts: Vec<&'a Attachment> = files
            .iter()
            .filter(|f| f.kind == AttachmentKind::Text)
            .copied()
            .collect();
        let mut distinct: Vec<&str> = texts.iter().map(|f| f.sha256.as_str()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        return match (distinct.len(), texts.last()) {
            (1, Some(only)) => Ok(only),
            _ => Err(ToolError::InvalidArguments(format!(
                "say which file, by `name`: {}",
                names()
            ))),
        };
    };
    let lower = name.to_lowercase();
    let matches: [&dyn Fn(&Attachment) -> bool; 3] = [
        &|f| f.name == name,
        &|f| shown_name(&f.name) == name,
        &|f| f.name.to_lowercase() == lower,
    ];
    matches
        .iter()
        .find_map(|m| files.iter().rev().find(|f| m(f)))
        .copied()
        .ok_or_else(|| {
            ToolError::Failed(format!(
                "no file named `{}` is attached to this conversation; attached: {}",
                shown_name(name),
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
            window: 0,
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
    async fn a_model_with_a_small_window_reads_less_at_a_time() {
        let text = "abcdefghij".repeat(3000);
        let store = store_with(vec![text_file("long.txt", &text)]).await;
        let read_in = |window: u32, args: Value| {
            let store = store.clone();
            async move {
                let ctx = ToolContext {
                    window,
                    ..ctx("s1")
                };
                ReadAttachment(store).call(args, &ctx).await.unwrap()
            }
        };
        let span = |out: &str| out.lines().next().unwrap().to_owned();
        // 2048 tokens: a quarter of the window by default (about 2048
        // characters), at most half, however much is asked.
        assert_eq!(
            span(&read_in(2048, json!({})).await),
            "[long.txt: characters 0 to 2048 of 30000; the rest from offset 2048]"
        );
        assert_eq!(
            span(&read_in(2048, json!({"limit": 20000})).await),
            "[long.txt: characters 0 to 4096 of 30000; the rest from offset 4096]"
        );
        // A tiny window still reads something useful.
        assert!(span(&read_in(256, json!({})).await).contains("characters 0 to 1000 of"),);
        // A large window, or one not known, gets the usual amounts.
        for window in [0, 131_072] {
            assert!(
                span(&read_in(window, json!({})).await)
                    .contains(&format!("0 to {DEFAULT_CHARS} of"))
            );
            assert!(
                span(&read_in(window, json!({"limit": 25_000})).await)
                    .contains(&format!("0 to {MAX_CHARS} of"))
            );
        }
    }

    #[tokio::test]
    async fn names_the_files_when_it_cannot_tell_which_and_refuses_pictures_and_nonsense() {
        let mut png = text_file("dot.png", "\u{89}PNG");
        png.kind = AttachmentKind::Image;
        png.sha256 = "ab".repeat(32);
        let store = store_with(vec![text_file("a.txt", "alpha"), png.clone()]).await;
        // One text file and a picture: no name is needed.
        assert_eq!(
            read(&store, json!({})).await.unwrap(),
            "[a.txt: characters 0 to 5 of 5]\nalpha"
        );
        let err = read(&store, json!({"name": "dot.png"})).await.unwrap_err();
        assert!(err.to_string().contains("is a picture"), "{err}");
        let err = read(&store, json!({"name": "b.txt"})).await.unwrap_err();
        assert!(
            err.to_string()
                .contains("no file named `b.txt` is attached to this conversation; attached: `a.txt`, `dot.png`"),
            "{err}"
        );
        for bad in [
            json!({"offset": -3}),
            json!({"limit": 0}),
            json!({"name": 7}),
        ] {
            let err = read(&store, bad.clone()).await.unwrap_err();
            assert!(
                matches!(err, ToolError::InvalidArguments(_)),
                "{bad}: {err}"
            );
        }
        // Another conversation's files are not this one's.
        let other = ReadAttachment(store.clone())
            .call(json!({}), &ctx("s2"))
            .await
            .unwrap_err();
        assert!(other.to_string().contains("no file is attached"), "{other}");
    }

    #[tokio::test]
    async fn finds_a_file_by_the_name_the_model_was_shown_and_the_latest_of_a_name() {
        let store = store_with(vec![
            text_file("my \"draft\".txt", "first"),
            text_file("Übersicht.md", "overview"),
            text_file("a.txt", "old"),
        ])
        .await;
        let mut later = ChatMessage::user("and this");
        later.attachments = vec![text_file("a.txt", "newer"), text_file("a.txt", "newer")];
        store.append("s1", "r1", later).await.unwrap();
        // The message showed `my _draft_.txt`; asking by that name works.
        assert!(
            read(&store, json!({"name": "my _draft_.txt"}))
                .await
                .unwrap()
                .starts_with("[my _draft_.txt: characters 0 to 5 of 5]\nfirst")
        );
        assert!(
            read(&store, json!({"name": "übersicht.MD"}))
                .await
                .unwrap()
                .ends_with("overview")
        );
        assert!(
            read(&store, json!({"name": "a.txt"}))
                .await
                .unwrap()
                .ends_with("newer")
        );
        // Several different text files: the model must say which, and each
        // name is listed once.
        let err = read(&store, json!({})).await.unwrap_err();
        assert!(
            err.to_string()
                .ends_with("`my _draft_.txt`, `Übersicht.md`, `a.txt`"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn an_empty_file_reads_as_empty_and_a_file_gone_from_disk_says_so() {
        let mut gone = text_file("gone.txt", "lost");
        gone.body = None;
        let store = store_with(vec![text_file("empty.txt", ""), gone]).await;
        assert_eq!(
            read(&store, json!({"name": "empty.txt"})).await.unwrap(),
            "[empty.txt: characters 0 to 0 of 0]\n"
        );
        let err = read(&store, json!({"name": "empty.txt", "offset": 5}))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("past its end"), "{err}");
        let err = read(&store, json!({"name": "gone.txt"})).await.unwrap_err();
        assert!(
            err.to_string().contains("no longer on this computer"),
            "{err}"
        );
    }

    /// A store that lists files without their bytes, as SQLite does, and
    /// counts the files it is asked to read.
    struct Listing {
        files: Vec<Attachment>,
        read: std::sync::Mutex<Vec<String>>,
    }

    #[async_trait]
    impl SessionStore for Listing {
        async fn history(&self, _: &str) -> Result<Vec<ChatMessage>, crate::StoreError> {
            panic!("the whole history, pictures and all, is not read for one file")
        }
        async fn append(
            &self,
            _: &str,
            _: &str,
            _: ChatMessage,
        ) -> Result<crate::Appended, crate::StoreError> {
            unreachable!()
        }
        async fn branch_attachments(&self, _: &str) -> Result<Vec<Attachment>, crate::StoreError> {
            Ok(self
                .files
                .iter()
                .map(|f| Attachment {
                    body: None,
                    ..f.clone()
                })
                .collect())
        }
        async fn attachment_body(
            &self,
            sha256: &str,
        ) -> Result<Option<crate::attachment::Body>, crate::StoreError> {
            self.read.lock().unwrap().push(sha256.to_owned());
            Ok(self
                .files
                .iter()
                .find(|f| f.sha256 == sha256)
                .and_then(|f| f.body.clone()))
        }
    }

    #[tokio::test]
    async fn only_the_file_asked_for_is_read() {
        let mut picture = text_file("cat.png", "not read");
        picture.kind = AttachmentKind::Image;
        picture.sha256 = "1".repeat(64);
        let mut notes = text_file("notes.txt", "hello");
        notes.sha256 = "2".repeat(64);
        let mut gone = text_file("gone.txt", "lost");
        gone.sha256 = "3".repeat(64);
        gone.body = None;
        let store = Arc::new(Listing {
            files: vec![picture, notes, gone],
            read: Default::default(),
        });
        let tool = ReadAttachment(store.clone());
        let out = tool
            .call(json!({"name": "notes.txt"}), &ctx("s1"))
            .await
            .unwrap();
        assert_eq!(out, "[notes.txt: characters 0 to 5 of 5]\nhello");
        let err = tool.call(json!({"name": "cat.png"}), &ctx("s1")).await;
        assert!(err.unwrap_err().to_string().contains("is a picture"));
        let err = tool.call(json!({"name": "gone.txt"}), &ctx("s1")).await;
        assert!(
            err.unwrap_err()
                .to_string()
                .contains("no longer on this computer")
        );
        assert_eq!(
            *store.read.lock().unwrap(),
            ["2".repeat(64), "3".repeat(64)],
            "the text asked for and the one gone; never the picture"
        );
    }
}
