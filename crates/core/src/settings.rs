//! Load-time options, which belong to the model and not to a profile.
//!
//! Ollama reloads a model when a request carries different load-time options
//! than its runner was started with, and unloads it on `keep_alive: 0`
//! (docs/design.md §4). So every request to one model — any profile, the
//! planner, background workers, sub-agents, the preload — must send the same
//! values, and the only way to get them is [`ModelSettings::load_options`].

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How long the server keeps a model resident after a request.
///
/// Zero is not representable: `keep_alive: 0` unloads the model, and only
/// the explicit unload action may send it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "i64", try_from = "i64")]
pub struct KeepAlive(i64);

impl KeepAlive {
    /// Keep the model loaded until it is unloaded explicitly.
    pub const FOREVER: Self = Self(-1);

    /// Keep it for `d` after each request (whole seconds, at least one).
    pub fn for_duration(d: Duration) -> Self {
        let secs = i64::try_from(d.as_secs()).unwrap_or(i64::MAX).max(1);
        Self(secs)
    }

    /// Seconds as sent on the wire (negative = forever).
    pub fn as_secs(self) -> i64 {
        self.0
    }
}

impl From<KeepAlive> for i64 {
    fn from(k: KeepAlive) -> i64 {
        k.0
    }
}

impl TryFrom<i64> for KeepAlive {
    type Error = String;
    fn try_from(v: i64) -> Result<Self, Self::Error> {
        if v == 0 {
            Err("keep_alive 0 would unload the model after every answer; use the unload action instead".into())
        } else if v < 0 {
            Ok(Self::FOREVER)
        } else {
            Ok(Self(v))
        }
    }
}

/// The options that decide how a model is loaded. Identical on every request
/// to one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadOptions {
    /// Context window in tokens. Always sent: an omitted `num_ctx` means the
    /// server default, which differs from ours and would force a reload.
    pub num_ctx: u32,
    /// How long the model stays resident after each request.
    pub keep_alive: KeepAlive,
    /// Whether the server may shift the context when generation reaches the
    /// window instead of failing.
    pub shift: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            // 8k fits the common 7–8B models on 8 GB cards with room for
            // tools; users with more VRAM raise it per model.
            num_ctx: 8192,
            // Half an hour: long enough that a person reading an answer
            // does not pay a reload, short enough to give VRAM back to games.
            keep_alive: KeepAlive::for_duration(Duration::from_secs(30 * 60)),
            shift: true,
        }
    }
}

/// Per-model load options, shared by everything that talks to the backend.
/// In memory here; the store crate persists them.
#[derive(Debug, Default)]
pub struct ModelSettings {
    defaults: LoadOptions,
    per_model: RwLock<HashMap<String, LoadOptions>>,
}

impl ModelSettings {
    /// Settings where every model starts from `defaults`.
    pub fn with_defaults(defaults: LoadOptions) -> Self {
        Self {
            defaults,
            per_model: RwLock::default(),
        }
    }

    /// The options every request to `model` must carry.
    pub fn load_options(&self, model: &str) -> LoadOptions {
        self.per_model
            .read()
            .ok()
            .and_then(|m| m.get(model).copied())
            .unwrap_or(self.defaults)
    }

    /// Change the options of one model (its next request reloads it).
    pub fn set(&self, model: &str, options: LoadOptions) {
        if let Ok(mut m) = self.per_model.write() {
            m.insert(model.to_owned(), options);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_alive_zero_is_refused() {
        assert!(KeepAlive::try_from(0).is_err());
        assert!(serde_json::from_str::<KeepAlive>("0").is_err());
        assert_eq!(KeepAlive::try_from(-5).unwrap(), KeepAlive::FOREVER);
        assert_eq!(KeepAlive::for_duration(Duration::ZERO).as_secs(), 1);
    }

    #[test]
    fn options_are_per_model() {
        let s = ModelSettings::default();
        let custom = LoadOptions {
            num_ctx: 32768,
            ..LoadOptions::default()
        };
        s.set("big", custom);
        assert_eq!(s.load_options("big"), custom);
        assert_eq!(s.load_options("other"), LoadOptions::default());
    }
}
