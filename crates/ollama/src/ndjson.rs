//! Splitting an NDJSON byte stream into lines (pure, no I/O).
//!
//! Network chunks split lines anywhere, including inside a multi-byte UTF-8
//! character, so lines are cut on the `\n` byte and decoded only once whole
//! (docs/design.md §6), on the buffer the OpenAI client's event stream
//! uses too (`hearth_http::LineBuf`). A line longer than [`MAX_LINE_BYTES`]
//! is an error rather than unbounded memory.

use hearth_http::{LineBuf, TooLong};

/// Longest line accepted (a whole answer can arrive on the final line of a
/// non-streaming reply; 64 MiB is far above any real one).
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Accumulates bytes and yields complete lines.
#[derive(Debug)]
pub struct LineSplitter {
    buf: LineBuf,
}

impl Default for LineSplitter {
    fn default() -> Self {
        Self {
            buf: LineBuf::new(MAX_LINE_BYTES),
        }
    }
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
        self.buf.push(bytes);
    }

    /// The next complete, non-blank line (without its `\n` or `\r\n`).
    pub fn next_line(&mut self) -> Option<Result<&str, LineError>> {
        let range = loop {
            let (range, _) = match self.buf.next_line(|b| b == b'\n')? {
                Ok(line) => line,
                Err(TooLong) => return Some(Err(LineError::TooLong)),
            };
            let line = self.buf.bytes(range.clone());
            if !line.iter().all(u8::is_ascii_whitespace) {
                break range;
            }
        };
        let mut line = self.buf.bytes(range);
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        Some(std::str::from_utf8(line).map_err(|_| LineError::NotUtf8))
    }

    /// Bytes left after the last `\n` when the stream ends (a final line
    /// without its newline), if any are not blank.
    pub fn remainder(&self) -> Option<Result<&str, LineError>> {
        let rest = self.buf.pending();
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
