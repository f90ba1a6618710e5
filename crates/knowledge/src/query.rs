//! Free text as an FTS5 query: each word quoted (operators and punctuation
//! in what a person or a model typed are text, never syntax), joined by OR
//! so that BM25 ranks passages by how many of the rarer words they hold.
//! The commonest English words are left out: BM25 gives them almost no
//! weight, but an OR over "the" matches nearly every passage, and ranking
//! them all made a search of 120,000 passages take 130 ms.

/// The most words a query keeps.
const MAX_TERMS: usize = 32;

/// Words that match nearly every English passage.
const COMMON: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i", "in",
    "is", "it", "its", "me", "my", "of", "on", "or", "that", "the", "this", "to", "was", "what",
    "when", "where", "which", "who", "why", "with", "you", "your",
];

/// The FTS5 query for `text`; `None` when it has no word. The common
/// words stay when the query has nothing else ("to be or").
pub(crate) fn fts_query(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let rare: Vec<&String> = words
        .iter()
        .filter(|w| !COMMON.contains(&w.as_str()))
        .collect();
    let kept: Vec<&String> = if rare.is_empty() {
        words.iter().collect()
    } else {
        rare
    };
    let terms: Vec<String> = kept
        .into_iter()
        .take(MAX_TERMS)
        .map(|w| format!("\"{w}\""))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_are_words_and_empty_is_none() {
        assert_eq!(
            fts_query("NEAR(install) \"deb\" -x*").as_deref(),
            Some("\"near\" OR \"install\" OR \"deb\" OR \"x\"")
        );
        assert_eq!(
            fts_query("How do I renew the passport?").as_deref(),
            Some("\"renew\" OR \"passport\"")
        );
        assert_eq!(
            fts_query("To be, or?").as_deref(),
            Some("\"to\" OR \"be\" OR \"or\"")
        );
        assert_eq!(fts_query(" ?! "), None);
    }
}
