//! How a run can fail, and how that reaches front ends.

use hearth_protocol::{ErrorCode, ErrorInfo, Recovery};

use crate::backend::BackendError;
use crate::store::{StoreError, StoreFailure};

/// Why a run ended without an answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    /// The model server failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The session could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The model kept calling tools until the profile's cap.
    #[error(
        "stopped after {0} model calls, the profile's limit, while the model was still calling tools; raise max_iterations in the profile or ask it to continue"
    )]
    MaxIterations(u32),
    /// The model kept repeating the same tool call after it was asked to
    /// change course (the repeat guard).
    #[error(
        "stopped: the model kept making the same tool call after it was asked to change course; rephrase the request, or use a larger model"
    )]
    Repetition,
    /// The prompt would not fit the model's window even after older
    /// messages were summarized (the budget's check before a request).
    #[error(
        "the conversation needs about {tokens} tokens but the model's context window is {window}, even after summarizing older messages: raise the model's context window (num_ctx) in the models panel, or start a new session"
    )]
    ContextLimit {
        /// Estimated prompt tokens.
        tokens: usize,
        /// The window in effect.
        window: u32,
    },
    /// The input guard, in `block` mode, refused the user's message.
    #[error(
        "the input guard blocked this message: it looks like a prompt injection ({}). Rephrase it, or set the profile's input guard to warn",
        .0.join(", ")
    )]
    InputBlocked(Vec<String>),
    /// The session already has a run going.
    #[error(
        "an answer is still being written in this session: stop it, or type your message to queue it"
    )]
    SessionBusy,
    /// The user stopped the run.
    #[error("stopped by the user")]
    Stopped,
    /// A message with no text and no files.
    #[error("the message is empty")]
    EmptyMessage,
    /// "Answer again" in a conversation whose last message is not the
    /// user's.
    #[error("nothing to answer again: the conversation does not end with your message")]
    NothingToAnswerAgain,
    /// A `/plan` with files attached to it.
    #[error("/plan takes no attached files: send them in a message first, then /plan")]
    PlanWithFiles,
    /// A `/plan` with nothing after it.
    #[error("say what to do after /plan, e.g. `/plan fix the failing test in tests/`")]
    EmptyPlan,
    /// A `/plan` typed while a run is going (it cannot be queued).
    #[error("/plan starts a run of its own: send it once this answer has ended")]
    PlanNotQueueable,
    /// Pictures for a model that says it cannot see.
    #[error("{}", crate::attachment::refusal(.model, *.images))]
    ImagesUnsupported {
        /// The model.
        model: String,
        /// How many pictures.
        images: usize,
    },
    /// A message sent while the session's run is still going: the words of
    /// [`RunError::SessionBusy`], without its Retry (which would answer
    /// the previous message again).
    #[error("{}", RunError::SessionBusy)]
    RunGoing,
    /// A sub-agent that would nest deeper than allowed.
    #[error(
        "sub-agents may nest {max} deep; this one would be {depth} deep — do the task yourself"
    )]
    SubagentTooDeep {
        /// The limit.
        max: u32,
        /// The depth this one would have.
        depth: u32,
    },
    /// A sub-agent asked for with a profile that does not exist.
    #[error("no profile named `{0}`")]
    NoSuchProfile(String),
    /// A setting the run needs is wrong (a profile names a backend that is
    /// not configured): the user changes it, then tries again.
    #[error("{0}")]
    Misconfigured(String),
    /// The run's task died (a bug).
    #[error("internal error: {0}")]
    Internal(String),
}

impl RunError {
    /// The shape front ends receive.
    pub fn to_info(&self) -> ErrorInfo {
        let (code, recovery) = match self {
            Self::Backend(b) => return b.to_info(),
            Self::Store(e) => match e.failure {
                StoreFailure::SessionBusy => (ErrorCode::SessionBusy, Recovery::Retry),
                StoreFailure::Transient => (ErrorCode::Storage, Recovery::Retry),
                StoreFailure::NotFound => (ErrorCode::InvalidInput, Recovery::None),
                StoreFailure::Unusable => (ErrorCode::Storage, Recovery::None),
            },
            Self::MaxIterations(_) => (ErrorCode::MaxIterations, Recovery::FixConfig),
            Self::Repetition => (ErrorCode::RepeatedToolCalls, Recovery::None),
            Self::ContextLimit { .. } => (ErrorCode::ContextLimitExceeded, Recovery::FixConfig),
            Self::InputBlocked(_) => (ErrorCode::InputBlocked, Recovery::None),
            Self::SessionBusy => (ErrorCode::SessionBusy, Recovery::Retry),
            Self::Stopped => (ErrorCode::Internal, Recovery::None),
            // The request itself is wrong: nothing to retry, nothing to
            // configure; the user changes what they sent.
            Self::EmptyMessage
            | Self::NothingToAnswerAgain
            | Self::PlanWithFiles
            | Self::EmptyPlan
            | Self::PlanNotQueueable
            | Self::ImagesUnsupported { .. }
            | Self::RunGoing
            | Self::SubagentTooDeep { .. }
            | Self::NoSuchProfile(_) => (ErrorCode::InvalidInput, Recovery::None),
            Self::Misconfigured(_) => (ErrorCode::InvalidInput, Recovery::FixConfig),
            // A bug in one run: the session was repaired (what was written
            // is kept), so sending again is what the user can do.
            Self::Internal(_) => (ErrorCode::Internal, Recovery::Retry),
        };
        ErrorInfo {
            code,
            recovery,
            message: self.to_string(),
            details: None,
        }
    }
}

