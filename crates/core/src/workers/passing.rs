//! Whether a fact the model wrote about the user is only a request for the
//! task at hand or a passing state (pure): not lasting, so not memory.
//! Part of `facts::screen`; its cases are tested there, with the reason
//! the screen gives.

/// What follows "the user" in a request for the task at hand or a
/// passing state: "The user needs a function that reverses a string", "The
/// user is getting a segfault" (a real 0.5B model's facts from "I need …",
/// "I'm getting …"). Not lasting, so not memory.
const PASSING: [&str; 23] = [
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
    "understands",
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

/// Stems of words that say how every answer should read (units,
/// spelling, style): "thinks in miles" is how the user wants answers,
/// and "Please give temperatures in Celsius" a standing preference, not a
/// task (the sentence picking and the user's own fact use them too).
pub(crate) const HOW_ANSWERS_READ: [&str; 15] = [
    "metric",
    "imperial",
    "celsius",
    "fahrenheit",
    "miles",
    "pounds",
    "kilomet",
    "kilogram",
    "spell",
    "american",
    "british",
    "emoji",
    "bullet",
    "formal",
    "concise",
];

/// Whether `word` (lowercase) is one of [`HOW_ANSWERS_READ`] with an
/// ending ("kilometres", "emojis", "spelling"), not a longer word that
/// starts like one ("milestone").
pub(crate) fn how_answers_read(word: &str) -> bool {
    const ENDINGS: [&str; 11] = [
        "", "s", "es", "ing", "ed", "t", "ly", "re", "res", "er", "ers",
    ];
    HOW_ANSWERS_READ.iter().any(|a| {
        word.strip_prefix(a)
            .is_some_and(|end| ENDINGS.contains(&end))
    })
}

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

/// Ailments of a day or a week: "The user has a cold", "has got the flu";
/// not what they live with ("has migraines", "has asthma").
const AILMENTS: [&str; 12] = [
    "a cold",
    "a headache",
    "a migraine",
    "a fever",
    "a temperature",
    "the flu",
    "a sore throat",
    "a cough",
    "a hangover",
    "a stomach bug",
    "jet lag",
    "a stiff neck",
];

/// Words that put a state in the moment: "has a headache right now".
const NOW: [&str; 13] = [
    "right now",
    "this week",
    "this weekend",
    "yesterday",
    "last night",
    "tomorrow",
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
pub(crate) const JUST_LASTING: [&str; 10] = [
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

/// Verbs in "-ing" that can last: "is learning Elixir", "is raising two
/// kids". Any other "is …ing" is what the user is doing now ("is
/// waiting for a parcel", "is giving a talk in ten minutes"): English
/// says a passing activity in the progressive.
const LASTING_ING: [&str; 25] = [
    // "is getting married" lasts, "is getting a segfault" does not: PASSING
    // and LASTING below tell them apart.
    "getting",
    "learning",
    "studying",
    "working",
    "living",
    "training",
    "building",
    "writing",
    "raising",
    "running",
    "doing",
    "teaching",
    "developing",
    "renovating",
    "saving",
    "expecting",
    "recovering",
    "using",
    "managing",
    "volunteering",
    "caring",
    "coaching",
    "playing",
    "making",
    "moving",
];

/// Whether a thing of the user's has a problem now: "The user's Docker
/// build fails", "The user's coffee's gone cold".
const THING_TROUBLE: [&str; 14] = [
    "fails",
    "failing",
    "failed",
    "crashes",
    "crashing",
    "keeps",
    "broke",
    "broken",
    "wont",
    "stopped",
    "drops",
    "gone",
    "isnt working",
    "doesnt work",
];

/// Whether `after` (what follows "the user") holds an "is …ing" that
/// passes.
fn in_progress(after: &str) -> bool {
    let words: Vec<&str> = after
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|p| {
        let be = ["is", "are", "am", "theyre", "they're", "they’re"].contains(&p[0]);
        be && p[1].len() > 4 && p[1].ends_with("ing") && !LASTING_ING.contains(&p[1])
    }) || words.windows(3).any(|p| {
        // "is now waiting", "is still hoping"
        ["is", "are", "theyre", "they're"].contains(&p[0])
            && ["now", "still", "currently", "just", "also"].contains(&p[1])
            && p[2].len() > 4
            && p[2].ends_with("ing")
            && !LASTING_ING.contains(&p[2])
    })
}

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
    if in_progress(after)
        || ["not sure", "unsure", "isnt sure"]
            .iter()
            .any(|n| fact.contains(n))
    {
        return true;
    }
    if fact.starts_with("the user's ") {
        let plain = after.replace(['\'', '’'], "");
        if THING_TROUBLE.iter().any(|t| {
            plain.match_indices(t).any(|(i, _)| {
                (i == 0 || plain[..i].ends_with(' '))
                    && plain[i + t.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_alphanumeric())
            })
        }) {
            return true;
        }
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
    if let Some(ill) = ["has got ", "has ", "is getting over "]
        .iter()
        .find_map(|v| after.strip_prefix(v))
        && AILMENTS.iter().any(|a| {
            ill.starts_with(a)
                && ill[a.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric())
        })
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
    let about_answers = object.iter().any(|w| {
        w.starts_with("reply")
            || ABOUT_ANSWERS.iter().any(|a| w.starts_with(a))
            || how_answers_read(w)
    });
    let object = object.join(" ");
    let lasting = LASTING.iter().any(|l| object.starts_with(l));
    !about_answers && !lasting
}
