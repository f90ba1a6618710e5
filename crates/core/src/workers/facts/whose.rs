//! Of whom a sentence of the user's speaks: the user, or someone or
//! something of theirs ("My son Rafael is nine", "My React component is
//! slow", "our Portuguese is still terrible"), and whether a fact says
//! the same.

use super::{same_word, words};

/// First-person words that make the user a sentence's subject.
const SUBJECT: [&str; 7] = ["i", "im", "ive", "id", "ill", "we", "weve"];

/// Whether `fact` says of whom `sentence` (its words)
/// speaks: where the user is no subject of it, only an owner ("My son
/// Rafael is nine"), the fact names what they own ("The user's son Rafael
/// is nine", not "The user is nine").
pub(super) fn of_whom_it_is(sentence: &[&str], fact: &str) -> bool {
    if sentence.iter().any(|w| SUBJECT.contains(w)) {
        return true;
    }
    let fact = words(&fact.replace(['\'', '’'], ""));
    let fact: Vec<&str> = fact.split(' ').collect();
    let owned: Vec<&str> = sentence
        .windows(2)
        .filter(|p| ["my", "our"].contains(&p[0]))
        .map(|p| p[1])
        .collect();
    owned.is_empty() || fact.iter().any(|f| owned.iter().any(|o| same_word(o, f)))
}

/// Prepositions before a thing the user speaks of ("in a React component").
const PREPOSITIONS: [&str; 10] = [
    "in", "on", "at", "with", "for", "from", "of", "to", "into", "about",
];

/// Whether `fact` makes the user what `sentence` (its words) names as a
/// thing of theirs or of the task: "The user is a React component" from
/// "I'm getting an error in a React component" or "My React component
/// is slow", where the sentence never says "I'm a …" or "as a …".
pub(super) fn made_a_thing(sentence: &[&str], fact: &str) -> bool {
    let fact = words(&fact.replace(['\'', '’'], ""));
    let fact: Vec<&str> = fact.split(' ').collect();
    let Some(x) = fact
        .windows(4)
        .find(|p| p[0] == "user" && p[1] == "is" && ["a", "an"].contains(&p[2]))
        .map(|p| p[3])
    else {
        return false;
    };
    let a_thing = sentence
        .windows(3)
        .any(|p| PREPOSITIONS.contains(&p[0]) && ["a", "an", "the"].contains(&p[1]) && p[2] == x)
        || sentence
            .windows(2)
            .any(|p| ["my", "our"].contains(&p[0]) && p[1] == x);
    let of_self = sentence
        .windows(3)
        .any(|p| ["im", "am", "as"].contains(&p[0]) && ["a", "an"].contains(&p[1]) && p[2] == x);
    a_thing && !of_self
}

/// Whether `fact` makes the user what `sentence` (its words) says of a
/// thing of theirs: "The user is still terrible" from "our Portuguese is
/// still terrible", where the sentence never says "I'm … terrible".
pub(super) fn said_of_their_thing(sentence: &[&str], fact: &str) -> bool {
    use crate::workers::happened::ADVERBS;
    let fact = words(&fact.replace(['\'', '’'], ""));
    let fact: Vec<&str> = fact.split(' ').collect();
    let Some(at) = fact.windows(2).position(|p| p == ["user", "is"]) else {
        return false;
    };
    let Some(what) = fact[at + 2..]
        .iter()
        .find(|w| !ADVERBS.contains(w) && **w != "very")
    else {
        return false;
    };
    if ["a", "an", "the", "not"].contains(what) {
        return false;
    }
    let near = |from: usize| sentence[from..].iter().take(3).any(|w| w == what);
    let of_thing = sentence.windows(3).enumerate().any(|(i, p)| {
        ["my", "our"].contains(&p[0]) && ["is", "are", "was", "were"].contains(&p[2]) && near(i + 3)
    });
    let of_self = sentence
        .windows(2)
        .enumerate()
        .any(|(i, p)| (["im", "am"].contains(&p[0]) || p == ["we", "are"]) && near(i + 1));
    of_thing && !of_self
}
