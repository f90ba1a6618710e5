//! Side requests: the model calls Hearth makes besides the answer — the
//! plan, a session's title, the facts to remember, a summary. Reasoning
//! off where the profile sets it, and dropped when a model reasons anyway
//! (native or in tags: only the answer is read); the model's own load
//! options (so they never force a reload); a span in the run's trace each
//! (kind `side`, the purpose as detail).
//!
//! The prompt cache (docs/design.md §5): a server with one slot (Ollama's
//! default) keeps the KV cache of the last prompt only. So a side request
//! made while the conversation goes on (the planner before an answer, the
//! title and memory workers after it) sends exactly what the conversation's
//! next chat request starts with — the same system message, tool list and
//! history ([`ChatPrefix`]) — and puts its own instruction last. The server
//! reuses the conversation's cache for it, and afterwards still holds the
//! conversation's prefix. Reasoning is turned off for them all the same:
//! the templates of the reasoning models people run (Qwen3, DeepSeek-R1)
//! render the switch after the last message, outside the shared prefix.
//! Compaction's requests (the memory flush and the summary) have a prompt
//! of their own ([`ChatPrefix::own`]): the summary changes the
//! conversation's prompt right after the memory message, so the cache
//! beyond it is lost whatever they send. So does a worker's request whose
//! prefix would not fit the window (`WorkerContext::prefix_for`).

use std::time::Instant;

use futures::StreamExt;
use hearth_protocol::{SpanKind, Usage};
use tokio_util::sync::CancellationToken;

use crate::backend::{ModelBackend, ModelDelta, ModelRequest, RawToolCall};
use crate::error::WorkerError;
use crate::message::ChatMessage;
use crate::profile::Profile;
use crate::settings::LoadOptions;
use crate::store::{SessionStore, Span};
use crate::think_tags::Piece;
use crate::think_tags::ThinkTags;
use crate::tool::ToolSpec;

/// Most tokens a side request (plan, summary) may generate: a summary or a
/// plan is far shorter, and a looping small model stops.
pub(crate) const SIDE_MAX_TOKENS: u32 = 2048;
/// Most tokens of a title (a few words).
pub(crate) const TITLE_MAX_TOKENS: u32 = 64;
/// Most tokens of the memory worker's answer about `sentences` of the
/// user's: up to four short facts each, so an answer for eight is not cut
/// off (a cut answer is not JSON, and every fact in it would be lost).
pub(crate) fn memory_max_tokens(sentences: usize) -> u32 {
    64 + 160 * sentences as u32
}

/// Added to an instruction sent with the conversation's tools: they are
/// offered only so that the prompt starts as the conversation's does.
pub const NO_TOOL_CALLS: &str = "Do not call a tool.";

/// What the conversation's next chat request starts with: its messages
/// (system prompt, memory, summary, history as the pipeline sends them),
/// its tool list and its reasoning switch. A side request that sends the
/// messages and tools first, byte for byte, is served from the
/// conversation's cache.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatPrefix {
    /// The messages, as `pipeline::outgoing` builds them.
    pub messages: Vec<ChatMessage>,
    /// The tools the profile offers (their schemas are part of the
    /// prompt: most templates put them in the system block).
    pub tools: Vec<ToolSpec>,
    /// The profile's reasoning setting (a side request sends the least it
    /// allows where it is set, `Think::least`: see the module's header).
    pub think: Option<crate::Think>,
}

impl ChatPrefix {
    /// This prefix if it, `instruction` after it and `max_tokens` of
    /// answer fit in `window` tokens (the raw estimate times the model's
    /// calibration `ratio`); else none ([`Self::own`]): a request that does
    /// not fit would be refused (`truncate: false`), so it goes with a
    /// prompt of its own, which must quote what it asks about.
    pub fn within(
        &self,
        profile: &Profile,
        instruction: &str,
        max_tokens: u32,
        window: u32,
        ratio: f64,
    ) -> Self {
        let raw = crate::budget::estimate_request(&self.messages, &self.tools)
            + crate::tokens::estimate_tokens(&[ChatMessage::user(instruction)]);
        let tokens = (raw as f64 * ratio).ceil() as usize;
        if tokens + max_tokens as usize <= window as usize {
            self.clone()
        } else {
            Self::own(profile)
        }
    }

