//! Context pruning (docs/background.md §3.6), on what is sent (never on
//! what is stored): when the conversation fills a good part of the window, old
//! oversized tool results are cut to their head and tail (pass 1), and if
//! that is not enough, the oldest very large ones are cleared (pass 2).
//! System messages, the first user message and everything from the third
//! last assistant message on are never touched.

use crate::message::{ChatMessage, Role};
use crate::tokens::estimate_tokens;

/// Above this share of the window, pass 1 runs.
pub const SOFT_TRIM_RATIO: f64 = 0.3;
/// Above this share after pass 1, pass 2 runs.
pub const HARD_CLEAR_RATIO: f64 = 0.5;
/// Recent assistant messages protected (with what follows them).
pub const KEEP_LAST_ASSISTANTS: usize = 3;
/// Results longer than this are soft-trimmed...
pub const SOFT_TRIM_OVER: usize = 4000;
/// ...to this many characters at each end.
pub const SOFT_TRIM_KEEP: usize = 1500;
/// Only results at least this long (as stored) are cleared by pass 2.
pub const MIN_PRUNABLE_CHARS: usize = 50_000;
/// What a cleared result says.
pub const CLEARED: &str = "[Old tool result content cleared]";

fn ratio(messages: &[ChatMessage], num_ctx: u32) -> f64 {
    estimate_tokens(messages) as f64 / f64::from(num_ctx.max(1))
}

/// Head and tail of `text`, `…` between (on character boundaries).
fn soft_trim(text: &str) -> String {
    let n = text.chars().count();
    let head: String = text.chars().take(SOFT_TRIM_KEEP).collect();
    let tail: String = text.chars().skip(n - SOFT_TRIM_KEEP).collect();
    format!(
        "{head}\n...\n[{} characters of this old tool result left out]\n...\n{tail}",
        n - 2 * SOFT_TRIM_KEEP
    )
}

/// The messages with old tool results pruned to fit `num_ctx` better.
pub fn prune_tool_results(mut messages: Vec<ChatMessage>, num_ctx: u32) -> Vec<ChatMessage> {
    if ratio(&messages, num_ctx) < SOFT_TRIM_RATIO {
        return messages;
    }
    // The protected zone starts at the third last assistant message.
    let protected_from = messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| m.role == Role::Assistant)
        .nth(KEEP_LAST_ASSISTANTS - 1)
        .map_or(0, |(i, _)| i);
    let eligible: Vec<usize> = (0..protected_from)
        .filter(|&i| messages[i].role == Role::Tool)
        .collect();
    let original: Vec<usize> = eligible
        .iter()
        .map(|&i| messages[i].content.chars().count())
        .collect();
    for &i in &eligible {
        if messages[i].content.chars().count() > SOFT_TRIM_OVER {
            messages[i].content = soft_trim(&messages[i].content);
        }
    }
    // Oldest first, until under the hard ratio.
    for (&i, &len) in eligible.iter().zip(&original) {
        if ratio(&messages, num_ctx) < HARD_CLEAR_RATIO {
            break;
        }
        if len >= MIN_PRUNABLE_CHARS {
            messages[i].content = CLEARED.to_owned();
        }
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;

    fn result(n: usize) -> ChatMessage {
        let call = ToolCall {
            id: format!("c{n}"),
            name: "read_file".into(),
            arguments: serde_json::json!({}),
        };
        ChatMessage::tool_result(&call, "x".repeat(n))
    }

    fn turn(result_len: usize) -> Vec<ChatMessage> {
        vec![
            ChatMessage::user("q"),
            ChatMessage::assistant("calling"),
            result(result_len),
        ]
    }

    #[test]
    fn a_small_context_is_left_alone() {
        let m: Vec<ChatMessage> = turn(10_000);
        assert_eq!(prune_tool_results(m.clone(), 32_768), m);
    }

    #[test]
    fn old_big_results_are_trimmed_recent_ones_and_the_first_user_message_kept() {
        let mut m = Vec::new();
        for _ in 0..5 {
            m.extend(turn(10_000));
        }
        // ~12.7k tokens in a 16k window: above 0.3, below 0.5 after pass 1.
        let got = prune_tool_results(m.clone(), 16_384);
        let lens: Vec<usize> = got
            .iter()
            .filter(|x| x.role == Role::Tool)
            .map(|x| x.content.chars().count())
            .collect();
        // The first two turns are outside the protected zone (last 3
        // assistant messages and what follows them).
        assert!(lens[0] < 3200 && lens[1] < 3200, "{lens:?}");
        assert_eq!(&lens[2..], [10_000, 10_000, 10_000]);
        assert!(got[2].content.starts_with(&"x".repeat(1500)));
        assert!(
            got[2]
                .content
                .contains("characters of this old tool result left out")
        );
        assert_eq!(got[0], m[0]);
    }

    #[test]
    fn huge_old_results_are_cleared_when_trimming_is_not_enough() {
        let mut m = Vec::new();
        for _ in 0..4 {
            m.extend(turn(60_000));
        }
        // Still over half of a tiny window after trimming: the oldest huge
        // results are cleared.
        let got = prune_tool_results(m, 1_000);
        let tools: Vec<&str> = got
            .iter()
            .filter(|x| x.role == Role::Tool)
            .map(|x| x.content.as_str())
            .collect();
        assert_eq!(tools[0], CLEARED);
        assert_eq!(
            tools[3].len(),
            60_000,
            "the protected zone is never touched"
        );
    }
}
