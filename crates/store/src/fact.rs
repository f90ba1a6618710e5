//! One remembered fact and its earlier versions, and when two facts say
//! the same thing (pure): what the memory table keeps (`memories.rs`) and
//! the summary built from it (`consolidate.rs`) share.

use std::collections::HashSet;

/// One remembered fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory {
    /// Id (stable across edits).
    pub id: i64,
    /// The fact.
    pub content: String,
    /// Who wrote this version: `worker`, `tool` or `user`.
    pub source: String,
    /// Where it was learned.
    pub session_id: Option<String>,
    /// The run that learned it.
    pub run_id: Option<String>,
    /// First written, ms since the epoch.
    pub created_at: i64,
    /// Last changed.
    pub updated_at: i64,
    /// 1 + number of edits.
    pub version: i64,
    /// Set when the user deleted it (a tombstone).
    pub deleted_at: Option<i64>,
    /// identity, preference, project, environment, skill or goal, when the
    /// memory worker learned it.
    pub category: Option<String>,
    /// The user's own words it rests on, when the memory worker learned it.
    pub quote: Option<String>,
    /// How many sessions were given it in their memory summary.
    pub uses: i64,
}

/// An earlier version of a memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryVersion {
    /// Version number.
    pub version: i64,
    /// Its text.
    pub content: String,
    /// Who wrote it.
    pub source: String,
    /// When it was replaced.
    pub replaced_at: i64,
}

/// Lowercase words, for comparing facts: "Likes tea." ≈ "likes  TEA".
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Words that carry no fact ("the user's favourite colour is blue" and
/// "favourite colour blue" say the same).
const FILLER: &[&str] = &[
    "the", "a", "an", "user", "user's", "users", "s", "is", "are", "was", "has", "have", "their",
    "his", "her", "my", "i", "of", "to", "and",
];

fn content_words(s: &str) -> HashSet<String> {
    words(s)
        .into_iter()
        .filter(|w| !FILLER.contains(&w.as_str()))
        .collect()
}

/// True when `candidate` restates the forgotten fact `gone`: most of the
/// shorter one's content words are in the other ("Lives in Berlin" is
/// restated by "The user lives in Berlin, Germany"). Stricter than
/// [`same_fact`] on purpose: a deleted fact must never come back.
pub fn restates(gone: &str, candidate: &str) -> bool {
    let (a, b) = (content_words(gone), content_words(candidate));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let shorter = a.len().min(b.len()) as f64;
    a.intersection(&b).count() as f64 / shorter >= 0.8
}

/// True when two facts say the same thing in (nearly) the same words:
/// identical word lists, or word sets overlapping ≥ 80 %.
pub fn same_fact(a: &str, b: &str) -> bool {
    let (wa, wb) = (words(a), words(b));
    if wa.is_empty() || wb.is_empty() {
        return false;
    }
    if wa == wb {
        return true;
    }
    let (sa, sb): (HashSet<&String>, HashSet<&String>) = (wa.iter().collect(), wb.iter().collect());
    let inter = sa.intersection(&sb).count() as f64;
    let union = sa.union(&sb).count() as f64;
    inter / union >= 0.8
}
