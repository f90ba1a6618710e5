//! Whether a fact the model wrote about the user tells of something that
//! happened, is about to, or is the material of the task at hand, rather
//! than something that lasts (pure; part of `facts::screen`, tested there).
//!
//! The passing screen (`passing.rs`) refuses requests and states of the
//! moment by their words; this one reads the fact's verb. On conversations
//! the screen was never tuned on, the facts a 0.5B model wrongly kept were
//! mostly of two shapes: an event told as context for a question ("The
//! user burned the toast", "has just come in from a walk", "fell asleep on
//! the beach yesterday") and the task's own material said of the user
//! ("has a spreadsheet with dates in three formats", "has to write an
//! essay"). English says an event in the simple past or the perfect, and
//! lasting things in the present; so a fact whose verb is past lasts only
//! where its verb is a lasting change (moved, grew up, married, was born)
//! or it says for how long ("for twelve years", "since 2015", "never").

/// Words between "the user" and its verb that change nothing.
pub(crate) const ADVERBS: [&str; 17] = [
    "also",
    "only",
    "still",
    "now",
    "currently",
    "mostly",
    "usually",
    "always",
    "often",
    "really",
    "recently",
    "just",
    "actually",
    "finally",
    "even",
    "already",
    "once",
];

/// Past forms that are not "-ed".
const IRREGULAR_PAST: [&str; 40] = [
    "was", "were", "had", "got", "came", "went", "made", "took", "fell", "felt", "found", "saw",
    "said", "told", "thought", "bought", "brought", "caught", "left", "lost", "met", "ran", "sent",
    "spent", "broke", "burnt", "ate", "drank", "forgot", "gave", "heard", "knew", "wrote", "won",
    "woke", "slept", "sat", "began", "grew", "did",
];

/// Past participles that are not "-ed" ("has come in", "has had").
const IRREGULAR_PARTICIPLE: [&str; 22] = [
    "come", "gone", "had", "got", "gotten", "made", "taken", "seen", "done", "given", "found",
    "heard", "read", "run", "written", "been", "known", "lost", "spent", "kept", "become", "begun",
];

/// Past verbs that tell a change that lasts, beside the ones "just" may
/// come before (`passing::JUST_LASTING`: moved, started, married…): "grew
/// up on a farm", "was born in Lagos", "spent six years as…".
const LASTING_CHANGE: [&str; 19] = [
    "grew",
    "become",
    "emigrated",
    "immigrated",
    "relocated",
    "converted",
    "qualified",
    "trained",
    "founded",
    "learned",
    "learnt",
    "studied",
    "worked",
    "lived",
    "used",
    "spent",
    "quit",
    "gave",
    "took",
];

/// Whether past `verb` tells a change that lasts.
fn lasting_change(verb: &str) -> bool {
    // "just bought a house" lasts; "bought the wrong size" is a story.
    LASTING_CHANGE.contains(&verb)
        || (verb != "bought" && crate::workers::passing::JUST_LASTING.contains(&verb))
}

/// After "was"/"were": what makes the past a lasting fact ("was born",
/// "was diagnosed with").
const LASTING_PASSIVE: [&str; 6] = [
    "born",
    "raised",
    "diagnosed",
    "adopted",
    "brought",
    "married",
];

/// Participles after "has"/"have" that tell what has lasted until now
/// ("has lived in Kyoto", "has collected fountain pens", "has been a nurse").
const HABITUAL: [&str; 23] = [
    "been",
    "lived",
    "worked",
    "used",
    "played",
    "studied",
    "taught",
    "collected",
    "owned",
    "kept",
    "run",
    "written",
    "done",
    "spoken",
    "practised",
    "practiced",
    "coached",
    "volunteered",
    "loved",
    "known",
    "trained",
    "raced",
    "always",
];

/// Words that make a fact the material of the task at hand when the user
/// "has" it: "has a spreadsheet with dates", "has twenty years of river
/// levels in a CSV".
const MATERIAL: [&str; 20] = [
    "spreadsheet",
    "spreadsheets",
    "csv",
    "file",
    "files",
    "folder",
    "script",
    "dataset",
    "table",
    "column",
    "columns",
    "list",
    "log",
    "logs",
    "essay",
    "draft",
    "document",
    "pdf",
    "function",
    "query",
];

/// What the user "has" that is an event of their calendar, not of who
/// they are: "has a job interview on Friday", "has a flight at six".
const EVENTS: [&str; 10] = [
    "meeting",
    "appointment",
    "deadline",
    "exam",
    "interview",
    "flight",
    "presentation",
    "talk",
    "party",
    "date",
];

/// Words after "is in a"/"is at a" that make a lasting place or group
/// ("is in a band", "is in a wheelchair"), not where the user is this hour.
const LASTING_PLACE: [&str; 10] = [
    "band",
    "choir",
    "club",
    "team",
    "year",
    "grade",
    "wheelchair",
    "relationship",
    "union",
    "league",
];

/// What the user "is on" for an hour or a day: "is on a break", "is on a
/// call" (not "is on a MacBook", "is on a low-sodium diet").
const MOMENT_ON: [&str; 7] = [
    "break", "call", "trip", "holiday", "vacation", "walk", "shift",
];