/// Why background work (a post-turn worker, a summary) failed, by what
/// can be done about it: the server or the store say so themselves; an
/// answer that cannot be used is the model's.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkerError {
    /// The model server failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The session or the memory could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The model's answer cannot be used (it broke off, came back empty,
    /// took too long).
    #[error("{0}")]
    Answer(String),
}

impl WorkerError {
    /// Expected when the server is gone or the user's data is busy: the
    /// next turn tries again, nothing to warn about.
    pub fn is_passing(&self) -> bool {
        match self {
            Self::Backend(BackendError::Unreachable { .. }) => true,
            Self::Store(e) => e.failure == StoreFailure::SessionBusy,
            Self::Backend(_) | Self::Answer(_) => false,
        }
    }
}

/// A refusal or failure as a front end shows it (the desktop commands
/// return it to the page).
impl From<RunError> for ErrorInfo {
    fn from(e: RunError) -> Self {
        e.to_info()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A storage failure reaches the user by what can be done about it.
    #[test]
    fn storage_failures_say_what_can_be_done() {
        for (failure, code, recovery) in [
            (
                StoreFailure::SessionBusy,
                ErrorCode::SessionBusy,
                Recovery::Retry,
            ),
            (StoreFailure::Transient, ErrorCode::Storage, Recovery::Retry),
            (
                StoreFailure::NotFound,
                ErrorCode::InvalidInput,
                Recovery::None,
            ),
            (StoreFailure::Unusable, ErrorCode::Storage, Recovery::None),
        ] {
            let info = RunError::from(StoreError::new(failure, "what happened")).to_info();
            assert_eq!((info.code, info.recovery), (code, recovery), "{failure:?}");
            assert!(info.message.contains("what happened"), "{}", info.message);
        }
    }

    /// A wrong request offers nothing to retry; a wrong setting says so.
    #[test]
    fn a_bad_request_and_a_bad_setting_are_told_apart() {
        let empty = RunError::EmptyMessage.to_info();
        assert_eq!(
            (empty.code, empty.recovery),
            (ErrorCode::InvalidInput, Recovery::None)
        );
        assert_eq!(empty.message, "the message is empty");
        let unset = RunError::Misconfigured("backend `x` is not configured".into()).to_info();
        assert_eq!(
            (unset.code, unset.recovery),
            (ErrorCode::InvalidInput, Recovery::FixConfig)
        );
    }

    /// Each refused request is a variant of its own, and reaches the user
    /// as the one `InvalidInput(text)` it replaced did (gone now): the same
    /// code, no Retry, the same words.
    #[test]
    fn each_refused_request_keeps_its_code_and_words() {
        let sees_none = crate::attachment::refusal("tinyllama", 2);
        for (e, text) in [
            (RunError::EmptyMessage, "the message is empty"),
            (
                RunError::NothingToAnswerAgain,
                "nothing to answer again: the conversation does not end with your message",
            ),
            (
                RunError::PlanWithFiles,
                "/plan takes no attached files: send them in a message first, then /plan",
            ),
            (
                RunError::EmptyPlan,
                "say what to do after /plan, e.g. `/plan fix the failing test in tests/`",
            ),
            (
                RunError::PlanNotQueueable,
                "/plan starts a run of its own: send it once this answer has ended",
            ),
            (
                RunError::ImagesUnsupported {
                    model: "tinyllama".into(),
                    images: 2,
                },
                sees_none.as_str(),
            ),
            (
                RunError::RunGoing,
                "an answer is still being written in this session: stop it, or type your message to queue it",
            ),
            (
                RunError::SubagentTooDeep { max: 2, depth: 3 },
                "sub-agents may nest 2 deep; this one would be 3 deep — do the task yourself",
            ),
            (
                RunError::NoSuchProfile("Nope".into()),
                "no profile named `Nope`",
            ),
        ] {
            let info = e.to_info();
            assert_eq!(
                (info.code, info.recovery, info.message.as_str()),
                (ErrorCode::InvalidInput, Recovery::None, text)
            );
            assert_eq!(e.to_string(), text);
        }
        // Busy, and not offering Retry: Retry would answer the previous
        // message again.
        let busy = RunError::SessionBusy.to_info();
        let going = RunError::RunGoing.to_info();
        assert_eq!(busy.message, going.message);
        assert_eq!(
            (busy.recovery, going.recovery),
            (Recovery::Retry, Recovery::None)
        );
    }

    /// A server that is gone or a session busy elsewhere is passing (logged
    /// quietly, tried again after the next turn); anything else is a
    /// failure worth a warning.
    #[test]
    fn passing_failures_are_told_from_real_ones() {
        let gone = BackendError::Unreachable {
            url: "http://127.0.0.1:11434".into(),
            detail: "connection refused".into(),
        };
        let failed = BackendError::Server {
            status: Some(500),
            message: "boom".into(),
        };
        for (e, passing) in [
            (WorkerError::Backend(gone), true),
            (WorkerError::Backend(failed), false),
            (
                WorkerError::Store(StoreError::new(StoreFailure::SessionBusy, "busy")),
                true,
            ),
            (
                WorkerError::Store(StoreError::transient("disk full")),
                false,
            ),
            (WorkerError::Answer("the answer broke off".into()), false),
        ] {
            assert_eq!(e.is_passing(), passing, "{e}");
        }
    }
}
