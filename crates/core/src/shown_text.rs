//! An answer as the screen shows it while it streams: the sanitizer of
//! docs/background.md §3.3 (`sanitize.rs`), with what may still become
//! something it drops held back until it is decided — an open tool-call
//! tag, the start of a `<final>` or `<parameter` tag, a last line that may
//! become `[Tool Call:` or `[System Message]`, a paragraph that may be
//! the previous one said again. Every front end gets the shown text, so
//! the live answer is the stored view in the making; once the call ends
//! it is exactly what the stored view shows. Pure.

use hearth_protocol::EventKind;

use crate::sanitize::{
    FINAL, PARAMETER, SYSTEM_MARKERS, TOOL_MARKERS, TOOL_XML_BLOCK, TOOL_XML_TAG, sanitize_output,
    strip_marked_blocks,
};

/// What changed on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ShownChange {
    /// More text after what is shown.
    Append(String),
    /// What is shown is replaced (the sanitizer dropped something already
    /// shown; the holding back makes this rare).
    Replace(String),
}

/// The shown text of one model call's answer.
#[derive(Debug, Default)]
pub(crate) struct ShownText {
    raw: String,
    /// The sanitizer's view of `raw` (trailing whitespace included).
    view: String,
    /// What the screen shows: `view` without its trailing whitespace.
    shown: String,
    /// The length of `raw` the view was last worked out from.
    seen: usize,
    /// Plain text added to `raw` would show as it is at the end of `view`
    /// (nothing in the last line held back, dropped or rewritten).
    verbatim: bool,
    /// The raw text's last line has more than whitespace.
    line_has_text: bool,
}

/// Up to this length the view is worked out again whenever a piece could
/// change it; past it, once the answer has grown by a 64th (a runaway
/// answer of megabytes must not cost the square of its length).
const EVERY_PIECE_UP_TO: usize = 64 * 1024;

impl ShownText {
    /// A piece of the answer came.
    pub(crate) fn push(&mut self, delta: &str) -> Option<ShownChange> {
        self.raw.push_str(delta);
        // Text added to a last line that shows as it is cannot start or end
        // a tag (no `<` or `>`), a marker line (those start with `[`, and the line
        // has begun), a paragraph (no line break) or a repeat: it shows as
        // it is. Nor can a line break after such a line followed by such
        // text. Most pieces are such, and cost no more than their length.
        let inert = |t: &str| !t.contains(['<', '>', '\n', '\r']);
        let same_line =
            inert(delta) && (self.line_has_text || !delta.trim_start().starts_with('['));
        let next_line = self.line_has_text
            && delta
                .strip_prefix('\n')
                .is_some_and(|rest| inert(rest) && !rest.trim_start().starts_with('['));
        self.line_has_text = match delta.rsplit_once('\n') {
            Some((_, last)) => !last.trim().is_empty(),
            None => self.line_has_text || !delta.trim().is_empty(),
        };
        if self.verbatim && (same_line || next_line) {
            // `shown` is the view without its trailing whitespace: only
            // what the piece adds is looked at, never the whole answer.
            self.view.push_str(delta);
            self.seen = self.raw.len();
            let end = self.view.trim_end().len();
            if end <= self.shown.len() {
                return None;
            }
            let more = self.view[self.shown.len()..end].to_owned();
            self.shown.push_str(&more);
            return Some(ShownChange::Append(more));
        }
        let len = self.raw.len();
        if len > EVERY_PIECE_UP_TO && len - self.seen < len / 64 {
            self.verbatim = false;
            return None;
        }
        self.seen = len;
        self.view = held_view(&self.raw);
        // The last line shows as it is when something of it shows (an empty
        // one may begin a paragraph that repeats the one before) and one
        // more plain letter would show too (a line that repeats the
        // paragraph before, or may still become a marker, is dropped or
        // held until decided).
        let shown_line = self.view.rsplit('\n').next().unwrap_or_default();
        self.verbatim = !shown_line.trim().is_empty()
            && held_view(&format!("{}x", self.raw)).strip_suffix('x') == Some(self.view.as_str());
        self.change_to(self.view.trim_end().to_owned())
    }

    /// The answer ended: nothing is held back any more.
    pub(crate) fn finish(&mut self) -> Option<ShownChange> {
        self.change_to(sanitize_output(&self.raw))
    }

    fn change_to(&mut self, now: String) -> Option<ShownChange> {
        if now == self.shown {
            return None;
        }
        let change = match now.strip_prefix(self.shown.as_str()) {
            Some(more) => ShownChange::Append(more.to_owned()),
            None => ShownChange::Replace(now.clone()),
        };
        self.shown = now;
        Some(change)
    }
}

impl From<ShownChange> for EventKind {
    fn from(change: ShownChange) -> Self {
        match change {
            ShownChange::Append(delta) => Self::TextDelta { delta },
            ShownChange::Replace(text) => Self::TextReplaced { text },
        }
    }
}

