//! The input guard's settings as front ends see them (docs/background.md §3.4).

use serde::{Deserialize, Serialize};
use specta::Type;

/// What the input guard does when a message or a tool result looks like a
/// prompt injection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum GuardMode {
    /// No scanning.
    Off,
    /// Record the finding (trace, log at info level) and go on.
    Log,
    /// Record it, log a warning, tell the user and flag the text to the
    /// model; go on.
    #[default]
    Warn,
    /// Refuse: the user's message is not sent to the model, a tool result
    /// is replaced by a notice.
    Block,
}

/// Where flagged text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum GuardSource {
    /// The user's own message.
    User,
    /// A tool's result (a file, a web page, a command's output): where
    /// injections really come from.
    Tool,
}
