//! Words and meaning, fused: reciprocal rank fusion (Cormack, Clarke and
//! Büttcher, 2009). Each list gives a passage `1 / (RRF_K + rank)`; the
//! sums order the fused list. Ranks, not scores, so BM25's unbounded
//! scores and cosines need no common scale. Measured against either list
//! alone on a corpus no one here wrote (BENCHMARKS.md, Knowledge).

use std::collections::HashMap;

/// The constant of the fusion: the paper's 60, which damps the weight of
/// the very first ranks.
pub const RRF_K: f32 = 60.0;

/// How a search finds passages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Both, fused (the default).
    #[default]
    Hybrid,
    /// BM25 over the words only.
    Words,
    /// The vectors only.
    Meaning,
}

/// How the two lists are weighed: the constant, and the weight of the
/// list by meaning against the words' 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// The fusion's constant.
    pub k: f32,
    /// What a rank by meaning counts against a rank by words.
    pub meaning_weight: f32,
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion {
            k: RRF_K,
            meaning_weight: 1.0,
        }
    }
}

/// The lists fused, best first: (passage, fused score). Each list comes
/// with its weight.
pub(crate) fn fuse(lists: &[(&[i64], f32)], k: f32) -> Vec<(i64, f32)> {
    let mut scores: HashMap<i64, f32> = HashMap::new();
    for (list, weight) in lists {
        for (rank, id) in list.iter().enumerate() {
            *scores.entry(*id).or_default() += weight / (k + rank as f32 + 1.0);
        }
    }
    let mut out: Vec<(i64, f32)> = scores.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passage_both_lists_find_beats_one_only_one_finds_first() {
        let words = [1, 2, 3];
        let meaning = [4, 2, 5];
        let fused = fuse(&[(&words, 1.0), (&meaning, 1.0)], RRF_K);
        assert_eq!(fused[0].0, 2);
        let ids: Vec<i64> = fused.iter().map(|f| f.0).collect();
        assert_eq!(ids, vec![2, 1, 4, 3, 5]);
        assert!(fuse(&[], RRF_K).is_empty());
    }
}