/// Tag names whose beginning, cut at the end of the text, is held back.
const TAG_PREFIXES: [&str; 7] = [
    "tool_call",
    "function_call",
    "tool_use",
    "minimax:",
    "invoke",
    "parameter",
    "final",
];

/// The sanitizer's steps on an answer still streaming.
fn held_view(raw: &str) -> String {
    // Step 1: closed tool-call blocks go; an open one holds what follows.
    let s = TOOL_XML_BLOCK.replace_all(raw, "");
    let mut s = PARAMETER.replace_all(&s, "").into_owned();
    if let Some(at) = open_tag(&s) {
        s.truncate(at);
    }
    let s = TOOL_XML_TAG.replace_all(&s, "");
    if s.trim().is_empty() {
        return String::new();
    }
    // Steps 2, 4 and 5, in the sanitizer's order.
    let s = strip_marked_blocks(&s, TOOL_MARKERS, true);
    let mut s = FINAL.replace_all(&s, "").into_owned();
    s.truncate(s.len() - partial_tag(&s));
    let s = strip_marked_blocks(&s, SYSTEM_MARKERS, true);
    // Step 6, then step 7 (blank lines at the start).
    let s = collapse_repeats(&s);
    let mut rest = s.as_str();
    while let Some(nl) = rest.find('\n') {
        // As the stored view judges a blank line (sanitize.rs, step 7).
        if !rest[..nl].trim().is_empty() {
            break;
        }
        rest = &rest[nl + 1..];
    }
    // Trailing whitespace is kept here; the screen waits for what follows
    // it (`ShownText`): it shows nothing, and the blank line before a block
    // that then goes would have to be taken back.
    rest.to_owned()
}

/// Where a tool-call or parameter tag opens that is not quoted in a code
/// span (`` `<tool_call>` ``), if one does.
fn open_tag(s: &str) -> Option<usize> {
    let lower = s.to_ascii_lowercase();
    let mut from = 0;
    while let Some(rel) = lower[from..].find('<') {
        let at = from + rel;
        from = at + 1;
        if at > 0 && s.as_bytes()[at - 1] == b'`' {
            continue;
        }
        let tail = &lower[at + 1..];
        let name = tail.strip_prefix("minimax:").unwrap_or(tail);
        let tool = ["tool_call", "function_call", "tool_use"]
            .iter()
            .any(|t| name.strip_prefix(t).is_some_and(word_ends));
        let parameter = tail.strip_prefix("parameter").is_some_and(|r| {
            r.starts_with(char::is_whitespace) && r.trim_start().starts_with("name=")
        });
        if tool || parameter {
            return Some(at);
        }
    }
    None
}

/// The name just matched ends here (`\b` after it).
fn word_ends(rest: &str) -> bool {
    !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
}

/// Length of a trailing `<…` that may still become one of the held tags:
/// from the first such `<` after the last `>` (a tag whose attributes hold
/// a `<` is still one tag).
fn partial_tag(s: &str) -> usize {
    let open_from = s.rfind('>').map_or(0, |i| i + 1);
    let lower = s[open_from..].to_ascii_lowercase();
    for (rel, _) in lower.match_indices('<') {
        if may_become_tag(&lower[rel + 1..]) {
            return s.len() - (open_from + rel);
        }
    }
    0
}

/// Whether `tail`, what follows a `<` up to the end of the text (no `>`
/// in it), may still become one of the held tags.
fn may_become_tag(tail: &str) -> bool {
    let unslashed = tail.strip_prefix('/').unwrap_or(tail);
    let name_len = unslashed
        .find(|c: char| !(c.is_ascii_lowercase() || c == '_' || c == ':'))
        .unwrap_or(unslashed.len());
    let name = &unslashed[..name_len];
    if name_len == unslashed.len() {
        // Only a name so far: it may still grow into one.
        TAG_PREFIXES
            .iter()
            .any(|t| t.starts_with(name) || name.starts_with(t))
    } else {
        // `<parameter name="x"` or `<tool_call id=…` waiting for its `>`.
        TAG_PREFIXES.contains(&name) || name.starts_with("minimax:")
    }
}

/// Step 6: a paragraph said again right after itself is kept once; a last
/// one that may become such a repeat waits.
fn collapse_repeats(text: &str) -> String {
    let blocks: Vec<&str> = text.split("\n\n").collect();
    let mut kept: Vec<&str> = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let b = block.trim();
        if let Some(prev) = kept.last().map(|p| p.trim())
            && !b.is_empty()
            && (prev == b || (i + 1 == blocks.len() && prev.starts_with(b)))
        {
            continue;
        }
        kept.push(block);
    }
    kept.join("\n\n")
}

#[cfg(test)]
#[path = "shown_text_tests.rs"]
mod tests;
