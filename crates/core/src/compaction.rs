//! Compaction of long sessions (issue 3, extended by the context-management
//! issue): when the context nears the model's window, everything but the
//! recent messages is summarized and the summary stands in for them in what
//! is sent. Summaries are added; messages are never deleted.
//!
//! Decisions are pure (token estimate, threshold, where to cut); one async
//! function does the work, used before a turn and by the post-turn worker.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::backend::ModelBackend;
use crate::memory::MemoryWriter;
use crate::message::{ChatMessage, Role};
use crate::profile::Profile;
use crate::settings::LoadOptions;
use crate::store::SessionStore;
use crate::workers::{PostTurnWorker, Summarizers, WorkerContext, WorkerError};
// Kept at their old paths for the crates that name them there.
pub use crate::summary::{SUMMARY_HEADING, Summary};
pub use crate::tokens::{PICTURE_TOKENS, estimate_tokens};

/// Messages kept verbatim after a compaction, at least (docs/background.md
/// §3.7: all but the last 4 are summarized).
pub const KEEP_RECENT: usize = 4;

/// The background summarizer starts when the context passes this share of
/// the window (docs/background.md §3.7); before a request the budget's 95 %
/// applies.
pub const THRESHOLD: f64 = 0.75;

/// Tokens set aside for the new summary (it is asked for at most 300
/// words), or an eighth of the window if that is less.
const SUMMARY_TOKENS: usize = 512;

/// The memory flush may take this long (docs/background.md §3.8).
const FLUSH_TIMEOUT: Duration = Duration::from_secs(90);
/// The summary may take this long (docs/background.md §3.7).
const SUMMARY_TIMEOUT: Duration = Duration::from_secs(120);

/// Where the verbatim tail may start if `history` (of which the first
/// `covered` are already summarized) is compacted: user messages after
/// `covered` that leave at least [`KEEP_RECENT`] messages, so no tool call
/// is separated from its result. Earliest first.
pub fn cut_candidates(history: &[ChatMessage], covered: usize) -> Vec<usize> {
    let Some(latest) = history.len().checked_sub(KEEP_RECENT) else {
        return Vec::new();
    };
    (covered + 1..=latest)
        .filter(|&i| history[i].role == Role::User)
        .collect()
}

/// The latest cut (summarize as much as may be), or `None` when there is
/// nothing new to summarize.
pub fn cut_point(history: &[ChatMessage], covered: usize) -> Option<usize> {
    cut_candidates(history, covered).last().copied()
}

/// True when a context of `tokens` should be compacted in the background
/// for a window of `window`.
pub fn over_threshold(tokens: usize, window: u32) -> bool {
    tokens as f64 > f64::from(window) * THRESHOLD
}

fn render(messages: &[ChatMessage]) -> String {
    let mut out = String::new();
    for m in messages {
        let who = match m.role {
            Role::User => "User".to_owned(),
            Role::Assistant => "Assistant".to_owned(),
            Role::Tool => format!("Tool {}", m.tool_name.as_deref().unwrap_or("")),
            Role::System => continue,
        };
        let text: String = m.content.chars().take(2000).collect();
        out.push_str(&format!("{who}: {text}\n"));
        for c in &m.tool_calls {
            out.push_str(&format!("  (called {} {})\n", c.name, c.arguments));
        }
    }
    out
}

/// Why a compaction runs, which decides when and how much.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Why {
    /// After a turn, in the background: above [`THRESHOLD`], all but the
    /// last messages; skipped if another summarizer runs.
    Background,
    /// Before a request above the budget's hard limit: as little as gets
    /// the prompt to `target` tokens (or as much as may be).
    Budget {
        /// Tokens to get under.
        target: usize,
    },
    /// The server refused the prompt as too long: as much as may be.
    Overflow,
}

