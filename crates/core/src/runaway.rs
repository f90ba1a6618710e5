//! Ending a runaway answer. A small model can loop forever ("I will now
//! call the tool. I will now call the tool. …"); without a bound it fills
//! memory, the database and the screen. The answer is ended with a notice
//! the user and the model both read when it repeats itself, when the
//! server ends it at the profile's token limit (`num_predict` /
//! `max_tokens`), or when it passes a size no answer needs (a server that
//! ignores the limit).

/// Answer plus reasoning beyond this is a runaway whatever the server says.
pub(crate) const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// A repeat counts when one unit of at most this many bytes …
const MAX_PERIOD: usize = 512;
/// … repeats back to back this many times …
const REPEATS: usize = 10;
/// … over at least this many bytes (a rule of `=` or a run of zeros in a
/// real answer is shorter).
const MIN_SPAN: usize = 1024;
/// The tail is checked each time this many new bytes arrived.
const CHECK_EVERY: usize = 256;

/// Why an answer was ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runaway {
    /// The server stopped at the profile's token limit.
    Limit(u32),
    /// The same text over and over.
    Repeating,
    /// Past [`MAX_ANSWER_BYTES`].
    TooLong,
}

impl Runaway {
    /// The notice appended to the answer.
    pub(crate) fn notice(self) -> String {
        let why = match self {
            Runaway::Limit(n) => format!(
                "it reached this profile's limit of {n} tokens per answer (\"Most tokens per answer\" in the profile)"
            ),
            Runaway::Repeating => "the model was repeating the same text over and over".to_owned(),
            Runaway::TooLong => format!(
                "it passed {} MiB, more than any answer needs",
                MAX_ANSWER_BYTES / (1024 * 1024)
            ),
        };
        format!("\n\n[Hearth ended this answer: {why}.]")
    }
}

/// Watches one stream (answer or reasoning) for a loop.
#[derive(Default)]
pub(crate) struct RepeatWatch {
    checked_at: usize,
}

impl RepeatWatch {
    /// Whether `text` (everything so far) now ends in a loop.
    pub(crate) fn repeating(&mut self, text: &str) -> bool {
        let bytes = text.as_bytes();
        if bytes.len() < self.checked_at + CHECK_EVERY || bytes.len() < MIN_SPAN {
            return false;
        }
        self.checked_at = bytes.len();
        (1..=MAX_PERIOD).any(|p| {
            let span = (p * REPEATS).max(MIN_SPAN.div_ceil(p) * p);
            span <= bytes.len() && {
                let tail = &bytes[bytes.len() - span..];
                // Periodic with period p: the tail equals itself shifted.
                tail[p..] == tail[..span - p]
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(text: &str) -> bool {
        let mut w = RepeatWatch::default();
        let mut so_far = String::new();
        text.chars().any(|c| {
            so_far.push(c);
            w.repeating(&so_far)
        })
    }

    #[test]
    fn a_loop_is_caught_and_ordinary_text_is_not() {
        assert!(fed(&"I will now call the tool. ".repeat(60)));
        assert!(fed(&format!("Sure.\n{}", "0".repeat(2000))));
        let prose: String = (0..400)
            .map(|i| format!("Line {i} says something about item {}. ", i * 7 % 13))
            .collect();
        assert!(!fed(&prose));
        let table = format!(
            "| a | b |\n|---|---|\n{}",
            (0..200)
                .map(|i| format!("| {i} | {} |\n", i * i))
                .collect::<String>()
        );
        assert!(!fed(&table));
        assert!(!fed(&"=".repeat(200)));
    }
}
