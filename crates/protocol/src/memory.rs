//! What the memory worker reports after a turn, and how a profile lets it
//! write (docs/design.md §8).

use serde::{Deserialize, Serialize};
use specta::Type;

/// Whether facts learned from a conversation are kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum MemoryMode {
    /// Kept at once; the answer says so, with an Undo.
    #[default]
    Auto,
    /// Proposed under the answer; kept only when the user says so.
    Ask,
    /// Nothing is learned from the conversation (the `remember` tool and
    /// the memory panel still work).
    Off,
}

/// A fact memory kept from this turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct LearnedFact {
    /// The memory's id (what Undo deletes).
    pub id: i64,
    /// The fact.
    pub fact: String,
}