/// Where a compaction cuts the branch, and the prompt's size around it.
struct Cut {
    /// Messages before this index get summarized.
    at: usize,
    /// The prompt's tokens now (scaled).
    tokens_before: usize,
    /// Estimated tokens of the messages kept after the cut.
    tail_tokens: usize,
}

/// What a compaction did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compacted {
    /// Messages the summary now stands for.
    pub covered: usize,
    /// Estimated prompt tokens before and after.
    pub tokens_before: usize,
    /// See `tokens_before`.
    pub tokens_after: usize,
}

/// Everything compaction needs.
pub struct Compactor<'a> {
    /// Where the session and its summaries live.
    pub store: &'a dyn SessionStore,
    /// The backend of the session's profile.
    pub backend: &'a Arc<dyn ModelBackend>,
    /// The profile (its model summarizes).
    pub profile: &'a Profile,
    /// The model's load options (so nothing reloads).
    pub load: LoadOptions,
    /// The window in effect (tokens).
    pub window: u32,
    /// The budget's calibration of the estimate for this model.
    pub ratio: f64,
    /// Where the memory flush writes, when memory is on.
    pub memory: Option<&'a Arc<dyn MemoryWriter>>,
    /// Which sentences the flush asks about (`workers::fact_vote`).
    pub vote: Option<&'a crate::workers::fact_vote::FactVote>,
    /// The session's summarizer lock.
    pub summarizers: &'a Summarizers,
    /// The run this compaction belongs to (provenance of flushed facts).
    pub run_id: &'a str,
    /// Stops the work.
    pub cancel: &'a CancellationToken,
}

