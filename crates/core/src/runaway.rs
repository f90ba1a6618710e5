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

/// How every notice starts: front ends show it apart from the answer, and
/// it is taken off the answer before the answer goes back to the model
/// (it is Hearth's word to the user, not the model's; user pass 2026-12
/// defect 9).
pub const NOTICE_START: &str = "\n\n[Hearth ended this answer: ";

/// `text` without a notice at its end.
pub fn without_notice(text: &str) -> &str {
    match text.rfind(NOTICE_START) {
        Some(at) if text.ends_with(".]") && !text[at + NOTICE_START.len()..].contains("\n\n") => {
            &text[..at]
        }
        _ => text,
    }
}

/// Why an answer was ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runaway {
    /// The server said it stopped at a token limit: the profile's (`limit`,
    /// what was asked) when the answer used that many, else one of the
    /// server's own (its window, or a cap set on the server), after `used`.
    /// `fitted`: the limit was the default cap fitted to the model's
    /// speed (`answer_cap.rs`), not a number the user set.
    Limit {
        limit: u32,
        used: Option<u32>,
        fitted: bool,
    },
    /// The same text over and over.
    Repeating,
    /// Past [`MAX_ANSWER_BYTES`].
    TooLong,
}

impl Runaway {
    /// The notice appended to the answer.
    pub(crate) fn notice(self) -> String {
        let why = match self {
            Runaway::Limit {
                limit,
                used,
                fitted,
            } => match used {
                Some(used) if used < limit => format!(
                    "the server stopped it at a limit of its own after {used} tokens (its context window, or a cap set on the server), before this profile's {limit}"
                ),
                _ if fitted => format!(
                    "it reached {limit} tokens, about {:.0} minutes of writing at this model's measured speed here (the default cap follows the model's speed; set \"Most tokens per answer\" in the profile for longer answers)",
                    crate::answer_cap::ANSWER_BUDGET_SECS / 60.0
                ),
                _ => format!(
                    "it reached this profile's limit of {limit} tokens per answer (\"Most tokens per answer\" in the profile)"
                ),
            },
            Runaway::Repeating => "the model was repeating the same text over and over".to_owned(),
            Runaway::TooLong => format!(
                "it passed {} MiB, more than any answer needs",
                MAX_ANSWER_BYTES / (1024 * 1024)
            ),
        };
        format!("{NOTICE_START}{why}.]")
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

    /// The notice says what really ended the answer: a "length" from the
    /// server after 50 tokens is not the profile's 16,384 (a real Ollama
    /// reply that hit the server's own limit said so before).
    #[test]
    fn the_notice_names_the_limit_that_ended_it() {
        let server = Runaway::Limit {
            limit: 16_384,
            used: Some(50),
            fitted: false,
        }
        .notice();
        assert!(
            server.contains("a limit of its own after 50 tokens"),
            "{server}"
        );
        assert!(!server.contains("reached this profile's limit"), "{server}");
        let profile = Runaway::Limit {
            limit: 400,
            used: Some(400),
            fitted: false,
        }
        .notice();
        assert!(profile.contains("this profile's limit of 400"), "{profile}");
        let fitted = Runaway::Limit {
            limit: 6_000,
            used: Some(6_000),
            fitted: true,
        }
        .notice();
        assert!(
            fitted.contains(
                "it reached 6000 tokens, about 5 minutes of writing at this model's measured speed"
            ),
            "{fitted}"
        );
        let unknown = Runaway::Limit {
            limit: 400,
            used: None,
            fitted: false,
        }
        .notice();
        assert!(unknown.contains("this profile's limit of 400"), "{unknown}");
    }

    #[test]
    fn the_notice_comes_off_what_goes_back_to_the_model() {
        let answer = format!(
            "Here is the list:\n```\na\nb{}",
            Runaway::Repeating.notice()
        );
        assert_eq!(without_notice(&answer), "Here is the list:\n```\na\nb");
        assert_eq!(without_notice("plain answer"), "plain answer");
        // Quoted by the user or the model mid-text, it stays.
        let quoted = format!("{}\n\nand more.", Runaway::Repeating.notice());
        assert_eq!(without_notice(&quoted), quoted);
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
