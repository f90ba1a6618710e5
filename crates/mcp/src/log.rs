//! What a server wrote to stderr (and what Hearth noted about it), kept
//! so the user can read why it failed: the last lines, bounded in count
//! and length whatever the server writes.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::io::AsyncReadExt;

/// Lines kept per server.
pub const MAX_LINES: usize = 400;
/// Characters kept per line.
pub const MAX_LINE_CHARS: usize = 2_000;

/// The last lines of a server's output.
#[derive(Debug, Default)]
pub struct ServerLog {
    lines: Mutex<VecDeque<String>>,
}

impl ServerLog {
    /// Add one line (cut to [`MAX_LINE_CHARS`]; the oldest line goes when
    /// full).
    pub fn push(&self, line: &str) {
        let line = line.trim_end_matches(['\r', '\n']);
        let mut kept: String = line.chars().take(MAX_LINE_CHARS).collect();
        if kept.len() < line.len() {
            kept.push_str(" […]");
        }
        let Ok(mut lines) = self.lines.lock() else {
            return;
        };
        if lines.len() == MAX_LINES {
            lines.pop_front();
        }
        lines.push_back(kept);
    }

    /// Every line kept, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The last `n` lines as one indented block for an error text (empty
    /// when there are none).
    pub fn tail(&self, n: usize) -> String {
        let lines = self.lines();
        let start = lines.len().saturating_sub(n);
        if start == lines.len() {
            return String::new();
        }
        let mut out = String::from("\nIts last output:");
        for l in &lines[start..] {
            out.push_str("\n  ");
            out.push_str(l);
        }
        out
    }

    /// Reads `from` to its end into the log, in bounded chunks (a server
    /// that writes one endless line costs [`MAX_LINE_CHARS`], not memory).
    pub async fn follow(&self, mut from: impl tokio::io::AsyncRead + Unpin) {
        let mut buf = vec![0u8; 8192];
        let mut line: Vec<u8> = Vec::new();
        loop {
            let n = match from.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            for &b in &buf[..n] {
                if b == b'\n' {
                    self.push(&String::from_utf8_lossy(&line));
                    line.clear();
                } else if line.len() < MAX_LINE_CHARS * 4 {
                    line.push(b);
                }
            }
        }
        if !line.is_empty() {
            self.push(&String::from_utf8_lossy(&line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn endless_output_is_bounded() {
        let log = ServerLog::default();
        let mut input = "x".repeat(50_000).into_bytes();
        input.push(b'\n');
        for i in 0..(MAX_LINES + 10) {
            input.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        log.follow(&input[..]).await;
        let lines = log.lines();
        assert_eq!(lines.len(), MAX_LINES);
        assert_eq!(lines.last().unwrap(), &format!("line {}", MAX_LINES + 9));
        assert!(log.tail(2).ends_with(&format!("line {}", MAX_LINES + 9)));
        let one = ServerLog::default();
        one.push(&"y".repeat(5_000));
        assert!(one.lines()[0].chars().count() <= MAX_LINE_CHARS + 4);
    }
}
