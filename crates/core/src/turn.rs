//! One model call, streamed, raced against Stop (docs/design.md §3).
//!
//! Stop is checked against everything that waits: the request itself (Ollama
//! sends no status line until the first token, so opening the stream can take
//! seconds), and every chunk. On stop the request or stream is dropped, which
//! closes the connection: Ollama cancels the generation and keeps the model.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use hearth_protocol::EventKind;
use tokio_util::sync::CancellationToken;

use crate::backend::{
    BackendError, DoneInfo, ModelBackend, ModelDelta, ModelRequest, ModelStream, RawToolCall,
};
use crate::events::EventSink;
use crate::loads::Loads;
use crate::message::{ChatMessage, MessageStatus};
use crate::runaway::{MAX_ANSWER_BYTES, RepeatWatch, Runaway};
use crate::store::SessionStore;

/// How often a growing answer is checkpointed to the store.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// Attempts at one model call when the failures are transient
/// (docs/background.md §5.4).
pub(crate) const MAX_ATTEMPTS: u32 = 3;

/// Transient failures worth another attempt: rate limits and server errors
/// (HTTP 429/5xx), or a connection dropped before any output. Not a refused connection (the server is not running) nor a
/// timeout (the user has already waited long).
fn retryable(e: &BackendError) -> bool {
    match e {
        BackendError::Server {
            status: Some(s), ..
        } => *s == 429 || *s >= 500,
        // A connection dropped before the first token. An error line inside
        // the stream is not retried: it is usually the model's own failure
        // (a template, a crashed runner) and would fail again.
        BackendError::Truncated => true,
        _ => false,
    }
}

/// Wait before the next attempt (250 ms, then 750 ms); false when the user
/// stopped meanwhile.
async fn backoff(attempt: u32, cancel: &CancellationToken) -> bool {
    let delay = Duration::from_millis(250 * 3u64.pow(attempt.saturating_sub(1)));
    tokio::select! {
        biased;
        () = cancel.cancelled() => false,
        () = tokio::time::sleep(delay) => true,
    }
}

/// Before a retry: the failure may have been a crashed runner, and a chat
/// that loads the model is aborted by a Stop mid-load (docs/design.md §4). So
/// load it with its own detached request first, as at the start of a run.
/// False when the user stopped (the load goes on); a failed load is left for
/// the retry itself to report.
async fn reload(
    backend: &Arc<dyn ModelBackend>,
    loads: &Loads,
    request: &ModelRequest,
    cancel: &CancellationToken,
) -> bool {
    let task = loads.spawn(backend.clone(), request.model.clone(), request.load);
    tokio::select! {
        biased;
        () = cancel.cancelled() => false,
        _ = task => true,
    }
}

/// Open the stream, retrying transient failures with backoff; `Ok(None)`
/// when the user stopped. `attempt` counts attempts across the whole call.
async fn open(
    backend: &Arc<dyn ModelBackend>,
    loads: &Loads,
    request: &ModelRequest,
    cancel: &CancellationToken,
    attempt: &mut u32,
) -> Result<Option<ModelStream>, BackendError> {
    loop {
        *attempt += 1;
        if *attempt > 1 && !reload(backend, loads, request, cancel).await {
            return Ok(None);
        }
        let opened = tokio::select! {
            biased;
            () = cancel.cancelled() => return Ok(None),
            r = backend.chat(request.clone()) => r,
        };
        match opened {
            Ok(s) => return Ok(Some(s)),
            Err(e) if retryable(&e) && *attempt < MAX_ATTEMPTS => {
                if !backoff(*attempt, cancel).await {
                    return Ok(None);
                }
            }
            Err(e) => return Err(e),
        }
    }
}

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

