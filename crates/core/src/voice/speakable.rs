//! An answer's Markdown as sentences to be spoken, as it streams
//! (docs/voice.md, "Read aloud"). Formatting marks are not read out; a
//! code block is summarised ("A code block in rust, 12 lines.") rather
//! than read symbol by symbol; a table is named by its columns and rows;
//! a link is its text, a bare address "a link". A sentence is given as
//! soon as it ends, so speech can start while the answer still streams.

/// Abbreviations whose full stop does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "st", "no", "fig", "approx",
];

/// Inline code up to this many characters is read; longer is "some code".
const SHORT_CODE: usize = 40;

/// A "sentence" longer than this (bytes) is cut at a space: a voice takes
/// one utterance at a time, and a paste with no full stop must not wait
/// for its end (nor be scanned again with every piece).
const LONGEST: usize = 600;

/// Turns streamed Markdown into sentences to speak.
#[derive(Debug, Default)]
pub struct Speakable {
    /// The line being streamed (no newline yet), from where it was last cut.
    line: String,
    /// Whether `line` began a line (so its block marks are stripped once).
    line_started: bool,
    /// Prose of finished lines not yet ended by a full stop.
    pending: String,
    fence: Option<Fence>,
    table: Option<Table>,
}

#[derive(Debug)]
struct Fence {
    marker: String,
    language: String,
    lines: usize,
}

#[derive(Debug)]
struct Table {
    header: Vec<String>,
    rows: usize,
}

impl Speakable {
    /// Nothing read yet.
    pub fn new() -> Self {
        Self {
            line_started: true,
            ..Self::default()
        }
    }

    /// Read `delta`; the sentences it finished.
    pub fn push(&mut self, delta: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = delta;
        while let Some(at) = rest.find('\n') {
            self.line.push_str(&rest[..at]);
            let line = std::mem::take(&mut self.line);
            let started = std::mem::replace(&mut self.line_started, true);
            self.end_line(&line, started, &mut out);
            rest = &rest[at + 1..];
        }
        self.line.push_str(rest);
        self.speak_early(&mut out);
        out
    }

    /// The answer ended: what is left, as sentences.
    pub fn finish(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            let started = std::mem::replace(&mut self.line_started, true);
            self.end_line(&line, started, &mut out);
        }
        if let Some(f) = self.fence.take() {
            out.push(code_summary(&f));
        }
        self.end_table(&mut out);
        self.flush(&mut out);
        out
    }

    /// A whole line: a fence, a table row, or prose.
    fn end_line(&mut self, line: &str, started: bool, out: &mut Vec<String>) {
        let trimmed = line.trim();
        if let Some(f) = &mut self.fence {
            let closes = started
                && trimmed.starts_with(f.marker.as_str())
                && trimmed.trim_matches(|c| c == '`' || c == '~').is_empty();
            if !closes {
                f.lines += 1;
                return;
            }
            if let Some(f) = self.fence.take() {
                out.push(code_summary(&f));
            }
            return;
        }
        if started && let Some(fence) = fence_start(trimmed) {
            self.end_table(out);
            self.flush(out);
            self.fence = Some(fence);
            return;
        }
        if started && trimmed.starts_with('|') {
            self.flush(out);
            self.table_row(trimmed);
            return;
        }
        self.end_table(out);
        if trimmed.is_empty() {
            self.flush(out);
            return;
        }
        let (block, text) = if started {
            block_mark(trimmed)
        } else {
            (false, trimmed)
        };
        // A heading or a list item is a sentence of its own.
        if block {
            self.flush(out);
        }
        push_words(&mut self.pending, &clean_inline(text));
        // The line ended: a full stop at its end ends a sentence.
        self.pending.push(' ');
        self.take_sentences(out);
        if block {
            self.flush(out);
        }
    }

    /// The streamed line so far: the sentences it has finished are spoken
    /// now (unless it may be a fence or a table, decided at its end).
    fn speak_early(&mut self, out: &mut Vec<String>) {
        if self.fence.is_some() || self.line.is_empty() {
            return;
        }
        let head = self.line.trim_start();
        if self.line_started
            && (head.starts_with('`')
                || head.starts_with('~')
                || head.starts_with('|')
                || head.len() < 4)
        {
            return;
        }
        loop {
            // A list number's full stop ("1. ") ends no sentence.
            let marks = if self.line_started {
                // `block_mark` gives a suffix of the trimmed line.
                let lead = self.line.len() - self.line.trim_start().len();
                let t = self.line.trim();
                lead + t.len() - block_mark(t).1.len()
            } else {
                0
            };
            let cut = match last_sentence_end(&self.line[marks..]).map(|c| c + marks) {
                Some(cut) => cut,
                None if self.line.len() > LONGEST => last_space_before(&self.line, LONGEST),
                None => return,
            };
            let done: String = self.line.drain(..cut).collect();
            let started = std::mem::replace(&mut self.line_started, false);
            let (block, text) = if started {
                block_mark(done.trim())
            } else {
                (false, done.trim())
            };
            if block {
                self.flush(out);
            }
            push_words(&mut self.pending, &clean_inline(text));
            // It ends at a sentence's end (or a cut): all of it is said.
            self.flush(out);
        }
    }

    fn table_row(&mut self, row: &str) {
        let cells: Vec<String> = row
            .trim_matches('|')
            .split('|')
            .map(|c| clean_inline(c.trim()))
            .collect();
        let separator = cells
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')));
        match &mut self.table {
            None => {
                self.table = Some(Table {
                    header: cells.into_iter().filter(|c| !c.is_empty()).collect(),
                    rows: 0,
                })
            }
            Some(_) if separator => {}
            Some(t) => t.rows += 1,
        }
    }

    fn end_table(&mut self, out: &mut Vec<String>) {
        if let Some(t) = self.table.take() {
            let rows = plural(t.rows, "row");
            out.push(if t.header.is_empty() {
                format!("A table with {rows}.")
            } else {
                format!("A table of {}, with {rows}.", join_words(&t.header))
            });
        }
    }

    /// The sentences `pending` has finished; the rest stays.
    fn take_sentences(&mut self, out: &mut Vec<String>) {
        loop {
            let cut = match first_sentence_end(&self.pending) {
                Some(cut) if cut <= LONGEST => cut,
                _ if self.pending.len() > LONGEST => last_space_before(&self.pending, LONGEST),
                _ => break,
            };
            let sentence = self.pending[..cut].trim().to_owned();
            self.pending.drain(..cut);
            if speakable(&sentence) {
                out.push(sentence);
            }
        }
    }

    /// Whatever is pending, as one sentence (a paragraph or item ended).
    fn flush(&mut self, out: &mut Vec<String>) {
        self.take_sentences(out);
        let rest = std::mem::take(&mut self.pending);
        let rest = rest.trim();
        if speakable(rest) {
            out.push(rest.to_owned());
        }
    }
}

