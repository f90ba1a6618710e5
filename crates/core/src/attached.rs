//! What the files attached to a message put in what is sent: how much of
//! each text file the model gets (fixed when the message is kept), the
//! message's text with them, and pictures left out for a model that cannot
//! see. The files themselves are `attachment.rs`.

use crate::attachment::{Attachment, AttachmentKind, shown_name};
use crate::budget::long_message_limit;
use crate::message::{ChatMessage, Role};

/// Room for what surrounds each file's text in the message (its name,
/// the tags, a note when it is cut), in characters.
const FRAME_CHARS: usize = 400;

/// Decide how much of each text attachment the model gets, so that the
/// message with its files fits the share of `window` one user message may
/// take ([`long_message_limit`]). Files get room in the order they were
/// attached; one that does not fit whole gets the start of its text.
pub fn allot_text(typed: &str, attachments: &mut [Attachment], window: u32) {
    let mut room = long_message_limit(window).saturating_sub(typed.chars().count());
    for a in attachments
        .iter_mut()
        .filter(|a| a.kind == AttachmentKind::Text)
    {
        let total = a.text().chars().count();
        a.chars = Some(total as u64);
        room = room.saturating_sub(FRAME_CHARS);
        let given = total.min(room);
        room -= given;
        a.given = (given < total).then_some(given as u64);
    }
}

/// The text a user message sends: what was typed, then each text file in
/// a `<file>` block (cut to [`Attachment::given`], with a note saying so).
/// Images are sent beside the text by the backend. Pure: the same message
/// gives the same text.
pub fn with_file_text(m: &ChatMessage) -> String {
    let mut out = m.content.clone();
    for a in &m.attachments {
        if a.body.is_none() {
            out.push_str(&format!(
                "\n\n[Hearth: the user attached {}, but the file is no longer on this computer.]",
                a.name
                    .chars()
                    .filter(|c| !c.is_control())
                    .collect::<String>()
            ));
            continue;
        }
        if a.kind != AttachmentKind::Text {
            continue;
        }
        let text = a.text();
        let total = text.chars().count();
        let given = a
            .given
            .and_then(|g| usize::try_from(g).ok())
            .unwrap_or(total)
            .min(total);
        let name = shown_name(&a.name);
        if given == 0 && total > 0 {
            out.push_str(&format!(
                "\n\n[Hearth: the user attached {name} ({total} characters), but this message had no room \
                 left in the model's context window for its text.]"
            ));
            continue;
        }
        out.push_str(&format!("\n\n<file name=\"{name}\">\n"));
        out.extend(text.chars().take(given));
        out.push_str("\n</file>");
        if given < total {
            out.push_str(&format!(
                "\n[Hearth: {name} is {total} characters long; only its first {given} are given above, \
                 to fit the model's context window. Read the rest (from character {given}) with the \
                 read_attachment tool where it is offered; else say so if the rest matters.]"
            ));
        }
    }
    out
}

/// The pipeline step: each user message with text files carries their
/// text (see [`with_file_text`]); the attachments stay for the images.
pub fn expand_attachments(mut messages: Vec<ChatMessage>) -> Vec<ChatMessage> {
    for m in messages
        .iter_mut()
        .filter(|m| m.role == Role::User && !m.attachments.is_empty())
    {
        m.content = with_file_text(m);
    }
    messages
}

/// Leaves the pictures out of `messages` for a model that cannot see,
/// telling it in each message that had some: a picture earlier in the
/// conversation would otherwise make every request fail once the session
/// is on such a model. The same words every time, so the prefix stays
/// stable for the model. Whether any was left out.
pub fn leave_out_pictures(messages: &mut [ChatMessage]) -> bool {
    let mut any = false;
    for m in messages {
        let before = m.attachments.len();
        m.attachments.retain(|a| !a.is_image());
        let gone = before - m.attachments.len();
        if gone > 0 {
            any = true;
            m.content.push_str(&format!(
                "\n\n[Hearth: {gone} picture(s) attached here are not shown: this model cannot see images.]"
            ));
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachment::Body;
    use crate::attachment::tests::text_file;
    use std::sync::Arc;

    #[test]
    fn a_file_that_fits_is_given_whole_and_one_that_does_not_is_cut_with_a_note() {
        let mut m = ChatMessage::user("what is in these?");
        m.attachments = vec![
            text_file("a.txt", "alpha"),
            text_file("big \"x\".log", &"é".repeat(20_000)),
        ];
        // 4096 tokens: 8192 characters for the whole message.
        allot_text(&m.content, &mut m.attachments, 4096);
        assert_eq!(m.attachments[0].given, None);
        let given = m.attachments[1].given.expect("the big file is cut");
        assert!(given > 6_000 && given < 8_192, "{given}");
        let sent = with_file_text(&m);
        assert!(sent.starts_with("what is in these?\n\n<file name=\"a.txt\">\nalpha\n</file>"));
        assert!(sent.contains("<file name=\"big _x_.log\">"), "{sent:.200}");
        assert!(sent.contains(&format!("only its first {given} are given")));
        assert!(
            sent.chars().count() <= long_message_limit(4096),
            "fits the share"
        );
        // The same message gives the same text (prefix stability).
        assert_eq!(sent, with_file_text(&m));
    }

    #[test]
    fn a_file_gone_from_the_disk_is_said_to_be_gone() {
        let mut gone = text_file("a.txt", "x");
        gone.body = None;
        let mut m = ChatMessage::user("see");
        m.attachments = vec![gone];
        assert_eq!(
            with_file_text(&m),
            "see\n\n[Hearth: the user attached a.txt, but the file is no longer on this computer.]"
        );
    }

    #[test]
    fn only_user_messages_are_expanded_and_images_add_no_text() {
        let mut img = text_file("p.png", "");
        img.kind = AttachmentKind::Image;
        img.body = Some(Body(Arc::from(&b"\x89PNG"[..])));
        let mut m = ChatMessage::user("look");
        m.attachments = vec![img];
        let out = expand_attachments(vec![ChatMessage::assistant("hi"), m]);
        assert_eq!(out[1].content, "look");
        assert_eq!(out[1].attachments.len(), 1);
    }
}
