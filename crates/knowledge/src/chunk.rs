//! A file's text cut into passages on its structure, with where each came
//! from (lines, the headings above it, the columns of a table it starts
//! in: `table_header.rs`) for the citation. The cutting is
//! `text-splitter`'s: Markdown at headings, then blocks, paragraphs,
//! lines and sentences; other text at blank lines, then lines and
//! sentences. Each passage is at most [`MAX_CHUNK_CHARS`] characters: a
//! small embedding model reads 256 to 512 tokens, and a passage the model
//! cuts short is found by its beginning only.

mod table_header;

use text_splitter::{ChunkConfig, MarkdownSplitter, TextSplitter};

use crate::extract::Kind;
use table_header::TableHeaders;

/// The longest passage, in characters.
pub const MAX_CHUNK_CHARS: usize = 1000;
/// The length passages are filled to when the structure allows.
const DESIRED_CHUNK_CHARS: usize = 400;
/// How deep a heading path goes ("Install › Linux › Debian").
const MAX_HEADING_DEPTH: usize = 6;

/// One passage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Its text.
    pub text: String,
    /// The line it starts on (1-based, of the extracted text: for Markdown,
    /// text and code the file's own lines).
    pub start_line: u32,
    /// The line it ends on.
    pub end_line: u32,
    /// The Markdown headings above it, outermost first, joined by " › ";
    /// for a passage that starts in a table below its header row, that
    /// row's cells last ("Harvest › columns: Date | Field | Kg").
    pub heading: Option<String>,
}

/// `text` of `kind` as passages, in order.
pub fn split(kind: Kind, text: &str) -> Vec<Chunk> {
    let config = ChunkConfig::new(DESIRED_CHUNK_CHARS..MAX_CHUNK_CHARS + 1);
    let pieces: Vec<(usize, &str)> = match kind {
        Kind::Markdown | Kind::Html | Kind::Docx | Kind::OpenDocument | Kind::Spreadsheet => {
            MarkdownSplitter::new(config).chunk_indices(text).collect()
        }
        Kind::Text | Kind::Code | Kind::Pdf => {
            TextSplitter::new(config).chunk_indices(text).collect()
        }
    };
    let lines = LineIndex::new(text);
    let (headings, tables) = if matches!(
        kind,
        Kind::Markdown | Kind::Html | Kind::Docx | Kind::OpenDocument | Kind::Spreadsheet
    ) {
        (
            Headings::of(text),
            TableHeaders::of(text, kind == Kind::Markdown),
        )
    } else {
        (Headings::default(), TableHeaders::default())
    };
    pieces
        .into_iter()
        .filter(|(_, piece)| !piece.trim().is_empty())
        .map(|(at, piece)| Chunk {
            text: piece.to_owned(),
            start_line: lines.line_of(at),
            end_line: lines.line_of(at + piece.len().saturating_sub(1)),
            heading: heading_of(headings.above(at), tables.columns_at(at)),
        })
        .collect()
}

/// A passage's heading path, ending with the columns of the table it
/// starts inside of, below that table's header row.
fn heading_of(path: Option<String>, columns: Option<&str>) -> Option<String> {
    match (path, columns) {
        (Some(path), Some(columns)) => Some(format!("{path} › columns: {columns}")),
        (None, Some(columns)) => Some(format!("columns: {columns}")),
        (path, None) => path,
    }
}

/// Where each line starts, to turn a byte offset into a line number.
struct LineIndex {
    newlines: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        Self {
            newlines: newline_offsets(text),
        }
    }

    /// The 1-based line of byte `at`.
    fn line_of(&self, at: usize) -> u32 {
        let before = self.newlines.partition_point(|&n| n < at);
        u32::try_from(before + 1).unwrap_or(u32::MAX)
    }
}

fn newline_offsets(text: &str) -> Vec<usize> {
    text.bytes()
        .enumerate()
        .filter_map(|(i, b)| (b == b'\n').then_some(i))
        .collect()
}

/// Each line of Markdown `text` with its byte offset, those of fenced code
/// blocks and their fences left out (a `#` or `|` there is code).
fn outside_fences(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut at = 0;
    text.split_inclusive('\n').filter_map(move |line| {
        let start = at;
        at += line.len();
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
            return None;
        }
        for open in ["```", "~~~"] {
            if trimmed.starts_with(open) {
                fence = Some(open);
                return None;
            }
        }
        Some((start, line))
    })
}

/// The heading path in force from each ATX heading on (`#` to `######`,
/// outside fenced code blocks).
#[derive(Default)]
struct Headings {
    /// (byte offset of the heading line, the path from there on).
    marks: Vec<(usize, String)>,
}

