//! A sentence of the user's said of "the user" (pure, English): "I teach
//! chemistry" is "The user teaches chemistry". Only the person changes,
//! so a fact is held to the user's words exactly as before.

use super::sentences::lower_words;

/// Words between "I" and its verb ("I *mostly* write Go"): a list, not
/// "-ly", which would take "apply" for one.
const ADVERBS: [&str; 20] = [
    "also",
    "often",
    "always",
    "never",
    "still",
    "now",
    "just",
    "usually",
    "mostly",
    "mainly",
    "really",
    "actually",
    "currently",
    "only",
    "sometimes",
    "generally",
    "primarily",
    "normally",
    "rarely",
    "occasionally",
];

/// Verbs "the user" says as "I" does: modals, and past forms that take no
/// "-ed" ("I can speak Spanish", "I grew up in Lyon").
const UNCHANGED: [&str; 34] = [
    "can",
    "could",
    "will",
    "would",
    "shall",
    "should",
    "may",
    "might",
    "must",
    "can't",
    "cannot",
    "won't",
    "wouldn't",
    "couldn't",
    "shouldn't",
    "didn't",
    "had",
    "did",
    "was",
    "grew",
    "went",
    "got",
    "made",
    "took",
    "came",
    "knew",
    "began",
    "became",
    "wrote",
    "taught",
    "bought",
    "built",
    "left",
    "met",
];

/// `verb` (a word as the model wrote it, punctuation and all) as "the
/// user" does it: "write" is "writes", "have" "has", "don't" "doesn't";
/// a modal or an irregular past stays.
fn conjugated(verb: &str) -> String {
    let bare = verb.trim_end_matches([',', '.', ';', '!', ':']);
    let tail = &verb[bare.len()..];
    let lower = bare.replace('’', "'").to_lowercase();
    let done = match lower.as_str() {
        "have" => "has".to_owned(),
        "am" | "are" => "is".to_owned(),
        "don't" => "doesn't".to_owned(),
        "do" | "go" => format!("{bare}es"),
        w if UNCHANGED.contains(&w) || !w.chars().all(|c| c.is_ascii_alphabetic()) => bare.into(),
        // Already conjugated, or past ("I worked").
        w if w.ends_with('s') && !w.ends_with("ss") || w.ends_with("ed") => bare.into(),
        w if w.ends_with('y') && !w[..w.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']) => {
            format!("{}ies", &bare[..bare.len() - 1])
        }
        w if ["s", "sh", "ch", "x", "z"].iter().any(|e| w.ends_with(e)) => format!("{bare}es"),
        _ => format!("{bare}s"),
    };
    format!("{done}{tail}")
}

/// The name the user gives themselves in `sentence` ("I'm Priya", "my
/// name is Tomás", "call me Sam"), if any.
fn own_name(sentence: &str) -> Option<&str> {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    words.windows(2).enumerate().find_map(|(i, pair)| {
        let before = pair[0].replace(['\'', '’'], "").to_lowercase();
        let named = before == "im"
            || (before == "am" && i > 0 && words[i - 1].eq_ignore_ascii_case("i"))
            || (before == "is" && i > 0 && words[i - 1].eq_ignore_ascii_case("name"))
            || (before == "me" && i > 0 && words[i - 1].eq_ignore_ascii_case("call"));
        let name = pair[1].trim_end_matches([',', '.', ';', '!', '?']);
        (named && name.chars().next().is_some_and(char::is_uppercase)).then_some(name)
    })
}

