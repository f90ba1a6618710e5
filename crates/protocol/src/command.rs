//! What a front end sends back into a run: the user's answer to an approval
//! request. (Starting, stopping and following runs are the front ends' own
//! calls into the core: `Agent`, `RunHandle`, `LiveRuns`.)

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
