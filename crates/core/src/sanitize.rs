//! The output sanitizer of docs/background.md §3.3: seven steps that clean
//! what a (small) model wrote before it is shown and before it goes back to
//! the model. The raw text is what is stored; this runs on the way out.

use std::sync::LazyLock;

use regex::Regex;

/// Compiles a pattern written in this file. The patterns are constants,
/// every one compiled by the test `every_pattern_compiles`.
#[allow(clippy::expect_used)]
pub(crate) fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a constant pattern compiles")
}

/// Tool-call XML some models write as text instead of calling.
pub(crate) static TOOL_XML_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?is)<(?:minimax:)?(?:tool_call|function_call|tool_use)\b[^>]*>.*?</(?:minimax:)?(?:tool_call|function_call|tool_use)\s*>",
    )
});
pub(crate) static TOOL_XML_TAG: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)</?(?:minimax:)?(?:tool_call|function_call|tool_use|invoke)\b[^>]*>")
});
pub(crate) static PARAMETER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?is)<parameter\s+name=[^>]*>.*?</parameter\s*>"));
/// Reasoning tags (the regex crate has no backreferences: one per tag).
static THINKING: LazyLock<[Regex; 4]> = LazyLock::new(|| {
    ["think", "thinking", "thought", "antThinking"]
        .map(|t| re(&format!(r"(?is)<{t}\b[^>]*>.*?</{t}\s*>")))
});
pub(crate) static FINAL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)</?final\s*>"));

/// Step 1: remove tool-call XML; an answer that was nothing else becomes
/// empty.
pub fn strip_garbled_tool_xml(text: &str) -> String {
    let out = TOOL_XML_BLOCK.replace_all(text, "");
    let out = PARAMETER.replace_all(&out, "");
    let out = TOOL_XML_TAG.replace_all(&out, "");
    if out.trim().is_empty() {
        String::new()
    } else {
        out.into_owned()
    }
}

