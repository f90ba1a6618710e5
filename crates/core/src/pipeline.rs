//! The history pipeline (docs/background.md §3.5), applied to what is sent and
//! never to what is stored:
//!
//! 1. the context is built (system prompt, memory, summary, the history
//!    the summary does not cover, assistant text sanitized, tool calls
//!    and results paired: stage 3, which no later step can break — none
//!    removes a message except stage 1, and it cuts at a user message);
//! 2. stage 1: only the last N user turns, when the profile limits them;
//! 3. a user message's text files go into its text, as much of each as
//!    was allotted when it was kept (`attachment.rs`);
//! 4. a user message too long for the window is shortened, and the model
//!    is told (docs/background.md §3.1's 32,768-character cut, but
//!    following the window instead of a constant);
//! 5. tool results the input guard flags are marked or withheld;
//! 6. stage 2: old oversized tool results are pruned (docs/background.md §3.6).
//!
//! Every step is pure and deterministic, so the same history gives the
//! same prompt and Ollama's prefix cache keeps working.

use hearth_protocol::GuardMode;

use crate::context::build_context;
use crate::guard::guard_tool_results;
use crate::message::{ChatMessage, Role};
use crate::pruning::prune_tool_results;
use crate::summary::Summary;
// Kept at its old path for the crates that name it there.
pub use crate::budget::{LONG_MESSAGE_SHARE, long_message_limit};

/// What the pipeline needs besides the history.
#[derive(Debug, Clone, Copy)]
pub struct Outgoing<'a> {
    /// The global persona.
    pub persona: &'a str,
    /// The profile's prompt.
    pub profile_prompt: &'a str,
    /// The memory snapshot.
    pub memory: Option<&'a str>,
    /// The compaction summary.
    pub summary: Option<&'a Summary>,
    /// The window in effect (tokens).
    pub window: u32,
    /// Keep only the last N user turns (`None`: all).
    pub turns: Option<u32>,
    /// The input guard's mode.
    pub guard: GuardMode,
}

impl<'a> Outgoing<'a> {
    /// What a request under `profile` sends (the summary is read from the
    /// store when sending). The chat call and the side requests' prefix
    /// both start here, so they cannot drift apart (docs/design.md §5).
    pub fn of_profile(
        persona: &'a str,
        profile: &'a crate::profile::Profile,
        memory: Option<&'a str>,
        window: u32,
    ) -> Self {
        Self {
            persona,
            profile_prompt: &profile.system_prompt,
            memory,
            summary: None,
            window,
            turns: profile.history_turns,
            guard: profile.input_guard,
        }
    }
}

/// The messages to send for `history`.
pub fn outgoing(o: &Outgoing<'_>, history: &[ChatMessage]) -> Vec<ChatMessage> {
    let messages = build_context(o.persona, o.profile_prompt, o.memory, o.summary, history);
    let messages = limit_turns(messages, o.turns);
    let messages = crate::attached::expand_attachments(messages);
    let messages = cap_long_messages(messages, o.window);
    let messages = guard_tool_results(messages, o.guard);
    prune_tool_results(messages, o.window)
}

/// Stage 1: the leading system messages, then everything from the N-th
/// last user message on. A limit of 0 is treated as 1: the question being
/// answered is always sent.
pub fn limit_turns(messages: Vec<ChatMessage>, turns: Option<u32>) -> Vec<ChatMessage> {
    let Some(n) = turns else {
        return messages;
    };
    let n = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
    let Some(from) = messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| m.role == Role::User)
        .nth(n - 1)
        .map(|(i, _)| i)
    else {
        return messages;
    };
    let head = messages
        .iter()
        .take_while(|m| m.role == Role::System)
        .count();
    if from <= head {
        return messages;
    }
    let mut out = messages;
    out.drain(head..from);
    out
}

/// User messages longer than [`long_message_limit`] are sent as their
/// first three quarters and last quarter of the limit, with a note that
/// tells the model what it got. The stored message stays whole.
pub fn cap_long_messages(mut messages: Vec<ChatMessage>, window: u32) -> Vec<ChatMessage> {
    let limit = long_message_limit(window).max(1000);
    for m in messages.iter_mut().filter(|m| m.role == Role::User) {
        let total = m.content.chars().count();
        if total <= limit {
            continue;
        }
        let head_n = limit * 3 / 4;
        let tail_n = limit - head_n;
        let head: String = m.content.chars().take(head_n).collect();
        let tail: String = m.content.chars().skip(total - tail_n).collect();
        m.content = format!(
            "{head}\n\n[… {} characters left out here …]\n\n{tail}\n\n\
             [Hearth: this message is {total} characters long. The model's context window ({window} tokens) \
             holds only the first {head_n} and the last {tail_n} characters, shown above. The user has the whole text; \
             say what you received, and ask for the part you need if it matters.]",
            total - head_n - tail_n
        );
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(i: usize) -> [ChatMessage; 2] {
        [
            ChatMessage::user(format!("q{i}")),
            ChatMessage::assistant(format!("a{i}")),
        ]
    }

    #[test]
    fn stage_1_keeps_the_last_n_user_turns_and_the_system_messages() {
        let mut msgs = vec![ChatMessage::system("sys"), ChatMessage::system("mem")];
        for i in 0..5 {
            msgs.extend(turn(i));
        }
        msgs.push(ChatMessage::user("now"));
        let kept = limit_turns(msgs.clone(), Some(2));
        let texts: Vec<&str> = kept.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts, ["sys", "mem", "q4", "a4", "now"]);
        assert_eq!(limit_turns(msgs.clone(), None), msgs);
        assert_eq!(limit_turns(msgs.clone(), Some(100)), msgs);
        let one = limit_turns(msgs, Some(0));
        assert_eq!(one.last().unwrap().content, "now");
        assert_eq!(one.len(), 3);
    }

    #[test]
    fn a_message_too_long_for_the_window_is_cut_with_a_note_and_the_rest_is_untouched() {
        let window = 2048; // 4,096 characters
        let long = format!("START{}END", "é".repeat(20_000));
        let msgs = vec![
            ChatMessage::system("sys"),
            ChatMessage::user(long.clone()),
            ChatMessage::assistant("x".repeat(20_000)),
        ];
        let out = cap_long_messages(msgs, window);
        let sent = &out[1].content;
        assert!(sent.starts_with("START") && sent.contains("END\n\n[Hearth:"));
        let end: String = sent.chars().skip(sent.chars().count() - 400).collect();
        assert!(sent.contains("20008 characters long"), "{end}");
        assert!(sent.chars().count() < long_message_limit(window) + 600);
        assert_eq!(
            out[2].content.len(),
            20_000,
            "only user messages are capped"
        );
        // The limit follows the window.
        assert_eq!(long_message_limit(8192), 16_384);
        assert_eq!(long_message_limit(131_072), 262_144);
        let short = cap_long_messages(vec![ChatMessage::user("hi")], 2048);
        assert_eq!(short[0].content, "hi");
    }
}
