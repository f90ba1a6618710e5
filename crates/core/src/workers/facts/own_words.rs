//! What the user said in their own words: a message without code blocks,
//! quoted lines, quotations and a pasted script's lines (pasted material
//! and other people's words, not the user speaking).

/// `text` without what it quotes: "…", “…”, '…' and ‘…’ hold someone
/// else's words ("Proofread my friend's bio: 'I am a ceramicist in
/// Hobart'"), not the user speaking. An apostrophe ("I'm", "the kids'
/// toys") opens nothing: a single quote opens only after a space or the
/// start, before a word, and closes only before a space, punctuation or
/// the end. A double quote left open runs to the end of its line.
fn unquoted(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    // For each place, the next single quote that can close a quotation
    // there and the next line break, found in one pass from the end: a
    // pasted megabyte of apostrophes is read once, not once per apostrophe.
    let closes = |j: usize| {
        matches!(chars[j], '\'' | '’')
            && j > 0
            && !chars[j - 1].is_whitespace()
            && chars
                .get(j + 1)
                .is_none_or(|n| n.is_whitespace() || ".,;:!?)]".contains(*n))
    };
    let mut next_close = vec![None; chars.len() + 1];
    let mut next_break = vec![chars.len(); chars.len() + 1];
    for j in (0..chars.len()).rev() {
        next_close[j] = if closes(j) {
            Some(j)
        } else {
            next_close[j + 1]
        };
        next_break[j] = if chars[j] == '\n' {
            j
        } else {
            next_break[j + 1]
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        let opens_single = matches!(c, '\'' | '‘')
            && before.is_none_or(|b| b.is_whitespace() || "(:[-—".contains(b))
            && after.is_some_and(|a| !a.is_whitespace());
        let end = match c {
            '"' => (i + 1..chars.len())
                .find(|&j| chars[j] == '"' || chars[j] == '\n')
                .or(Some(chars.len())),
            '“' => (i + 1..chars.len())
                .find(|&j| chars[j] == '”' || chars[j] == '\n')
                .or(Some(chars.len())),
            // A quotation closes on its own line.
            _ if opens_single => next_close
                .get(i + 2)
                .copied()
                .flatten()
                .filter(|&j| j < next_break[i]),
            _ => None,
        };
        match end {
            Some(j) => {
                out.push(' ');
                // A line break that ended an open quote stays.
                i = if chars.get(j) == Some(&'\n') {
                    j
                } else {
                    j + 1
                };
            }
            None => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Lines that open someone else's message pasted below the user's words:
/// a forwarded email ("---------- Forwarded message ---------", Apple
/// Mail's "Begin forwarded message:", Outlook's "-----Original
/// Message-----").
const FORWARDED: [&str; 3] = [
    "forwarded message",
    "begin forwarded message",
    "original message",
];

/// Whether `line` (trimmed) opens a forwarded or quoted email: one of
/// [`FORWARDED`] between dashes or ending in a colon, or a `From:` header
/// with an address or a name ("From: Priya Raman <priya@…>").
fn opens_forwarded(line: &str) -> bool {
    let lower = line.to_lowercase();
    let bare = lower.trim_matches(|c: char| c == '-' || c == ':' || c.is_whitespace());
    FORWARDED.contains(&bare)
        || (lower.starts_with("from:") && (lower.contains('@') || lower.contains('<')))
}

/// What the user said in their own words: their messages without code
/// blocks, quoted lines, quotations, the lines of a pasted script or
/// dialogue, and a forwarded email from its header on (pasted material
/// and other people's words, not the user speaking).
pub fn own_words(message: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in message.lines() {
        let t = line.trim_start();
        // Everything below a forwarded email's header is its sender's.
        if !fenced && opens_forwarded(t.trim_end()) {
            break;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced || t.starts_with('>') {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    super::script::unscripted(&unquoted(&out))
}
