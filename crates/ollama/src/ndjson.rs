//! Splitting an NDJSON byte stream into lines (pure, no I/O).
//!
//! Network chunks split lines anywhere, including inside a multi-byte UTF-8
//! character, so lines are cut on the `\n` byte and decoded only once whole
//! (docs/design.md §6). A line longer than [`MAX_LINE_BYTES`] is an error
//! rather than unbounded memory.

/// Longest line accepted (a whole answer can arrive on the final line of a
/// non-streaming reply; 64 MiB is far above any real one).
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Accumulates bytes and yields complete lines.
#[derive(Debug, Default)]
pub struct LineSplitter {
    buf: Vec<u8>,
    /// Where the next line starts in `buf`.
    start: usize,
    /// Where to resume looking for `\n` (everything before has none).
    scanned: usize,
}

/// A line that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// Longer than [`MAX_LINE_BYTES`].
    TooLong,
    /// Not UTF-8.
    NotUtf8,
}

impl LineSplitter {
    /// An empty splitter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add bytes from the network.
    pub fn push(&mut self, bytes: &[u8]) {
        // Reclaim consumed space before growing, so memory stays bounded by
        // the longest line rather than the whole stream.
        if self.start > 0 && (self.start == self.buf.len() || self.start > 64 * 1024) {
            self.buf.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete, non-blank line (without its `\n` or `\r\n`).
    pub fn next_line(&mut self) -> Option<Result<&str, LineError>> {
        loop {
            let rel = self.buf[self.scanned..].iter().position(|b| *b == b'\n');
            let Some(rel) = rel else {
                self.scanned = self.buf.len();
                if self.buf.len() - self.start > MAX_LINE_BYTES {
                    // Drop what we have so memory is bounded; the caller
                    // ends the stream on this error.
                    self.start = self.buf.len();
                    return Some(Err(LineError::TooLong));
                }
                return None;
            };
            let end = self.scanned + rel;
            let line_start = self.start;
            self.start = end + 1;
            self.scanned = self.start;
            let mut line = &self.buf[line_start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            if line.len() > MAX_LINE_BYTES {
                return Some(Err(LineError::TooLong));
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(std::str::from_utf8(line).map_err(|_| LineError::NotUtf8));
        }
    }

    /// Bytes left after the last `\n` when the stream ends (a final line
    /// without its newline), if any are not blank.
    pub fn remainder(&self) -> Option<Result<&str, LineError>> {
        let rest = &self.buf[self.start..];
        if rest.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(std::str::from_utf8(rest).map_err(|_| LineError::NotUtf8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(chunks: &[&[u8]]) -> Vec<String> {
        let mut s = LineSplitter::new();
        let mut out = Vec::new();
        for c in chunks {
            s.push(c);
            while let Some(l) = s.next_line() {
                out.push(l.unwrap().to_owned());
            }
        }
        if let Some(r) = s.remainder() {
            out.push(r.unwrap().to_owned());
        }
        out
    }

    #[test]
    fn multibyte_characters_split_across_chunks_survive() {
        let text = "{\"c\":\"héllo 🌍\"}\n{\"c\":\"ok\"}\n".as_bytes();
        // Cut at every position: each must give the same two lines.
        for cut in 1..text.len() {
            let got = lines(&[&text[..cut], &text[cut..]]);
            assert_eq!(
                got,
                vec!["{\"c\":\"héllo 🌍\"}", "{\"c\":\"ok\"}"],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn blank_lines_crlf_and_a_last_line_without_newline() {
        assert_eq!(lines(&[b"a\r\n\n  \nb"]), vec!["a", "b"]);
    }

    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        let mut s = LineSplitter::new();
        s.push(b"\xff\xfe\n");
        assert_eq!(s.next_line(), Some(Err(LineError::NotUtf8)));
    }

    #[test]
    fn memory_is_reclaimed_on_long_streams() {
        let mut s = LineSplitter::new();
        for _ in 0..100_000 {
            s.push(b"{\"x\":1}\n");
            while s.next_line().is_some() {}
        }
        assert!(s.buf.capacity() < 1024 * 1024, "{}", s.buf.capacity());
    }
}
