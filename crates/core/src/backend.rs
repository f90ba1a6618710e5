//! The seam to a model server. crates/ollama implements it; tests use a
//! scripted fake. Dropping a [`ModelStream`] (or the future that opens it)
//! must close the connection: that is how Stop reaches the server.

use std::pin::Pin;

use async_trait::async_trait;
use futures::Stream;
use hearth_protocol::{ErrorCode, ErrorInfo, Recovery, Usage};

use crate::message::ChatMessage;
use crate::settings::LoadOptions;
use crate::tool::ToolSpec;

/// One model call.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// Model name as the server knows it.
    pub model: String,
    /// The full context: system, memory, history.
    pub messages: Vec<ChatMessage>,
    /// Tools offered (empty = none; then no `tools` field is sent).
    pub tools: Vec<ToolSpec>,
    /// Ask for (or switch off, or set the level of) reasoning; `None`
    /// leaves the model's default.
    pub think: Option<crate::Think>,
    /// Sampling temperature; `None` leaves the model's default.
    pub temperature: Option<f64>,
    /// Per-model load options (identical on every request to this model).
    pub load: LoadOptions,
    /// Most tokens to generate (`num_predict` / `max_tokens`); `None`
    /// leaves the server's default.
    pub max_tokens: Option<u32>,
    /// A JSON schema the answer must follow (a side request that reads
    /// the answer as data); `None` for free text. A server that cannot
    /// constrain its output without changing the prompt may leave it out.
    pub format: Option<serde_json::Value>,
}

/// A tool call as a backend delivers it (the id may be missing).
#[derive(Debug, Clone, PartialEq)]
pub struct RawToolCall {
    /// Id from the server, if it sent one.
    pub id: Option<String>,
    /// Tool name.
    pub name: String,
    /// Arguments object.
    pub arguments: serde_json::Value,
}

/// The end of a model call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DoneInfo {
    /// Figures reported by the server.
    pub usage: Usage,
}

/// A piece of a streaming answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelDelta {
    /// Reasoning text.
    Thinking(String),
    /// Answer text.
    Text(String),
    /// Tool calls (may arrive on any chunk, including the final one).
    ToolCalls(Vec<RawToolCall>),
    /// A tool call being written, on a server that streams its arguments:
    /// the tool's name and the arguments' length so far. Progress only:
    /// the call itself still comes whole in [`ModelDelta::ToolCalls`].
    ToolCallProgress {
        /// The tool's name.
        name: String,
        /// Characters of its arguments so far.
        chars: u32,
    },
    /// The final chunk: the answer is complete.
    Done(DoneInfo),
}

/// A streaming answer. Ends after [`ModelDelta::Done`]; a stream that ends
/// without it was truncated and yields [`BackendError::Truncated`] last.
pub type ModelStream = Pin<Box<dyn Stream<Item = Result<ModelDelta, BackendError>> + Send>>;

/// Failures of a backend, split by what the user can do about them.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BackendError {
    /// Nothing answers at the URL.
    #[error("cannot reach the model server at {url}: is it running? ({detail})")]
    Unreachable {
        /// The base URL tried.
        url: String,
        /// The connection error.
        detail: String,
    },
    /// The address (or its key) cannot be used at all: nothing was tried
    /// (user pass 2026-12, defect 28: "http://not a url" read as a server
    /// that is not running).
    #[error("cannot use `{url}` as the model server's address: {detail}")]
    InvalidUrl {
        /// The address as given.
        url: String,
        /// What is wrong with it.
        detail: String,
    },
    /// The model is not installed.
    #[error("model `{model}` is not installed: run `ollama pull {model}`")]
    ModelNotFound {
        /// The model name.
        model: String,
    },
    /// The server refused the request as invalid.
    #[error("the model server rejected the request: {message}")]
    BadRequest {
        /// The server's words.
        message: String,
    },
    /// The server failed (HTTP 5xx, or an error line inside a stream).
    #[error("the model server failed: {message}")]
    Server {
        /// HTTP status, when the error came as a status.
        status: Option<u16>,
        /// The server's words.
        message: String,
    },
    /// The prompt does not fit the context window (sent with
    /// `truncate: false`, so the server refused instead of silently
    /// dropping the oldest messages).
    #[error(
        "the conversation does not fit the model's context window even after summarizing it ({message}): raise the model's context window in the models panel, or start a new session"
    )]
    ContextOverflow {
        /// The server's words.
        message: String,
    },
    /// The stream ended without its final line.
    #[error("the answer broke off: the stream ended before the model finished")]
    Truncated,
    /// A line that is not valid for the protocol.
    #[error("the model server sent an invalid reply: {detail}")]
    Malformed {
        /// What was wrong.
        detail: String,
    },
    /// No data within the allowed time.
    #[error("the model server stopped answering ({detail})")]
    Timeout {
        /// Which wait timed out.
        detail: String,
    },
}

