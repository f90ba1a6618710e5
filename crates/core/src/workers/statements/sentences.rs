//! The sentences of what the user wrote (pure, English): where each
//! ends, whether it states, asks or only supposes, and whether it opens a
//! request. The memory request and the screen read a message through the
//! same split, so a fact is grounded in the sentence it was asked about.

use crate::workers::facts;

/// What a sentence does with what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mood {
    /// States it: "I live in Oslo."
    Stated,
    /// Asks it: "Do I need a visa?"
    Asked,
    /// Only supposes it: "If I ever move to Japan", "Suppose I'm a teacher".
    Supposed,
}

/// The sentences of `text`, as written, each with its [`Mood`] (the
/// memory screen grounds facts in the same sentences).
pub(crate) fn split(text: &str) -> Vec<(String, Mood)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().chain(std::iter::once('\n')).peekable();
    while let Some(ch) = chars.next() {
        // A full stop ends a sentence before a space, not inside "2.5" or
        // "example.com".
        let end = matches!(ch, '!' | '?' | '\n' | ';')
            || (ch == '.' && chars.peek().is_none_or(|c| c.is_whitespace()));
        if end && ch != '\n' {
            current.push(ch);
        }
        if end {
            let sentence = current.trim();
            if sentence.chars().any(char::is_alphanumeric) && !is_code(sentence) {
                if ch == '?' {
                    out.extend(question_parts(sentence));
                } else if asks(sentence) {
                    // "how do i book a dr appt online here in spain"
                    out.push((sentence.to_owned(), Mood::Asked));
                } else {
                    out.push((sentence.to_owned(), mood_of(sentence, Mood::Stated)));
                }
            }
            current.clear();
        } else {
            current.push(ch);
        }
    }
    out
}

/// Whether `sentence` is code pasted inline rather than words ("i = 0
/// while i < 10: print(i)"): an assignment, a comparison, braces or a
/// call.
fn is_code(sentence: &str) -> bool {
    ["=", "{", "}", " < ", " > ", "();", "()", "=>", "->"]
        .iter()
        .any(|c| sentence.contains(c))
        || sentence
            .split_whitespace()
            .any(|w| w.contains('(') && w.ends_with(')') && !w.starts_with('('))
}

/// Words that open the asking part of a question: "hey so im a dentist
/// in cork lol, *whats* a good laptop?" states a fact before it asks.
const ASKING: &[&str] = &[
    "what",
    "whats",
    "how",
    "hows",
    "where",
    "wheres",
    "when",
    "why",
    "who",
    "whos",
    "whom",
    "whose",
    "any",
    "anyone",
    "anything",
    "thoughts",
    "ideas",
    "recommendations",
    "suggestions",
    "tips",
    "advice",
];

/// Verbs that open a question when a subject follows them ("so *is
/// there* a frosting that sets?"), not otherwise ("my kids, Ines and
/// Tobias, *are lactose* intolerant").
const AUXILIARIES: &[&str] = &[
    "can", "could", "would", "will", "should", "shall", "is", "are", "am", "do", "does", "did",
    "have", "has", "may", "might", "must", "isnt", "arent", "dont", "doesnt", "cant", "wont",
    "wouldnt", "shouldnt", "couldnt",
];

/// Words a question's subject opens with.
const SUBJECT_WORDS: &[&str] = &[
    "i",
    "you",
    "we",
    "they",
    "he",
    "she",
    "it",
    "there",
    "this",
    "that",
    "these",
    "those",
    "the",
    "a",
    "an",
    "my",
    "your",
    "our",
    "their",
    "his",
    "her",
    "anyone",
    "someone",
    "anything",
    "something",
    "u",
];

/// How far into a clause [`asks`] looks.
const OPENING_CHARS: usize = 160;

/// The first `n` characters of `text` at most.
fn head(text: &str, n: usize) -> &str {
    text.char_indices().nth(n).map_or(text, |(i, _)| &text[..i])
}

/// Whether `clause` opens by asking.
fn asks(clause: &str) -> bool {
    // The opening words say it; a bounded look keeps a pasted megabyte of
    // commas linear.
    let clause = head(clause, OPENING_CHARS);
    let ws = lower_words(clause);
    let mut rest = ws.iter().skip_while(|w| LEADING.contains(&w.as_str()));
    let inverted = |pair: &[String]| {
        AUXILIARIES.contains(&pair[0].as_str()) && SUBJECT_WORDS.contains(&pair[1].as_str())
    };
    match rest.next() {
        Some(w) if ASKING.contains(&w.as_str()) => true,
        // "which laptop should I buy" asks; ", which makes cakes tricky"
        // goes on with the statement.
        Some(w) if w == "which" => {
            let own = lower_words(clause.split(',').next().unwrap_or(""));
            own.windows(2).any(inverted)
        }
        Some(w) if AUXILIARIES.contains(&w.as_str()) => rest
            .next()
            .is_some_and(|s| inverted(&[w.clone(), s.clone()])),
        _ => false,
    }
}

