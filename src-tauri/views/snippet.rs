//! Search snippets as a person reads them: the Markdown the messages were
//! written in (headings, emphasis, code fences, links, list markers, table
//! pipes) taken out, lines joined, and the text split at the store's match
//! markers so the page highlights hits without treating text as markup.

use std::sync::LazyLock;

use hearth_store::{MATCH_END as END, MATCH_START as START};
use regex::Regex;

use super::SnippetPart;

/// Markdown syntax, in the order it is taken out. The store's match
/// markers are control characters no pattern matches, so a hit inside
/// `**bold**` stays a hit.
static MARKDOWN: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        // A code fence, with its language.
        (r"(?m)^\s*(```|~~~)[\w+-]*\s*$", ""),
        // A table's separator row.
        (r"(?m)^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$", ""),
        // Line starts: headings, quotes, list bullets, task boxes.
        (r"(?m)^\s*(#{1,6}\s+|>\s?|[-*+]\s+(\[[ xX]\]\s+)?)", ""),
        // Pictures and links: their words.
        (r"!\[([^\]]*)\]\([^)]*\)", "$1"),
        (r"\[([^\]]+)\]\([^)]*\)", "$1"),
        // Emphasis and code marks.
        (r"\*\*|__|~~|`+", ""),
        (r"(^|[\s(])\*([^*\s][^*]*)\*", "$1$2"),
        // Table rows' outer pipes, then the cells between.
        (r"(?m)^[ \t]*\||\|[ \t]*$", ""),
        (r"[ \t]*\|[ \t]*", " · "),
    ]
    .into_iter()
    .filter_map(|(p, to)| match Regex::new(p) {
        Ok(r) => Some((r, to)),
        Err(e) => {
            tracing::error!("snippet pattern {p} does not compile: {e}");
            None
        }
    })
    .collect()
});

/// `snippet` without its Markdown, on one line.
pub fn plain(snippet: &str) -> String {
    let mut s = snippet.to_owned();
    for (re, to) in MARKDOWN.iter() {
        s = re.replace_all(&s, *to).into_owned();
    }
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    joined
        .trim_matches(|c: char| c == '·' || c.is_whitespace())
        .to_owned()
}

/// Split a store snippet, made plain, at its match markers.
pub fn snippet_parts(snippet: &str) -> Vec<SnippetPart> {
    let plain = plain(snippet);
    let mut parts = Vec::new();
    let mut rest = plain.as_str();
    while let Some(start) = rest.find(START) {
        if start > 0 {
            parts.push(SnippetPart {
                text: rest[..start].to_owned(),
                hit: false,
            });
        }
        let after = &rest[start + START.len()..];
        let end = after.find(END).unwrap_or(after.len());
        parts.push(SnippetPart {
            text: after[..end].to_owned(),
            hit: true,
        });
        rest = after.get(end + END.len()..).unwrap_or("");
    }
    if !rest.is_empty() {
        parts.push(SnippetPart {
            text: rest.to_owned(),
            hit: false,
        });
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(s: &str) -> Vec<(String, bool)> {
        snippet_parts(s)
            .into_iter()
            .map(|p| (p.text, p.hit))
            .collect()
    }

    #[test]
    fn snippets_split_at_markers_only() {
        let s = format!("a {START}tea{END} and {START}<b>{END} …");
        assert_eq!(
            hits(&s),
            vec![
                ("a ".into(), false),
                ("tea".into(), true),
                (" and ".into(), false),
                ("<b>".into(), true),
                (" …".into(), false)
            ]
        );
        assert!(snippet_parts("").is_empty());
    }

    #[test]
    fn markdown_is_taken_out_and_hits_inside_it_stay_hits() {
        let s = format!(
            "## Setup\n\n- **Install** the {START}tea{END} kettle\n- see [the docs](https://x.org/a)\n\n\
             ```rust\nlet snake_case = `x`;\n```\n\n| a | b |\n|---|:---:|\n| 1 | *{START}tea{END}* |\n> quoted ![cat](c.png)"
        );
        let text: String = snippet_parts(&s).into_iter().map(|p| p.text).collect();
        assert_eq!(
            text,
            "Setup Install the tea kettle see the docs let snake_case = x; a · b 1 · tea quoted cat"
        );
        let h = hits(&s);
        assert_eq!(
            h.iter().filter(|(t, hit)| *hit && t == "tea").count(),
            2,
            "{h:?}"
        );
    }
}
