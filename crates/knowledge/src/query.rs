//! Free text as an FTS5 query: each word quoted (operators and punctuation
//! in what a person or a model typed are text, never syntax), joined by OR
//! so that BM25 ranks passages by how many of the rarer words they hold.
//!
//! Ranking costs FTS5 about a microsecond and a half for every passage
//! that holds any query word, and nearly all of that is BM25 on passages
//! that hold only the commonest ones: over 124,000 passages "1" alone is in
//! 75,000 and took 126 ms to rank (2 ms to count). So the query is cut to a
//! budget of matches: the index's own counts of each word's passages (its
//! FTS5 vocabulary, the same stemmed terms the search looks up) are read,
//! the rarest words kept while their passages together stay within
//! [`WORD_BUDGET`], the rarest always. A word in that many passages adds
//! the least to BM25 (its inverse document frequency is the smallest);
//! the search by meaning, fused with this one, is what finds a passage by
//! such words. Below the budget — every index of a few thousand files —
//! nothing is cut and the ranking is exact. The commonest English words
//! are left out before any count.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::KnowledgeError;

/// The most words a query keeps.
const MAX_TERMS: usize = 32;

/// How many matches (a passage per word that it holds) one word search
/// may rank. Over 124,000 passages of manual pages it brought the word
/// search's p95 from 85 ms to 38 ms and the hybrid search's from 86 ms to
/// 47 ms, and cost the hybrid search 0.008 of recall@5 on the development
/// half, 0.005 on the held-out half (BENCHMARKS.md, "Knowledge").
pub const WORD_BUDGET: u64 = 32_768;

/// Words that match nearly every English passage.
const COMMON: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i", "in",
    "is", "it", "its", "me", "my", "of", "on", "or", "that", "the", "this", "to", "was", "what",
    "when", "where", "which", "who", "why", "with", "you", "your",
];

/// The words of `text` a search looks for, lowercased, in order, at most
/// [`MAX_TERMS`]. The common words only when there is nothing else ("to be
/// or").
pub(crate) fn query_words(text: &str) -> Vec<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let rare: Vec<String> = words
        .iter()
        .filter(|w| !COMMON.contains(&w.as_str()))
        .cloned()
        .collect();
    let mut kept = if rare.is_empty() { words } else { rare };
    kept.truncate(MAX_TERMS);
    kept
}

/// A query word, the index's terms for it and how many passages hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Counted {
    pub word: String,
    /// The tokenizer's terms for the word (stemmed: "modules" → "modul").
    pub terms: Vec<String>,
    /// Passages holding it: the fewest of its terms' (a phrase is in no
    /// more passages than its rarest term).
    pub passages: u64,
}

/// `words` with their terms and passage counts, read from the index's own
/// vocabulary through the connection's temporary tables
/// ([`crate::schema::query_tables`]): each word is tokenized by the very
/// tokenizer of the passages, so that the counts are of the terms the
/// search will look up.
pub(crate) fn counted(conn: &Connection, words: &[String]) -> Result<Vec<Counted>, KnowledgeError> {
    conn.execute("DELETE FROM temp.query_words", [])?;
    {
        let mut insert =
            conn.prepare_cached("INSERT INTO temp.query_words(rowid, word) VALUES (?1, ?2)")?;
        for (i, word) in words.iter().enumerate() {
            insert.execute(params![i as i64, word])?;
        }
    }
    let mut out: Vec<Counted> = words
        .iter()
        .map(|w| Counted {
            word: w.clone(),
            terms: Vec::new(),
            passages: u64::MAX,
        })
        .collect();
    let mut stmt = conn.prepare_cached(
        "SELECT t.doc, t.term,
                coalesce((SELECT p.doc FROM temp.passage_terms p WHERE p.term = t.term), 0)
         FROM temp.query_tokens t ORDER BY t.doc, t.offset",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
        ))
    })?;
    for row in rows {
        let (i, term, passages) = row?;
        if let Some(c) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
            c.terms.push(term);
            c.passages = c.passages.min(passages.max(0) as u64);
        }
    }
    // A word the tokenizer makes nothing of matches nothing.
    out.retain(|c| !c.terms.is_empty());
    Ok(out)
}

