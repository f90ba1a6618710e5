//! Search by meaning: every passage's vector in one matrix in memory,
//! scanned whole for each query (docs/adr/0015 says why a scan and not an
//! approximate index or sqlite-vec). The matrix holds each vector as 8-bit
//! integers with a scale of its own: a quarter of the memory of the
//! stored `f32`s (37 MB at 100,000 passages of 384 numbers, against 150),
//! and a scan bound by memory bandwidth is four times faster. The scan
//! only picks candidates; [`crate::Index`] ranks them again on their exact
//! stored vectors, so the order returned is exact among them. Vectors are
//! kept normalised, so the dot product is the cosine.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rusqlite::Connection;

use crate::error::KnowledgeError;

/// The matrix, loaded at one generation of the index.
#[derive(Debug, Default)]
pub(crate) struct Vectors {
    ids: Vec<i64>,
    dims: usize,
    /// Row after row, each `dims` long.
    codes: Vec<i8>,
    /// Each row's scale: its largest magnitude over 127.
    scales: Vec<f32>,
    /// The index's write generation it was read at.
    pub generation: u64,
}

impl Vectors {
    /// Reads every embedded passage's vector of length `dims` (others,
    /// from a model the index is leaving, are not there to be found).
    pub(crate) fn load(
        conn: &Connection,
        dims: usize,
        generation: u64,
    ) -> Result<Self, KnowledgeError> {
        let mut out = Self {
            dims,
            generation,
            ..Self::default()
        };
        let mut stmt = conn.prepare_cached(
            "SELECT id, embedding FROM chunks WHERE embedding IS NOT NULL ORDER BY id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let blob = row.get_ref(1)?.as_blob().map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    1,
                    rusqlite::types::Type::Blob,
                    Box::new(e),
                )
            })?;
            if blob.len() != dims * 4 {
                continue;
            }
            let row: Vec<f32> = decode(blob).collect();
            let (codes, scale) = quantise(&row);
            out.ids.push(id);
            out.codes.extend(codes);
            out.scales.push(scale);
        }
        Ok(out)
    }

    /// The length of its vectors.
    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// The `k` passages nearest `query` (normalised, of the same length),
    /// nearest first, with their cosine as the 8-bit codes give it (within
    /// about 0.01 of the exact one). A large matrix is scanned in parts on
    /// as many threads as the machine has cores (at most four).
    pub(crate) fn nearest(&self, query: &[f32], k: usize) -> Vec<(i64, f32)> {
        if query.len() != self.dims || self.dims == 0 || k == 0 {
            return Vec::new();
        }
        let (q, q_scale) = quantise(query);
        let rows = self.scales.len();
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, MAX_SCAN_THREADS)
            .min(rows.div_ceil(ROWS_PER_THREAD).max(1));
        let per = rows.div_ceil(threads).max(1);
        let best: Vec<Scored> = if threads == 1 {
            self.scan(0..rows, &q, q_scale, k)
        } else {
            std::thread::scope(|scope| {
                let parts: Vec<_> = (0..threads)
                    .map(|t| {
                        let range = (t * per).min(rows)..((t + 1) * per).min(rows);
                        let q = &q;
                        scope.spawn(move || self.scan(range, q, q_scale, k))
                    })
                    .collect();
                parts
                    .into_iter()
                    .flat_map(|p| p.join().unwrap_or_default())
                    .collect()
            })
        };
        let mut best: Vec<(i64, f32)> = best
            .into_iter()
            .map(|Scored(s, i)| (self.ids[i], s))
            .collect();
        best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        best.truncate(k);
        best
    }

    /// The best `k` of the rows in `range`.
    fn scan(&self, range: std::ops::Range<usize>, q: &[i8], q_scale: f32, k: usize) -> Vec<Scored> {
        let mut heap: BinaryHeap<Scored> = BinaryHeap::with_capacity(k + 1);
        let start = range.start;
        let codes = &self.codes[range.start * self.dims..range.end * self.dims];
        for (j, row) in codes.chunks_exact(self.dims).enumerate() {
            let i = start + j;
            let score = dot_i8(row, q) as f32 * self.scales[i] * q_scale;
            if heap.len() < k {
                heap.push(Scored(score, i));
            } else if heap.peek().is_some_and(|worst| score > worst.0) {
                heap.pop();
                heap.push(Scored(score, i));
            }
        }
        heap.into_vec()
    }
}

