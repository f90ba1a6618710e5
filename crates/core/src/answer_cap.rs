//! The default cap on an answer's tokens, fitted to the model and the
//! machine (user pass 2026-12, major 2). A fixed 16,384 tokens is a few
//! minutes on a GPU but 13 on a 0.5B model on one CPU thread: a model that
//! does not stop keeps the user waiting that long. So while a profile
//! keeps the default cap, an answer gets as many tokens as this model
//! writes here in [`ANSWER_BUDGET_SECS`], at the speed its last answers
//! were measured at (the servers' own timings), never fewer than
//! [`MIN_FITTED`] nor more than the default. A cap the user set in the
//! profile is theirs and is sent as set; before a model's first measured
//! answer the default holds.

use std::collections::HashMap;
use std::sync::Mutex;

use hearth_protocol::Usage;

use crate::profile::Profile;

/// How long a default-capped answer may write for, at the model's speed.
pub(crate) const ANSWER_BUDGET_SECS: f64 = 300.0;

/// The fewest tokens a fitted cap allows: room for a real answer with its
/// reasoning on the slowest machine.
pub(crate) const MIN_FITTED: u32 = 2_048;

/// Fewest generated tokens a speed is measured on: a short tool call says
/// little about the model's pace.
const MIN_MEASURED_TOKENS: u32 = 32;

/// The measured writing speed of each model (tokens per second), the mean
/// of the last answers (each new one weighs half).
#[derive(Debug, Default)]
pub(crate) struct Speeds(Mutex<HashMap<String, f64>>);

/// The cap an answer is sent with, and whether it was fitted (the notice
/// at the cap then says why it is what it is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AnswerCap {
    pub tokens: u32,
    pub fitted: bool,
}

impl Speeds {
    /// Learn from a finished call of `model`.
    pub(crate) fn observe(&self, model: &str, usage: &Usage) {
        let Some(tps) = usage
            .tokens_per_second
            .filter(|t| t.is_finite() && *t > 0.0)
        else {
            return;
        };
        if usage.completion_tokens.unwrap_or(0) < MIN_MEASURED_TOKENS {
            return;
        }
        if let Ok(mut speeds) = self.0.lock() {
            speeds
                .entry(model.to_owned())
                .and_modify(|s| *s = (*s + tps) / 2.0)
                .or_insert(tps);
        }
    }

    /// The cap for an answer of `model` under `profile`'s setting.
    pub(crate) fn cap(&self, model: &str, profile_cap: u32) -> AnswerCap {
        let kept = AnswerCap {
            tokens: profile_cap,
            fitted: false,
        };
        if profile_cap != Profile::DEFAULT_MAX_OUTPUT_TOKENS {
            return kept;
        }
        let Some(tps) = self.0.lock().ok().and_then(|s| s.get(model).copied()) else {
            return kept;
        };
        // Saturating: a float past u32::MAX becomes u32::MAX.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let fits = (tps * ANSWER_BUDGET_SECS) as u32;
        let tokens = fits.clamp(MIN_FITTED, profile_cap);
        AnswerCap {
            tokens,
            fitted: tokens < profile_cap,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(tps: f64, tokens: u32) -> Usage {
        Usage {
            tokens_per_second: Some(tps),
            completion_tokens: Some(tokens),
            ..Usage::default()
        }
    }

    #[test]
    fn a_slow_model_gets_five_minutes_a_fast_one_the_default() {
        let speeds = Speeds::default();
        let default = Profile::DEFAULT_MAX_OUTPUT_TOKENS;
        assert_eq!(
            speeds.cap("small", default).tokens,
            default,
            "not measured yet"
        );
        // 0.5B on one CPU thread: ~20 tokens/s.
        speeds.observe("small", &usage(20.0, 400));
        assert_eq!(
            speeds.cap("small", default),
            AnswerCap {
                tokens: 6_000,
                fitted: true
            }
        );
        // The next answer weighs half.
        speeds.observe("small", &usage(10.0, 400));
        assert_eq!(speeds.cap("small", default).tokens, 4_500);
        // A short call is not a measure.
        speeds.observe("small", &usage(1.0, 5));
        assert_eq!(speeds.cap("small", default).tokens, 4_500);
        // Never below the floor.
        speeds.observe("crawl", &usage(0.5, 100));
        assert_eq!(speeds.cap("crawl", default).tokens, MIN_FITTED);
        // A GPU writes the default in well under five minutes.
        speeds.observe("big", &usage(120.0, 900));
        assert_eq!(
            speeds.cap("big", default),
            AnswerCap {
                tokens: default,
                fitted: false
            }
        );
        // The user's own cap is theirs.
        assert_eq!(
            speeds.cap("small", 30_000),
            AnswerCap {
                tokens: 30_000,
                fitted: false
            }
        );
    }
}
