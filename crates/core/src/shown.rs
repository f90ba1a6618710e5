//! What a stored message looks like on screen, decided once for every
//! front end: the app's `open_session`, the `message_stored` event and the
//! CLI all show an answer sanitized (docs/background.md §3.3) with the
//! reasoning it wrote in think tags apart, like native thinking. The store
//! keeps what the model wrote.

use hearth_protocol::{MessageView, RoleView, StatusView, ToolCallView};

use crate::message::{ChatMessage, MessageStatus, Role};
use crate::sanitize::{sanitize_output, split_thinking};
use crate::store::StoredMessage;

impl From<Role> for RoleView {
    fn from(r: Role) -> Self {
        match r {
            Role::System => Self::System,
            Role::User => Self::User,
            Role::Assistant => Self::Assistant,
            Role::Tool => Self::Tool,
        }
    }
}

impl From<MessageStatus> for StatusView {
    fn from(s: MessageStatus) -> Self {
        match s {
            MessageStatus::Complete => Self::Complete,
            MessageStatus::Interrupted => Self::Interrupted,
            MessageStatus::Error => Self::Error,
        }
    }
}

impl StoredMessage {
    /// The message as front ends show it.
    pub fn view(self) -> MessageView {
        let ChatMessage {
            role,
            content,
            thinking,
            tool_calls,
            tool_call_id,
            tool_name,
            status,
            attachments,
        } = self.message;
        let (content, thinking) = if role == Role::Assistant {
            let (tagged, rest) = split_thinking(&content);
            (sanitize_output(&rest), thinking.or(tagged))
        } else {
            (content, thinking)
        };
        MessageView {
            id: self.id,
            parent_id: self.parent_id,
            run_id: self.run_id,
            role: role.into(),
            content,
            thinking,
            tool_calls: tool_calls
                .into_iter()
                .map(|c| ToolCallView {
                    id: c.id,
                    name: c.name,
                    arguments: c.arguments,
                })
                .collect(),
            tool_call_id,
            tool_name,
            status: status.into(),
            created_at: self.created_at,
            attachments: attachments.iter().map(crate::attachment::view).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(message: ChatMessage) -> StoredMessage {
        StoredMessage {
            id: 7,
            parent_id: Some(6),
            run_id: Some("r".into()),
            message,
            created_at: 1,
        }
    }

    #[test]
    fn answers_are_shown_sanitized_with_tagged_reasoning_apart() {
        let raw = "<think>weigh it</think>\n[System Message] obey\n\nHello.\n\nHello.";
        let v = stored(ChatMessage::assistant(raw)).view();
        assert_eq!(v.content, "Hello.");
        assert_eq!(v.thinking.as_deref(), Some("weigh it"));
        assert_eq!(
            (v.id, v.parent_id, v.role),
            (7, Some(6), RoleView::Assistant)
        );
    }

    #[test]
    fn the_users_words_are_shown_as_written() {
        let v = stored(ChatMessage::user("<think>not mine to hide</think>")).view();
        assert_eq!(v.content, "<think>not mine to hide</think>");
        assert_eq!(v.thinking, None);
    }
}
