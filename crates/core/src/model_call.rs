//! One model call, streamed, raced against Stop (docs/design.md §3): a
//! [`ModelCall`] yields the pieces of the answer as they arrive and, once
//! it ends, its [`CallResult`]. It retries transient failures and ends
//! runaway answers; what the pieces are shown as, and checkpointing, are
//! the caller's (the driver shows an answer, the planner a plan).
//!
//! Stop is checked against everything that waits: the request itself (Ollama
//! sends no status line until the first token, so opening the stream can take
//! seconds), and every chunk. On stop the request or stream is dropped, which
//! closes the connection: Ollama cancels the generation and keeps the model.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::backend::{
    BackendError, DoneInfo, ModelBackend, ModelDelta, ModelRequest, ModelStream, RawToolCall,
};
use crate::loads::Loads;
use crate::message::{ChatMessage, MessageStatus};
use crate::runaway::{MAX_ANSWER_BYTES, RepeatWatch, Runaway};
use crate::think_tags::{Piece, ThinkTags};

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

    /// The status the answer is stored with.
    pub fn status(&self) -> MessageStatus {
        match self.end {
            CallEnd::Done(_) => MessageStatus::Complete,
            CallEnd::Stopped => MessageStatus::Interrupted,
            CallEnd::Failed(_) => MessageStatus::Error,
        }
    }
}

/// How often a call being written is reported: when it starts, then each
/// time its arguments grew by this many characters (a few times a second
/// on a fast server, never once per token).
const WRITING_CALL_EVERY: u32 = 200;

/// One model call in progress. `next` yields pieces until the call ends;
/// then `finish` gives its result.
pub(crate) struct ModelCall<'a> {
    backend: &'a Arc<dyn ModelBackend>,
    loads: &'a Loads,
    request: ModelRequest,
    cancel: &'a CancellationToken,
    stream: Option<ModelStream>,
    attempt: u32,
    out: CallResult,
    /// Pieces decided but not yet yielded (a delta and the notice that
    /// ends a runaway answer after it).
    queue: VecDeque<Piece>,
    ended: bool,
    /// Reasoning written inline in tags, split out as it streams.
    tags: ThinkTags,
    text_loop: RepeatWatch,
    thinking_loop: RepeatWatch,
    /// The call being written as last reported, and the length at which it
    /// is reported next.
    writing: Option<(String, u32)>,
    /// The request's token cap was fitted to the model's speed
    /// (`answer_cap.rs`): the notice at the cap says so.
    fitted_cap: bool,
}

impl<'a> ModelCall<'a> {
    pub(crate) fn new(
        backend: &'a Arc<dyn ModelBackend>,
        loads: &'a Loads,
        request: ModelRequest,
        cancel: &'a CancellationToken,
    ) -> Self {
        Self {
            backend,
            loads,
            request,
            cancel,
            stream: None,
            attempt: 0,
            out: CallResult {
                text: String::new(),
                thinking: String::new(),
                tool_calls: Vec::new(),
                end: CallEnd::Stopped,
            },
            queue: VecDeque::new(),
            ended: false,
            tags: ThinkTags::default(),
            text_loop: RepeatWatch::default(),
            thinking_loop: RepeatWatch::default(),
            writing: None,
            fitted_cap: false,
        }
    }

    /// Marks the request's token cap as fitted to the model's speed.
    pub(crate) fn fitted_cap(mut self, fitted: bool) -> Self {
        self.fitted_cap = fitted;
        self
    }

    /// The answer so far, as an interrupted message (for checkpoints).
    pub(crate) fn partial(&self) -> Option<ChatMessage> {
        let empty = self.out.text.is_empty() && self.out.thinking.is_empty();
        (!empty).then(|| self.out.message(MessageStatus::Interrupted))
    }

    /// The result, once `next` returned `None`.
    pub(crate) fn finish(self) -> CallResult {
        self.out
    }

    /// The next piece of the answer; `None` once the call has ended.
    /// Transient failures before any output are retried
    /// (docs/background.md §5.4); once something has streamed, an error
    /// passes through.
    pub(crate) async fn next(&mut self) -> Option<Piece> {
        loop {
            if let Some(piece) = self.queue.pop_front() {
                return Some(piece);
            }
            if self.ended {
                return None;
            }
            self.advance().await;
        }
    }

