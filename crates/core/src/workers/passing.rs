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

/// How a person is for an hour or a day: "The user is so tired", "is
/// stuck at the airport", "is on a train".
const STATES: [&str; 24] = [
    "tired",
    "exhausted",
    "sleepy",
    "bored",
    "hungry",
    "thirsty",
    "stuck",
    "late",
    "busy",
    "stressed",
    "nervous",
    "excited",
    "cold",
    "lost",
    "confused",
    "in a rush",
    "in a hurry",
    "running late",
    "on a train",
    "on a plane",
    "on a bus",
    "at the airport",
    "away",
    "sick",
];

/// Words that put a state in the moment: "has a headache right now".
const NOW: [&str; 8] = [
    "right now",
    "today",
    "tonight",
    "this morning",
    "this afternoon",
    "this evening",
    "at the moment",
    "just now",
];

/// Words between "is" and a state that do not change it.
const DEGREE: [&str; 9] = [
    "so ",
    "very ",
    "really ",
    "a bit ",
    "quite ",
    "pretty ",
    "super ",
    "kind of ",
    "a little ",
];

/// What the user is doing for the task at hand, not who they are: "is
/// putting together an itinerary", "is shopping for a monitor".
const DOING: [&str; 8] = [
    "putting together",
    "planning",
    "preparing",
    "organizing",
    "organising",
    "looking for",
    "shopping for",
    "searching for",
];

/// Changes that last, after "just": "just moved to Oslo".
const JUST_LASTING: [&str; 10] = [
    "moved",
    "started",
    "joined",
    "became",
    "adopted",
    "retired",
    "graduated",
    "married",
    "bought",
    "switched",
];

/// Whether `fact` (lowercase) speaks of the moment ("right now",
/// "today"), or what follows "the user" in it (`after`) is a state of the
/// moment, a task in hand, or something that just happened.
fn momentary(fact: &str, after: &str) -> bool {
    if NOW.iter().any(|n| {
        fact.match_indices(n).any(|(i, _)| {
            fact[i + n.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
                && (i == 0 || !fact[..i].ends_with(char::is_alphanumeric))
        })
    }) {
        return true;
    }
    if let Some(done) = after.strip_prefix("just ") {
        return !JUST_LASTING.iter().any(|l| done.starts_with(l))
            && !done.starts_with("got married");
    }
    if let Some(doing) = after.strip_prefix("is ")
        && DOING.iter().any(|d| doing.starts_with(d))
    {
        return true;
    }
    let Some(mut state) = ["is ", "feels ", "has been ", "was "]
        .iter()
        .find_map(|v| after.strip_prefix(v))
    else {
        return false;
    };
    while let Some(rest) = DEGREE.iter().find_map(|d| state.strip_prefix(d)) {
        state = rest;
    }
    STATES.iter().any(|s| {
        state.starts_with(s)
            && state[s.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
    })
}

/// Whether `fact` (lowercase) is a request for the task or a passing state
/// rather than something lasting about the user.
pub(crate) fn passing(fact: &str) -> bool {
    // Where "the user" is the subject ("The user …", "Since the user …").
    let after = ["the user's ", "the user "]
        .iter()
        .find_map(|p| fact.find(p).map(|i| &fact[i + p.len()..]))
        .unwrap_or("");
    if momentary(fact, after) {
        return true;
    }
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
