//! Bytes from the network cut into lines (pure, no I/O). Network chunks
//! split lines anywhere, even inside a multi-byte UTF-8 character, so bytes
//! are cut first and each whole line decoded once by the caller. Memory
//! stays bounded by the longest line, not the whole stream, and a line
//! longer than the limit is an error rather than unbounded growth.

use std::ops::Range;

/// A line (or what has come of it) longer than the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLong;

/// Accumulates bytes and hands out whole lines, as byte ranges.
#[derive(Debug)]
pub struct LineBuf {
    buf: Vec<u8>,
    /// Where the next line starts in `buf`.
    start: usize,
    /// Where to resume looking for a line end (everything before has none).
    scanned: usize,
    /// Longest line accepted.
    max: usize,
}

impl LineBuf {
    /// An empty buffer accepting lines up to `max` bytes.
    pub fn new(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            max,
        }
    }

    /// Add bytes from the network.
    pub fn push(&mut self, bytes: &[u8]) {
        // Reclaim consumed space before growing.
        if self.start > 0 && (self.start == self.buf.len() || self.start > 64 * 1024) {
            self.buf.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next line ending at a byte `is_end` accepts: its range (line end
    /// excluded) and the end byte. `None` until one has come whole; after a
    /// [`TooLong`] what had come of it is dropped.
    pub fn next_line(
        &mut self,
        is_end: impl Fn(u8) -> bool,
    ) -> Option<Result<(Range<usize>, u8), TooLong>> {
        let Some(rel) = self.buf[self.scanned..].iter().position(|b| is_end(*b)) else {
            self.scanned = self.buf.len();
            if self.buf.len() - self.start > self.max {
                self.start = self.buf.len();
                self.scanned = self.start;
                return Some(Err(TooLong));
            }
            return None;
        };
        let end = self.scanned + rel;
        let line = self.start..end;
        self.start = end + 1;
        self.scanned = self.start;
        if line.len() > self.max {
            return Some(Err(TooLong));
        }
        Some(Ok((line, self.buf[end])))
    }

    /// The bytes of a range [`Self::next_line`] gave (valid until the next
    /// [`Self::push`]).
    pub fn bytes(&self, range: Range<usize>) -> &[u8] {
        &self.buf[range]
    }

    /// What has come after the last line end.
    pub fn pending(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    /// Pass over `n` bytes of what is pending (a byte-order mark, the LF of a
    /// CRLF).
    pub fn advance(&mut self, n: usize) {
        self.start = (self.start + n).min(self.buf.len());
        self.scanned = self.scanned.max(self.start);
    }

    /// Drop what is pending (the body ended).
    pub fn clear(&mut self) {
        self.start = self.buf.len();
        self.scanned = self.start;
    }

    /// Bytes held, consumed or not (for tests of the memory bound).
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lf(b: u8) -> bool {
        b == b'\n'
    }

    #[test]
    fn lines_come_whole_whatever_the_chunks() {
        let text = b"one\ntwo\nthr";
        for cut in 1..text.len() {
            let mut l = LineBuf::new(100);
            let mut got = Vec::new();
            for part in [&text[..cut], &text[cut..]] {
                l.push(part);
                while let Some(Ok((r, end))) = l.next_line(lf) {
                    assert_eq!(end, b'\n');
                    got.push(String::from_utf8(l.bytes(r).to_vec()).unwrap());
                }
            }
            assert_eq!(got, ["one", "two"], "cut at {cut}");
            assert_eq!(l.pending(), b"thr");
        }
    }

    #[test]
    fn a_line_over_the_limit_is_an_error_and_is_dropped() {
        let mut l = LineBuf::new(4);
        l.push(b"abcdef");
        assert_eq!(l.next_line(lf), Some(Err(TooLong)));
        l.push(b"\nok\n");
        // The rest of the long line ends at the next LF; then all is well.
        assert!(matches!(l.next_line(lf), Some(Ok((r, _))) if r.is_empty()));
        assert!(matches!(l.next_line(lf), Some(Ok((r, _))) if l.bytes(r.clone()) == b"ok"));
    }

    #[test]
    fn memory_is_reclaimed_on_long_streams() {
        let mut l = LineBuf::new(1024);
        for _ in 0..100_000 {
            l.push(b"{\"x\":1}\n");
            while l.next_line(lf).is_some() {}
        }
        assert!(l.capacity() < 1024 * 1024, "{}", l.capacity());
    }
}
