//! The category of a kept fact, settled by what the fact says where its
//! verb leaves no doubt. A small model picks categories loosely (user pass
//! 2026-12, defect 11: "The user prefers recipes with metric units" filed
//! under identity); the verb of "The user prefers …" says preference
//! whatever the model chose. Facts whose verb says nothing certain keep the
//! model's category (it was already checked to be one of `CATEGORIES`).
//! Facts are written in English by the memory prompt, whatever language
//! the user wrote in, so the verbs below are English.

/// Verbs (after "the user") that make a fact a preference.
const PREFERENCE: &[&str] = &[
    "prefers",
    "likes",
    "loves",
    "enjoys",
    "dislikes",
    "hates",
    "wants answers",
    "wants replies",
    "wants responses",
    "would rather",
    "favors",
    "favours",
    "avoids",
];
/// Verbs that make a fact a goal.
const GOAL: &[&str] = &[
    "wants to",
    "plans to",
    "hopes to",
    "is learning",
    "is trying to",
    "aims to",
    "intends to",
];
/// Phrases that make a fact an identity.
const IDENTITY: &[&str] = &["'s name is", "is named", "is called", "was born"];

/// The category `fact` belongs in: the one its verb makes certain, else
/// `proposed` (the model's).
pub(super) fn settled(fact: &str, proposed: &str) -> String {
    let lower = fact.trim().to_lowercase();
    // What follows the subject: "The user prefers …" → "prefers …".
    let rest = lower
        .strip_prefix("the user")
        .or_else(|| lower.strip_prefix("user"))
        .map(str::trim_start);
    let Some(rest) = rest else {
        return proposed.to_owned();
    };
    let starts = |list: &[&str]| list.iter().any(|v| rest.starts_with(v));
    // "wants to" is a goal, "wants answers …" a preference: each list
    // names whole phrases, so neither takes the other's.
    if starts(PREFERENCE) {
        "preference".into()
    } else if starts(GOAL) {
        "goal".into()
    } else if starts(IDENTITY) {
        "identity".into()
    } else {
        proposed.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::settled;

    #[test]
    fn the_verb_settles_the_category_where_it_is_certain() {
        for (fact, proposed, want) in [
            // The user pass's case: a preference filed as identity.
            (
                "The user prefers recipes with metric units",
                "identity",
                "preference",
            ),
            ("The user likes short answers.", "skill", "preference"),
            (
                "The user wants answers in bullet points",
                "goal",
                "preference",
            ),
            ("The user wants to learn Rust", "preference", "goal"),
            ("The user is learning Japanese", "skill", "goal"),
            ("The user's name is Priya", "preference", "identity"),
            ("The user is called Sam", "project", "identity"),
            // No certain verb: the model's category stands.
            ("The user works as a nurse", "identity", "identity"),
            ("The user uses Arch Linux", "environment", "environment"),
            ("The user is building a game in Godot", "project", "project"),
            // Not "the user …" at all (kept facts always mention the user).
            ("Priya is the user's name", "identity", "identity"),
        ] {
            assert_eq!(settled(fact, proposed), want, "{fact}");
        }
    }
}
