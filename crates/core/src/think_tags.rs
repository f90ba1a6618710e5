//! Reasoning a model writes inline, in tags (`<think>…</think>` in the
//! answer's text, as qwen3 does on many Ollama versions), split out of the
//! stream as it arrives, so every front end gets thinking events and the
//! stored answer keeps its reasoning apart — live and stored the same. The
//! tags are those the sanitizer knows (`sanitize::split_thinking`): think,
//! thinking, thought and antThinking, in any case, with or without
//! attributes. A tag can be cut anywhere between two pieces, so a tail that
//! may still become one is held back until the next piece decides it; a
//! tag quoted in a code span (`` `<think>` ``) is text about tags.
//!
//! A closing tag before any opening one means the template opened it
//! (DeepSeek-R1's and many others' put `<think>` in the prompt, and a small
//! model told to reason in tags often leaves the opening one out): what came
//! before it was reasoning ([`Piece::Rethought`]). Not once the answer has
//! shown a code fence (a tag in an example is text), nor when the model
//! reasons in the server's own field.

use std::sync::LazyLock;

use regex::Regex;

const NAMES: [&str; 4] = ["think", "thinking", "thought", "antthinking"];

#[allow(clippy::expect_used)] // fixed patterns, checked by the tests
static OPEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)<(think|thinking|thought|antthinking)(?:\s[^>]*)?>").expect("pattern")
});

#[allow(clippy::expect_used)] // fixed patterns, checked by the tests
static CLOSE: LazyLock<[Regex; 4]> =
    LazyLock::new(|| NAMES.map(|n| Regex::new(&format!(r"(?i)</{n}\s*>")).expect("pattern")));

/// The splitter's state between pieces.
#[derive(Debug, Default)]
pub(crate) struct ThinkTags {
    /// The open tag (an index into `NAMES`), while inside one.
    inside: Option<usize>,
    /// A held-back tail that may be the start of a tag.
    pending: String,
    /// The character before `pending` (a backtick there quotes a tag).
    before: Option<char>,
    /// A tag has opened or closed: a closing tag no longer takes back
    /// the text before it.
    decided: bool,
}

/// Length of the longest suffix of `s` that may still become an opening tag.
fn partial_open(s: &str) -> usize {
    let Some(at) = s.rfind('<') else { return 0 };
    let tail = s[at + 1..].to_lowercase();
    if tail.contains('>') {
        return 0;
    }
    let name_len = tail.chars().take_while(char::is_ascii_lowercase).count();
    let (name, rest) = tail.split_at(name_len);
    let may_be = if rest.is_empty() {
        NAMES.iter().any(|n| n.starts_with(name))
    } else {
        NAMES.contains(&name) && rest.starts_with(char::is_whitespace)
    };
    if may_be { s.len() - at } else { 0 }
}

/// Length of the longest suffix of `s` that may still become `</name>`.
fn partial_close(s: &str, name: &str) -> usize {
    let Some(at) = s.rfind('<') else { return 0 };
    let tail = s[at..].to_lowercase();
    let full = format!("</{name}");
    let may_be = full.starts_with(&tail)
        || (tail.starts_with(&full) && tail[full.len()..].trim().is_empty());
    if may_be { s.len() - at } else { 0 }
}

/// Whether `text` holds a code fence marker.
fn has_fence(text: &str) -> bool {
    text.contains("```") || text.contains("~~~")
}

/// A piece of the answer, in the order it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String),
    Thinking(String),
    /// Everything the answer said so far was reasoning: a closing tag
    /// came with no opening one (a template that opens the tag itself).
    /// Holds all of that reasoning; what was shown as text is taken back.
    Rethought(String),
    /// The model is writing a call of `tool`, `chars` characters of
    /// arguments so far (progress only: the call comes whole at the end).
    WritingCall {
        /// The tool's name.
        tool: String,
        /// Characters of its arguments so far.
        chars: u32,
    },
}