/// A fact the model wrote in the user's own person ("I teach chemistry",
/// "My daughter Mia turns 7"), as "she" or "they", or under the name the
/// user gave in `sentence` ("Priya is a nurse"), said of the user as memory
/// holds facts; anything else as it is. Only the person changes, so the
/// fact is held to the user's words exactly as before.
pub fn third_person(fact: &str, sentence: &str) -> String {
    let fact = fact.trim();
    let words: Vec<&str> = fact.split(' ').filter(|w| !w.is_empty()).collect();
    let Some(first) = words.first() else {
        return String::new();
    };
    let key = first.replace(['\'', '’'], "").to_lowercase();
    let mut out: Vec<String> = Vec::new();
    let mut rest = &words[1..];
    let named = own_name(sentence).is_some_and(|name| *first == name);
    // "She" is the user only where the sentence speaks of no one else:
    // from "My sister works in Leeds", "She works in Leeds" is the sister.
    let only_self = !lower_words(sentence)
        .iter()
        .any(|w| ["my", "our", "we", "us"].contains(&w.as_str()));
    match key.as_str() {
        _ if named => out.push(format!("The user, {first},")),
        "she" | "he" if only_self => out.push("The user".into()),
        "her" | "his" if only_self => out.push("The user's".into()),
        "im" => out.extend(["The user is".to_owned()]),
        "ive" => out.extend(["The user has".to_owned()]),
        "my" | "our" => out.extend(["The user's".to_owned()]),
        // "We adopted a greyhound", "We're a family of five": the user's
        // household ("household" is a word a fact may add).
        "weve" => out.push("The user's household has".into()),
        "were" if first.contains(['\'', '’']) => out.push("The user's household is".into()),
        "we" => {
            out.push("The user's household".into());
            if let Some(verb) = rest.first() {
                out.push(conjugated(verb));
                rest = &rest[1..];
            }
        }
        "they" if !only_self => return fact.to_owned(),
        "i" | "they" => {
            out.push("The user".into());
            let mut i = 0;
            while i < rest.len() && ADVERBS.contains(&rest[i].to_lowercase().as_str()) {
                out.push(rest[i].into());
                i += 1;
            }
            if let Some(verb) = rest.get(i) {
                out.push(conjugated(verb));
                i += 1;
            }
            rest = &rest[i.min(rest.len())..];
        }
        // "The user mostly writes Go and I use Neovim": the rest still
        // changes person.
        _ => out.push((*first).to_owned()),
    }
    // Later first-person words are "they" ("… and I live in Valencia").
    for w in rest {
        let bare = w.trim_end_matches([',', '.', ';', '!']);
        let tail = &w[bare.len()..];
        // "the US" is a country, not "us".
        if bare.len() > 1 && bare.chars().all(|c| c.is_uppercase()) {
            out.push((*w).to_owned());
            continue;
        }
        let swapped = match bare.replace('’', "'").to_lowercase().as_str() {
            "i" | "we" => "they",
            "i'm" | "we're" => "they're",
            "i've" | "we've" => "they've",
            "me" | "us" => "them",
            "my" | "our" => "their",
            "myself" => "themselves",
            _ => {
                out.push((*w).to_owned());
                continue;
            }
        };
        out.push(format!("{swapped}{tail}"));
    }
    out.join(" ")
}

/// Words before the user's own that say nothing of them: "Hi, I'm Lena",
/// "btw i use arch", "For context: I have ten years of Java".
const PREAMBLE: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "so",
    "ok",
    "okay",
    "well",
    "oh",
    "also",
    "and",
    "but",
    "btw",
    "fyi",
    "anyway",
    "actually",
    "lol",
    "um",
    "yes",
    "yeah",
    "honestly",
    "basically",
    "quick",
    "note",
];

/// Words after the fact that add nothing to it: "im a dentist in cork lol".
const TRAILING: &[&str] = &[
    "lol", "haha", "tbh", "ngl", "btw", "lmao", "though", "anyway",
];

/// Subjects in the first person a fact can be said from: "I", "I'm",
/// "I've", "my", "we", "our" (as written, apostrophes dropped).
const SUBJECTS: &[&str] = &["i", "im", "ive", "my", "our", "we", "weve"];

