//! What messages are taken to cost in tokens when the server gives no
//! count (docs/background.md §2.3): the one estimate the budget, pruning,
//! compaction and side requests share. Pure.

use crate::message::ChatMessage;

/// Tokens of `messages`, estimated as in docs/background.md §2.3 when the
/// server gives no count: ~4 characters per token plus 16 per message.
pub fn estimate_tokens(messages: &[ChatMessage]) -> usize {
    messages
        .iter()
        .map(|m| {
            let calls: usize = m
                .tool_calls
                .iter()
                .map(|c| c.name.len() + c.arguments.to_string().len())
                .sum();
            let pictures = m.attachments.iter().filter(|a| a.is_image()).count();
            (m.content.len() + calls).div_ceil(4) + 16 + pictures * PICTURE_TOKENS
        })
        .sum()
}

/// What one picture is taken to cost in the prompt. Vision models encode
/// a picture as a fixed run of tokens (Gemma 3 256, LLaVA 1.5 576, more
/// for tiled encoders); the middle one, so a session of pictures is
/// compacted before the server refuses it. The model's calibration by the
/// server's own counts corrects it from the first answer on.
pub const PICTURE_TOKENS: usize = 576;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_estimated_like_seed_001() {
        assert_eq!(estimate_tokens(&[ChatMessage::user("abcdefgh")]), 2 + 16);
        // A picture counts as a run of tokens; a text file's text is in
        // the content the pipeline sends, counted there.
        let mut with_picture = ChatMessage::user("abcdefgh");
        with_picture.attachments = vec![crate::attachment::Attachment {
            sha256: "0".repeat(64),
            name: "cat.png".into(),
            kind: crate::attachment::AttachmentKind::Image,
            mime: "image/png".into(),
            size: 10,
            given: None,
            chars: None,
            body: None,
        }];
        assert_eq!(estimate_tokens(&[with_picture]), 2 + 16 + PICTURE_TOKENS);
    }
}
