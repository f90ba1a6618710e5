//! Prompts as "tokens": the deterministic template, the tokenizer, the
//! one-slot prefix cache arithmetic and context-overflow truncation.
//!
//! Pure functions over request messages; no clock, no server state. The
//! template is not any real model's, but it has the property that matters
//! for docs/design.md §5: the tool list and the system prompt come first, so a
//! change there invalidates the whole cached prefix, while an unchanged
//! history (the assistant's own reply included) is a cache hit.

use serde_json::Value;

use crate::wire::{Message, ToolCall};

/// Longest run of non-space characters in one token.
const MAX_WORD_CHARS: usize = 8;

/// Cuts text into tokens: leading whitespace plus up to eight non-space
/// characters. Cuts fall on character boundaries, so a multi-byte character
/// is never split; concatenating the tokens gives the text back.
pub(crate) fn tokenize(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_word = false;
    let mut word_chars = 0;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if in_word {
                out.push(&text[start..i]);
                start = i;
                in_word = false;
            }
        } else {
            if in_word && word_chars == MAX_WORD_CHARS {
                out.push(&text[start..i]);
                start = i;
                word_chars = 0;
            }
            in_word = true;
            word_chars += 1;
        }
        if !in_word {
            word_chars = 0;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Owned tokens, as the prefix cache stores them.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    tokenize(text).into_iter().map(str::to_owned).collect()
}

/// Renders tools and messages, ending with the assistant header the model
/// continues from.
pub(crate) fn render(messages: &[&Message], tools: &[Value]) -> String {
    let mut out = String::new();
    if !tools.is_empty() {
        out.push_str("<|tools|>\n");
        out.push_str(&serde_json::to_string(tools).unwrap_or_default());
        out.push('\n');
    }
    for m in messages {
        out.push_str("<|");
        out.push_str(&m.role);
        out.push_str("|>\n");
        if let Some(name) = &m.tool_name {
            out.push('[');
            out.push_str(name);
            out.push_str("] ");
        }
        out.push_str(&m.content);
        for _ in m.images.iter().flatten() {
            out.push_str(" [img]");
        }
        out.push('\n');
        // Past thinking is not rendered, as most thinking templates drop it.
        for call in m.tool_calls.iter().flatten() {
            out.push_str(&render_call(call));
        }
    }
    out.push_str("<|assistant|>\n");
    out
}

fn render_call(call: &ToolCall) -> String {
    let args = serde_json::to_string(&call.function.arguments).unwrap_or_default();
    format!("<|call|> {} {args}\n", call.function.name)
}

/// What the model generated, rendered as the template will render it when
/// the client sends it back: appended to the prompt it keeps the cache hot.
pub(crate) fn render_reply(content: &str, calls: &[(String, Value)]) -> String {
    let mut out = String::from(content);
    out.push('\n');
    for (name, args) in calls {
        let args = serde_json::to_string(args).unwrap_or_default();
        out.push_str(&format!("<|call|> {name} {args}\n"));
    }
    out
}

/// Tokens a runner must evaluate: those after the prefix shared with its
/// cache, and at least one (llama.cpp re-evaluates the last token of a
/// fully cached prompt to get logits).
pub(crate) fn uncached(cache: &[String], prompt: &[String]) -> (usize, usize) {
    let shared = cache.iter().zip(prompt).take_while(|(a, b)| a == b).count();
    let shared = if shared == prompt.len() {
        shared.saturating_sub(1)
    } else {
        shared
    };
    (shared, prompt.len() - shared)
}

/// The prompt that fits: the tokens, and how many non-system messages were
/// dropped from the front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fitted {
    pub tokens: Vec<String>,
    pub dropped: usize,
}

/// Fits messages into `num_ctx` tokens the way Ollama's `chatPrompt` does:
/// system messages always stay, the oldest others go first, the last
/// message is never dropped (even when it alone is too long). `None` when
/// the whole prompt does not fit and `truncate` is false.
pub(crate) fn fit(
    messages: &[Message],
    tools: &[Value],
    num_ctx: usize,
    truncate: bool,
) -> Option<Fitted> {
    let others: Vec<usize> = (0..messages.len())
        .filter(|&i| messages[i].role != "system")
        .collect();
    let build = |drop: usize| {
        let keep: Vec<&Message> = messages
            .iter()
            .enumerate()
            .filter(|(i, m)| m.role == "system" || others[drop..].contains(i))
            .map(|(_, m)| m)
            .collect();
        tokens(&render(&keep, tools))
    };
    let full = build(0);
    if full.len() <= num_ctx {
        return Some(Fitted {
            tokens: full,
            dropped: 0,
        });
    }
    if !truncate {
        return None;
    }
    let last = others.len().saturating_sub(1);
    for drop in 1..=last {
        let t = build(drop);
        if t.len() <= num_ctx || drop == last {
            return Some(Fitted {
                tokens: t,
                dropped: drop,
            });
        }
    }
    Some(Fitted {
        tokens: full,
        dropped: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: &str, content: &str) -> Message {
        Message {
            role: role.to_owned(),
            content: content.to_owned(),
            ..Message::default()
        }
    }

    #[test]
    fn tokenizer_keeps_leading_space_and_whole_chars() {
        assert_eq!(tokenize("héllo wörld 🌍"), vec!["héllo", " wörld", " 🌍"]);
        assert_eq!(
            tokenize("internationalization ok"),
            vec!["internat", "ionaliza", "tion", " ok"]
        );
        assert_eq!(tokenize("a\n\nb "), vec!["a", "\n\nb", " "]);
        assert!(tokenize("").is_empty());
        let text = "Some  words,\tand ünïcödé — and a longishwordthatgoeson.\n";
        assert_eq!(tokenize(text).concat(), text);
    }

    #[test]
    fn prefix_cache_counts() {
        let a = tokens("one two three");
        let b = tokens("one two three four five");
        assert_eq!(uncached(&a, &b), (3, 2));
        assert_eq!(uncached(&b, &b), (4, 1));
        assert_eq!(uncached(&[], &b), (0, 5));
        assert_eq!(uncached(&b, &tokens("zero two")), (0, 2));
    }

    #[test]
    fn reply_render_matches_history_render() {
        let prompt = render(&[&msg("user", "hi")], &[]);
        let generated = format!("{prompt}{}", render_reply("hello there", &[]));
        let history = render(&[&msg("user", "hi"), &msg("assistant", "hello there")], &[]);
        assert!(history.starts_with(&generated));
    }

    #[test]
    fn truncation_keeps_system_and_last() {
        let msgs = vec![
            msg("system", "be brief"),
            msg("user", "one two three four five six seven eight"),
            msg("assistant", "nine ten eleven twelve"),
            msg("user", "last"),
        ];
        let full = fit(&msgs, &[], 10_000, true).unwrap();
        assert_eq!(full.dropped, 0);
        let n = full.tokens.len();
        let cut = fit(&msgs, &[], n - 1, true).unwrap();
        assert!(cut.dropped >= 1);
        assert!(cut.tokens.len() < n);
        assert!(cut.tokens.concat().contains("be brief"));
        assert!(cut.tokens.concat().contains("last"));
        assert_eq!(fit(&msgs, &[], n - 1, false), None);
        // Even one token of room keeps the system and the last message.
        let tiny = fit(&msgs, &[], 1, true).unwrap();
        assert_eq!(tiny.dropped, 2);
    }
}
