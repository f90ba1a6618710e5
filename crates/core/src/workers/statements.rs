//! What the memory request asks about (pure): the sentences in which the
//! user speaks of themselves, each a slot of the answer's schema.
//!
//! A 0.5B model asked to find facts in a whole exchange mostly answers
//! none, copies the prompt's example, or quotes its own words. Picking the
//! sentences is plain text work, so it is done here: a sentence in the
//! first person, stated (not asked or only supposed), not a request, not
//! about "the user" (pasted material addressed to an AI). The model then only says, for each of them, what
//! it tells about the user; the schema has one required slot per sentence,
//! so the server's grammar makes it answer for every one, and the quote a
//! fact rests on is the sentence itself, never the model's copy of it. A
//! message with no such sentence ("write a palindrome checker") asks the
//! model nothing at all.
//!
//! It also reads the answer back ([`parse`]: a fact in a neighbour's slot
//! rests on its own sentence, a cut-off answer keeps its complete facts)
//! and screens it ([`screen`]: where the model's wording of a sentence
//! failed only for its wording, the sentence itself said of the user,
//! `person::own_fact`, stands in). How sentences are split and what each
//! does is `sentences`; saying them of "the user" is `person`. English.

use serde_json::{Map, Value, json};

use crate::workers::facts::{self, CATEGORIES, Candidate, MAX_FACT_CHARS};

/// Most sentences one memory request asks about (the latest ones).
pub const MAX_STATEMENTS: usize = 8;
/// Most facts taken from one sentence.
pub const FACTS_PER_STATEMENT: usize = 4;

/// The sentences of `said` (the user's own words, `facts::own_words`) in
/// which the user states something of themselves (not a request): the latest
/// [`MAX_STATEMENTS`], each at most [`MAX_FACT_CHARS`] long.
pub fn statements(said: &str) -> Vec<String> {
    latest(said, MAX_STATEMENTS)
}

/// Most sentences memory's vote reads from one stretch of the conversation
/// (`fact_vote`: the latest [`MAX_STATEMENTS`] of those it keeps are asked
/// about, so a vote sees further back than the cap).
pub const MAX_VOTED: usize = 64;

/// As [`statements`], the latest `max`.
pub fn latest(said: &str, max: usize) -> Vec<String> {
    let mut out: Vec<String> = split(said)
        .into_iter()
        .filter(|(sentence, mood)| {
            let ws = lower_words(sentence);
            let ws: Vec<&str> = ws.iter().map(String::as_str).collect();
            // The screen's own test of a sentence of the user's.
            *mood == Mood::Stated
                && sentence.chars().count() <= MAX_FACT_CHARS
                && facts::speaks_of_self(&ws)
                && !is_request(&ws)
        })
        .map(|(sentence, _)| sentence)
        .collect();
    let mut seen = std::collections::HashSet::new();
    out.retain(|s| seen.insert(s.clone()));
    let skip = out.len().saturating_sub(max);
    out.drain(..skip);
    out
}

/// The key of the answer's slot for the `i`-th sentence (from 0).
fn slot(i: usize) -> String {
    format!("sentence_{}", i + 1)
}

/// The JSON schema of a memory answer about `count` sentences: one
/// required slot per sentence, each a list of facts with a category and a
/// confidence.
pub fn schema(count: usize) -> Value {
    // The keys are in the order the model should write them (a JSON
    // object's keys go out sorted, and a constrained answer follows that
    // order): the fact first, then its category and confidence. A 0.5B
    // model that picks "identity" first invents an identity to fit it.
    let fact = json!({
        "type": "object",
        "properties": {
            "fact": {"type": "string"},
            "fact_category": {"type": "string", "enum": CATEGORIES},
            "fact_confidence": {"type": "number"}
        },
        "required": ["fact", "fact_category", "fact_confidence"]
    });
    let mut properties = Map::new();
    for i in 0..count {
        properties.insert(
            slot(i),
            json!({
                "type": "object",
                "properties": {
                    "facts": {"type": "array", "maxItems": FACTS_PER_STATEMENT, "items": fact}
                },
                "required": ["facts"]
            }),
        );
    }
    let required: Vec<String> = (0..count).map(slot).collect();
    json!({"type": "object", "properties": properties, "required": required})
}

/// The request's list of the sentences, numbered as the schema's slots.
pub fn listing(statements: &[String]) -> String {
    statements
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{}. {s}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(serde::Deserialize)]
struct Slot {
    #[serde(default)]
    facts: Vec<Candidate>,
}

/// The candidates in an answer to [`schema`]: each fact's quote is the
/// sentence of its slot. An answer in the older shape (`{"facts": [...]}`
/// with the model's own quotes) is read by `facts::parse`.
pub fn parse(answer: &str, statements: &[String]) -> Vec<Candidate> {
    let text = answer.trim();
    let object = match (text.find('{'), text.rfind('}')) {
        (Some(a), Some(b)) if a < b => {
            serde_json::from_str::<Map<String, Value>>(&text[a..=b]).ok()
        }
        _ => None,
    };
    let object = match object {
        Some(o) if !o.contains_key("facts") => o,
        // An answer cut off at its token limit (a 0.5B model repeats a
        // fact until it runs out) still holds the facts it completed.
        None if text.contains("\"sentence_") => salvaged(text),
        _ => return crate::workers::facts::parse(answer),
    };
    let mut out = Vec::new();
    for i in 0..statements.len() {
        let Some(Ok(found)) = object
            .get(&slot(i))
            .map(|v| serde_json::from_value::<Slot>(v.clone()))
        else {
            continue;
        };
        out.extend(
            found
                .facts
                .into_iter()
                .take(FACTS_PER_STATEMENT)
                .map(|c| resting(c, i, statements)),
        );
    }
    out.truncate(crate::workers::facts::MAX_FACTS);
    out
}