    /// Read one chunk (opening the stream first when needed) and decide.
    async fn advance(&mut self) {
        if self.stream.is_none() {
            match open(
                self.backend,
                self.loads,
                &self.request,
                self.cancel,
                &mut self.attempt,
            )
            .await
            {
                Ok(Some(s)) => self.stream = Some(s),
                Ok(None) => return self.end(CallEnd::Stopped),
                Err(e) => return self.end(CallEnd::Failed(e)),
            }
        }
        let Some(stream) = self.stream.as_mut() else {
            return;
        };
        let item = tokio::select! {
            biased;
            // Dropping the stream (in `end`) closes the connection at once.
            () = self.cancel.cancelled() => return self.end(CallEnd::Stopped),
            item = stream.next() => item,
        };
        match item {
            Some(Ok(ModelDelta::Text(t))) => {
                for piece in self.tags.push(&t) {
                    if self.take(piece) {
                        return self.runaway(Runaway::Repeating);
                    }
                }
            }
            Some(Ok(ModelDelta::Thinking(t))) => {
                self.tags.decide();
                if self.take(Piece::Thinking(t)) {
                    return self.runaway(Runaway::Repeating);
                }
            }
            Some(Ok(ModelDelta::ToolCalls(calls))) => self.out.tool_calls.extend(calls),
            Some(Ok(ModelDelta::ToolCallProgress { name, chars })) => self.writing(name, chars),
            Some(Ok(ModelDelta::Done(info))) => {
                // Both servers say "length" when the token limit ended it.
                let limit = (info.usage.done_reason.as_deref() == Some("length"))
                    .then_some(self.request.max_tokens)
                    .flatten();
                let used = info.usage.completion_tokens;
                self.end(CallEnd::Done(info));
                if let Some(limit) = limit {
                    self.notice(Runaway::Limit {
                        limit,
                        used,
                        fitted: self.fitted_cap,
                    });
                }
                return;
            }
            Some(Err(e)) => return self.failed(e).await,
            None => return self.failed(BackendError::Truncated).await,
        }
        if self.out.text.len() + self.out.thinking.len() > MAX_ANSWER_BYTES {
            self.runaway(Runaway::TooLong);
        }
    }

    /// Report a call being written when it starts (another tool's name, or
    /// a length below the last: the next call of the same tool) and every
    /// [`WRITING_CALL_EVERY`] characters after.
    fn writing(&mut self, tool: String, chars: u32) {
        let due = match &self.writing {
            Some((last, next)) if *last == tool => {
                chars >= *next || chars + WRITING_CALL_EVERY < *next
            }
            _ => true,
        };
        if due {
            self.writing = Some((tool.clone(), chars.saturating_add(WRITING_CALL_EVERY)));
            self.queue.push_back(Piece::WritingCall { tool, chars });
        }
    }

    /// A failure mid-stream: retried only while nothing has streamed (after
    /// that a retry would glue a different answer onto what the user saw).
    async fn failed(&mut self, e: BackendError) {
        let nothing_yet = self.out.text.is_empty()
            && self.out.thinking.is_empty()
            && self.out.tool_calls.is_empty();
        if nothing_yet && retryable(&e) && self.attempt < MAX_ATTEMPTS {
            self.stream = None;
            if !backoff(self.attempt, self.cancel).await {
                self.end(CallEnd::Stopped);
            }
            return;
        }
        self.end(CallEnd::Failed(e));
    }

    /// Keep one piece of the answer and queue it to be shown; true when
    /// the answer has started repeating itself.
    fn take(&mut self, piece: Piece) -> bool {
        let repeating = match &piece {
            Piece::Text(t) => {
                self.out.text.push_str(t);
                self.text_loop.repeating(&self.out.text)
            }
            Piece::Thinking(t) => {
                self.out.thinking.push_str(t);
                self.thinking_loop.repeating(&self.out.thinking)
            }
            Piece::Rethought(rest) => {
                let moved = std::mem::take(&mut self.out.text) + rest;
                self.out.thinking.push_str(&moved);
                self.text_loop = RepeatWatch::default();
                self.queue.push_back(Piece::Rethought(moved));
                return self.thinking_loop.repeating(&self.out.thinking);
            }
            // Progress, not part of the answer.
            Piece::WritingCall { .. } => false,
        };
        self.queue.push_back(piece);
        repeating
    }

    /// The call is over: what the tag splitter held back is kept as what
    /// it looked like.
    fn end(&mut self, end: CallEnd) {
        self.stream = None;
        if let Some(piece) = self.tags.finish() {
            self.take(piece);
        }
        self.out.end = end;
        self.ended = true;
    }

    /// Append the notice to the answer (and show it live).
    fn notice(&mut self, why: Runaway) {
        let notice = why.notice();
        self.out.text.push_str(&notice);
        self.queue.push_back(Piece::Text(notice));
    }

    /// End a runaway answer here: the stream is dropped (the server stops
    /// generating; the model stays loaded) and the answer, with its notice,
    /// ends as complete. Calls it may have begun are not run.
    fn runaway(&mut self, why: Runaway) {
        tracing::warn!("ended a runaway answer: {why:?}");
        self.out.tool_calls.clear();
        self.end(CallEnd::Done(DoneInfo::default()));
        self.notice(why);
    }
}

/// How often a growing answer is checkpointed to the store.
pub(crate) const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);