    /// No shared prefix, for a request with a prompt of its own: no tools,
    /// reasoning off where the profile sets it.
    pub fn own(profile: &Profile) -> Self {
        Self {
            messages: Vec::new(),
            tools: Vec::new(),
            think: profile.think.map(crate::Think::least),
        }
    }
}

/// A side request: `prefix`, then `instruction` as the last user message;
/// at most `max_tokens` generated. The profile's cap per answer does not
/// apply: it sets how long the user wants answers, and a side answer cut
/// by it is lost whole (a memory answer cut after its first sentence of
/// eight kept one fact of them, a cut plan is no plan); each side request
/// has a bound of its own instead (`SIDE_MAX_TOKENS`, `TITLE_MAX_TOKENS`,
/// `memory_max_tokens`).
pub(crate) fn side_request(
    profile: &Profile,
    load: LoadOptions,
    prefix: &ChatPrefix,
    instruction: String,
    temperature: f64,
    max_tokens: u32,
) -> ModelRequest {
    let instruction = if prefix.tools.is_empty() {
        instruction
    } else {
        format!("{instruction}\n\n{NO_TOOL_CALLS}")
    };
    let mut messages = Vec::with_capacity(prefix.messages.len() + 1);
    messages.extend(prefix.messages.iter().cloned());
    messages.push(ChatMessage::user(instruction));
    ModelRequest {
        model: profile.model.clone(),
        messages,
        tools: prefix.tools.clone(),
        think: prefix.think.map(crate::Think::least),
        temperature: Some(temperature),
        load,
        max_tokens: Some(max_tokens),
        format: None,
    }
}

/// What a side request answered: its text without any reasoning, and the
/// tool calls it made although asked not to.
#[derive(Debug, Default)]
pub(crate) struct SideAnswer {
    pub text: String,
    pub calls: Vec<RawToolCall>,
}

/// Run a side request to its end: the answer (reasoning, native or in
/// tags, is dropped, as the chat path splits it out) and the server's
/// figures.
async fn complete(
    backend: &dyn ModelBackend,
    request: ModelRequest,
) -> Result<(SideAnswer, Usage), WorkerError> {
    let mut stream = backend.chat(request).await?;
    let mut answer = SideAnswer::default();
    let mut tags = ThinkTags::default();
    let keep = |answer: &mut SideAnswer, piece: Piece| match piece {
        Piece::Text(t) => answer.text.push_str(&t),
        // What came before a lone closing tag was reasoning.
        Piece::Rethought(_) => answer.text.clear(),
        Piece::Thinking(_) | Piece::WritingCall { .. } => {}
    };
    while let Some(item) = stream.next().await {
        match item? {
            ModelDelta::Text(t) => {
                for piece in tags.push(&t) {
                    keep(&mut answer, piece);
                }
            }
            ModelDelta::Thinking(_) => tags.decide(),
            ModelDelta::ToolCalls(calls) => answer.calls.extend(calls),
            ModelDelta::ToolCallProgress { .. } => {}
            ModelDelta::Done(done) => {
                if let Some(piece) = tags.finish() {
                    keep(&mut answer, piece);
                }
                return Ok((answer, done.usage));
            }
        }
    }
    Err(WorkerError::Answer("the answer broke off".into()))
}

/// The trace span of a model call made for `purpose`.
pub(crate) fn side_span(
    purpose: &str,
    model: &str,
    started: Instant,
    usage: Option<&Usage>,
    error: Option<String>,
) -> Span {
    let ms = |v: Option<f64>| v.map(|v| v.max(0.0).round() as u64);
    Span {
        kind: SpanKind::Side,
        name: model.to_owned(),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        tokens_in: usage.and_then(|u| u.prompt_tokens),
        tokens_cached: usage.and_then(|u| u.prompt_cached_tokens),
        tokens_out: usage.and_then(|u| u.completion_tokens),
        load_ms: ms(usage.and_then(|u| u.load_ms)),
        prompt_eval_ms: ms(usage.and_then(|u| u.prompt_eval_ms)),
        eval_ms: ms(usage.and_then(|u| u.eval_ms)),
        detail: Some(purpose.to_owned()),
        error,
    }
}