impl BackendError {
    /// The shape front ends receive.
    pub fn to_info(&self) -> ErrorInfo {
        let (code, recovery) = match self {
            Self::Unreachable { .. } => (ErrorCode::BackendUnreachable, Recovery::StartServer),
            Self::InvalidUrl { .. } => (ErrorCode::InvalidInput, Recovery::FixConfig),
            Self::ModelNotFound { .. } => (ErrorCode::ModelNotFound, Recovery::PullModel),
            Self::BadRequest { .. } => (ErrorCode::BadRequest, Recovery::FixConfig),
            Self::ContextOverflow { .. } => (ErrorCode::ContextLimitExceeded, Recovery::FixConfig),
            Self::Server { .. } => (ErrorCode::BackendFailed, Recovery::Retry),
            Self::Truncated => (ErrorCode::StreamTruncated, Recovery::Retry),
            Self::Malformed { .. } => (ErrorCode::MalformedReply, Recovery::Retry),
            Self::Timeout { .. } => (ErrorCode::Timeout, Recovery::Retry),
        };
        ErrorInfo {
            code,
            recovery,
            message: self.to_string(),
            details: None,
        }
    }
}

/// A model server.
#[async_trait]
pub trait ModelBackend: Send + Sync {
    /// Start a streaming chat. Resolves when the server has answered with
    /// its status line (for Ollama: after load and prompt evaluation, which
    /// can take seconds — callers race this against Stop).
    async fn chat(&self, request: ModelRequest) -> Result<ModelStream, BackendError>;

    /// Make sure `model` is resident with `load` options. A request of its
    /// own, so that stopping a chat never aborts a load in progress.
    async fn preload(&self, model: &str, load: &LoadOptions) -> Result<(), BackendError>;

    /// Unload `model` now (the only call that sends `keep_alive: 0`).
    async fn unload(&self, model: &str) -> Result<(), BackendError>;

    /// The context window the server has for `model` (tokens): for a
    /// loaded model what it was loaded with (`/api/ps`), else the model's
    /// trained length (`/api/show`). `None` when the server does not say;
    /// the loop then trusts `num_ctx`.
    async fn context_window(&self, _model: &str) -> Option<u32> {
        None
    }

    /// Whether `model` takes pictures: `Some(false)` when the server says
    /// it cannot (then a message with pictures is refused before it is
    /// kept), `None` when the server does not say.
    async fn sees_images(&self, _model: &str) -> Option<bool> {
        None
    }

    /// How many parameters `model` has, when the server says (Ollama's
    /// `general.parameter_count`, llama.cpp's `n_params`): what the run
    /// expects of the model (a small one is not asked for a plan).
    async fn parameter_count(&self, _model: &str) -> Option<u64> {
        None
    }

    /// One vector a text, in order, from the embedding model `model`
    /// (Ollama's `/api/embed`, an OpenAI-compatible `/v1/embeddings`): what
    /// knowledge folders are searched by meaning with. A server that has
    /// no such endpoint says so as a [`BackendError::BadRequest`].
    async fn embed(&self, _model: &str, _texts: &[String]) -> Result<Vec<Vec<f32>>, BackendError> {
        Err(BackendError::BadRequest {
            message: "this model server does not make embeddings".into(),
        })
    }
}
