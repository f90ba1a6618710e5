//! What a step of a run's trace was.

use serde::{Deserialize, Serialize};
use specta::Type;

/// The kind of one step in a run's trace.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    /// A model call for the answer.
    #[default]
    Model,
    /// A model call besides the answer: the plan, a title, the facts to
    /// remember, a summary (its detail says which).
    Side,
    /// A tool call.
    Tool,
    /// Older messages summarized to make room.
    Compaction,
    /// The input guard flagged something.
    Guard,
    /// A phase of the `/plan` workflow (its name says which).
    Phase,
}

impl SpanKind {
    /// Every kind.
    pub const ALL: [Self; 6] = [
        Self::Model,
        Self::Side,
        Self::Tool,
        Self::Compaction,
        Self::Guard,
        Self::Phase,
    ];

    /// Its name, as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::Side => "side",
            Self::Tool => "tool",
            Self::Compaction => "compaction",
            Self::Guard => "guard",
            Self::Phase => "phase",
        }
    }

    /// The kind named `s`.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_the_wire() {
        for k in SpanKind::ALL {
            assert_eq!(SpanKind::parse(k.as_str()), Some(k));
            assert_eq!(
                serde_json::to_value(k).unwrap(),
                serde_json::json!(k.as_str())
            );
        }
        assert_eq!(SpanKind::parse("nap"), None);
    }
}
