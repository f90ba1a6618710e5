//! A stored message as front ends show it: what `open_session` returns for
//! each message of a branch and what `message_stored` announces the moment
//! a run has made one durable. The core builds it (sanitized answers,
//! reasoning apart) so that every front end shows the same thing, live and
//! stored.

use serde::{Deserialize, Serialize};
use specta::Type;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum RoleView {
    /// The system prompt.
    System,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A tool result.
    Tool,
}

/// Whether a stored message is whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum StatusView {
    /// Written to the end.
    Complete,
    /// Stopped by the user, or cut by a crash.
    Interrupted,
    /// Cut by an error.
    Error,
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct ToolCallView {
    /// Call id (a tool result's `tool_call_id` names it).
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as the model wrote them.
    pub arguments: serde_json::Value,
}

/// What an attached file is to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum AttachmentKindView {
    /// A picture, sent to a model that can see.
    Image,
    /// Text, put into the message.
    Text,
}

/// A file attached to a user message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct AttachmentView {
    /// SHA-256 of its bytes, hex (`attachment_data` reads it back).
    pub sha256: String,
    /// The file's name.
    pub name: String,
    /// Image or text.
    pub kind: AttachmentKindView,
    /// Media type.
    pub mime: String,
    /// Bytes of the file.
    pub size: u32,
    /// For text cut to fit the window: the characters the model got.
    pub given: Option<u32>,
    /// For text: characters of the whole text.
    pub chars: Option<u32>,
}

/// One stored message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct MessageView {
    /// Id (grows with time; a message's id is above its parent's).
    pub id: i64,
    /// The message it follows.
    pub parent_id: Option<i64>,
    /// The run that wrote it.
    pub run_id: Option<String>,
    /// Author.
    pub role: RoleView,
    /// Text as shown: an answer sanitized, its inline reasoning moved to
    /// `thinking` (the store keeps what the model wrote).
    pub content: String,
    /// Reasoning text.
    pub thinking: Option<String>,
    /// Tool calls (assistant messages).
    pub tool_calls: Vec<ToolCallView>,
    /// For a tool result: the call it answers.
    pub tool_call_id: Option<String>,
    /// For a tool result: the tool.
    pub tool_name: Option<String>,
    /// Whole, interrupted or cut by an error.
    pub status: StatusView,
    /// Stored at, ms since the epoch.
    pub created_at: i64,
    /// Files attached (user messages).
    pub attachments: Vec<AttachmentView>,
}