/// The complete facts of a cut-off answer to [`schema`], under their
/// slots: every `{…}` without braces inside that reads as a fact, in the
/// slot whose key came before it.
fn salvaged(text: &str) -> Map<String, Value> {
    let mut object = Map::new();
    let mut key = None;
    let mut at = 0;
    while let Some(open) = text[at..].find(['{', '"']).map(|i| at + i) {
        if text[open..].starts_with('"') {
            // A slot's key: `"sentence_N"`.
            let name: String = text[open + 1..].chars().take_while(|c| *c != '"').collect();
            if name.starts_with("sentence_") {
                key = Some(name.clone());
            }
            // Past the closing quote, which a cut-off answer may lack.
            at = (open + name.len() + 2).min(text.len());
            continue;
        }
        let Some(len) = text[open + 1..].find(['{', '}']) else {
            break;
        };
        let close = open + 1 + len;
        if text[close..].starts_with('}') {
            let fact = serde_json::from_str::<Candidate>(&text[open..=close]);
            if let (Some(k), Ok(fact)) = (&key, fact)
                && !fact.fact.is_empty()
            {
                let slot = object
                    .entry(k.clone())
                    .or_insert_with(|| json!({"facts": []}));
                if let Some(list) = slot["facts"].as_array_mut() {
                    list.push(json!({
                        "fact": fact.fact,
                        "fact_category": fact.category,
                        "fact_confidence": fact.confidence,
                    }));
                }
            }
        }
        at = open + 1;
    }
    object
}

/// `c`, from the answer's slot for sentence `i`, resting on the sentence
/// its words come from: its slot's where they hold there, else the first
/// other listed sentence that holds them all (a 0.5B model sometimes
/// writes a sentence's fact in its neighbour's slot), else its slot's,
/// where the screen will find the user never said it.
fn resting(c: Candidate, i: usize, statements: &[String]) -> Candidate {
    let on = |j: usize| {
        let fact = third_person(&c.fact, &statements[j]);
        facts::holds(&fact, &statements[j]).then_some((fact, j))
    };
    let (fact, j) = on(i)
        .or_else(|| (0..statements.len()).filter(|&j| j != i).find_map(on))
        .unwrap_or_else(|| (third_person(&c.fact, &statements[i]), i));
    Candidate {
        fact,
        quote: statements[j].clone(),
        ..c
    }
}

/// Why a fact was refused that says only that the model's wording of a
/// sentence did not hold up, not that the sentence holds no fact.
const WORDING: [&str; 6] = [
    "the user never said it",
    "about someone else, not the user",
    "the user spoke of someone or something of theirs, not of themselves",
    "not about the user",
    "a fragment, not a fact",
    "no quote from the user",
];

/// [`facts::screen`] of `candidates` (from [`parse`]) against `said`; for
/// a listed sentence the model offered facts for, none of which held up
/// and one at least only for its wording (`WORDING`), the sentence's own
/// fact ([`person::own_fact`]) is screened in their place, with that
/// fact's category and confidence: the model found something there, the
/// user's words say what. The sentence's own fact meets the same screen,
/// so a sentence that only tells a passing state stores nothing.
pub fn screen(
    candidates: Vec<Candidate>,
    statements: &[String],
    said: &str,
) -> (Vec<facts::Fact>, Vec<facts::Rejected>) {
    let offered: Vec<Candidate> = candidates.clone();
    let (mut kept, mut rejected) = facts::screen(candidates, said);
    let mut extra = Vec::new();
    for sentence in statements {
        let theirs: Vec<&Candidate> = offered.iter().filter(|c| &c.quote == sentence).collect();
        if theirs.is_empty() || kept.iter().any(|f| &f.quote == sentence) {
            continue;
        }
        // The facts refused only for their wording: the model found
        // something there.
        let worded: Vec<&&Candidate> = theirs
            .iter()
            .filter(|c| {
                rejected
                    .iter()
                    .find(|r| r.fact == c.fact)
                    .is_some_and(|r| WORDING.contains(&r.reason))
            })
            .collect();
        let Some(fact) = person::own_fact(sentence).filter(|_| !worded.is_empty()) else {
            continue;
        };
        let best = worded
            .iter()
            .max_by(|a, b| a.confidence.total_cmp(&b.confidence))
            .map_or((String::new(), 0.0), |c| (c.category.clone(), c.confidence));
        extra.push(Candidate {
            fact,
            category: best.0,
            quote: sentence.clone(),
            confidence: best.1,
        });
    }
    let (more, refused) = facts::screen(extra, said);
    kept.extend(more);
    rejected.extend(refused);
    (kept, rejected)
}

mod person;
mod sentences;

pub use person::third_person;
pub(crate) use sentences::{Mood, split};
use sentences::{is_request, lower_words};

#[cfg(test)]
mod tests;
