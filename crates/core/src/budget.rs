//! The context budget (docs/background.md §2.2): how full the next prompt
//! will be, and what to do about it — warn at 80 % of the window, compact
//! before a request above 95 % down to 82 %, fail clearly when that cannot
//! get under 95 %.
//!
//! Tokens are estimated as in docs/background.md §2.3 (~4 characters per
//! token plus 16 per message) and calibrated by the server's own count: after
//! each call the ratio of Ollama's `prompt_eval_count` (the whole prompt,
//! cached prefix included) to the estimate of that same prompt is kept per
//! model, so the next estimate speaks in the model's tokenizer.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::message::ChatMessage;
use crate::tokens::estimate_tokens;
use crate::tool::ToolSpec;

/// Warn from this share of the window on.
pub const WARN: f64 = 0.80;
/// Compact before a request above this share; fail when still above.
pub const HARD: f64 = 0.95;
/// Compaction before a request aims at this share.
pub const TARGET: f64 = 0.82;

/// Calibration ratios are kept within this range: one odd count (a server
/// that reports only the uncached part) must not make the estimate absurd.
const RATIO_RANGE: (f64, f64) = (0.5, 3.0);

/// How full a prompt of `tokens` is in `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pressure {
    /// Under 80 %.
    Fine,
    /// 80–95 %: tell the user.
    Warn,
    /// Above 95 %: compact first, or refuse.
    Over,
}

/// The pressure of `tokens` in `window`.
pub fn pressure(tokens: usize, window: u32) -> Pressure {
    let share = tokens as f64 / f64::from(window.max(1));
    if share > HARD {
        Pressure::Over
    } else if share >= WARN {
        Pressure::Warn
    } else {
        Pressure::Fine
    }
}

/// Tokens a compaction must get the prompt down to.
pub fn target_tokens(window: u32) -> usize {
    (f64::from(window) * TARGET) as usize
}

/// The raw estimate of a request: its messages and its tool schemas.
pub fn estimate_request(messages: &[ChatMessage], tools: &[ToolSpec]) -> usize {
    let tools_chars = serde_json::to_string(tools).map_or(0, |t| t.len());
    estimate_tokens(messages) + tools_chars.div_ceil(4)
}

/// Per-model calibration of the estimate by the server's counts.
#[derive(Debug, Default)]
pub struct TokenCounter {
    ratios: Mutex<HashMap<String, f64>>,
}

impl TokenCounter {
    /// The calibration ratio for `model` (1.0 until the server counted).
    pub fn ratio(&self, model: &str) -> f64 {
        self.calibration(model).unwrap_or(1.0)
    }

    /// The ratio, once the server has counted a prompt of `model`.
    pub fn calibration(&self, model: &str) -> Option<f64> {
        self.ratios.lock().ok().and_then(|r| r.get(model).copied())
    }

    /// Whether estimates for `model` rest on a count of the server's.
    pub fn is_calibrated(&self, model: &str) -> bool {
        self.calibration(model).is_some()
    }

    /// Tokens of a prompt whose raw estimate is `raw`, for `model`.
    pub fn tokens(&self, model: &str, raw: usize) -> usize {
        (raw as f64 * self.ratio(model)).ceil() as usize
    }

    /// The server counted `counted` tokens for a prompt estimated at `raw`.
    pub fn observe(&self, model: &str, raw: usize, counted: u32) {
        if raw == 0 || counted == 0 {
            return;
        }
        let ratio = (f64::from(counted) / raw as f64).clamp(RATIO_RANGE.0, RATIO_RANGE.1);
        if let Ok(mut r) = self.ratios.lock() {
            r.insert(model.to_owned(), ratio);
        }
    }
}

/// The window a model really has: the `num_ctx` Hearth sends, capped by
/// what the server reports for the loaded model (or its trained length).
pub fn effective_window(num_ctx: u32, reported: Option<u32>) -> u32 {
    reported
        .filter(|&r| r > 0)
        .map_or(num_ctx, |r| r.min(num_ctx))
}

/// A user message may take at most this share of the window.
pub const LONG_MESSAGE_SHARE: f64 = 0.5;
/// Characters per token assumed when turning the window into a length.
const CHARS_PER_TOKEN: f64 = 4.0;

/// The longest user message sent whole, in characters, for `window`.
pub fn long_message_limit(window: u32) -> usize {
    (f64::from(window) * CHARS_PER_TOKEN * LONG_MESSAGE_SHARE) as usize
}

/// Raw token estimate of what every request carries besides the history:
/// the system prompt, the memory and the tool schemas.
pub(crate) fn fixed_tokens(
    persona: &str,
    profile: &crate::profile::Profile,
    memory: Option<&str>,
    tools: &[crate::tool::ToolSpec],
) -> usize {
    let tools_len = serde_json::to_string(tools).map_or(0, |t| t.len());
    (persona.len() + profile.system_prompt.len() + memory.map_or(0, str::len) + tools_len) / 4 + 32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_follow_seed_001() {
        assert_eq!(pressure(7_999, 10_000), Pressure::Fine);
        assert_eq!(pressure(8_000, 10_000), Pressure::Warn);
        assert_eq!(pressure(9_500, 10_000), Pressure::Warn);
        assert_eq!(pressure(9_501, 10_000), Pressure::Over);
        assert_eq!(target_tokens(10_000), 8_200);
    }

    #[test]
    fn the_servers_count_calibrates_the_estimate() {
        let c = TokenCounter::default();
        assert_eq!(c.tokens("m", 1000), 1000, "uncalibrated: the estimate");
        c.observe("m", 1000, 1500);
        assert_eq!(c.tokens("m", 1000), 1500);
        assert_eq!(c.tokens("other", 1000), 1000, "per model");
        c.observe("m", 1000, 10);
        assert_eq!(
            c.tokens("m", 1000),
            500,
            "clamped: one odd count is not trusted fully"
        );
        c.observe("m", 0, 10);
        assert_eq!(c.tokens("m", 1000), 500, "nothing learned from nothing");
    }

    #[test]
    fn the_window_is_num_ctx_capped_by_the_server() {
        assert_eq!(effective_window(8192, None), 8192);
        assert_eq!(effective_window(8192, Some(4096)), 4096);
        assert_eq!(effective_window(4096, Some(131_072)), 4096);
        assert_eq!(effective_window(4096, Some(0)), 4096);
    }
}
