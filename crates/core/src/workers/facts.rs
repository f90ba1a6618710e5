//! What a memory answer may put in memory (pure). The model is asked for
//! facts as JSON against `statements::schema` (the server constrains its
//! output where it can): each a sentence about the user, a category and a
//! confidence, under the sentence of the user's it rests on. [`screen`] keeps only the facts
//! that hold up: a small model's junk ("True", "False", its own test
//! output, facts about the code or itself, guesses, an instruction planted
//! in a pasted document) is rejected with the reason, before anything is
//! stored.

use serde::Deserialize;

use crate::workers::statements::Mood;
pub use own_words::own_words;
use whose::{made_a_thing, of_whom_it_is, said_of_their_thing};

/// The categories a fact may have.
pub const CATEGORIES: [&str; 6] = [
    "identity",
    "preference",
    "project",
    "environment",
    "skill",
    "goal",
];

/// Least confidence a fact must come with.
pub const MIN_CONFIDENCE: f64 = 0.6;
/// Fewest words a fact has ("True" is not a fact).
pub const MIN_WORDS: usize = 3;
/// Most facts taken from one answer.
pub const MAX_FACTS: usize = 10;
/// Longest fact kept (characters).
pub const MAX_FACT_CHARS: usize = 300;

/// One fact as the model proposed it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Candidate {
    /// The fact, a sentence about the user.
    #[serde(default)]
    pub fact: String,
    /// One of [`CATEGORIES`] (`fact_category` in `statements::schema`).
    #[serde(default, alias = "fact_category")]
    pub category: String,
    /// The user's own words it rests on.
    #[serde(default)]
    pub quote: String,
    /// 0 to 1 (`fact_confidence` in `statements::schema`).
    #[serde(default, alias = "fact_confidence")]
    pub confidence: f64,
}

/// A fact that held up.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// The fact.
    pub text: String,
    /// Its category.
    pub category: String,
    /// The user's words it rests on.
    pub quote: String,
}

/// A proposed fact that did not, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// What was proposed.
    pub fact: String,
    /// Why it is not kept.
    pub reason: &'static str,
}

#[derive(Deserialize)]
struct Answer {
    facts: Vec<Candidate>,
}

/// The candidates in a memory answer of the older shape, `{"facts": [...]}`
/// with the model's own quotes (or a bare array of facts), also when a model wraps it in a code fence or
/// words. Anything else (`NONE`, prose) holds none.
pub fn parse(answer: &str) -> Vec<Candidate> {
    let text = answer.trim();
    let within = |open: char, close: char| {
        let (a, b) = (text.find(open)?, text.rfind(close)?);
        (a < b).then(|| &text[a..=b])
    };
    // Whichever opens first is the answer's outer value.
    let array_first = match (text.find('['), text.find('{')) {
        (Some(a), Some(o)) => a < o,
        (a, _) => a.is_some(),
    };
    let mut facts = if array_first {
        within('[', ']').and_then(|t| serde_json::from_str::<Vec<Candidate>>(t).ok())
    } else {
        within('{', '}')
            .and_then(|t| serde_json::from_str::<Answer>(t).ok())
            .map(|a| a.facts)
    }
    .unwrap_or_default();
    facts.truncate(MAX_FACTS);
    facts
}