fn piece(thinking: bool, text: &str) -> Piece {
    if thinking {
        Piece::Thinking(text.to_owned())
    } else {
        Piece::Text(text.to_owned())
    }
}

impl ThinkTags {
    /// The model reasons natively (the server's own field): a closing tag
    /// in its text is text, not the end of reasoning.
    pub(crate) fn decide(&mut self) {
        self.decided = true;
    }

    /// Feed one piece of the answer's text; the pieces now certain.
    pub(crate) fn push(&mut self, delta: &str) -> Vec<Piece> {
        let mut buf = std::mem::take(&mut self.pending) + delta;
        let mut out = Vec::new();
        let mut from = 0;
        loop {
            let found = match self.inside {
                Some(tag) => CLOSE[tag]
                    .find_at(&buf, from)
                    .map(|m| (m.start(), m.end(), None, false)),
                None => {
                    let open = OPEN.captures_at(&buf, from).and_then(|c| {
                        let m = c.get(0)?;
                        let name = c.get(1)?.as_str().to_lowercase();
                        let tag = NAMES.iter().position(|n| *n == name)?;
                        Some((m.start(), m.end(), Some(tag), false))
                    });
                    // Until a tag has been seen, a closing one counts too.
                    let close = (!self.decided)
                        .then(|| {
                            CLOSE
                                .iter()
                                .filter_map(|c| c.find_at(&buf, from))
                                .min_by_key(regex::Match::start)
                                .map(|m| (m.start(), m.end(), None, true))
                        })
                        .flatten();
                    match (open, close) {
                        (Some(o), Some(c)) => Some(if c.0 < o.0 { c } else { o }),
                        (o, c) => o.or(c),
                    }
                }
            };
            let Some((start, end, opened, orphan)) = found else {
                break;
            };
            let quoted = buf[..start].chars().next_back().or(self.before) == Some('`');
            if self.inside.is_none() && quoted {
                from = end;
                continue;
            }
            // A fence before it: the tag is in an example, text.
            if orphan && has_fence(&buf[..start]) {
                self.decided = true;
                continue;
            }
            if orphan {
                out.push(Piece::Rethought(buf[..start].to_owned()));
            } else if start > 0 {
                out.push(piece(self.inside.is_some(), &buf[..start]));
            }
            buf.drain(..end);
            self.before = Some('>');
            self.decided = true;
            from = 0;
            self.inside = opened;
        }
        let hold = match self.inside {
            Some(tag) => partial_close(&buf, NAMES[tag]),
            None if self.decided => partial_open(&buf),
            None => NAMES
                .iter()
                .map(|n| partial_close(&buf, n))
                .fold(partial_open(&buf), usize::max),
        };
        let sure = &buf[..buf.len() - hold];
        // Text with a code fence in it: a closing tag after it is text.
        if has_fence(sure) {
            self.decided = true;
        }
        if !sure.is_empty() {
            out.push(piece(self.inside.is_some(), sure));
            self.before = sure.chars().next_back();
        }
        self.pending = buf[buf.len() - hold..].to_owned();
        out
    }