/// Stream one model call, emitting deltas, until it ends, fails or is
/// stopped. Transient failures before any output are retried
/// (docs/background.md §5.4); once something has streamed, an error passes
/// through.
pub(crate) async fn stream_call(
    backend: &Arc<dyn ModelBackend>,
    loads: &Loads,
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
    let mut attempt = 0;
    let mut stream = match open(backend, loads, &request, cancel, &mut attempt).await {
        Ok(Some(s)) => s,
        Ok(None) => return out,
        Err(e) => {
            out.end = CallEnd::Failed(e);
            return out;
        }
    };
    // `None` until the first checkpoint, which is taken at the first delta so
    // that even a short-lived answer survives a crash.
    let mut last_checkpoint: Option<Instant> = None;
    let (mut text_loop, mut thinking_loop) = (RepeatWatch::default(), RepeatWatch::default());
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
        let failure = match item {
            Some(Ok(ModelDelta::Text(t))) => {
                out.text.push_str(&t);
                sink.emit(EventKind::TextDelta { delta: t });
                if text_loop.repeating(&out.text) {
                    return end_runaway(out, stream, Runaway::Repeating, sink);
                }
                None
            }
            Some(Ok(ModelDelta::Thinking(t))) => {
                out.thinking.push_str(&t);
                sink.emit(EventKind::ThinkingDelta { delta: t });
                if thinking_loop.repeating(&out.thinking) {
                    return end_runaway(out, stream, Runaway::Repeating, sink);
                }
                None
            }
            Some(Ok(ModelDelta::ToolCalls(calls))) => {
                out.tool_calls.extend(calls);
                None
            }
            Some(Ok(ModelDelta::Done(info))) => {
                // Both servers say "length" when the token limit ended it.
                if info.usage.done_reason.as_deref() == Some("length")
                    && let Some(n) = request.max_tokens
                {
                    push_notice(&mut out, Runaway::Limit(n), sink);
                }
                out.end = CallEnd::Done(info);
                return out;
            }
            Some(Err(e)) => Some(e),
            None => Some(BackendError::Truncated),
        };
        if let Some(e) = failure {
            // Retry only while nothing has streamed: after that a retry would
            // glue a different answer onto what the user already saw.
            let nothing_yet =
                out.text.is_empty() && out.thinking.is_empty() && out.tool_calls.is_empty();
            if nothing_yet && retryable(&e) && attempt < MAX_ATTEMPTS {
                drop(stream);
                if !backoff(attempt, cancel).await {
                    return out;
                }
                stream = match open(backend, loads, &request, cancel, &mut attempt).await {
                    Ok(Some(s)) => s,
                    Ok(None) => return out,
                    Err(e) => {
                        out.end = CallEnd::Failed(e);
                        return out;
                    }
                };
                continue;
            }
            out.end = CallEnd::Failed(e);
            return out;
        }
        if out.text.len() + out.thinking.len() > MAX_ANSWER_BYTES {
            return end_runaway(out, stream, Runaway::TooLong, sink);
        }
        let due = last_checkpoint.is_none_or(|t| t.elapsed() >= CHECKPOINT_EVERY);
        if due && !(out.text.is_empty() && out.thinking.is_empty()) {
            last_checkpoint = Some(Instant::now());
            let partial = out.message(MessageStatus::Interrupted);
            // A failed checkpoint only weakens crash safety; the final
            // append reports storage errors.
            // Raced with Stop: a database busy with another process must not
            // delay it (the write still completes on the writer thread).
            let saved = tokio::select! {
                biased;
                () = cancel.cancelled() => Ok(()),
                r = checkpoint.store.checkpoint(checkpoint.session_id, checkpoint.run_id, &partial) => r,
            };
            if let Err(e) = saved {
                tracing::warn!("checkpoint failed: {e}");
            }
        }
    }
}

/// Append the notice to the answer (and show it live).
fn push_notice(out: &mut CallResult, why: Runaway, sink: &EventSink) {
    let notice = why.notice();
    out.text.push_str(&notice);
    sink.emit(EventKind::TextDelta { delta: notice });
}

/// End a runaway answer here: the stream is dropped (the server stops
/// generating; the model stays loaded) and the answer, with its notice,
/// ends as complete. Calls it may have begun are not run.
fn end_runaway(
    mut out: CallResult,
    stream: ModelStream,
    why: Runaway,
    sink: &EventSink,
) -> CallResult {
    drop(stream);
    tracing::warn!("ended a runaway answer: {why:?}");
    out.tool_calls.clear();
    push_notice(&mut out, why, sink);
    out.end = CallEnd::Done(DoneInfo::default());
    out
}
