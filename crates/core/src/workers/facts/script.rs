//! A pasted script or dialogue: lines behind speakers' names ("MARGUERITE:
//! I'm a retired cryptographer. TEDDY: And I'm a sword swallower") are
//! the characters speaking, not the user, though they say "I". A message
//! is read as one when it names two or more different speakers; from the
//! first name on, each speaker's words run to the next name or to the end
//! of the paragraph, and are left out of what the user said, except a
//! speaker the user calls "Me".

/// Words before a colon that head the user's own notes, not a speaker
/// ("Note: I'm vegan. Edit: I moved to Oslo" is the user twice).
const NOT_SPEAKERS: [&str; 30] = [
    "note",
    "notes",
    "nb",
    "edit",
    "update",
    "ps",
    "pps",
    "tldr",
    "context",
    "background",
    "question",
    "questions",
    "answer",
    "example",
    "input",
    "output",
    "error",
    "warning",
    "info",
    "summary",
    "goal",
    "task",
    "problem",
    "subject",
    "re",
    "fyi",
    "important",
    "todo",
    "step",
    "bonus",
];

/// Longest speaker's name looked for, in characters ("Dr Okafor").
const MAX_NAME_CHARS: usize = 40;

/// Speakers that are the user ("Me: I'm a nurse").
const THE_USER: [&str; 3] = ["me", "i", "myself"];

/// A speaker's name ending at the colon at `colon` (a char index) in
/// `chars`: one word in capitals of two letters or more anywhere
/// ("TEDDY:"), or one or two capitalised words at the start of a line
/// ("Anna:", "Dr Okafor:"). The name (lowercase) and where it starts.
fn speaker(chars: &[char], colon: usize) -> Option<(String, usize)> {
    // The colon is followed by a space or a line's end ("10:30" and
    // "http://" are no speakers).
    if chars.get(colon + 1).is_some_and(|c| !c.is_whitespace()) {
        return None;
    }
    // A name is short: the look back is bounded (a megabyte of words
    // before a colon is not read again for each colon).
    let mut start = colon;
    while start > 0
        && colon - start < MAX_NAME_CHARS
        && (chars[start - 1].is_alphabetic() || chars[start - 1] == ' ')
    {
        start -= 1;
    }
    while start < colon && chars[start] == ' ' {
        start += 1;
    }
    let name: String = chars[start..colon].iter().collect();
    let words: Vec<&str> = name.split(' ').filter(|w| !w.is_empty()).collect();
    let capitals = |w: &str| w.chars().count() >= 2 && w.chars().all(char::is_uppercase);
    let capitalised = |w: &str| {
        let mut cs = w.chars();
        cs.next().is_some_and(char::is_uppercase) && cs.all(char::is_lowercase)
    };
    let at_line_start = chars[..start]
        .iter()
        .rev()
        .find(|c| **c != ' ' && **c != '\t')
        .is_none_or(|c| *c == '\n');
    let (name, start) = match words.as_slice() {
        // Capitals: only the last word counts ("for my play: MARGUERITE:").
        [.., last] if capitals(last) => (last.to_lowercase(), colon - last.chars().count()),
        [one] if at_line_start && capitalised(one) => (one.to_lowercase(), start),
        [a, b] if at_line_start && capitalised(a) && capitalised(b) => {
            (format!("{} {}", a.to_lowercase(), b.to_lowercase()), start)
        }
        _ => return None,
    };
    (!NOT_SPEAKERS.contains(&name.as_str())).then_some((name, start))
}

/// `text` without the words its speakers say, where it names two or more
/// different speakers; otherwise `text` as it is.
pub(super) fn unscripted(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    // Each speaker's name: where it starts, where its words start, who.
    let turns: Vec<(usize, usize, String)> = chars
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == ':')
        .filter_map(|(i, _)| speaker(&chars, i).map(|(name, start)| (start, i + 1, name)))
        .collect();
    let mut names: Vec<&str> = turns.iter().map(|t| t.2.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    if names.len() < 2 {
        return text.to_owned();
    }
    // Where each paragraph ends: the line breaks before a blank line,
    // found in one pass.
    let mut breaks = Vec::new();
    let mut line_start = 0;
    for (j, c) in chars.iter().enumerate() {
        if *c == '\n' {
            if line_start > 0 && chars[line_start..j].iter().all(|c| c.is_whitespace()) {
                breaks.push(line_start - 1);
            }
            line_start = j + 1;
        }
    }
    let paragraph_end = |from: usize| {
        let k = breaks.partition_point(|&b| b < from);
        breaks.get(k).copied().unwrap_or(chars.len())
    };
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (k, (start, words, name)) in turns.iter().enumerate() {
        if *start < at {
            continue;
        }
        out.extend(&chars[at..*start]);
        let next = turns.get(k + 1).map_or(chars.len(), |t| t.0);
        let end = next.min(paragraph_end(*words));
        if THE_USER.contains(&name.as_str()) {
            out.extend(&chars[*words..end]);
        } else {
            // A full stop keeps the sentence before apart from the next.
            out.push_str(". ");
        }
        at = end;
    }
    out.extend(&chars[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::unscripted;

    #[test]
    fn a_dialogue_is_the_speakers_not_the_user() {
        let out = unscripted(
            "Punch up this dialogue for my play: MARGUERITE: I'm a retired cryptographer. \
             I don't do small talk. TEDDY: And I'm a sword swallower, so small talk is all I've got.",
        );
        assert!(out.contains("Punch up this dialogue for my play"), "{out}");
        for gone in ["cryptographer", "small talk", "swallower"] {
            assert!(!out.contains(gone), "{gone} in {out}");
        }
    }

    #[test]
    fn lines_of_a_pasted_chat_end_with_their_paragraph() {
        let out = unscripted(
            "Can you summarise this?\nAnna: I'm a surgeon in Leeds.\nBen: I live in Hull.\n\n\
             I'm a nurse myself, by the way.",
        );
        assert!(!out.contains("surgeon") && !out.contains("Hull"), "{out}");
        assert!(out.contains("I'm a nurse myself"), "{out}");
        assert!(out.contains("Can you summarise this?"), "{out}");
    }

    #[test]
    fn the_users_own_line_and_notes_stay() {
        let out = unscripted("Me: I'm a baker in Lyon.\nHIM: I'm a pilot.");
        assert!(
            out.contains("I'm a baker in Lyon") && !out.contains("pilot"),
            "{out}"
        );
        // One speaker, or the user's own headings, make no script.
        for same in [
            "Note: I'm vegan.\nEdit: I moved to Oslo last year.",
            "PS: I'm a nurse. UPDATE: I work nights.",
            "My teacher said: I'm proud of you. What a day.",
            "Meeting at 10:30 today, see http://example.com: I'm late.",
        ] {
            assert_eq!(unscripted(same), same);
        }
    }
}
