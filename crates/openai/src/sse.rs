//! Server-sent events over bytes (pure, no I/O), as the HTML standard's
//! event-stream parser defines them.
//!
//! Lines end with LF, CRLF or a lone CR; a blank line dispatches the event;
//! `data:` lines are joined with `\n`; lines starting with `:` are comments
//! (servers send them as keep-alives); one space after the colon is dropped;
//! `id` and `retry` are ignored. Network chunks split lines anywhere, even
//! inside a multi-byte UTF-8 character, so bytes are cut into lines first and
//! each whole line is decoded once.
//!
//! Two departures from the standard, both for real servers:
//! - an `error:` field (older llama.cpp writes its in-band errors that way)
//!   becomes an event of type `error` carrying the value as data;
//! - at the end of the body, an event whose lines all arrived but whose blank
//!   line did not is still dispatched ([`SseSplitter::finish`]); a last line
//!   without its line end is dropped, as the standard says.

use hearth_http::{LineBuf, TooLong};

/// Largest event accepted (lines and joined data alike); far above any real
/// chunk, and it keeps a broken server from growing memory without bound.
pub const MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `None` for the default type (`message`).
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// An event that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    /// A line or an event longer than [`MAX_EVENT_BYTES`].
    TooLong,
    /// A line that is not UTF-8.
    NotUtf8,
}

/// Accumulates bytes and yields complete events.
#[derive(Debug)]
pub struct SseSplitter {
    lines: LineBuf,
    /// The last line ended with CR: a LF right after it belongs to it.
    after_cr: bool,
    /// A leading byte-order mark has been looked for.
    bom_checked: bool,
    /// The event being assembled.
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl Default for SseSplitter {
    fn default() -> Self {
        Self {
            lines: LineBuf::new(MAX_EVENT_BYTES),
            after_cr: false,
            bom_checked: false,
            event: None,
            data: String::new(),
            has_data: false,
        }
    }
}

impl SseSplitter {
    /// An empty splitter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add bytes from the network.
    pub fn push(&mut self, bytes: &[u8]) {
        self.lines.push(bytes);
    }

    /// The next complete event, if the bytes so far hold one.
    pub fn next_event(&mut self) -> Option<Result<SseEvent, SseError>> {
        loop {
            let line = match self.next_line()? {
                Ok(range) => range,
                Err(e) => return Some(Err(e)),
            };
            let line = match std::str::from_utf8(self.lines.bytes(line)) {
                Ok(l) => l.to_owned(),
                Err(_) => return Some(Err(SseError::NotUtf8)),
            };
            if let Some(out) = self.line(&line) {
                return Some(out);
            }
        }
    }

    /// The end of the body: the event whose lines all arrived but whose
    /// blank line did not, if it has data. Bytes after the last line end
    /// are dropped.
    pub fn finish(&mut self) -> Option<SseEvent> {
        self.lines.clear();
        self.take_event()
    }

    /// The byte range of the next whole line, without its line end.
    fn next_line(&mut self) -> Option<Result<std::ops::Range<usize>, SseError>> {
        if self.after_cr {
            let next = *self.lines.pending().first()?;
            self.after_cr = false;
            if next == b'\n' {
                self.lines.advance(1);
            }
        }
        if !self.bom_checked {
            const BOM: &[u8] = b"\xEF\xBB\xBF";
            let pending = self.lines.pending();
            if pending.len() < 3 && BOM.starts_with(pending) {
                return None;
            }
            self.bom_checked = true;
            if pending.starts_with(BOM) {
                self.lines.advance(3);
            }
        }
        match self.lines.next_line(|b| b == b'\n' || b == b'\r')? {
            Ok((line, end)) => {
                self.after_cr = end == b'\r';
                Some(Ok(line))
            }
            Err(TooLong) => Some(Err(SseError::TooLong)),
        }
    }

    /// Interpret one line; an event when it dispatches one.
    fn line(&mut self, line: &str) -> Option<Result<SseEvent, SseError>> {
        if line.is_empty() {
            return self.take_event().map(Ok);
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => self.append(value),
            "event" => {
                self.event = Some(value.to_owned());
                None
            }
            // Older llama.cpp: `error: {json}` instead of `data:`.
            "error" => {
                self.event = Some("error".to_owned());
                self.append(value)
            }
            _ => None,
        }
    }

    fn append(&mut self, value: &str) -> Option<Result<SseEvent, SseError>> {
        if self.has_data {
            self.data.push('\n');
        }
        self.data.push_str(value);
        self.has_data = true;
        if self.data.len() > MAX_EVENT_BYTES {
            self.data = String::new();
            self.has_data = false;
            self.event = None;
            return Some(Err(SseError::TooLong));
        }
        None
    }

    fn take_event(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        Some(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut s = SseSplitter::new();
        let mut out = Vec::new();
        for c in chunks {
            s.push(c);
            while let Some(e) = s.next_event() {
                out.push(e.unwrap());
            }
        }
        out.extend(s.finish());
        out
    }

    fn data(d: &str) -> SseEvent {
        SseEvent {
            event: None,
            data: d.to_owned(),
        }
    }

    #[test]
    fn multibyte_characters_and_line_ends_split_across_chunks_survive() {
        let text = "data: {\"c\":\"héllo 🌍\"}\r\n\r\ndata: [DONE]\r\n\r\n".as_bytes();
        // Cut at every position, CR and LF of one line end included.
        for cut in 1..text.len() {
            let got = events(&[&text[..cut], &text[cut..]]);
            assert_eq!(
                got,
                vec![data("{\"c\":\"héllo 🌍\"}"), data("[DONE]")],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn data_lines_join_comments_and_unknown_fields_are_ignored() {
        let got = events(&[
            b": keep-alive\n\ndata: a\ndata:b\nid: 7\nretry: 10\nfoo\n\nevent: ping\ndata\n\n",
        ]);
        assert_eq!(
            got,
            vec![
                data("a\nb"),
                SseEvent {
                    event: Some("ping".into()),
                    data: String::new()
                }
            ]
        );
        // Lone CRs end lines too; a leading BOM is dropped.
        assert_eq!(
            events(&[b"\xEF\xBB", b"\xBFdata: x\r\rdata: y\r\r"]),
            vec![data("x"), data("y")]
        );
    }

    #[test]
    fn llama_cpp_error_lines_become_error_events() {
        assert_eq!(
            events(&[b"error: {\"message\":\"boom\"}\n\n"]),
            vec![SseEvent {
                event: Some("error".into()),
                data: "{\"message\":\"boom\"}".into()
            }]
        );
    }

    #[test]
    fn the_end_dispatches_whole_lines_and_drops_a_cut_one() {
        assert_eq!(events(&[b"data: whole\n"]), vec![data("whole")]);
        assert_eq!(
            events(&[b"data: whole\n\ndata: cut off"]),
            vec![data("whole")]
        );
        assert_eq!(events(&[b""]), vec![]);
    }

    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        let mut s = SseSplitter::new();
        s.push(b"data: \xff\xfe\n\n");
        assert_eq!(s.next_event(), Some(Err(SseError::NotUtf8)));
    }

    #[test]
    fn memory_is_reclaimed_on_long_streams() {
        let mut s = SseSplitter::new();
        for _ in 0..100_000 {
            s.push(b"data: {\"x\":1}\n\n");
            while s.next_event().is_some() {}
        }
        assert!(s.lines.capacity() < 1024 * 1024, "{}", s.lines.capacity());
    }
}