/// Threads a scan uses at most.
const MAX_SCAN_THREADS: usize = 4;
/// Rows below which a thread of its own costs more than it saves.
const ROWS_PER_THREAD: usize = 16_384;

/// A score in a min-heap: the worst of the best `k` on top.
#[derive(Debug, PartialEq)]
struct Scored(f32, usize);

impl Eq for Scored {}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

/// `v` as 8-bit integers and the scale that turns them back.
fn quantise(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return (vec![0; v.len()], 0.0);
    }
    let scale = max / 127.0;
    let codes = v
        .iter()
        .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (codes, scale)
}

/// The products summed in 32 bits, 32 lanes at a time, each lane its own
/// element, indexed over arrays of a length the compiler knows: a loop it
/// turns into vector multiply-adds on every x86-64 (SSE2). The neighbouring-pairs
/// form this replaced was not vectorised: the scan of 124,000 passages
/// took 21 ms a thread with it, 10 ms with this (bound by memory now).
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let mut lanes = [0i32; 32];
    let (xs, x_tail) = a.as_chunks::<32>();
    let (ys, y_tail) = b.as_chunks::<32>();
    for (x, y) in xs.iter().zip(ys) {
        // Indexed, not zipped: the zipped form of this loop is not
        // vectorised (measured: as slow as the old one).
        #[allow(clippy::needless_range_loop)]
        for l in 0..32 {
            lanes[l] += i32::from(x[l]) * i32::from(y[l]);
        }
    }
    let tail: i32 = x_tail
        .iter()
        .zip(y_tail)
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    lanes.iter().sum::<i32>() + tail
}

/// The exact cosine of two normalised vectors: eight lanes at a time,
/// which the compiler turns into vector instructions.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (a8, a_rest) = a.split_at(a.len() / 8 * 8);
    let (b8, b_rest) = b.split_at(a8.len());
    for (x, y) in a8.chunks_exact(8).zip(b8.chunks_exact(8)) {
        for ((lane, xi), yi) in lanes.iter_mut().zip(x).zip(y) {
            *lane += xi * yi;
        }
    }
    let tail: f32 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f32>() + tail
}

/// `v` scaled to length 1 (`None` for a zero or non-finite vector, which
/// no search can use).
pub(crate) fn normalised(mut v: Vec<f32>) -> Option<Vec<f32>> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return None;
    }
    v.iter_mut().for_each(|x| *x /= norm);
    Some(v)
}

/// Little-endian bytes, as stored.
pub(crate) fn encode(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(crate) fn decode(blob: &[u8]) -> impl Iterator<Item = f32> + '_ {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_come_first_and_ties_by_id() {
        let rows = [[1.0, 0.0], [0.0, 1.0], [0.6, 0.8], [1.0, 0.0]];
        let mut v = Vectors {
            ids: vec![10, 11, 12, 13],
            dims: 2,
            ..Vectors::default()
        };
        for r in rows {
            let (c, s) = quantise(&r);
            v.codes.extend(c);
            v.scales.push(s);
        }
        let got = v.nearest(&[1.0, 0.0], 3);
        assert_eq!(
            got.iter().map(|g| g.0).collect::<Vec<_>>(),
            vec![10, 13, 12]
        );
        assert!((got[2].1 - 0.6).abs() < 0.01, "{got:?}");
        assert!(v.nearest(&[1.0, 0.0, 0.0], 3).is_empty(), "wrong length");
    }

    #[test]
    fn vectors_round_trip_and_normalise() {
        let n = normalised(vec![3.0, 4.0]).unwrap_or_default();
        assert_eq!(n, vec![0.6, 0.8]);
        assert!(normalised(vec![0.0, 0.0]).is_none());
        assert!(normalised(vec![f32::NAN, 1.0]).is_none());
        let bytes = encode(&n);
        assert_eq!(decode(&bytes).collect::<Vec<_>>(), n);
        let long: Vec<f32> = (0..19).map(|i| i as f32).collect();
        assert_eq!(dot(&long, &long), long.iter().map(|x| x * x).sum::<f32>());
        let a: Vec<i8> = (0..37).map(|i| (i * 7 % 255 - 127) as i8).collect();
        let b: Vec<i8> = (0..37).map(|i| (i * 13 % 255 - 127) as i8).collect();
        let exact: i32 = a
            .iter()
            .zip(&b)
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum();
        assert_eq!(dot_i8(&a, &b), exact);
    }
}
