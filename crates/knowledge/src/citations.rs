//! An answer's sources, and whether what it quotes is in them.
//!
//! `search_knowledge` numbers the passages it returns in a run ([1], [2]…
//! on, across its calls), each under a line naming the file, lines and
//! headings. The answer cites them as `[n]`. This module reads both back:
//! which passages the run was given, which the answer cites, a number it
//! cites that no search returned, and every quotation the answer makes
//! ("…" or “…”) checked against the passage it cites — a quote that is
//! not there is marked, not shown as fact (docs/knowledge.md).
//!
//! It reads the tool's own text (the transcript is what is kept), so it
//! works on any stored answer, including one from before a restart.

use serde::Serialize;

/// A passage a search in the run returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    /// Its number in the run.
    pub n: u32,
    /// The file (absolute, as the tool wrote it).
    pub path: String,
    /// Its first line.
    pub start_line: u32,
    /// Its last line.
    pub end_line: u32,
    /// The headings above it.
    pub heading: Option<String>,
    /// Its text as the model was given it.
    pub text: String,
    /// Whether the answer cites it.
    pub cited: bool,
}

/// A quotation in the answer, checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Quote {
    /// The quoted words, as the answer has them.
    pub text: String,
    /// The passages the answer cites for it (the markers nearest it in
    /// its paragraph).
    pub cites: Vec<u32>,
    /// Where the words are: one of `cites` when the citation holds,
    /// another passage of the run when the answer cites the wrong one,
    /// `None` when no passage the run was given has them.
    pub found_in: Option<u32>,
}

impl Quote {
    /// The quote is in a passage it cites.
    pub fn holds(&self) -> bool {
        self.found_in.is_some_and(|n| self.cites.contains(&n))
    }
}

/// What an answer drew on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Citations {
    /// Every passage the run's searches returned, in order.
    pub sources: Vec<Source>,
    /// Numbers the answer cites that no search returned.
    pub unknown: Vec<u32>,
    /// The answer's quotations that cite a passage, each checked.
    pub quotes: Vec<Quote>,
}

/// Passages in one `search_knowledge` result: each starts at a line
/// `[n] /path, lines a–b` with an optional ` (headings)`, its text runs to
/// the next such line. A line inside a passage that merely looks like one
/// is taken for one only if its number is the next expected.
pub fn passages(tool_result: &str) -> Vec<Source> {
    let mut out: Vec<Source> = Vec::new();
    let mut text = String::new();
    let flush = |out: &mut Vec<Source>, text: &mut String| {
        if let Some(last) = out.last_mut() {
            last.text = text.trim().to_owned();
        }
        text.clear();
    };
    for line in tool_result.lines() {
        let next = out.last().map(|s| s.n + 1);
        if let Some(s) = header(line)
            && next.is_none_or(|n| s.n == n)
        {
            flush(&mut out, &mut text);
            out.push(s);
            continue;
        }
        if !out.is_empty() {
            text.push_str(line);
            text.push('\n');
        }
    }
    flush(&mut out, &mut text);
    out
}

fn header(line: &str) -> Option<Source> {
    let rest = line.strip_prefix('[')?;
    let (n, rest) = rest.split_once("] ")?;
    let n: u32 = n.parse().ok()?;
    let (path, rest) = rest.rsplit_once(", lines ")?;
    if !path.starts_with('/') {
        return None;
    }
    let (lines, heading) = match rest.split_once(" (") {
        Some((l, h)) => (l, Some(h.strip_suffix(')')?.to_owned())),
        None => (rest, None),
    };
    let (a, b) = lines.split_once('–')?;
    Some(Source {
        n,
        path: path.to_owned(),
        start_line: a.parse().ok()?,
        end_line: b.parse().ok()?,
        heading,
        text: String::new(),
        cited: false,
    })
}

/// The citation markers in `text` with their byte offsets: `[3]`,
/// `[1, 2]`, `[1][2]`. Not a Markdown link (`[1](…)`) nor a footnote
/// (`[^1]`).
fn markers(text: &str) -> Vec<(usize, u32)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(open) = text[i..].find('[').map(|o| i + o) {
        let Some(close) = text[open..].find(']').map(|c| open + c) else {
            break;
        };
        let inner = &text[open + 1..close];
        let link = bytes.get(close + 1) == Some(&b'(');
        let numbers: Option<Vec<u32>> = inner
            .split(',')
            .map(|p| p.trim().parse::<u32>().ok().filter(|n| *n > 0))
            .collect();
        match numbers {
            Some(ns) if !link && !inner.is_empty() && inner.len() <= 40 => {
                out.extend(ns.into_iter().map(|n| (open, n)));
                i = close + 1;
            }
            _ => i = open + 1,
        }
    }
    out
}