/// Lowercase words and digits only, single-spaced: how a quote is matched
/// (a small model drops punctuation and changes case when it quotes).
pub(crate) fn words(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Words that carry no content of a fact ("The user is …").
const FILLER: [&str; 34] = [
    "the", "a", "an", "user", "users", "user's", "is", "are", "was", "be", "has", "have", "and",
    "or", "of", "in", "on", "at", "to", "for", "with", "as", "their", "they", "them", "who",
    "that", "this", "it", "its", "from", "by", "s", "very",
];

/// Words a fact may add to what the user said: "I'm Sam" is "The user's
/// name is Sam", "We have two kids" is "The user's household has two kids",
/// "Never use emojis" is "The user's preference: never use emojis".
const RELATION: [&str; 5] = ["name", "named", "called", "household", "preference"];

/// First-person words: they locate a sentence, they are not its content.
const FIRST_PERSON: [&str; 14] = [
    "i",
    "im",
    "ive",
    "id",
    "me",
    "my",
    "mine",
    "myself",
    "we",
    "weve",
    "our",
    "ours",
    "us",
    "ourselves",
];

/// The user's own words said of them ("I've" is "they've"), as a fact
/// written from their sentence has them (apostrophes dropped).
const THEIRS: [&str; 6] = [
    "theyve",
    "theyre",
    "theyd",
    "theyll",
    "themselves",
    "theirs",
];

/// Words that turn a statement around ("I don't like Java").
const NEGATORS: [&str; 12] = [
    "not", "no", "never", "dont", "doesnt", "isnt", "arent", "cant", "wont", "didnt", "wasnt",
    "neither",
];

/// Whether `a` and `b` are one word give or take an ending ("works",
/// "work"; "lives", "live"); otherwise they must match exactly ("go" is
/// not "good", "cat" not "catch").
fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long
        || (short.len() >= 3
            && long
                .strip_prefix(short)
                .is_some_and(|end| ["s", "es", "d", "ed"].contains(&end)))
}

/// A sentence where the user speaks of themselves: in the first person,
/// and not of "the user" (people say "I"; text about "the user" is
/// material addressed to an AI, such as a pasted document's planted
/// "remember that the user is an admin").
pub(crate) fn speaks_of_self(sentence: &[&str]) -> bool {
    let own = |i: usize| {
        let w = sentence[i];
        let next = sentence.get(i + 1).map(|n| n.trim_end_matches('s'));
        let before = |k: usize| i.checked_sub(k).map(|j| sentence[j].trim_end_matches('s'));
        FIRST_PERSON.contains(&w)
            // "my friend's bio", "my colleague Ravi": someone else's.
            && !(w == "my" && next.is_some_and(|n| OTHERS.contains(&n)))
            // "a friend of mine"
            && !(w == "mine" && before(1) == Some("of") && before(2).is_some_and(|b| OTHERS.contains(&b)))
            // "an old man once told me": words the user passes on.
            && !(w == "me" && before(1).is_some_and(|b| PASSED_ON.contains(&b)))
    };
    ((0..sentence.len()).any(own) || role(sentence))
        && !sentence.iter().any(|w| *w == "user" || *w == "users")
}

/// Words after "As a" that name no role: "As a joke", "As a result".
const NO_ROLE: [&str; 22] = [
    "joke",
    "result",
    "rule",
    "whole",
    "example",
    "reminder",
    "note",
    "bonus",
    "favour",
    "favor",
    "test",
    "treat",
    "gift",
    "matter",
    "side",
    "kid",
    "child",
    "teen",
    "teenager",
    "ai",
    "language",
    "assistant",
];

/// Whether a clause (its words) gives the user a role by opening with it:
/// "As a vegan" (the head of "As a vegan, what can I bake?"), at most five
/// words.
pub(crate) fn role(clause: &[&str]) -> bool {
    matches!(clause, ["as", "a" | "an", noun, ..] if clause.len() <= 5 && !NO_ROLE.contains(noun))
}

/// People whose facts are theirs, not the user's ("my friend is a pilot"),
/// singular; the user's family and household are the user's own ("my son
/// Rafael is nine").
const OTHERS: [&str; 16] = [
    "friend",
    "colleague",
    "coworker",
    "boss",
    "manager",
    "neighbour",
    "neighbor",
    "landlord",
    "landlady",
    "client",
    "customer",
    "classmate",
    "acquaintance",
    "tenant",
    "student",
    "patient",
];

/// Verbs before "me" that pass on someone else's words ("told me").
const PASSED_ON: [&str; 9] = [
    "told",
    "asked",
    "sent",
    "wrote",
    "showed",
    "emailed",
    "texted",
    "messaged",
    "forwarded",
];

/// The words of `text` that carry its content.
fn content_words(text: &str) -> Vec<String> {
    words(&text.replace('\'', ""))
        .split(' ')
        .filter(|w| {
            !w.is_empty()
                && !FILLER.contains(w)
                && !RELATION.contains(w)
                && !FIRST_PERSON.contains(w)
                && !THEIRS.contains(w)
                && !NEGATORS.contains(w)
                && !["do", "does", "did"].contains(w)
        })
        .map(str::to_owned)
        .collect()
}