/// Words that open a clause that only supposes: nothing in it is a fact.
const SUPPOSING: &[&str] = &[
    "if",
    "suppose",
    "supposing",
    "imagine",
    "assume",
    "assuming",
    "pretend",
    "hypothetically",
    "whether",
    "unless",
    "say",
];

/// Words to pass over before the first word that says what a clause is:
/// "so what should I cook", "and, any tips?".
const LEADING: &[&str] = &[
    "so", "and", "but", "then", "now", "ok", "okay", "well", "also", "please", "lol", "haha", "hi",
    "hey", "hello", "oh",
];

/// The first word of `clause` that says what it is (lowercase, past
/// [`LEADING`] words).
fn opener(clause: &str) -> Option<String> {
    lower_words(clause)
        .into_iter()
        .find(|w| !LEADING.contains(&w.as_str()))
}

/// `fallback`, unless `clause` opens by supposing ("If I were a doctor")
/// or, as a question's head, by asking ("Do I need a visa, or not?").
fn mood_of(clause: &str, fallback: Mood) -> Mood {
    match opener(clause) {
        Some(w) if SUPPOSING.contains(&w.as_str()) || w == "lets" => Mood::Supposed,
        _ => fallback,
    }
}

/// The parts of a question `sentence` (ending in "?"): a head that states
/// something before the asking clause ("My name is Priya, can you suggest
/// a name for my cat?" states the name), then the question itself; a
/// sentence that asks from its first clause is one question.
fn question_parts(sentence: &str) -> Vec<(String, Mood)> {
    let cut = sentence
        .match_indices(", ")
        .map(|(i, _)| i)
        .find(|&i| asks(&sentence[i + 2..]));
    let head = cut.map(|i| sentence[..i].trim());
    // "As a vegan, what can I bake?" gives a role only where the question
    // goes on about the user.
    let about_self = |rest: &str| {
        let ws = lower_words(rest);
        ws.iter()
            .any(|w| ["i", "im", "ive", "my", "me"].contains(&w.as_str()))
    };
    let role_only = |head: &str| {
        let ws = lower_words(head);
        let ws: Vec<&str> = ws.iter().map(String::as_str).collect();
        facts::role(&ws)
    };
    match head {
        Some(head) if role_only(head) && !about_self(cut.map_or("", |i| &sentence[i..])) => {
            vec![(sentence.to_owned(), Mood::Asked)]
        }
        Some(head) if head.chars().any(char::is_alphanumeric) && !asks(head) => {
            let rest = cut.map_or("", |i| sentence[i + 2..].trim());
            vec![
                (head.to_owned(), mood_of(head, Mood::Stated)),
                (rest.to_owned(), Mood::Asked),
            ]
        }
        _ => vec![(sentence.to_owned(), Mood::Asked)],
    }
}

/// Lowercase words without apostrophes ("I'm" is "im"), as the screen
/// reads them.
pub(super) fn lower_words(sentence: &str) -> Vec<String> {
    facts::words(&sentence.replace(['\'', '’'], ""))
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Words that open a request rather than a statement: "Suggest one quick
/// dinner I can cook" speaks of the user but asks for something, and a
/// small model turned it into "The user suggests one quick dinner" (user
/// pass 2026-12, defect 11). "Remember" and "note" are not here: "Remember
/// that I am vegan" states a fact. English only, as the rest of the
/// picking (issue 48 is the wider work).
const REQUEST_OPENERS: &[&str] = &[
    "suggest",
    "recommend",
    "write",
    "give",
    "tell",
    "show",
    "explain",
    "list",
    "make",
    "create",
    "help",
    "find",
    "summarize",
    "summarise",
    "translate",
    "describe",
    "generate",
    "draft",
    "plan",
    "fix",
    "compare",
    "name",
    "pick",
    "choose",
    "can",
    "could",
    "would",
    "will",
    "lets",
    "let",
    "send",
    "check",
    "calculate",
    "convert",
    "rewrite",
    "edit",
    "add",
    "build",
    "design",
];

/// Whether `words` (lowercase) open a request: a request verb first,
/// after a "please" or "now" where there is one.
pub(super) fn is_request(words: &[&str]) -> bool {
    let first = words
        .iter()
        .find(|w| !matches!(**w, "please" | "now" | "so" | "ok" | "okay"));
    first.is_some_and(|w| REQUEST_OPENERS.contains(w)) && !how_to_answer(words)
}

/// Whether `words` (lowercase) speak of how the user wants every answer.
pub(crate) fn how_to_answer(words: &[&str]) -> bool {
    // "Please give temperatures in Celsius", "Spell things the American
    // way for me": a standing preference, not a task.
    words
        .iter()
        .any(|w| crate::workers::passing::how_answers_read(w))
}