/// Words that put a fact on a time span: "for twelve years", "since 2015"
/// ("never" and "always" count only right after the verb: "has read that
/// salt does not always scale" is no span).
fn says_how_long(words: &[&str]) -> bool {
    words
        .iter()
        .any(|w| ["since", "years", "decades"].contains(w))
        || words.windows(2).any(|p| {
            p[0] == "for" && ["months", "ages", "life", "years", "decades"].contains(&p[1])
        })
}

/// Whether `word` is a past form: "-ed" (longer than "need", "feed") or
/// one of [`IRREGULAR_PAST`].
fn past(word: &str) -> bool {
    (word.len() > 4 && word.ends_with("ed"))
        || word.ends_with("ied")
        || IRREGULAR_PAST.contains(&word)
}

/// Whether `word` is a past participle.
fn participle(word: &str) -> bool {
    (word.len() > 4 && word.ends_with("ed")) || IRREGULAR_PARTICIPLE.contains(&word)
}

/// The words of `text` (lowercase), apostrophes kept inside words.
fn words(text: &str) -> Vec<String> {
    text.replace('’', "'")
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether `fact` (lowercase) tells an event or the task's material
/// rather than something lasting about the user. Only a fact whose
/// subject is "the user" or a thing of theirs is read; any other shape is
/// left to the rest of the screen.
pub(crate) fn happened(fact: &str) -> bool {
    let ws = words(fact);
    let ws: Vec<&str> = ws.iter().map(String::as_str).collect();
    let Some(at) = ws
        .windows(2)
        .position(|p| p == ["the", "user"] || p == ["the", "user's"])
    else {
        return false;
    };
    if ws[at + 1] == "user's" {
        return theirs_happened(&ws[at + 2..]);
    }
    let mut rest = &ws[at + 2..];
    while let [first, more @ ..] = rest
        && ADVERBS.contains(first)
    {
        rest = more;
    }
    let long = says_how_long(rest);
    match rest {
        // "The user in their current job they've led…", "The user missing
        // days are blank": the user is no subject of it.
        [first, ..] if ["in", "on", "at", "with", "from", "of", "by"].contains(first) => true,
        [first, ..] if first.len() > 4 && first.ends_with("ing") => true,
        ["was" | "were", "never", ..] => false,
        ["was" | "were", next, ..] => !(long || LASTING_PASSIVE.contains(next)),
        ["got", next, ..] => !["married", "engaged", "divorced", "promoted"].contains(next),
        ["has" | "have", "to", next, ..] => !["avoid", "wear", "use"].contains(next),
        // "has got two kids" is British for "has two kids"; "has got
        // married" is a lasting change.
        [
            "has" | "have",
            "got",
            "married" | "engaged" | "divorced" | "promoted",
            ..,
        ] => false,
        ["has" | "have", "got", object @ ..] if object.first().is_some_and(|w| !participle(w)) => {
            object
                .iter()
                .any(|w| MATERIAL.contains(w) || EVENTS.contains(w))
        }
        ["has" | "have", perfect, more @ ..]
            if participle(perfect) || ADVERBS.contains(perfect) =>
        {
            // "has just come in", "has never been", "has read that".
            let mut rest = std::iter::once(perfect).chain(more.iter());
            let verb = rest.find(|w| !ADVERBS.contains(w) && **w != "never");
            let never = *perfect == "never" || more.first() == Some(&"never");
            !(long || never || verb.is_some_and(|v| HABITUAL.contains(v) || lasting_change(v)))
        }
        ["has" | "have" | "owns" | "keeps", object @ ..] => object
            .iter()
            .any(|w| MATERIAL.contains(w) || EVENTS.contains(w)),
        // Not yet, or not certain: "will be in Paris", "might move".
        ["would", "rather" | "prefer" | "love" | "like", ..] => false,
        ["will" | "might" | "may" | "could" | "would", ..] => true,
        ["is" | "are", "going" | "about", "to", ..] | ["is" | "are", "not", "going", "to", ..] => {
            true
        }
        // Where the user is this hour: "is in a meeting", "is at their
        // desk", "is on their lunch break"; not "is in the army", "is on a
        // MacBook", "is in a band".
        ["is" | "are", "in" | "at", "a" | "an" | "their", next, ..] => {
            !LASTING_PLACE.contains(next)
        }
        ["is" | "are", "on", "their", ..] => true,
        ["is" | "are", "on", "a" | "an", next, ..] => MOMENT_ON.contains(next),
        [verb, ..] if past(verb) => !(long || lasting_change(verb)),
        _ => false,
    }
}

/// Whether what follows "the user's" tells that a thing of theirs changed
/// or broke ("first idea was a train station", "old laptop finally
/// died"): its first verb is past, and not "were born".
fn theirs_happened(rest: &[&str]) -> bool {
    // The thing named comes first: its verb is within the next few words.
    let Some(i) = rest
        .iter()
        .take(6)
        .position(|w| ["is", "are", "has", "have", "runs", "run"].contains(w) || past(w))
    else {
        return false;
    };
    let verb = rest[i];
    if ["is", "are", "has", "have", "runs", "run"].contains(&verb) {
        return false;
    }
    // "The user's mother is a retired judge" stops at "is"; "was born".
    let next = rest.get(i + 1).copied().unwrap_or("");
    let born = ["was", "were"].contains(&verb) && LASTING_PASSIVE.contains(&next);
    !(born || says_how_long(rest) || lasting_change(verb))
}