impl Compactor<'_> {
    /// Summarize the older part of the session if `why` calls for it.
    /// `fixed_tokens` is the raw estimate of what is sent besides the
    /// history (system prompt, memory, tool schemas). Returns what was
    /// done, or `None` when nothing was (not needed, nothing to summarize,
    /// another summarizer busy, stopped).
    pub async fn compact(
        &self,
        session_id: &str,
        fixed_tokens: usize,
        why: Why,
    ) -> Result<Option<Compacted>, WorkerError> {
        let Some(_held) = self.hold(session_id, why).await else {
            return Ok(None);
        };
        let history = self.store.history(session_id).await?;
        let previous = self.store.summary(session_id).await?;
        let covered = previous
            .as_ref()
            .map_or(0, |s| s.covered.min(history.len()));
        let summary_tokens = previous.as_ref().map_or(0, |s| s.content.len() / 4 + 16);
        let Some(Cut {
            at: cut,
            tokens_before,
            tail_tokens,
        }) = self.choose_cut(&history, covered, fixed_tokens, summary_tokens, why)
        else {
            return Ok(None);
        };
        // Memory flush first (docs/background.md §3.8): durable facts in what
        // is about to leave the verbatim context are kept before it is
        // summarized.
        self.flush_memory(session_id, &history[covered..cut]).await;
        if self.cancel.is_cancelled() {
            return Ok(None);
        }
        let prior = previous.map(|s| s.content).unwrap_or_default();
        let Some(text) = self.summarize(&prior, &history[covered..cut]).await? else {
            return Ok(None);
        };
        if text.trim().is_empty() {
            return Err(WorkerError::Answer(
                "the model returned an empty summary".into(),
            ));
        }
        // The user may have switched branches while the summary was written:
        // store it only if the messages it covers are still the branch's.
        let now = self.store.history(session_id).await?;
        if now.get(..cut) != history.get(..cut) {
            return Ok(None);
        }
        let summary = Summary {
            covered: cut,
            content: text.trim().to_owned(),
        };
        self.store
            .add_summary(session_id, &summary, &self.profile.model)
            .await?;
        let tokens_after = self.scaled(fixed_tokens + summary.content.len() / 4 + 16 + tail_tokens);
        Ok(Some(Compacted {
            covered: cut,
            tokens_before,
            tokens_after,
        }))
    }

    /// Where to cut the branch (messages `covered..cut` get summarized) for
    /// `why`, with the prompt's tokens before; `fixed` is what every request
    /// carries besides the history and `summary` the summary in force (both
    /// estimated tokens). `None`: nothing to do.
    fn choose_cut(
        &self,
        history: &[ChatMessage],
        covered: usize,
        fixed: usize,
        summary: usize,
        why: Why,
    ) -> Option<Cut> {
        // Tokens of each message as it is sent (a long paste is capped on
        // the way out), summed from the end: the tail after any cut.
        let sent = crate::pipeline::cap_long_messages(history[covered..].to_vec(), self.window);
        let mut tail = vec![0; sent.len() + 1];
        for (i, m) in sent.iter().enumerate().rev() {
            tail[i] = tail[i + 1] + estimate_tokens(std::slice::from_ref(m));
        }
        let tail_from = |cut: usize| tail[cut - covered];
        let reserve = SUMMARY_TOKENS.min(self.window as usize / 8);
        let tokens_before = self.scaled(fixed + summary + tail_from(covered));
        // After the cut a new summary (at most `reserve`) replaces it.
        let after = |cut: usize| self.scaled(fixed + reserve + tail_from(cut));
        let candidates = cut_candidates(history, covered);
        let at = match why {
            Why::Background if !over_threshold(tokens_before, self.window) => return None,
            // As little as reaches the target; failing that, as much as
            // may be — unless even that would not shrink the prompt.
            Why::Budget { target } => candidates
                .iter()
                .copied()
                .find(|&c| after(c) <= target)
                .or(candidates.last().copied())
                .filter(|&c| after(c) < tokens_before),
            Why::Background | Why::Overflow => candidates.last().copied(),
        }?;
        Some(Cut {
            at,
            tokens_before,
            tail_tokens: tail_from(at),
        })
    }

    /// Raw estimated tokens scaled by the server's measured ratio.
    fn scaled(&self, raw: usize) -> usize {
        (raw as f64 * self.ratio).ceil() as usize
    }

    /// The session's summarizer lock: waited for when the run needs room
    /// now (Stop ends the wait), skipped when background work would only
    /// duplicate one in progress.
    async fn hold(&self, session_id: &str, why: Why) -> Option<tokio::sync::OwnedMutexGuard<()>> {
        let lock = self.summarizers.lock_of(session_id);
        match why {
            Why::Background => lock.try_lock_owned().ok(),
            Why::Budget { .. } | Why::Overflow => tokio::select! {
                biased;
                () = self.cancel.cancelled() => None,
                g = lock.lock_owned() => Some(g),
            },
        }
    }

    /// Learn the durable facts of `leaving` (its latest statements) before
    /// it is summarized. A failure only loses facts.
    async fn flush_memory(&self, session_id: &str, leaving: &[ChatMessage]) {
        let Some(writer) = self.memory else {
            return;
        };
        // Only where memory keeps facts by itself: a profile that asks
        // first cannot ask in the middle of an answer.
        if self.profile.memory != hearth_protocol::MemoryMode::Auto {
            return;
        }
        let own = crate::side::ChatPrefix::own(self.profile);
        let said = crate::workers::memory::said_by_user(leaving);
        let flush = crate::workers::memory::learn_facts(crate::workers::memory::FactPass {
            writer: writer.as_ref(),
            backend: self.backend.as_ref(),
            store: self.store,
            profile: self.profile,
            prefix: &own,
            window: (self.window, self.ratio),
            load: self.load,
            cancel: self.cancel,
            session_id,
            run_id: self.run_id,
            source: "flush",
            fresh: &said,
            said: &said,
            vote: self.vote,
        });
        match tokio::time::timeout(FLUSH_TIMEOUT, flush).await {
            Ok(Ok(kept)) => tracing::debug!(
                learned = kept.learned.len(),
                "memory flush before compaction"
            ),
            Ok(Err(e)) => tracing::warn!("memory flush failed: {e}"),
            Err(_) => tracing::warn!("memory flush timed out"),
        }
    }

    /// The model's summary of `prior` plus `added`; `None` when the user
    /// stopped.
    async fn summarize(
        &self,
        prior: &str,
        added: &[ChatMessage],
    ) -> Result<Option<String>, WorkerError> {
        if self.cancel.is_cancelled() {
            return Ok(None);
        }
        let prompt = format!(
            "Summarize this conversation for your own later reference. Keep every fact, decision, number, \
             file name and open task; drop pleasantries. At most 300 words.\n\n\
             Summary so far:\n{}\n\nConversation to add:\n{}",
            if prior.is_empty() { "(none)" } else { prior },
            render(added)
        );
        // A prompt of its own: the summary changes the conversation's
        // prompt after the memory message anyway (crate::side).
        let own = crate::side::ChatPrefix::own(self.profile);
        let request = crate::side::side_request(
            self.profile,
            self.load,
            &own,
            prompt,
            0.2,
            crate::side::SIDE_MAX_TOKENS,
        );
        let side = crate::side::Side {
            backend: self.backend.as_ref(),
            store: self.store,
            run_id: self.run_id,
            cancel: self.cancel,
        };
        tokio::time::timeout(SUMMARY_TIMEOUT, side.ask("summary", request))
            .await
            .map_err(|_| WorkerError::Answer("the summary took longer than two minutes".into()))?
    }
}

