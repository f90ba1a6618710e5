//! Sub-agents (`run_ephemeral`, docs/background.md §1.1): a task run with a
//! named profile in its own in-memory session, its events forwarded to the
//! parent's stream, stopped with the parent, its transcript kept with the
//! parent's turn; and what `spawn_agent` asks of the agent about profiles.

use std::sync::Arc;

use crate::batch::CANCELLED_RESULT;
use crate::context::pair_tool_results;
use crate::deps::Deps;
use crate::error::RunError;
use crate::ids::new_subagent_session_id;
use crate::run::Run;
use crate::run_ctx::RunCtx;
use crate::store::{InMemoryStore, SessionStore, SubagentTranscript};
use crate::tool::{ToolContext, ToolEffect};

/// Keeps a sub-agent's transcript with its parent's turn: saved when the
/// sub-agent ends, and — when the parent's Stop drops the sub-agent
/// mid-flight — saved from `drop` on a task of its own, with every
/// unanswered call given the cancelled result so the transcript stays a
/// valid conversation.
struct TranscriptKeeper {
    store: Arc<dyn SessionStore>,
    scratch: Arc<InMemoryStore>,
    transcript: SubagentTranscript,
    armed: bool,
}

impl TranscriptKeeper {
    async fn save(&mut self) {
        let mut t = self.transcript.clone();
        t.messages = pair_tool_results(
            self.scratch
                .history(&t.session_id)
                .await
                .unwrap_or_default(),
            CANCELLED_RESULT,
        );
        if let Err(e) = self.store.record_subagent(&t).await {
            tracing::warn!("keeping the sub-agent transcript failed: {e}");
        }
        // Disarmed only once saved: a stop during the save still saves.
        self.armed = false;
    }
}

impl Drop for TranscriptKeeper {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut keeper = TranscriptKeeper {
            store: self.store.clone(),
            scratch: self.scratch.clone(),
            transcript: self.transcript.clone(),
            armed: false,
        };
        rt.spawn(async move { keeper.save().await });
    }
}

/// Sub-agent entry point (docs/background.md §1.1): runs `task` with
/// `profile` in a fresh in-memory session `subagent_<12 hex>` — no database
/// context of its own — with its events forwarded into the parent's stream,
/// marked as a sub-agent's, and stopped with the parent.
pub(crate) async fn run_ephemeral(
    deps: &Deps,
    task: &str,
    profile: &str,
    parent: &ToolContext,
) -> Result<String, RunError> {
    if parent.depth + 1 > deps.max_depth {
        return Err(RunError::SubagentTooDeep {
            max: deps.max_depth,
            depth: parent.depth + 1,
        });
    }
    let profile = deps
        .profiles
        .by_name(profile)
        .ok_or_else(|| RunError::NoSuchProfile(profile.to_owned()))?;
    let session_id = new_subagent_session_id();
    let scratch = Arc::new(InMemoryStore::new());
    let mut keeper = TranscriptKeeper {
        store: deps.store.clone(),
        scratch: scratch.clone(),
        transcript: SubagentTranscript {
            parent_session_id: parent.session_id.clone(),
            parent_run_id: parent.run_id.clone(),
            parent_call_id: parent.call_id.clone(),
            session_id: session_id.clone(),
            profile: profile.name.clone(),
            messages: Vec::new(),
        },
        armed: true,
    };
    let ctx = RunCtx::subagent(parent, session_id, task, profile, scratch);
    let outcome = Run::new(deps, &ctx).drive().await;
    keeper.save().await;
    outcome.into_result()
}

/// Whether a run with profile `name` could mutate anything (any of its
/// tools does); `None` when there is no such profile.
pub(crate) fn can_mutate(deps: &Deps, name: &str) -> Option<ToolEffect> {
    let profile = deps.profiles.by_name(name)?;
    // A profile that names tool servers (MCP) may mutate: their tools
    // run outside Hearth, whatever they say of themselves, and may not
    // be listed yet.
    let mutating = !profile.mcp_servers.is_empty()
        || deps
            .tools
            .offered(&crate::tool::Offer::of(&profile))
            .iter()
            .filter(|(n, _)| n.as_str() != "spawn_agent")
            .any(|(_, t)| t.effect(&serde_json::json!({})) == ToolEffect::Mutating);
    Some(if mutating {
        ToolEffect::Mutating
    } else {
        ToolEffect::ReadOnly
    })
}