/// The words the query keeps: a word whose terms an earlier word already
/// has once ("module", "modules"), then the rarest first while their
/// passages together stay within `budget` (the rarest always), in the
/// order they were typed.
pub(crate) fn within_budget(words: &[Counted], budget: u64) -> Vec<&str> {
    let mut seen = HashSet::new();
    let unique: Vec<(usize, &Counted)> = words
        .iter()
        .enumerate()
        .filter(|(_, c)| seen.insert(c.terms.clone()))
        .collect();
    let mut by_count = unique.clone();
    by_count.sort_by_key(|(i, c)| (c.passages, *i));
    let mut spent = 0u64;
    let mut kept = HashSet::new();
    for (i, c) in by_count {
        if !kept.is_empty() && spent.saturating_add(c.passages) > budget {
            break;
        }
        spent = spent.saturating_add(c.passages);
        kept.insert(i);
    }
    unique
        .into_iter()
        .filter(|(i, _)| kept.contains(i))
        .map(|(_, c)| c.word.as_str())
        .collect()
}

/// Passage ids by BM25 (FTS5's `rank`, weighted in the schema), best
/// first.
pub(crate) fn by_words(
    conn: &Connection,
    query: &str,
    depth: usize,
    folders: Option<&[i64]>,
    budget: u64,
) -> Result<Vec<i64>, KnowledgeError> {
    let words = query_words(query);
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let counted = counted(conn, &words)?;
    let Some(fts) = fts_query(&within_budget(&counted, budget)) else {
        return Ok(Vec::new());
    };
    let mut stmt = conn.prepare_cached(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY rank LIMIT ?2",
    )?;
    // Over-fetch when narrowed, as the narrowing is after the ranking.
    let fetch = if folders.is_some() { depth * 4 } else { depth };
    let ids = stmt
        .query_map(params![fts, fetch as i64], |r| r.get::<_, i64>(0))?
        .collect::<Result<Vec<i64>, _>>()?;
    let Some(folders) = folders else {
        return Ok(ids);
    };
    let mut folder_of = conn.prepare_cached(
        "SELECT x.folder_id FROM chunks k JOIN files x ON x.id = k.file_id WHERE k.id = ?1",
    )?;
    let mut out = Vec::new();
    for id in ids {
        let folder: Option<i64> = folder_of.query_row([id], |r| r.get(0)).optional()?;
        if folder.is_some_and(|f| folders.contains(&f)) {
            out.push(id);
            if out.len() == depth {
                break;
            }
        }
    }
    Ok(out)
}

/// The FTS5 query for `words`; `None` when there is none.
pub(crate) fn fts_query(words: &[&str]) -> Option<String> {
    let terms: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(word: &str, term: &str, passages: u64) -> Counted {
        Counted {
            word: word.into(),
            terms: vec![term.into()],
            passages,
        }
    }

    #[test]
    fn operators_are_words_and_common_words_only_alone() {
        assert_eq!(
            query_words("NEAR(install) \"deb\" -x*"),
            ["near", "install", "deb", "x"]
        );
        assert_eq!(
            query_words("How do I renew the passport?"),
            ["renew", "passport"]
        );
        assert_eq!(query_words("To be, or?"), ["to", "be", "or"]);
        assert!(query_words(" ?! ").is_empty());
        assert_eq!(
            fts_query(&["renew", "passport"]).as_deref(),
            Some("\"renew\" OR \"passport\"")
        );
        assert_eq!(fts_query(&[]), None);
    }

    #[test]
    fn the_rarest_words_are_kept_within_the_budget_in_their_order() {
        let words = [
            counted("bash", "bash", 4_000),
            counted("see", "see", 23_000),
            counted("built", "built", 1_500),
            counted("1", "1", 75_000),
            counted("commands", "command", 20_000),
        ];
        // 1,500 + 4,000 + 20,000 fit in 30,000; "see" would pass it.
        assert_eq!(within_budget(&words, 30_000), ["bash", "built", "commands"]);
        assert_eq!(
            within_budget(&words, u64::MAX),
            ["bash", "see", "built", "1", "commands"]
        );
        // The rarest is kept even when it alone is over the budget.
        assert_eq!(within_budget(&words, 10), ["built"]);
    }

    #[test]
    fn a_word_whose_term_came_before_is_counted_once() {
        let words = [
            counted("options", "option", 30_000),
            counted("pdb", "pdb", 50),
            counted("option", "option", 30_000),
        ];
        assert_eq!(within_budget(&words, 30_050), ["options", "pdb"]);
        assert_eq!(within_budget(&words, 100), ["pdb"]);
    }
}
