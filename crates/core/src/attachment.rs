//! Files a person attaches to a message: pictures, which go to a model
//! that can see as images, and text files, whose text goes into the
//! message the model reads. The store keeps the bytes (content-addressed
//! by SHA-256); a message refers to them. What a text file gives the model
//! is fixed when the message is kept ([`Attachment::given`]), so the same
//! history always makes the same prompt and the server's prefix cache
//! holds whatever the window does later.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// What an attachment is to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttachmentKind {
    /// A picture, sent as an image to a model that can see.
    Image,
    /// Text (a text file, or the text of a PDF), put into the message.
    Text,
}

/// The bytes of an attachment, loaded by the store when a history is
/// read. Shown by length only: a picture is megabytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Body(pub Arc<[u8]>);

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Body({} bytes)", self.0.len())
    }
}

/// A file attached to a user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attachment {
    /// SHA-256 of the stored bytes, hex: the file's name in the store.
    pub sha256: String,
    /// The name the person's file had.
    pub name: String,
    /// Image or text.
    pub kind: AttachmentKind,
    /// Media type (`image/png`, `text/plain`, `application/pdf` …).
    pub mime: String,
    /// Bytes of the original file.
    pub size: u64,
    /// For text: characters the model is given (`None`: all of them).
    /// Set when the message is kept, from the window of that moment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<u64>,
    /// For text: characters of the whole text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chars: Option<u64>,
    /// What the model reads: the picture's bytes, or the text (UTF-8).
    /// Filled by the store when it reads a history; never serialized.
    #[serde(skip)]
    pub body: Option<Body>,
}

impl Attachment {
    /// Whether this goes to the model as an image.
    pub fn is_image(&self) -> bool {
        self.kind == AttachmentKind::Image
    }

    /// The text a text attachment gives, whole (empty for an image or an
    /// attachment whose bytes were not loaded).
    pub(crate) fn text(&self) -> &str {
        match (&self.body, self.kind) {
            (Some(b), AttachmentKind::Text) => std::str::from_utf8(&b.0).unwrap_or(""),
            _ => "",
        }
    }
}

/// An attachment as front ends show it.
pub fn view(a: &Attachment) -> hearth_protocol::AttachmentView {
    let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    hearth_protocol::AttachmentView {
        sha256: a.sha256.clone(),
        name: a.name.clone(),
        kind: match a.kind {
            AttachmentKind::Image => hearth_protocol::AttachmentKindView::Image,
            AttachmentKind::Text => hearth_protocol::AttachmentKindView::Text,
        },
        mime: a.mime.clone(),
        size: small(a.size),
        given: a.given.map(small),
        chars: a.chars.map(small),
    }
}

/// A file's name as the model reads it: the person's, but kept from
/// closing the `<file>` tag or breaking a line.
pub(crate) fn shown_name(name: &str) -> String {
    name.chars()
        .map(|c| if c == '"' || c.is_control() { '_' } else { c })
        .collect()
}

/// The model that `images` pictures were refused by, said so a person
/// knows what to do.
pub fn refusal(model: &str, images: usize) -> String {
    let what = if images == 1 {
        "a picture".to_owned()
    } else {
        format!("{images} pictures")
    };
    format!(
        "{model} cannot see images, so {what} cannot be sent to it. Choose a model that can \
         (one marked \"vision\" in the model picker, such as gemma3, llava or qwen2.5vl), \
         or remove the picture."
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A text file held in memory; files of different lengths have
    /// different addresses.
    pub(crate) fn text_file(name: &str, text: &str) -> Attachment {
        Attachment {
            sha256: format!("{:064x}", text.len()),
            name: name.into(),
            kind: AttachmentKind::Text,
            mime: "text/plain".into(),
            size: text.len() as u64,
            given: None,
            chars: None,
            body: Some(Body(Arc::from(text.as_bytes()))),
        }
    }
}
