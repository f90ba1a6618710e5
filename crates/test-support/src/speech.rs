//! What the speech tests share: where `scripts/setup.sh --test` put the
//! voice servers' Python, and the word error rate that judges what a
//! speech-to-text server heard.

use std::path::PathBuf;

/// The test tools' folder: `$HEARTH_TEST_TOOLS`, else
/// `~/.cache/hearth-test-tools` (`scripts/setup.sh --test` fills it).
pub fn tools() -> PathBuf {
    std::env::var_os("HEARTH_TEST_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/hearth-test-tools")
        })
}

/// The voice servers' Python (voice/setup.sh's virtual environment).
pub fn voice_python() -> PathBuf {
    let python = tools().join("voice/venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/setup.sh --test",
        python.display()
    );
    python
}

/// Small numbers as a listener may write them either way ("nine", "9").
const NUMBERS: [&str; 13] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];

/// Lower-case words without punctuation, small numbers as digits.
pub fn words(s: &str) -> Vec<String> {
    s.split_whitespace()
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric() || *c == '\'')
                .collect::<String>()
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .map(|w| match NUMBERS.iter().position(|n| *n == w) {
            Some(n) => n.to_string(),
            None => w,
        })
        .collect()
}

/// Word error rate: the word-level edit distance over the reference's
/// length.
pub fn wer(reference: &str, heard: &str) -> f64 {
    let (r, h) = (words(reference), words(heard));
    let mut prev: Vec<usize> = (0..=h.len()).collect();
    for (i, rw) in r.iter().enumerate() {
        let mut row = vec![i + 1];
        for (j, hw) in h.iter().enumerate() {
            let sub = prev[j] + usize::from(rw != hw);
            row.push(sub.min(prev[j + 1] + 1).min(row[j] + 1));
        }
        prev = row;
    }
    prev[h.len()] as f64 / r.len() as f64
}

#[cfg(test)]
mod tests {
    use super::wer;

    #[test]
    fn word_error_rate_counts_edits_per_reference_word() {
        assert_eq!(wer("What is the capital?", "what is the capital"), 0.0);
        assert_eq!(wer("a b c d", "a x c"), 0.5);
        assert_eq!(wer("a b", "a b c d"), 1.0);
        assert_eq!(wer("at nine, one line", "At 9 - 1 line"), 0.0);
    }
}