/// The planning call's question, appended to the conversation as a last
/// user message (`planning.rs`).
pub const PLANNER_PROMPT: &str = "Before answering, decide whether the request above needs a plan. \
If it can be answered directly (a question, a greeting, one simple step), reply with exactly: DIRECT\n\
Otherwise reply only with a short numbered list of the steps you will take (\"1. …\", one line each), nothing else.";

/// The title request's question, asked after the conversation
/// (`workers/title.rs`).
pub const TITLE_PROMPT: &str =
    "Write a title of at most 6 words for this conversation. Answer with the title only.";

/// How the memory request starts (`workers/memory.rs`).
pub const MEMORY_PROMPT: &str = "You keep a short memory of durable facts about the user.";

/// Which side request `instruction` (a request's last user message) is —
/// `"plan"`, `"title"` or `"memory"` — or `None` for the user's own words.
/// For whoever reads requests off the wire (tests, the benchmarks).
pub fn side_purpose(instruction: &str) -> Option<&'static str> {
    [
        (PLANNER_PROMPT, "plan"),
        (TITLE_PROMPT, "title"),
        (MEMORY_PROMPT, "memory"),
    ]
    .into_iter()
    .find(|(prompt, _)| instruction.starts_with(prompt))
    .map(|(_, purpose)| purpose)
}

/// Where a side request runs and is traced.
pub(crate) struct Side<'a> {
    pub backend: &'a dyn ModelBackend,
    pub store: &'a dyn SessionStore,
    pub run_id: &'a str,
    pub cancel: &'a CancellationToken,
}

impl Side<'_> {
    /// Send `request` for `purpose` and return its text; `None` when
    /// cancelled (nothing is traced then). A failed trace write only
    /// loses the span.
    pub async fn ask(
        &self,
        purpose: &str,
        request: ModelRequest,
    ) -> Result<Option<String>, WorkerError> {
        Ok(self.answer(purpose, request).await?.map(|a| a.text))
    }

    /// As [`Self::ask`], with the tool calls the model made anyway.
    pub async fn answer(
        &self,
        purpose: &str,
        request: ModelRequest,
    ) -> Result<Option<SideAnswer>, WorkerError> {
        let model = request.model.clone();
        let started = Instant::now();
        let result = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return Ok(None),
            r = complete(self.backend, request) => r,
        };
        let span = match &result {
            Ok((_, usage)) => side_span(purpose, &model, started, Some(usage), None),
            Err(e) => side_span(purpose, &model, started, None, Some(e.to_string())),
        };
        if let Err(e) = self.store.record_span(self.run_id, &span).await {
            tracing::warn!("recording a side request's span failed: {e}");
        }
        result.map(|(answer, _)| Some(answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile that keeps answers short (160 tokens) still gets whole
    /// side answers: eight sentences' memory JSON did not fit in 160.
    #[test]
    fn a_side_request_has_its_own_bound_not_the_answers_cap() {
        let profile = Profile {
            max_output_tokens: 160,
            ..Profile::new("Chat", "m")
        };
        let memory = memory_max_tokens(crate::workers::statements::MAX_STATEMENTS);
        let request = side_request(
            &profile,
            LoadOptions::default(),
            &ChatPrefix::own(&profile),
            "Which facts?".into(),
            0.0,
            memory,
        );
        assert_eq!(request.max_tokens, Some(memory));
        assert!(memory > 160);
        let title = side_request(
            &profile,
            LoadOptions::default(),
            &ChatPrefix::own(&profile),
            "A title?".into(),
            0.0,
            TITLE_MAX_TOKENS,
        );
        assert_eq!(title.max_tokens, Some(TITLE_MAX_TOKENS));
    }
}
