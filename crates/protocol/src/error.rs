//! The one error shape that crosses to front ends (docs/style.md §6): a code
//! the UI can branch on, a message for people, optional details.

use serde::{Deserialize, Serialize};
use specta::Type;

/// What went wrong, coarsely, for a front end to choose what to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The model server could not be reached (not running, wrong URL).
    BackendUnreachable,
    /// The model is not installed on the server.
    ModelNotFound,
    /// The server rejected the request (bad option, unsupported capability).
    BadRequest,
    /// The server failed while answering (HTTP 5xx or an in-band error).
    BackendFailed,
    /// The answer broke off: the stream ended without its final line.
    StreamTruncated,
    /// The server sent something that is not valid for its protocol.
    MalformedReply,
    /// The server stopped answering within the time allowed.
    Timeout,
    /// The tool loop reached the profile's iteration cap.
    MaxIterations,
    /// The model kept repeating one tool call (the repeat guard ended it).
    RepeatedToolCalls,
    /// The conversation does not fit the model's context window, even
    /// after compaction.
    ContextLimitExceeded,
    /// The input guard (in `block` mode) refused the message.
    InputBlocked,
    /// Reading or writing the session failed.
    Storage,
    /// The session already has a run going (one run per session).
    SessionBusy,
    /// The request itself is invalid (unknown session, empty message, …).
    InvalidInput,
    /// A bug: something that should not happen.
    Internal,
}

/// What the user (or a retrying front end) can do about an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Trying again may work (transient failure).
    Retry,
    /// A setting must change (URL, model options, profile).
    FixConfig,
    /// The model must be pulled first.
    PullModel,
    /// Start the model server.
    StartServer,
    /// Nothing to do but report it.
    None,
}

/// An error as front ends receive it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ErrorInfo {
    /// Machine-readable kind.
    pub code: ErrorCode,
    /// What to do about it.
    pub recovery: Recovery,
    /// One or two sentences for people, saying what to do.
    pub message: String,
    /// Extra technical detail (server text, source error), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
}

impl std::fmt::Display for ErrorInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        if let Some(d) = &self.details {
            write!(f, " ({d})")?;
        }
        Ok(())
    }
}
