//! One model call, streamed, raced against Stop (DESIGN §3).
//!
//! Stop is checked against everything that waits: the request itself (Ollama
//! sends no status line until the first token, so opening the stream can take
//! seconds), and every chunk. On stop the request or stream is dropped, which
//! closes the connection: Ollama cancels the generation and keeps the model.

use std::time::{Duration, Instant};

use futures::StreamExt;
use hearth_protocol::EventKind;
use tokio_util::sync::CancellationToken;

use crate::backend::{BackendError, DoneInfo, ModelBackend, ModelDelta, ModelRequest, RawToolCall};
use crate::events::EventSink;
use crate::message::{ChatMessage, MessageStatus};
use crate::store::SessionStore;

/// How often a growing answer is checkpointed to the store.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// How a model call ended.
#[derive(Debug)]
pub(crate) enum CallEnd {
    /// The final chunk arrived.
    Done(DoneInfo),
    /// The user stopped the run.
    Stopped,
    /// The backend failed.
    Failed(BackendError),
}

/// What a model call produced (partial when it did not end with `Done`).
#[derive(Debug)]
pub(crate) struct CallResult {
    pub text: String,
    pub thinking: String,
    pub tool_calls: Vec<RawToolCall>,
    pub end: CallEnd,
}

impl CallResult {
    /// The answer as an assistant message with `status` (tool calls are
    /// added by the caller once they have ids).
    pub fn message(&self, status: MessageStatus) -> ChatMessage {
        ChatMessage {
            thinking: (!self.thinking.is_empty()).then(|| self.thinking.clone()),
            status,
            ..ChatMessage::assistant(self.text.clone())
        }
    }
}

/// Where checkpoints go.
pub(crate) struct Checkpoint<'a> {
    pub store: &'a dyn SessionStore,
    pub session_id: &'a str,
    pub run_id: &'a str,
}

/// Stream one model call, emitting deltas, until it ends, fails or is stopped.
pub(crate) async fn stream_call(
    backend: &dyn ModelBackend,
    request: ModelRequest,
    cancel: &CancellationToken,
    sink: &EventSink,
    checkpoint: Checkpoint<'_>,
) -> CallResult {
    let mut out = CallResult {
        text: String::new(),
        thinking: String::new(),
        tool_calls: Vec::new(),
        end: CallEnd::Stopped,
    };
    let opened = tokio::select! {
        biased;
        () = cancel.cancelled() => return out,
        r = backend.chat(request) => r,
    };
    let mut stream = match opened {
        Ok(s) => s,
        Err(e) => {
            out.end = CallEnd::Failed(e);
            return out;
        }
    };
    // `None` until the first checkpoint, which is taken at the first delta so
    // that even a short-lived answer survives a crash.
    let mut last_checkpoint: Option<Instant> = None;
    loop {
        let item = tokio::select! {
            biased;
            () = cancel.cancelled() => {
                // Dropping the stream closes the connection at once.
                drop(stream);
                out.end = CallEnd::Stopped;
                return out;
            }
            item = stream.next() => item,
        };
        match item {
            Some(Ok(ModelDelta::Text(t))) => {
                out.text.push_str(&t);
                sink.emit(EventKind::TextDelta { delta: t });
            }
            Some(Ok(ModelDelta::Thinking(t))) => {
                out.thinking.push_str(&t);
                sink.emit(EventKind::ThinkingDelta { delta: t });
            }
            Some(Ok(ModelDelta::ToolCalls(calls))) => out.tool_calls.extend(calls),
            Some(Ok(ModelDelta::Done(info))) => {
                out.end = CallEnd::Done(info);
                return out;
            }
            Some(Err(e)) => {
                out.end = CallEnd::Failed(e);
                return out;
            }
            None => {
                out.end = CallEnd::Failed(BackendError::Truncated);
                return out;
            }
        }
        let due = last_checkpoint.is_none_or(|t| t.elapsed() >= CHECKPOINT_EVERY);
        if due && !(out.text.is_empty() && out.thinking.is_empty()) {
            last_checkpoint = Some(Instant::now());
            let partial = out.message(MessageStatus::Interrupted);
            // A failed checkpoint only weakens crash safety; the final
            // append reports storage errors.
            if let Err(e) = checkpoint
                .store
                .checkpoint(checkpoint.session_id, checkpoint.run_id, &partial)
                .await
            {
                tracing::warn!("checkpoint failed: {e}");
            }
        }
    }
}