/// The fact `sentence` states, said of "the user": its preamble dropped
/// (a greeting, "by the way", a short lead-in before a comma or a colon
/// that is not the user's), its first "I" or "my" made "the user"
/// ("Since I moved to Oslo, I cycle" is "Since the user moved to Oslo,
/// they cycle"). `None` when it has no subject in the first person. Used
/// when the model's own wording of a sentence did not hold up: the
/// sentence is the user's, so its words are.
pub fn own_fact(sentence: &str) -> Option<String> {
    let mut text = sentence.trim();
    // "As a vegan, …": the role is the fact.
    let comma = text.find(',').unwrap_or(text.len());
    let head = lower_words(&text[..comma]);
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    if crate::workers::facts::role(&head) {
        let role = text[..comma]
            .trim()
            .trim_end_matches(['.', '!', ';', ':', ' ']);
        return role.get(3..).map(|r| format!("The user is {}.", r.trim()));
    }
    // A short lead-in that is not the user's: "For context:", "Hi there,".
    if let Some(i) = text.find([',', ':']) {
        let lead = lower_words(&text[..i]);
        if lead.len() <= 4
            && !lead
                .iter()
                .any(|w| SUBJECTS.contains(&w.as_str()) || w == "me")
        {
            text = text[i + 1..].trim_start();
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let bare = |w: &str| {
        w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
            .replace(['\'', '’'], "")
            .to_lowercase()
    };
    let mut from = 0;
    while from < words.len() && PREAMBLE.contains(&bare(words[from]).as_str()) {
        from += 1;
    }
    // "by the way", "just so you know"
    for phrase in [["by", "the", "way"], ["just", "so", "you"]] {
        let at = &words[from.min(words.len())..];
        if at.len() >= 3 && (0..3).all(|i| bare(at[i]) == phrase[i]) {
            from += if phrase[0] == "just" { 4 } else { 3 };
        }
    }
    let from = from.min(words.len());
    let mut to = words.len();
    while to > from && TRAILING.contains(&bare(words[to - 1]).as_str()) {
        to -= 1;
    }
    let Some(k) = (from..to).find(|&i| SUBJECTS.contains(&bare(words[i]).as_str())) else {
        // "Call me Bea."
        if let Some(name) = own_name(sentence) {
            return Some(format!("The user's name is {name}."));
        }
        return standing_wish(&words[from..to]);
    };
    // "Never tell my boss": an instruction, a preference at most.
    if k > from && INSTRUCTING.contains(&bare(words[from]).as_str()) {
        return standing_wish(&words[from..to]);
    }
    // "I'd like the plan to cover my games": the user's own words before
    // the subject found are a wish or a request, not a fact.
    if words[from..k]
        .iter()
        .any(|w| ["id", "ill", "me", "i"].contains(&bare(w).as_str()))
    {
        return None;
    }
    let said = third_person(&words[k..to].join(" "), sentence);
    let said = said.trim_end_matches(['.', '!', ';', ',', ':', ' ']);
    let lead = words[from..k].join(" ");
    let fact = if lead.is_empty() {
        said.to_owned()
    } else {
        let mut lead_chars = lead.chars();
        let lead = lead_chars
            .next()
            .map(|c| c.to_uppercase().chain(lead_chars).collect::<String>())
            .unwrap_or_default();
        format!("{lead} {}", said.replacen("The user", "the user", 1))
    };
    fact.to_lowercase()
        .contains("the user")
        .then(|| format!("{fact}."))
}

/// Words that open an instruction about answers: "Never put emojis in your
/// replies to me", "pls use uk spelling w me".
const INSTRUCTING: &[&str] = &[
    "never", "always", "please", "pls", "plz", "dont", "use", "reply", "answer", "respond", "keep",
    "talk", "speak", "avoid", "stop", "spell", "give", "write", "put", "format", "convert",
    "express", "measure",
];

/// Words that say an instruction is about the answers themselves (with
/// `passing::HOW_ANSWERS_READ`).
const ABOUT_ANSWERS: &[&str] = &[
    "answer", "repl", "respon", "units", "language", "tone", "format", "short", "brief", "words",
    "english", "explain", "casual",
];

/// An instruction `words` give about how the user wants answers, as the
/// user's preference ("The user's preference: never put emojis in your
/// replies to them."); `None` for any other sentence without a subject.
fn standing_wish(words: &[&str]) -> Option<String> {
    let lower: Vec<String> = words
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .replace(['\'', '’'], "")
                .to_lowercase()
        })
        .collect();
    let opens = lower
        .first()
        .is_some_and(|w| INSTRUCTING.contains(&w.as_str()));
    let about = lower.iter().any(|w| {
        ABOUT_ANSWERS.iter().any(|a| w.starts_with(a))
            || crate::workers::passing::how_answers_read(w)
    });
    if !opens || !about {
        return None;
    }
    let said: Vec<String> = words
        .iter()
        .map(|w| {
            let bare = w.trim_end_matches([',', '.', ';', '!', ':']);
            let tail = &w[bare.len()..];
            match bare.to_lowercase().as_str() {
                "me" => format!("them{tail}"),
                "my" => format!("their{tail}"),
                "i" => format!("they{tail}"),
                _ => (*w).to_owned(),
            }
        })
        .collect();
    let mut said = said.join(" ");
    if let Some(first) = said.get(..1) {
        said = first.to_lowercase() + &said[1..];
    }
    Some(format!(
        "The user's preference: {}.",
        said.trim_end_matches(['.', '!', ';', ',', ':', ' '])
    ))
}