/// Compacts after a turn, in the background (docs/background.md §3.7).
pub struct CompactionWorker;

#[async_trait]
impl PostTurnWorker for CompactionWorker {
    fn name(&self) -> &'static str {
        "compaction"
    }

    async fn run(&self, ctx: &WorkerContext) -> Result<(), WorkerError> {
        let c = Compactor {
            store: ctx.store.as_ref(),
            backend: &ctx.backend,
            profile: &ctx.profile,
            load: ctx.load,
            window: ctx.window,
            ratio: ctx.ratio,
            memory: ctx.memory.as_ref(),
            vote: ctx.memory_vote.as_deref(),
            summarizers: &ctx.summarizers,
            run_id: &ctx.run_id,
            cancel: &ctx.cancel,
        };
        c.compact(&ctx.session_id, ctx.fixed_tokens, Why::Background)
            .await
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::json;

    fn convo(n: usize) -> Vec<ChatMessage> {
        (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    ChatMessage::user(format!("q{i}"))
                } else {
                    ChatMessage::assistant(format!("a{i}"))
                }
            })
            .collect()
    }

    #[test]
    fn the_cut_keeps_recent_messages_and_lands_on_a_user_message() {
        let h = convo(20);
        assert_eq!(cut_point(&h, 0), Some(16), "all but the last 4");
        assert_eq!(cut_point(&h, 16), None, "nothing new to summarize");
        assert_eq!(cut_point(&convo(4), 0), None);
        assert_eq!(cut_candidates(&h, 10), vec![12, 14, 16]);
        // Tool results are never separated from their call.
        let call = ToolCall {
            id: "c".into(),
            name: "t".into(),
            arguments: json!({}),
        };
        let mut h = convo(10);
        let mut a = ChatMessage::assistant("");
        a.tool_calls = vec![call.clone()];
        h.extend([
            ChatMessage::user("go"),
            a,
            ChatMessage::tool_result(&call, "r"),
            ChatMessage::assistant("done"),
        ]);
        h.extend(convo(4));
        let cut = cut_point(&h, 0).unwrap();
        assert_eq!(h[cut].role, Role::User);
    }

    #[test]
    fn the_background_summary_starts_past_three_quarters_and_keeps_four() {
        assert!(over_threshold(7000, 8192));
        assert!(!over_threshold(6000, 8192));
        assert_eq!(KEEP_RECENT, 4);
    }
}
