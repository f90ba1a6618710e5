//! The memory summary a new session is given, rebuilt from the live facts
//! every time (pure; docs/design.md §8): newest first, a fact that says
//! again what a newer one says is left out, and so is one that a newer
//! fact contradicts (a second name, a second home town: attributes a
//! person has one of); then capped, so a long memory cannot crowd the
//! context window; then grouped by category.

use crate::fact::{Memory, same_fact};

/// Most characters of facts in a summary (about 400 tokens): the oldest go
/// first when there are more.
pub const SUMMARY_CHARS: usize = 1600;

/// The categories in the order a summary lists them, with their headings.
const GROUPS: [(&str, &str); 6] = [
    ("identity", "Who they are"),
    ("preference", "Preferences"),
    ("environment", "Their setup"),
    ("project", "Projects"),
    ("skill", "Skills"),
    ("goal", "Goals"),
];

/// Ways a fact states an attribute a person has only one of at a time
/// ("The user lives in Valencia" and, later, "The user lives in Lisbon").
const SINGLE: [(&str, &str); 12] = [
    ("the user's name is ", "name"),
    ("the users name is ", "name"),
    ("the user is named ", "name"),
    ("the user is called ", "name"),
    ("the user lives in ", "home"),
    ("the user is based in ", "home"),
    ("the user is from ", "origin"),
    ("the user works as ", "job"),
    ("the user's job is ", "job"),
    ("the user works at ", "employer"),
    ("the user works for ", "employer"),
    ("the user's timezone is ", "timezone"),
];

/// The attribute `fact` gives a value to, when it is one a person has only
/// one of.
fn slot(fact: &str) -> Option<&'static str> {
    let f = fact.trim().to_lowercase();
    if let Some((_, slot)) = SINGLE.iter().find(|(p, _)| f.starts_with(p)) {
        return Some(slot);
    }
    // "The user is 34 years old".
    let words: Vec<&str> = f.split_whitespace().collect();
    (words.len() >= 5
        && words[..3] == ["the", "user", "is"]
        && words[3].chars().all(|c| c.is_ascii_digit())
        && words[4].starts_with("year"))
    .then_some("age")
}

/// The facts a summary keeps, in the order of `memories`' recency (newest
/// first): duplicates and contradicted facts left out, within the cap.
pub(crate) fn kept(memories: &[Memory]) -> Vec<&Memory> {
    let mut newest: Vec<&Memory> = memories.iter().filter(|m| m.deleted_at.is_none()).collect();
    newest.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id)));
    let mut out: Vec<&Memory> = Vec::new();
    let mut chars = 0;
    for m in newest {
        if out.iter().any(|k| same_fact(&k.content, &m.content)) {
            continue;
        }
        if let Some(s) = slot(&m.content)
            && out.iter().any(|k| slot(&k.content) == Some(s))
        {
            continue;
        }
        let len = m.content.chars().count();
        if chars + len > SUMMARY_CHARS {
            break;
        }
        chars += len;
        out.push(m);
    }
    out
}

/// The summary text: the kept facts grouped by category under a heading
/// each (facts without one last, under "Other"), or a plain list when no
/// fact has a category.
pub(crate) fn summary(kept: &[&Memory]) -> String {
    // Read in the order they were learned: a summary that reshuffles as
    // facts are added reads as a different memory each time.
    let mut kept = kept.to_vec();
    kept.sort_by_key(|m| m.id);
    let line = |m: &Memory| format!("- {}", m.content);
    if kept.iter().all(|m| m.category.is_none()) {
        return kept.iter().map(|m| line(m)).collect::<Vec<_>>().join("\n");
    }
    let mut parts = Vec::new();
    let known = |m: &&&Memory| {
        m.category
            .as_deref()
            .is_some_and(|c| GROUPS.iter().any(|(g, _)| *g == c))
    };
    for (category, heading) in GROUPS {
        let group: Vec<String> = kept
            .iter()
            .filter(|m| m.category.as_deref() == Some(category))
            .map(|m| line(m))
            .collect();
        if !group.is_empty() {
            parts.push(format!("{heading}:\n{}", group.join("\n")));
        }
    }
    let other: Vec<String> = kept.iter().filter(|m| !known(m)).map(|m| line(m)).collect();
    if !other.is_empty() {
        parts.push(format!("Other:\n{}", other.join("\n")));
    }
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(id: i64, content: &str, category: Option<&str>, at: i64) -> Memory {
        Memory {
            id,
            content: content.into(),
            source: "worker".into(),
            session_id: None,
            run_id: None,
            created_at: at,
            updated_at: at,
            version: 1,
            deleted_at: None,
            category: category.map(str::to_owned),
            quote: None,
            uses: 0,
        }
    }

    fn texts(kept: &[&Memory]) -> Vec<String> {
        kept.iter().map(|m| m.content.clone()).collect()
    }

    #[test]
    fn the_newer_fact_wins_a_contradiction_and_a_restatement_is_left_out() {
        let facts = [
            m(1, "The user lives in Valencia", Some("identity"), 1),
            m(2, "The user's name is Tomás", Some("identity"), 2),
            m(3, "The user prefers short answers", Some("preference"), 3),
            m(4, "The user lives in Lisbon", Some("identity"), 4),
            m(5, "The user prefers short answers.", Some("preference"), 5),
            m(6, "The user is 34 years old", Some("identity"), 6),
            m(7, "The user is 35 years old", Some("identity"), 7),
        ];
        assert_eq!(
            texts(&kept(&facts)),
            [
                "The user is 35 years old",
                "The user prefers short answers.",
                "The user lives in Lisbon",
                "The user's name is Tomás",
            ]
        );
    }

    #[test]
    fn facts_that_are_not_one_attribute_all_stay() {
        let facts = [
            m(1, "The user uses Neovim", Some("environment"), 1),
            m(2, "The user uses Go at work", Some("environment"), 2),
            m(3, "The user has a daughter named Mia", Some("identity"), 3),
        ];
        assert_eq!(kept(&facts).len(), 3);
    }

    #[test]
    fn the_summary_is_capped_and_the_oldest_go_first() {
        let long = "x".repeat(500);
        let facts: Vec<Memory> = (0..6)
            .map(|i| m(i, &format!("The user fact {i} {long}"), None, i))
            .collect();
        let kept = kept(&facts);
        assert_eq!(kept.len(), 3, "3 × ~515 characters fit in {SUMMARY_CHARS}");
        assert_eq!(kept.iter().map(|m| m.id).collect::<Vec<_>>(), [5, 4, 3]);
    }

    #[test]
    fn a_summary_is_grouped_by_category_and_plain_without_any() {
        let facts = [
            m(1, "The user prefers Rust", Some("preference"), 1),
            m(2, "The user's name is Ana", Some("identity"), 2),
            m(3, "Has a cat", None, 3),
        ];
        assert_eq!(
            summary(&kept(&facts)),
            "Who they are:\n- The user's name is Ana\nPreferences:\n- The user prefers Rust\nOther:\n- Has a cat"
        );
        let plain = [m(1, "Likes tea", None, 1), m(2, "Has a cat", None, 2)];
        assert_eq!(summary(&kept(&plain)), "- Likes tea\n- Has a cat");
    }
}
