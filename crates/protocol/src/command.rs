//! Commands into the core from a front end. Each is answered by events on the
//! run's channel, or by a direct reply for the non-run commands.

use serde::{Deserialize, Serialize};
use specta::Type;

/// A user's answer to an approval request (tools that write or run things).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run this one call.
    AllowOnce,
    /// Run this tool without asking again in this session.
    AllowForSession,
    /// Do not run it; the model is told the user declined.
    Deny,
}

/// A command from a front end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// Start a run: append the user's message and answer it.
    SendMessage {
        /// Session to add the message to.
        session_id: String,
        /// The user's text.
        text: String,
    },
    /// Stop a run at once. The model stays loaded.
    Stop {
        /// The run to stop.
        run_id: String,
    },
    /// Answer an approval request.
    Approve {
        /// The request's id, from the approval event.
        request_id: String,
        /// The user's decision.
        decision: ApprovalDecision,
    },
}