/// The quotations in `text` with their byte ranges: between straight
/// double quotes or curly ones, on one paragraph, of at least two words
/// (a single quoted word is a term, not a claim about what a source says).
fn quotations(text: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let Some((at, open)) = rest.char_indices().find(|(_, c)| *c == '"' || *c == '“') else {
            break;
        };
        let start = i + at + open.len_utf8();
        let close = if open == '"' { '"' } else { '”' };
        let Some(len) = text[start..].find(close) else {
            break;
        };
        let inner = &text[start..start + len];
        let end = start + len + close.len_utf8();
        if !inner.contains("\n\n") && inner.split_whitespace().count() >= 2 {
            out.push((i + at, end, inner.to_owned()));
        }
        i = end;
    }
    out
}

/// Text compared for a quote: lower case, one space between words, the
/// typographer's quotes and dashes made plain, Markdown emphasis and the
/// punctuation at either end dropped.
fn plain(s: &str) -> String {
    let mapped: String = s
        .chars()
        .map(|c| match c {
            '‘' | '’' | '‚' | '′' => '\'',
            '“' | '”' | '„' | '″' => '"',
            '–' | '—' | '−' => '-',
            '*' | '_' | '`' => ' ',
            c => c,
        })
        .flat_map(char::to_lowercase)
        .collect();
    let words = mapped.split_whitespace().collect::<Vec<_>>().join(" ");
    words
        .trim_matches(|c: char| c.is_ascii_punctuation() && c != '%' && c != '$')
        .to_owned()
}

/// Whether `quote` is in `passage`, allowing for an ellipsis that joins
/// two parts of it (each part must be there, in order).
fn contains(passage: &str, quote: &str) -> bool {
    let p = plain(passage);
    let mut from = 0;
    let parts: Vec<String> = quote
        .split(['…'])
        .flat_map(|q| q.split("..."))
        .map(plain)
        .filter(|q| !q.is_empty())
        .collect();
    if parts.is_empty() {
        return false;
    }
    for part in parts {
        match p[from..].find(&part) {
            Some(at) => from += at + part.len(),
            None => return false,
        }
    }
    true
}

/// The citations of `answer`, given the results of the run's
/// `search_knowledge` calls in order.
pub fn check(answer: &str, tool_results: &[&str]) -> Citations {
    let mut sources: Vec<Source> = Vec::new();
    for r in tool_results {
        for s in passages(r) {
            // A later search that numbered from 1 again (an older Hearth)
            // defines the number anew.
            sources.retain(|o| o.n != s.n);
            sources.push(s);
        }
    }
    sources.sort_by_key(|s| s.n);
    let marks = markers(answer);
    let mut unknown = Vec::new();
    for (_, n) in &marks {
        match sources.iter_mut().find(|s| s.n == *n) {
            Some(s) => s.cited = true,
            None if !unknown.contains(n) => unknown.push(*n),
            None => {}
        }
    }
    let mut quotes = Vec::new();
    for (start, end, text) in quotations(answer) {
        let cites = nearest_markers(answer, &marks, start, end);
        if cites.is_empty() {
            continue;
        }
        let found_in = cites
            .iter()
            .filter_map(|n| sources.iter().find(|s| s.n == *n))
            .chain(sources.iter())
            .find(|s| contains(&s.text, &text))
            .map(|s| s.n);
        quotes.push(Quote {
            text,
            cites,
            found_in,
        });
    }
    Citations {
        sources,
        unknown,
        quotes,
    }
}

/// The markers a quotation at `start..end` leans on: the first group after
/// it in its paragraph, else the last group before it in its paragraph.
fn nearest_markers(answer: &str, marks: &[(usize, u32)], start: usize, end: usize) -> Vec<u32> {
    let para_start = answer[..start].rfind("\n\n").map_or(0, |i| i + 2);
    let para_end = answer[end..].find("\n\n").map_or(answer.len(), |i| end + i);
    let group = |at: usize| -> Vec<u32> {
        // Markers side by side ("[1][2]", "[1], [2]") are one group.
        let mut out = Vec::new();
        let mut last = at;
        for (pos, n) in marks.iter().filter(|(p, _)| *p >= at) {
            if answer[last..*pos].chars().any(|c| {
                !(c == ']' || c == '[' || c == ',' || c.is_whitespace() || c.is_ascii_digit())
            }) {
                break;
            }
            if !out.contains(n) {
                out.push(*n);
            }
            last = *pos;
        }
        out
    };
    if let Some((pos, _)) = marks.iter().find(|(p, _)| *p >= end && *p < para_end) {
        return group(*pos);
    }
    let before: Vec<usize> = marks
        .iter()
        .filter(|(p, _)| *p >= para_start && *p < start)
        .map(|(p, _)| *p)
        .collect();
    match before.last() {
        Some(&last) => {
            // The start of the group that ends there.
            let first = before
                .iter()
                .rev()
                .take_while(|p| {
                    answer[**p..last].chars().all(|c| {
                        c == ']' || c == '[' || c == ',' || c.is_whitespace() || c.is_ascii_digit()
                    })
                })
                .last()
                .copied()
                .unwrap_or(last);
            group(first)
        }
        None => Vec::new(),
    }
}