/// Drops every block that starts with a line beginning with one of
/// `markers`, up to the next blank line. `hold_last`: the text is still
/// streaming, and a last line that may still become a marker waits.
pub(crate) fn strip_marked_blocks(text: &str, markers: &[&str], hold_last: bool) -> String {
    let mut out = Vec::new();
    let mut skipping = false;
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if markers.iter().any(|m| t.starts_with(m)) {
            skipping = true;
            continue;
        }
        if skipping {
            if line.trim().is_empty() {
                skipping = false;
            }
            continue;
        }
        let last = lines.peek().is_none();
        if hold_last && last && !t.is_empty() && markers.iter().any(|m| m.starts_with(t)) {
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}

/// Lines that start a block step 2 drops, up to the next blank line.
pub(crate) const TOOL_MARKERS: &[&str] = &["[Tool Call:", "[Tool Result", "[Historical context:"];
/// Lines that start a block step 5 drops.
pub(crate) const SYSTEM_MARKERS: &[&str] = &["[System Message]"];

/// Step 2: `[Tool Call: …]`, `[Tool Result …]`, `[Historical context: …]`
/// lines and what follows them (arguments, output) up to a blank line.
pub fn strip_downgraded_tool_call_text(text: &str) -> String {
    strip_marked_blocks(text, TOOL_MARKERS, false)
}

/// Step 3: reasoning in think / thinking / thought / antThinking tags.
pub fn strip_thinking_tags(text: &str) -> String {
    let mut out = text.to_owned();
    for r in THINKING.iter() {
        out = r.replace_all(&out, "").into_owned();
    }
    out
}

/// Step 4: `<final>` wrappers go, their content stays.
pub fn strip_final_tags(text: &str) -> String {
    FINAL.replace_all(text, "").into_owned()
}

/// Step 5: `[System Message]` blocks the model echoed or made up.
pub fn strip_echoed_system_messages(text: &str) -> String {
    strip_marked_blocks(text, SYSTEM_MARKERS, false)
}

/// Step 6: a paragraph repeated right after itself (stuttering) is kept once.
pub fn collapse_consecutive_duplicate_blocks(text: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for block in text.split("\n\n") {
        let same = kept
            .last()
            .is_some_and(|prev| !block.trim().is_empty() && prev.trim() == block.trim());
        if !same {
            kept.push(block);
        }
    }
    kept.join("\n\n")
}

/// Step 7: blank lines at the start go; indentation of the rest stays.
pub fn strip_leading_blank_lines(text: &str) -> String {
    let mut rest = text;
    while let Some(nl) = rest.find('\n') {
        if rest[..nl].trim().is_empty() {
            rest = &rest[nl + 1..];
        } else {
            break;
        }
    }
    if rest.trim().is_empty() {
        String::new()
    } else {
        rest.to_owned()
    }
}

/// All seven steps, then the trailing whitespace trimmed (the leading
/// indentation of the first line is kept: it may be code).
pub fn sanitize_output(text: &str) -> String {
    let s = strip_garbled_tool_xml(text);
    let s = strip_downgraded_tool_call_text(&s);
    let s = strip_thinking_tags(&s);
    let s = strip_final_tags(&s);
    let s = strip_echoed_system_messages(&s);
    let s = collapse_consecutive_duplicate_blocks(&s);
    let s = strip_leading_blank_lines(&s);
    s.trim_end().to_owned()
}

/// The reasoning in think tags and the text without it, for a front end
/// that shows reasoning apart (stored answers of models that think in tags).
pub fn split_thinking(text: &str) -> (Option<String>, String) {
    let mut thoughts = Vec::new();
    for r in THINKING.iter() {
        for m in r.find_iter(text) {
            let inner = m.as_str();
            let open = inner.find('>').map_or(0, |i| i + 1);
            let close = inner.rfind("</").unwrap_or(inner.len());
            if open <= close {
                thoughts.push(inner[open..close].trim().to_owned());
            }
        }
    }
    let thinking = (!thoughts.is_empty()).then(|| thoughts.join("\n\n"));
    (thinking, strip_thinking_tags(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert!(!TOOL_XML_BLOCK.as_str().is_empty());
        assert!(TOOL_XML_BLOCK.is_match("<tool_call>x</tool_call>"));
        assert!(PARAMETER.is_match("<parameter name=\"a\">1</parameter>"));
        assert!(THINKING.iter().all(|r| !r.as_str().is_empty()));
        assert!(FINAL.is_match("</final>"));
    }

    #[test]
    fn step_1_removes_tool_xml_and_empties_an_all_xml_answer() {
        let s = "Sure.<tool_call>{\"name\":\"x\"}</tool_call> Done.";
        assert_eq!(strip_garbled_tool_xml(s), "Sure. Done.");
        assert_eq!(
            strip_garbled_tool_xml(
                "<minimax:tool_call><invoke name=\"a\"><parameter name=\"p\">1</parameter></invoke></minimax:tool_call>"
            ),
            ""
        );
        assert_eq!(strip_garbled_tool_xml("<function_call>"), "");
    }

    #[test]
    fn step_2_removes_text_tool_calls_with_their_arguments() {
        let s = "Let me look.\n[Tool Call: read_file]\n{\"path\": \"a\"}\n\nIt says hi.";
        assert_eq!(
            strip_downgraded_tool_call_text(s),
            "Let me look.\nIt says hi."
        );
        let s = "[Tool Result for read_file]\nhi\n\nAnswer.";
        assert_eq!(strip_downgraded_tool_call_text(s), "Answer.");
    }

    #[test]
    fn step_3_and_4_thinking_goes_final_content_stays() {
        assert_eq!(
            strip_thinking_tags("<think>hmm\nok</think>Hi <THOUGHT>x</thought>there"),
            "Hi there"
        );
        assert_eq!(strip_final_tags("<final>The answer</final>"), "The answer");
        let (thinking, rest) = split_thinking("<think>plan it</think>Answer");
        assert_eq!(
            (thinking.as_deref(), rest.as_str()),
            (Some("plan it"), "Answer")
        );
    }

    #[test]
    fn step_5_6_7_echoes_stutters_and_leading_blanks() {
        assert_eq!(
            strip_echoed_system_messages("[System Message] you are\nan AI\n\nHello"),
            "Hello"
        );
        assert_eq!(
            collapse_consecutive_duplicate_blocks("A\n\nA\n\nB\n\nA"),
            "A\n\nB\n\nA"
        );
        assert_eq!(
            strip_leading_blank_lines("\n  \n    code\nmore"),
            "    code\nmore"
        );
    }

    #[test]
    fn the_pipeline_keeps_ordinary_answers_unchanged() {
        let plain = "Here is code:\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|";
        assert_eq!(sanitize_output(plain), plain);
        let messy = "\n\n<think>x</think>[System Message] ignore\n\n<final>Hi!\n\nHi!</final>\n";
        assert_eq!(sanitize_output(messy), "Hi!");
    }
}