fn speakable(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn join_words(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn code_summary(f: &Fence) -> String {
    let lines = plural(f.lines, "line");
    if f.language.is_empty() {
        format!("A code block, {lines}.")
    } else {
        format!("A code block in {}, {lines}.", f.language)
    }
}

/// A fence's opening line: its marker and language.
fn fence_start(line: &str) -> Option<Fence> {
    let ch = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let marker: String = line.chars().take_while(|c| *c == ch).collect();
    if marker.len() < 3 {
        return None;
    }
    let language = line[marker.len()..]
        .split_whitespace()
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '+' | '#' | '-'))
        .collect();
    Some(Fence {
        marker,
        language,
        lines: 0,
    })
}

/// A line's block mark (heading, list item, quote) removed; true when it
/// had one that makes it a sentence of its own.
fn block_mark(line: &str) -> (bool, &str) {
    let t = line.trim_start_matches('>').trim_start();
    if let Some(rest) = t.strip_prefix('#') {
        return (true, rest.trim_start_matches('#').trim_start());
    }
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(bullet) {
            let rest = rest
                .strip_prefix("[ ] ")
                .or_else(|| rest.strip_prefix("[x] "))
                .unwrap_or(rest);
            return (true, rest);
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && digits < 4 {
        let after = &t[digits..];
        if let Some(rest) = after
            .strip_prefix(". ")
            .or_else(|| after.strip_prefix(") "))
        {
            return (true, rest);
        }
    }
    // A rule (---, ***) says nothing.
    if t.len() >= 3 && t.chars().all(|c| matches!(c, '-' | '*' | '_' | ' ')) {
        return (true, "");
    }
    (t.len() != line.len(), t)
}

/// Inline Markdown as words: marks dropped, links as their text, an
/// address as "a link", short code read and long code summarised.
fn clean_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '`' => {
                let ticks = chars[i..].iter().take_while(|c| **c == '`').count();
                let body_start = i + ticks;
                let close = (body_start..chars.len())
                    .find(|&j| chars[j..].iter().take_while(|c| **c == '`').count() == ticks);
                match close {
                    Some(end) => {
                        let code: String = chars[body_start..end].iter().collect();
                        let code = code.trim();
                        if code.chars().count() <= SHORT_CODE {
                            out.push_str(code);
                        } else {
                            out.push_str("some code");
                        }
                        i = end + ticks;
                    }
                    None => i = body_start,
                }
            }
            '!' if chars.get(i + 1) == Some(&'[') => {
                if let Some((label, next)) = link_at(&chars, i + 1) {
                    if label.trim().is_empty() {
                        out.push_str("an image");
                    } else {
                        out.push_str("an image: ");
                        out.push_str(label.trim());
                    }
                    i = next;
                } else {
                    out.push(c);
                    i += 1;
                }
            }
            '[' => {
                if let Some((label, next)) = link_at(&chars, i) {
                    out.push_str(&clean_inline(&label));
                    i = next;
                } else {
                    i += 1;
                }
            }
            '*' | ']' | '\\' | '$' => i += 1,
            '_' if chars.get(i + 1) == Some(&'_') => i += 2,
            '_' if boundary(&chars, i) => i += 1,
            '~' if chars.get(i + 1) == Some(&'~') => i += 2,
            '<' => {
                // An HTML tag or an autolink: a tag says nothing, a link is "a link".
                match chars[i..].iter().position(|c| *c == '>') {
                    Some(len) if len > 1 => {
                        let inner: String = chars[i + 1..i + len].iter().collect();
                        if inner.starts_with("http") {
                            out.push_str("a link");
                        }
                        i += len + 1;
                    }
                    _ => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            'h' if starts_url(&chars, i) && (i == 0 || !chars[i - 1].is_alphanumeric()) => {
                out.push_str("a link");
                while i < chars.len() && !chars[i].is_whitespace() {
                    i += 1;
                }
                // The full stop after an address still ends the sentence.
                if matches!(chars.get(i - 1), Some('.' | ',' | ')' | '!' | '?')) {
                    out.push(chars[i - 1]);
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// `[label](target)` at `i`: its label and where it ends.
fn link_at(chars: &[char], i: usize) -> Option<(String, usize)> {
    let close = (i + 1..chars.len()).find(|&j| chars[j] == ']')?;
    if chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let end = (close + 2..chars.len()).find(|&j| chars[j] == ')')?;
    Some((chars[i + 1..close].iter().collect(), end + 1))
}

fn starts_url(chars: &[char], i: usize) -> bool {
    let s: String = chars[i..chars.len().min(i + 8)].iter().collect();
    s.starts_with("http://") || s.starts_with("https://")
}

/// An underscore at a word's edge (emphasis), not inside one (snake_case).
fn boundary(chars: &[char], i: usize) -> bool {
    let before = i.checked_sub(1).and_then(|j| chars.get(j));
    let after = chars.get(i + 1);
    !(before.is_some_and(|c| c.is_alphanumeric()) && after.is_some_and(|c| c.is_alphanumeric()))
}

fn push_words(pending: &mut String, words: &str) {
    let words = words.trim();
    if words.is_empty() {
        return;
    }
    if !pending.is_empty() && !pending.ends_with(' ') {
        pending.push(' ');
    }
    pending.push_str(words);
}

/// Byte offsets just past each sentence end in `text`: a `.`, `!`, `?`
/// or `…` (closing quotes and brackets with it) followed by a space, not
/// the full stop of an abbreviation or an initial.
fn sentence_ends(text: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    text.char_indices().filter_map(move |(i, c)| {
        if !matches!(c, '.' | '!' | '?' | '…') {
            return None;
        }
        let mut end = i + c.len_utf8();
        while end < bytes.len() && matches!(bytes[end], b'"' | b'\'' | b')' | b']') {
            end += 1;
        }
        // A mark at the very end is not an end yet: the stream may go on
        // ("3." of "3.5", "e." of "e.g.").
        if end >= bytes.len() || !(bytes[end] as char).is_whitespace() {
            return None;
        }
        if c == '.' && abbreviation(&text[..i]) {
            return None;
        }
        Some(end)
    })
}

fn abbreviation(before: &str) -> bool {
    let word: String = before
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '.')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let lower = word.to_lowercase();
    // An initial ("J. Smith"), or a known abbreviation.
    (word.chars().count() == 1 && word.chars().all(char::is_uppercase))
        || ABBREVIATIONS.contains(&lower.as_str())
}

/// Just past the last space at or before `limit` (a char boundary at the
/// latest), so a cut never splits a word that has a space before it.
fn last_space_before(text: &str, limit: usize) -> usize {
    let mut at = limit.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    match text[..at].rfind(char::is_whitespace) {
        Some(space) if space > 0 => space + 1,
        _ => at.max(1),
    }
}

fn first_sentence_end(text: &str) -> Option<usize> {
    sentence_ends(text).next()
}

fn last_sentence_end(text: &str) -> Option<usize> {
    sentence_ends(text).last()
}

#[cfg(test)]
#[path = "speakable_tests.rs"]
mod tests;
