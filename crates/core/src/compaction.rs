//! Compaction of long sessions (issue 3, extended by the context-management
//! issue): when the context nears the model's window, everything but the
//! recent messages is summarized and the summary stands in for them in what
//! is sent. Summaries are added; messages are never deleted.
//!
//! Decisions are pure (token estimate, threshold, where to cut); one async
//! function does the work, used before a turn and by the post-turn worker.

use std::sync::Arc;

use async_trait::async_trait;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::backend::{ModelBackend, ModelDelta, ModelRequest};
use crate::memory::{PostTurnWorker, WorkerContext};
use crate::message::{ChatMessage, Role};
use crate::profile::Profile;
use crate::settings::LoadOptions;
use crate::store::SessionStore;

/// Heading of the summary message in the context.
pub const SUMMARY_HEADING: &str = "## Summary of the earlier conversation";

/// Messages kept verbatim after a compaction (at least).
pub const KEEP_RECENT: usize = 6;

/// Compact when the estimated context passes this share of `num_ctx`.
pub const THRESHOLD: f64 = 0.75;

/// A summary standing for the first `covered` messages of a branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// How many messages (from the start of the branch) it replaces.
    pub covered: usize,
    /// The summary text.
    pub content: String,
}

/// Tokens of `messages`, estimated as seed 001 does when the server gives no
/// count: ~4 characters per token plus 16 per message.
pub fn estimate_tokens(messages: &[ChatMessage]) -> usize {
    messages
        .iter()
        .map(|m| {
            let calls: usize = m
                .tool_calls
                .iter()
                .map(|c| c.name.len() + c.arguments.to_string().len())
                .sum();
            (m.content.len() + calls).div_ceil(4) + 16
        })
        .sum()
}

/// Where the verbatim tail starts if `history` (of which the first
/// `covered` are already summarized) must be compacted: at least
/// [`KEEP_RECENT`] messages stay, and the cut lands on a user message so no
/// tool call is separated from its result. `None` when there is nothing new
/// to summarize.
pub fn cut_point(history: &[ChatMessage], covered: usize) -> Option<usize> {
    let latest = history.len().checked_sub(KEEP_RECENT)?;
    let cut = (covered + 1..=latest)
        .rev()
        .find(|&i| history[i].role == Role::User)?;
    (cut > covered).then_some(cut)
}

/// True when a context of `tokens` should be compacted for `num_ctx`.
pub fn over_threshold(tokens: usize, num_ctx: u32) -> bool {
    tokens as f64 > f64::from(num_ctx) * THRESHOLD
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
    /// Stops the work.
    pub cancel: &'a CancellationToken,
}

impl Compactor<'_> {
    /// Summarize the session if its context is over the threshold. Returns
    /// whether a summary was added.
    pub async fn maybe_compact(
        &self,
        session_id: &str,
        fixed_tokens: usize,
    ) -> Result<bool, String> {
        self.compact(session_id, fixed_tokens, false).await
    }

    /// Summarize the older part of the session now, whatever the estimate
    /// says: the server has just refused the prompt as too long (its own
    /// count is what matters). Returns whether a summary was added.
    pub async fn compact_now(&self, session_id: &str, fixed_tokens: usize) -> Result<bool, String> {
        self.compact(session_id, fixed_tokens, true).await
    }

    async fn compact(
        &self,
        session_id: &str,
        fixed_tokens: usize,
        force: bool,
    ) -> Result<bool, String> {
        let history = self
            .store
            .history(session_id)
            .await
            .map_err(|e| e.to_string())?;
        let previous = self
            .store
            .summary(session_id)
            .await
            .map_err(|e| e.to_string())?;
        let covered = previous
            .as_ref()
            .map_or(0, |s| s.covered.min(history.len()));
        let summary_tokens = previous.as_ref().map_or(0, |s| s.content.len() / 4 + 16);
        let tokens = fixed_tokens + summary_tokens + estimate_tokens(&history[covered..]);
        if !force && !over_threshold(tokens, self.load.num_ctx) {
            return Ok(false);
        }
        let Some(cut) = cut_point(&history, covered) else {
            return Ok(false);
        };
        let prior = previous.map(|s| s.content).unwrap_or_default();
        let prompt = format!(
            "Summarize this conversation for your own later reference. Keep every fact, decision, number, \
             file name and open task; drop pleasantries. At most 300 words.\n\n\
             Summary so far:\n{}\n\nConversation to add:\n{}",
            if prior.is_empty() { "(none)" } else { &prior },
            render(&history[covered..cut])
        );
        let request = ModelRequest {
            model: self.profile.model.clone(),
            messages: vec![ChatMessage::user(prompt)],
            tools: Vec::new(),
            think: self.profile.think.map(|_| false),
            temperature: Some(0.2),
            load: self.load,
        };
        let text = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return Ok(false),
            t = complete(self.backend.as_ref(), request) => t?,
        };
        if text.trim().is_empty() {
            return Err("the model returned an empty summary".into());
        }
        // The user may have switched branches while the summary was written:
        // store it only if the messages it covers are still the branch's.
        let now = self
            .store
            .history(session_id)
            .await
            .map_err(|e| e.to_string())?;
        if now.get(..cut) != history.get(..cut) {
            return Ok(false);
        }
        let summary = Summary {
            covered: cut,
            content: text.trim().to_owned(),
        };
        self.store
            .add_summary(session_id, &summary, &self.profile.model)
            .await
            .map_err(|e| e.to_string())?;
        Ok(true)
    }
}

/// Run a request without tools to its end and return the text.
pub(crate) async fn complete(
    backend: &dyn ModelBackend,
    request: ModelRequest,
) -> Result<String, String> {
    let mut stream = backend.chat(request).await.map_err(|e| e.to_string())?;
    let mut text = String::new();
    while let Some(item) = stream.next().await {
        match item.map_err(|e| e.to_string())? {
            ModelDelta::Text(t) => text.push_str(&t),
            ModelDelta::Done(_) => return Ok(text),
            ModelDelta::Thinking(_) | ModelDelta::ToolCalls(_) => {}
        }
    }
    Err("the answer broke off".into())
}

/// Compacts after a turn, in the background.
pub struct CompactionWorker;

#[async_trait]
impl PostTurnWorker for CompactionWorker {
    fn name(&self) -> &'static str {
        "compaction"
    }

    async fn run(&self, ctx: &WorkerContext) -> Result<(), String> {
        let c = Compactor {
            store: ctx.store.as_ref(),
            backend: &ctx.backend,
            profile: &ctx.profile,
            load: ctx.load,
            cancel: &ctx.cancel,
        };
        c.maybe_compact(&ctx.session_id, 0).await.map(|_| ())
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
        assert_eq!(cut_point(&h, 0), Some(14));
        assert_eq!(cut_point(&h, 14), None, "nothing new to summarize");
        assert_eq!(cut_point(&convo(6), 0), None);
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
    fn tokens_are_estimated_like_seed_001() {
        assert_eq!(estimate_tokens(&[ChatMessage::user("abcdefgh")]), 2 + 16);
        assert!(over_threshold(7000, 8192));
        assert!(!over_threshold(6000, 8192));
    }
}