impl Headings {
    fn of(text: &str) -> Self {
        let mut marks = Vec::new();
        let mut stack: Vec<(usize, String)> = Vec::new();
        for (start, line) in outside_fences(text) {
            let trimmed = line.trim_start();
            let level = trimmed.bytes().take_while(|&b| b == b'#').count();
            if level == 0 || level > 6 || line.len() - trimmed.len() > 3 {
                continue;
            }
            let rest = &trimmed[level..];
            if !(rest.starts_with(' ') || rest.starts_with('\t') || rest.trim().is_empty()) {
                continue;
            }
            let title = rest.trim().trim_end_matches('#').trim();
            if title.is_empty() {
                continue;
            }
            stack.retain(|(l, _)| *l < level);
            stack.push((level, title.to_owned()));
            let path: Vec<&str> = stack
                .iter()
                .rev()
                .take(MAX_HEADING_DEPTH)
                .rev()
                .map(|(_, t)| t.as_str())
                .collect();
            marks.push((start, path.join(" › ")));
        }
        Self { marks }
    }

    /// The path in force at byte `at`: that of the last heading starting at
    /// or before it.
    fn above(&self, at: usize) -> Option<String> {
        let i = self.marks.partition_point(|(start, _)| *start <= at);
        i.checked_sub(1).map(|i| self.marks[i].1.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_passages_carry_their_headings_and_lines() {
        let text = "# Guide\n\nIntro line.\n\n## Install\n\n```sh\n# not a heading\napt install hearth\n```\n\n### Debian\n\nUse the .deb.\n";
        let long: String = std::iter::repeat_n(text, 1).collect();
        let chunks = split(Kind::Markdown, &long);
        assert!(!chunks.is_empty());
        let all: Vec<_> = chunks.iter().map(|c| c.heading.clone()).collect();
        assert_eq!(chunks[0].heading.as_deref(), Some("Guide"), "{all:?}");
        assert_eq!(chunks[0].start_line, 1);
        let last = chunks.last().map(|c| c.end_line);
        assert_eq!(last, Some(14));
        let h = Headings::of(text);
        let debian = text.find("Use the").unwrap_or(0);
        assert_eq!(h.above(debian).as_deref(), Some("Guide › Install › Debian"));
        let code = text.find("apt install").unwrap_or(0);
        assert_eq!(h.above(code).as_deref(), Some("Guide › Install"));
    }

    #[test]
    fn long_text_is_cut_within_the_limit_and_lines_follow() {
        let para = "This sentence is about the index and it goes on for a while. ".repeat(10);
        let text = format!("{para}\n\n{para}\n\n{para}\n");
        let chunks = split(Kind::Text, &text);
        assert!(chunks.len() >= 3, "{}", chunks.len());
        for c in &chunks {
            assert!(
                c.text.chars().count() <= MAX_CHUNK_CHARS,
                "{}",
                c.text.len()
            );
            assert!(c.start_line <= c.end_line);
            assert!(c.heading.is_none());
        }
        assert_eq!(chunks.last().map(|c| c.end_line), Some(5));
    }

    #[test]
    fn passages_of_a_long_sheet_carry_its_header_row_in_their_heading() {
        let mut text = String::from("# Harvest\n\n| Date | Field | Kg |\n");
        for day in 1..=120 {
            text.push_str(&format!(
                "| 2026-10-{day:03} | {} | {} |\n",
                day % 7,
                500 + day
            ));
        }
        text.push_str("\n# Costs\n\n| Item | EUR |\n");
        for n in 1..=80 {
            text.push_str(&format!("| seed lot {n} | {n}.50 |\n"));
        }
        let chunks = split(Kind::Spreadsheet, &text);
        let headings: Vec<_> = chunks.iter().map(|c| c.heading.as_deref()).collect();
        let mut below = 0;
        for c in &chunks {
            let (sheet, header, row) = if c.text.contains("| seed lot") {
                ("Costs", "| Item | EUR |", "| seed lot")
            } else if c.text.contains("| 2026-10-") {
                ("Harvest", "| Date | Field | Kg |", "| 2026-10-")
            } else {
                continue;
            };
            if c.text.contains(header) {
                // It holds the header row itself.
                assert_eq!(c.heading.as_deref(), Some(sheet), "{headings:?}");
                continue;
            }
            below += 1;
            let columns = &header[2..header.len() - 2];
            assert_eq!(
                c.heading,
                Some(format!("{sheet} › columns: {columns}")),
                "{}",
                c.text
            );
            // The passage is the file's own lines: the header row is not
            // copied into its text.
            assert!(c.text.starts_with(row), "{}", c.text);
            assert!(c.text.chars().count() <= MAX_CHUNK_CHARS);
            let first = text
                .lines()
                .nth(c.start_line as usize - 1)
                .unwrap_or_default();
            assert!(
                c.text.starts_with(first),
                "line {} is {first:?}",
                c.start_line
            );
        }
        assert!(below >= 4, "{headings:?}");
        // A person's Markdown file of the same lines: without a delimiter
        // row they are no table.
        assert!(split(Kind::Markdown, &text).iter().all(|c| {
            !c.heading
                .as_deref()
                .unwrap_or_default()
                .contains("columns:")
        }));
        // Text that is not Markdown has no tables.
        assert!(split(Kind::Text, &text).iter().all(|c| c.heading.is_none()));
    }

    #[test]
    fn blank_text_has_no_passages() {
        assert!(split(Kind::Text, " \n\n\t\n").is_empty());
    }
}