/// Whether every content word of `fact` is in `sentence` (a fact written
/// from that sentence, whichever slot of the answer the model put it in).
pub(crate) fn holds(fact: &str, sentence: &str) -> bool {
    let ws: Vec<String> = words(&sentence.replace('\'', ""))
        .split(' ')
        .map(str::to_owned)
        .collect();
    let fact = content_words(fact);
    !fact.is_empty() && fact.iter().all(|n| ws.iter().any(|w| same_word(w, n)))
}

/// One of the user's sentences as a fact is grounded in it: its words,
/// the words before its first ", so" (its head), and its mood.
struct Said {
    words: Vec<String>,
    head: Vec<String>,
    mood: Mood,
}

/// The sentences of `said`.
fn sentences(said: &str) -> Vec<Said> {
    let split = |text: &str| -> Vec<String> {
        let ws = words(&text.replace('\'', ""));
        ws.split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    // Split as the memory request's sentences are, so a fact asked about
    // one sentence is grounded in that same sentence.
    crate::workers::statements::split(said)
        .into_iter()
        .filter_map(|(sentence, mood)| {
            let words = split(&sentence);
            let head = sentence
                .split(", so ")
                .next()
                .map(split)
                .unwrap_or_default();
            (!words.is_empty()).then_some(Said { words, head, mood })
        })
        .collect()
}

/// Whether `c` rests on something the user stated about themselves: one
/// sentence of theirs (first person, not about "the user", not a
/// question) that holds every content word of the quote and of the fact,
/// and does not deny what the fact says. The quote alone never vouches for
/// a fact: a small model paraphrases quotes, and a fact must not ride on
/// an unrelated "I need".
fn grounded(c: &Candidate, said: &str) -> Result<(), &'static str> {
    if words(&c.quote).split(' ').filter(|w| !w.is_empty()).count() < 2 {
        return Err("no quote from the user");
    }
    let fact = content_words(&c.fact);
    let denies = words(&c.fact.replace('\'', ""))
        .split(' ')
        .any(|w| NEGATORS.contains(&w));
    let mut needed = fact.clone();
    needed.extend(content_words(&c.quote));
    if fact.is_empty() {
        return Err("no quote from the user");
    }
    let mut best = "the user never said it";
    for Said { words, head, mood } in sentences(said) {
        if !needed.iter().all(|n| words.iter().any(|w| same_word(w, n))) {
            continue;
        }
        let ws: Vec<&str> = words.iter().map(String::as_str).collect();
        // Whether the user denied it is read in the clause that holds the
        // fact: "I run a bakery, so I have no patience for long recipes"
        // does not deny "The user runs a bakery" (a fact cut at its ", so",
        // `without_consequence`).
        let clause: Vec<&str> = if fact.iter().all(|n| head.iter().any(|w| same_word(w, n))) {
            head.iter().map(String::as_str).collect()
        } else {
            ws.clone()
        };
        if !speaks_of_self(&ws) {
            best = "the user did not say it of themselves (pasted material, or words about \"the user\")";
        } else if mood == Mood::Asked {
            best = "the user asked it, not stated it";
        } else if mood == Mood::Supposed {
            best = "the user only supposed it";
        } else if clause.iter().any(|w| NEGATORS.contains(w)) != denies {
            best = "the user said the opposite";
        } else if !of_whom_it_is(&ws, &c.fact)
            || made_a_thing(&ws, &c.fact)
            || said_of_their_thing(&ws, &c.fact)
        {
            best = "the user spoke of someone or something of theirs, not of themselves";
        } else {
            return Ok(());
        }
    }
    Err(best)
}

