//! Characters that change how text looks without being seen: terminal
//! controls (a `\r` or an ANSI sequence can redraw an approval prompt),
//! bidirectional overrides (a command that reads `ls` but runs `sl`
//! backwards) and zero-width characters. Text a person decides on — the
//! approval question, what the CLI prints of model text and tool output —
//! shows them as visible escapes (`\u{202e}`) instead.

use std::borrow::Cow;

/// Whether `c` is hidden or acts on the display.
pub fn is_deceptive(c: char, keep_newlines: bool) -> bool {
    match c {
        '\n' | '\t' => !keep_newlines,
        // C0 controls, DEL and the C1 controls (ESC, CSI, OSC among them).
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidirectional marks, embeddings, overrides and isolates.
        '\u{061c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => true,
        // Zero-width, invisible and blank-looking characters, variation
        // selectors, and the tag characters that can spell a whole hidden
        // sentence ("ASCII smuggling").
        '\u{ad}'
        | '\u{34f}'
        | '\u{115f}'
        | '\u{1160}'
        | '\u{17b4}'
        | '\u{17b5}'
        | '\u{180b}'..='\u{180f}'
        | '\u{200b}'..='\u{200d}'
        | '\u{2060}'..='\u{206f}'
        | '\u{3164}'
        | '\u{fe00}'..='\u{fe0f}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}'
        | '\u{e0100}'..='\u{e01ef}' => true,
        _ => false,
    }
}

/// `text` with every deceptive character written as `\u{…}`; newlines and
/// tabs kept when `keep_newlines` (running text), escaped otherwise (a
/// one-line question).
pub fn visible(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_deceptive(c, keep_newlines)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_deceptive(c, keep_newlines) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}
