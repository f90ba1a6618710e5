//! One run in progress: what every run shares ([`Deps`]) and what this run
//! carries ([`RunCtx`]). The steps a run performs are its methods, each in
//! the file that performs it: `driver` (the loop), `preflight` (what is
//! sent), `preload`, `planning`, `tools_exec`, `tool_servers`, `subagent`
//! and `workflow_run` (`/plan`). Its decisions are `run_state`'s.

use std::sync::Arc;

use crate::budget::fixed_tokens;
use crate::deps::Deps;
use crate::error::RunError;
use crate::profile::Profile;
use crate::run_ctx::RunCtx;
use crate::workers::WorkerContext;

/// A run: the agent's dependencies and the run's own context.
pub(crate) struct Run<'a> {
    pub(crate) deps: &'a Deps,
    pub(crate) ctx: &'a RunCtx,
}

impl<'a> Run<'a> {
    pub(crate) fn new(deps: &'a Deps, ctx: &'a RunCtx) -> Self {
        Self { deps, ctx }
    }
}

impl Run<'_> {
    /// The workflow to run again when the branch ends with a `/plan`
    /// message (`None` otherwise, or when the store cannot say).
    pub(crate) async fn workflow_to_redo(&self) -> Option<Arc<crate::workflow::PlanFlow>> {
        let ctx = self.ctx;
        let history = ctx.store.history(&ctx.session_id).await.ok()?;
        let last = history
            .last()
            .filter(|m| m.role == crate::message::Role::User)?;
        let request = crate::workflow::request_in(&last.content)?;
        Some(Arc::new(crate::workflow::PlanFlow::new(request)))
    }

    /// What the post-turn work reported after the answer was kept (what
    /// memory learned: the "Remembered" line) goes with the answer too, so
    /// it is there again after a restart.
    pub(crate) async fn keep_what_workers_showed(&self) {
        let ctx = self.ctx;
        let Some(record) = ctx.sink.record() else {
            return;
        };
        if record.len() == record.written() {
            return;
        }
        if let Err(e) = ctx.store.record_answer(&ctx.run_id, &record.events()).await {
            tracing::warn!(
                "keeping what run {}'s post-turn work showed failed: {e}",
                ctx.run_id
            );
        }
    }

    /// The profile this run uses now: a sub-agent's fixed one, else the
    /// session's active profile, read again before every model call.
    pub(crate) fn profile(&self) -> Profile {
        let ctx = self.ctx;
        ctx.profile
            .clone()
            .unwrap_or_else(|| self.deps.profiles.active(&ctx.session_id))
    }

    /// Run the post-turn workers, one after the other, cancelled by the
    /// next turn or by the user's stop. Their failures are logged only.
    pub(crate) async fn run_workers(&self) {
        let ctx = self.ctx;
        if self.deps.workers.is_empty() {
            return;
        }
        let profile = self.profile();
        let Ok(backend) = self.deps.backend_for(&profile) else {
            return;
        };
        let read = async {
            let memory = self.session_memory().await?;
            let history = ctx.store.history(&ctx.session_id).await?;
            let prefix = self
                .chat_prefix(&profile, memory.as_deref(), &history)
                .await?;
            Ok::<_, RunError>((history, memory, prefix))
        };
        let (history, memory, prefix) = match read.await {
            Ok(read) => read,
            Err(e) => {
                tracing::warn!("post-turn workers skipped: {e}");
                return;
            }
        };
        // Cancelled by the next turn (through the run's background root) or
        // by a stop of this run.
        let cancel = ctx.background.child_token();
        let link = {
            let (stop, cancel) = (ctx.cancel.clone(), cancel.clone());
            tokio::spawn(async move {
                stop.cancelled().await;
                cancel.cancel();
            })
        };
        let fixed_tokens = fixed_tokens(
            &self.deps.profiles.persona(),
            &profile,
            memory.as_deref(),
            &prefix.tools,
        );
        let wctx = WorkerContext {
            fixed_tokens,
            events: ctx.sink.clone(),
            store: ctx.store.clone(),
            session_id: ctx.session_id.clone(),
            run_id: ctx.run_id.clone(),
            history,
            prefix,
            load: self.deps.settings.load_options(&profile.model),
            window: self.deps.window(&profile.model),
            ratio: self.deps.counter.ratio(&profile.model),
            memory: self.deps.memory_writer.clone(),
            memory_vote: self.deps.memory_vote.clone(),
            summarizers: self.deps.summarizers.clone(),
            profile,
            backend,
            cancel: cancel.clone(),
        };
        for w in &self.deps.workers {
            if cancel.is_cancelled() {
                break;
            }
            match w.run(&wctx).await {
                Ok(()) => {}
                // The next turn tries again.
                Err(e) if e.is_passing() => {
                    tracing::info!(worker = w.name(), "post-turn worker skipped: {e}");
                }
                Err(e) => tracing::warn!(worker = w.name(), "post-turn worker failed: {e}"),
            }
        }
        link.abort();
    }
}