    /// At the end of the stream, what was held back is what it looked like.
    pub(crate) fn finish(&mut self) -> Option<Piece> {
        let rest = std::mem::take(&mut self.pending);
        (!rest.is_empty()).then(|| piece(self.inside.is_some(), &rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Split `deltas` and join the result into (thinking, text).
    fn split(deltas: &[&str]) -> (String, String) {
        let mut s = ThinkTags::default();
        let mut pieces: Vec<Piece> = deltas.iter().flat_map(|d| s.push(d)).collect();
        pieces.extend(s.finish());
        let (mut thinking, mut text) = (String::new(), String::new());
        for p in pieces {
            match p {
                Piece::Thinking(t) => thinking.push_str(&t),
                Piece::Text(t) => text.push_str(&t),
                // As ModelCall keeps it: the text so far was reasoning.
                Piece::Rethought(t) => {
                    thinking.push_str(&std::mem::take(&mut text));
                    thinking.push_str(&t);
                }
                Piece::WritingCall { .. } => {}
            }
        }
        (thinking, text)
    }

    #[test]
    fn tags_are_split_out_wherever_the_stream_cuts_them() {
        let whole = "<think>plan it</think>The answer.";
        // Every cut point, and every character on its own.
        for i in 0..=whole.len() {
            let (a, b) = whole.split_at(i);
            assert_eq!(
                split(&[a, b]),
                ("plan it".into(), "The answer.".into()),
                "cut at {i}"
            );
        }
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(split(&refs), ("plan it".into(), "The answer.".into()));
    }

    #[test]
    fn a_closing_tag_with_no_opening_one_makes_what_came_before_reasoning() {
        // As Qwen2.5-Coder-0.5B wrote it on llama.cpp, told to reason in tags.
        let whole = "Step 1: add.\n17 + 25 = 42\n</think>\nThe answer is 42.";
        let want = (
            "Step 1: add.\n17 + 25 = 42\n".to_owned(),
            "\nThe answer is 42.".to_owned(),
        );
        for i in 0..=whole.len() {
            let (a, b) = whole.split_at(i);
            assert_eq!(split(&[a, b]), want, "cut at {i}");
        }
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(split(&refs), want);
        // Only before any tag: after a pair, a closing tag is text.
        assert_eq!(
            split(&["<think>a</think>b</think>c"]),
            ("a".into(), "b</think>c".into())
        );
        // Quoted, it is text about tags; in an example after a fence too,
        // even once the fence has streamed by.
        assert_eq!(
            split(&["close it with `</think>` then"]),
            (String::new(), "close it with `</think>` then".into())
        );
        let example = "Like this:\n```xml\nstep one\n</think>\n```";
        assert_eq!(split(&[example]), (String::new(), example.into()));
        assert_eq!(
            split(&["Like this:\n```xml\n", "x\n</think>\n```"]),
            (String::new(), "Like this:\n```xml\nx\n</think>\n```".into())
        );
        // After native reasoning, a closing tag is text.
        let mut s = ThinkTags::default();
        s.decide();
        assert_eq!(s.push("a</think>b"), vec![Piece::Text("a</think>b".into())]);
    }

    #[test]
    fn every_known_tag_any_case_with_attributes() {
        assert_eq!(
            split(&["<Thinking mode=\"x\">a</THINKING>b"]),
            ("a".into(), "b".into())
        );
        assert_eq!(split(&["<thought>a</thought >b"]), ("a".into(), "b".into()));
        assert_eq!(
            split(&["<antThinking>a</antthinking>b"]),
            ("a".into(), "b".into())
        );
        // A closing tag of another name does not end the reasoning.
        assert_eq!(
            split(&["<think>a</thought>b</think>c"]),
            ("a</thought>b".into(), "c".into())
        );
    }

    #[test]
    fn text_that_only_looks_like_a_tag_stays_text() {
        assert_eq!(
            split(&["a < b and <thinker>"]),
            (String::new(), "a < b and <thinker>".into())
        );
        assert_eq!(
            split(&["write `<think>` to ", "start"]),
            (String::new(), "write `<think>` to start".into())
        );
        // A quote cut from its tag by the stream still quotes it.
        assert_eq!(
            split(&["`", "<think>`"]),
            (String::new(), "`<think>`".into())
        );
        // Held back to the end, a partial tag is the text it was.
        assert_eq!(
            split(&["ends with <thi"]),
            (String::new(), "ends with <thi".into())
        );
        // Reasoning that ends in a backtick does not quote the next tag.
        assert_eq!(
            split(&["<think>`</think>", "<think>b</think>c"]),
            ("`b".into(), "c".into())
        );
        // Reasoning never closed is reasoning.
        assert_eq!(
            split(&["<think>still going"]),
            ("still going".into(), String::new())
        );
    }
}
