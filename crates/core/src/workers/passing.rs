//! Whether a fact the model wrote about the user is only a request for the
//! task at hand or a passing state (pure): not lasting, so not memory.
//! Part of `facts::screen`; its cases are tested there, with the reason
//! the screen gives.

/// What follows "the user" in a request for the task at hand or a
/// passing state: "The user needs a function that reverses a string", "The
/// user is getting a segfault" (a real 0.5B model's facts from "I need …",
/// "I'm getting …"). Not lasting, so not memory.
const PASSING: [&str; 22] = [
    "needs",
    "need",
    "wants",
    "want",
    "would like",
    "is getting",
    "gets",
    "got",
    "is trying",
    "tries",
    "tried",
    "is asking",
    "asks",
    "asked",
    "thinks",
    "is wondering",
    "wonders",
    "hopes",
    "has a question",
    "has a problem",
    "has an error",
    "has a bug",
];

/// How a person wants answers: a "wants"/"needs" fact about them lasts
/// ("The user wants short answers"), when these come right after the verb.
const ABOUT_ANSWERS: [&str; 8] = [
    "answer",
    "repli",
    "respon",
    "explanation",
    "units",
    "language",
    "tone",
    "format",
];

/// Passing words that name a lasting change: "is getting married", "got a
/// degree".
const LASTING: [&str; 8] = [
    "married", "engaged", "divorced", "a degree", "a phd", "a job", "promoted", "retired",
];

/// Whether `fact` (lowercase) is a request for the task or a passing state
/// rather than something lasting about the user.
pub(crate) fn passing(fact: &str) -> bool {
    let after = ["the user's ", "the user "]
        .iter()
        .find_map(|p| fact.strip_prefix(p))
        .unwrap_or("");
    let verb = after
        .trim_start_matches("just ")
        .trim_start_matches("currently ");
    let Some(p) = PASSING
        .iter()
        .find(|p| verb.starts_with(*p) && verb[p.len()..].starts_with([' ', '.', ',']))
    else {
        return false;
    };
    // The words right after the verb, before any "to"/"that"/"for" that
    // starts the task ("needs a regex to format phone numbers").
    let object: Vec<&str> = verb[p.len()..]
        .split_whitespace()
        .take_while(|w| !["to", "that", "for", "which", "with"].contains(w))
        .take(4)
        .collect();
    let about_answers = object
        .iter()
        .any(|w| w.starts_with("reply") || ABOUT_ANSWERS.iter().any(|a| w.starts_with(a)));
    let object = object.join(" ");
    let lasting = LASTING.iter().any(|l| object.starts_with(l));
    !about_answers && !lasting
}
