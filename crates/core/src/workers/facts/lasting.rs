//! What a fact says that marks it as not the user's lasting truth, read
//! from the fact's own words (pure): what they no longer are, someone else of theirs as its subject, a task they
//! were handed or are weighing up, the task's own material. Each case
//! comes from a held-out set's false facts (issue 48's fifth round:
//! docs/design.md §8); `facts::screen` gives the reason.

use super::OTHERS;

/// What the user was and is not now: "used to live in Dubai", "once
/// worked as", "was formerly". ("is used to the cold" is how they are.)
const NO_LONGER: [&str; 5] = [
    "the user used to ",
    "the user once ",
    "the user formerly ",
    "the user previously ",
    "the user was formerly ",
];

/// A task handed to them or being weighed up, not what they are: "has
/// been asked to give a talk", "is looking at a MacBook", "is considering
/// a move".
const WEIGHING: [&str; 9] = [
    "the user has been asked ",
    "the user was asked ",
    "the user's been asked ",
    "the user is looking at ",
    "the user has been looking at ",
    "the user's been looking at ",
    "the user is considering ",
    "the user is thinking about ",
    "the user is deciding ",
];

/// The task's own things as the subject: "The user's budget is flexible up
/// to 2,000 euros", "The user's current one is six years old", "The user's
/// first attempt double counts". They hold for this conversation only.
const TASK_THINGS: [&str; 12] = [
    "budget",
    "attempt",
    "draft",
    "version",
    "query",
    "table",
    "spreadsheet",
    "question",
    "request",
    "itinerary",
    "deadline",
    "one",
];

/// Words before a task's thing that say which one ("first attempt",
/// "current one"); "first language" is no thing of the task's.
const WHICH: [&str; 8] = [
    "first", "second", "current", "latest", "last", "new", "old", "previous",
];

/// Whether the words after "the user's" name a thing of the task's.
fn task_thing(after: &[&str]) -> bool {
    match after {
        [which, thing, ..] if WHICH.contains(which) => TASK_THINGS.contains(thing),
        [thing, ..] => *thing != "one" && TASK_THINGS.contains(thing),
        [] => false,
    }
}

/// Why `fact` (lowercase) is not a lasting fact of the user's, if it says.
pub(super) fn not_lasting(fact: &str) -> Option<&'static str> {
    if NO_LONGER.iter().any(|p| fact.starts_with(p)) {
        return Some("what the user was, not what they are");
    }
    if WEIGHING.iter().any(|p| fact.starts_with(p)) {
        return Some("a request or a passing state, not a lasting fact");
    }
    if let Some(rest) = fact.strip_prefix("the user's ") {
        let after: Vec<&str> = rest
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(2)
            .collect();
        let first = after.first().copied().unwrap_or("");
        let singular = first.strip_suffix('s').unwrap_or(first);
        // "The user's boss lives in Oslo": the boss's fact, not theirs
        // (their family and household are theirs).
        if OTHERS.contains(&first) || OTHERS.contains(&singular) {
            return Some("about someone else, not the user");
        }
        if task_thing(&after) {
            return Some("something that happened, or the task's material, not a lasting fact");
        }
    }
    None
}