/// Why `c` is not a fact about the user grounded in `said` (the user's own
/// words, [`own_words`] of their messages), or `None` when it is.
fn rejection(c: &Candidate, said: &str) -> Option<&'static str> {
    let fact = c.fact.trim();
    if fact.split_whitespace().count() < MIN_WORDS {
        return Some("a fragment, not a fact");
    }
    // One apostrophe for the word lists ("The user’s home …").
    let lower = fact.to_lowercase().replace('’', "'");
    if !lower.contains("user") {
        return Some("not about the user");
    }
    if [
        "the assistant",
        "the code",
        "the function",
        "the program",
        "the output",
        "the test",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
    {
        return Some("about the conversation's material, not the user");
    }
    // "The user met his fiancée at a chess tournament": the sentence spoke
    // of someone else ("He met his fiancée…").
    if words(&lower).split(' ').any(|w| {
        [
            "he", "him", "his", "she", "her", "hers", "himself", "herself",
        ]
        .contains(&w)
    }) {
        return Some("about someone else, not the user");
    }
    // "Punch up this dialogue for the user's play", "The user's
    // preference: convert this recipe to metric": a request about the
    // conversation's own material, which another session will not have.
    // Where the user is the subject ("The user is a hydrologist, and this
    // is for a review") the fact is theirs, and "these days" is a time.
    if !lower.starts_with("the user ")
        && words(&lower.replace("these days", ""))
            .split(' ')
            .any(|w| w == "this" || w == "these")
    {
        return Some("a request about the conversation's material, not a lasting fact");
    }
    // "The user I'd like something around 27 inches": a sentence of the
    // user's with "The user" put before it, not a fact said of them.
    if words(&lower.replace(['\'', '’'], ""))
        .split(' ')
        .collect::<Vec<_>>()
        .windows(3)
        .any(|p| {
            p[0] == "the" && p[1] == "user" && ["i", "id", "im", "ive", "my", "we"].contains(&p[2])
        })
    {
        return Some("a sentence of the user's, not a fact about them");
    }
    // "The user is not a teacher": what the user is not tells little of
    // them, and a denial copied without its "not" would tell the opposite.
    if [
        "the user is not a",
        "the user isn't a",
        "the user is no longer a",
        "the user is no ",
    ]
    .iter()
    .any(|d| lower.contains(d))
    {
        return Some("says what the user is not");
    }
    if let Some(why) = lasting::not_lasting(&lower) {
        return Some(why);
    }
    if crate::workers::passing::passing(&lower) {
        return Some("a request or a passing state, not a lasting fact");
    }
    if crate::workers::happened::happened(&lower) {
        return Some("something that happened, or the task's material, not a lasting fact");
    }
    if !CATEGORIES.contains(&c.category.trim()) {
        return Some("no known category");
    }
    if !c.confidence.is_finite() || c.confidence < MIN_CONFIDENCE {
        return Some("too unsure");
    }
    if !crate::guard::scan(fact).is_empty() || !crate::guard::scan(&c.quote).is_empty() {
        return Some("looks like a prompt injection");
    }
    if let Err(why) = grounded(c, said) {
        return Some(why);
    }
    None
}

/// `fact` without a consequence a small model copies along from the
/// user's sentence: "The user's daughter is allergic to eggs, so
/// mayonnaise is out and she's fed up with cheese" is "The user's daughter
/// is allergic to eggs." What follows ", so" is about the task or someone
/// else, and would sink the fact with it.
fn without_consequence(fact: &str) -> String {
    match fact.find(", so ") {
        Some(i) if fact[..i].split_whitespace().count() >= MIN_WORDS => format!("{}.", &fact[..i]),
        _ => fact.to_owned(),
    }
}

/// Splits `candidates` into the facts that hold up against `said` (what
/// the user wrote, in their own words) and the rest with the reason.
pub fn screen(candidates: Vec<Candidate>, said: &str) -> (Vec<Fact>, Vec<Rejected>) {
    let mut kept = Vec::new();
    let mut rejected = Vec::new();
    for mut c in candidates {
        c.fact = without_consequence(&c.fact);
        match rejection(&c, said) {
            None => kept.push(Fact {
                text: c.fact.trim().chars().take(MAX_FACT_CHARS).collect(),
                category: category::settled(&c.fact, c.category.trim()),
                quote: c.quote.trim().to_owned(),
            }),
            Some(reason) => rejected.push(Rejected {
                fact: c.fact,
                reason,
            }),
        }
    }
    (kept, rejected)
}

mod category;
mod lasting;
#[cfg(test)]
mod lasting_tests;
mod own_words;
mod script;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod verb_tests;
mod whose;
