//! The run's supporting steps, beside the loop in `driver`: loading the
//! model with a request Stop never cancels (and learning the window the
//! server gave it), what is sent (the pipeline over the stored session),
//! compaction (for the budget, or on an overflow), the repeat guard's
//! screening of a batch, the tool context (with its approver), steering
//! messages at turn boundaries, answering calls that will never run,
//! spans, and the post-turn workers.

use std::collections::HashSet;
use std::sync::Arc;

use hearth_protocol::{EventKind, ToolOutcome};

use crate::approvals::Gate;
use crate::backend::ModelBackend;
use crate::budget::effective_window;
use crate::compaction::{Compacted, Compactor, Why};
use crate::driver::{Agent, RunCtx};
use crate::error::RunError;
use crate::handle::RunOutcome;
use crate::memory::WorkerContext;
use crate::message::{ChatMessage, ToolCall};
use crate::pipeline::Outgoing;
use crate::profile::Profile;
use crate::store::Span;
use crate::storm::{SUPPRESSED, StormBreaker, Verdict};
use crate::tool::{ToolContext, ToolEffect};
use crate::tools_exec::record;
use crate::turn::CallEnd;

impl Agent {
    /// Compact the session (docs/background.md §3.7–3.8: memory flush, then
    /// summary) for `why`: the budget before a request, or an overflow the
    /// server reported. Announces what it did. A failure only means a longer
    /// prompt.
    pub(crate) async fn compact_session(
        &self,
        ctx: &RunCtx,
        backend: &Arc<dyn ModelBackend>,
        profile: &Profile,
        fixed_tokens: usize,
        why: Why,
    ) -> Option<Compacted> {
        let load = self.settings.load_options(&profile.model);
        let compactor = Compactor {
            store: ctx.store.as_ref(),
            backend,
            profile,
            load,
            window: self.window(&profile.model),
            ratio: self.counter.ratio(&profile.model),
            memory: self.memory_writer.as_ref(),
            summarizers: &self.summarizers,
            run_id: &ctx.run_id,
            cancel: &ctx.cancel,
        };
        let started = std::time::Instant::now();
        let done = compactor.compact(&ctx.session_id, fixed_tokens, why).await;
        let mut span = Span {
            kind: "compaction",
            name: profile.model.clone(),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            ..Span::default()
        };
        let done = match done {
            Ok(Some(c)) => {
                span.detail = Some(format!(
                    "{} messages summarized, ~{} → ~{} tokens",
                    c.covered, c.tokens_before, c.tokens_after
                ));
                ctx.sink.emit(EventKind::ContextCompacted {
                    summarized: u32::try_from(c.covered).unwrap_or(u32::MAX),
                    tokens_before: u32::try_from(c.tokens_before).unwrap_or(u32::MAX),
                    tokens_after: u32::try_from(c.tokens_after).unwrap_or(u32::MAX),
                });
                Some(c)
            }
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!("compaction failed: {e}");
                span.error = Some(e);
                None
            }
        };
        if let Err(e) = ctx.store.record_span(&ctx.run_id, &span).await {
            tracing::warn!("recording a compaction span failed: {e}");
        }
        done
    }

    /// What to send for the session now: its history and summary through
    /// the pipeline (docs/background.md §3.5) with `o`'s settings.
    pub(crate) async fn outgoing(
        &self,
        ctx: &RunCtx,
        o: &Outgoing<'_>,
    ) -> Result<Vec<ChatMessage>, RunError> {
        let history = ctx.store.history(&ctx.session_id).await?;
        let summary = ctx.store.summary(&ctx.session_id).await?;
        Ok(crate::pipeline::outgoing(
            &Outgoing {
                summary: summary.as_ref(),
                ..*o
            },
            &history,
        ))
    }

    /// The window in effect for `model`: its `num_ctx`, capped by what the
    /// server reported at the last preload.
    pub(crate) fn window(&self, model: &str) -> u32 {
        let reported = self
            .reported_windows
            .lock()
            .ok()
            .and_then(|w| w.get(model).copied().flatten());
        effective_window(self.settings.load_options(model).num_ctx, reported)
    }

    /// Run the post-turn workers, one after the other, cancelled by the
    /// next turn or by the user's stop. Their failures are logged only.
    pub(crate) async fn run_workers(&self, ctx: &RunCtx) {
        if self.workers.is_empty() {
            return;
        }
        let profile = self.profile(ctx);
        let Ok(backend) = self.backend_for(&profile).cloned() else {
            return;
        };
        let history = match ctx.store.history(&ctx.session_id).await {
            Ok(h) => h,
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
        let wctx = WorkerContext {
            store: ctx.store.clone(),
            session_id: ctx.session_id.clone(),
            run_id: ctx.run_id.clone(),
            history,
            load: self.settings.load_options(&profile.model),
            window: self.window(&profile.model),
            ratio: self.counter.ratio(&profile.model),
            fixed_tokens: fixed_tokens(
                &self.profiles.persona(),
                &profile,
                ctx.memory.as_deref(),
                &self.tools.specs(profile.tools.as_deref()),
            ),
            memory: self.memory_writer.clone(),
            summarizers: self.summarizers.clone(),
            profile,
            backend,
            cancel: cancel.clone(),
        };
        for w in &self.workers {
            if cancel.is_cancelled() {
                break;
            }
            if let Err(e) = w.run(&wctx).await {
                tracing::warn!(worker = w.name(), "post-turn worker failed: {e}");
            }
        }
        link.abort();
    }

    /// Answer calls that will never run (stop or failure mid-answer).
    pub(crate) async fn cancel_calls(
        &self,
        ctx: &RunCtx,
        profile: &Profile,
        calls: &[ToolCall],
    ) -> Result<(), RunError> {
        let base = self.tool_context(ctx, profile);
        for call in calls {
            let out = crate::step::CANCELLED_RESULT.to_owned();
            record(
                ctx.store.as_ref(),
                &base,
                call,
                ToolOutcome::Cancelled,
                out,
                0,
            )
            .await?;
        }
        Ok(())
    }

    /// Load the model with its own request, which Stop never cancels: a
    /// disconnect during a load makes Ollama abort it and kill the runner
    /// (docs/architecture.md, Stop). The preload runs in a detached task, counted in
    /// [`crate::Loads`]; Stop only stops waiting for it.
    pub(crate) async fn ensure_loaded(
        &self,
        ctx: &RunCtx,
        backend: &Arc<dyn ModelBackend>,
        profile: &Profile,
        preloaded: &mut HashSet<String>,
    ) -> Result<(), RunOutcome> {
        // Keyed by the load options too: a settings change during the run
        // (the models panel) must preload again, never load inside a chat
        // that Stop could abort (docs/design.md §4).
        let key = format!(
            "{}\u{0}{}\u{0}{:?}",
            profile.backend.as_deref().unwrap_or(""),
            profile.model,
            self.settings.load_options(&profile.model)
        );
        if preloaded.contains(&key) {
            return Ok(());
        }
        let model = profile.model.clone();
        let load = self.settings.load_options(&model);
        let task = self.loads.spawn(backend.clone(), model, load);
        let joined = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => return Err(RunOutcome::Stopped { partial_text: String::new() }),
            j = task => j,
        };
        match joined {
            Ok(Ok(())) => {
                preloaded.insert(key);
                // What the server really gives the model (a num_ctx above
                // the trained length is capped by Ollama).
                let reported = tokio::select! {
                    biased;
                    () = ctx.cancel.cancelled() => None,
                    w = backend.context_window(&profile.model) => w,
                };
                // A stop during the query must not forget what is known.
                if let Some(n) = reported
                    && let Ok(mut w) = self.reported_windows.lock()
                {
                    w.insert(profile.model.clone(), Some(n));
                }
                Ok(())
            }
            Ok(Err(e)) => Err(RunOutcome::fail(e)),
            Err(e) => Err(RunOutcome::fail(RunError::Internal(e.to_string()))),
        }
    }

    /// Trace one model call: tokens and time from the server's own stats,
    /// or how it ended. A failed write only loses the trace.
    pub(crate) async fn record_model_span(
        &self,
        ctx: &RunCtx,
        model: &str,
        started: std::time::Instant,
        end: &CallEnd,
    ) {
        let mut span = Span {
            kind: "model",
            name: model.to_owned(),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            ..Span::default()
        };
        // Milliseconds from the server's float figures (never negative).
        let ms = |v: Option<f64>| v.map(|v| v.max(0.0).round() as u64);
        match end {
            CallEnd::Done(info) => {
                let u = &info.usage;
                span.tokens_in = u.prompt_tokens;
                span.tokens_out = u.completion_tokens;
                span.load_ms = ms(u.load_ms);
                span.prompt_eval_ms = ms(u.prompt_eval_ms);
                span.eval_ms = ms(u.eval_ms);
                span.detail = u.done_reason.clone();
            }
            CallEnd::Stopped => span.error = Some("stopped by the user".to_owned()),
            CallEnd::Failed(e) => span.error = Some(e.to_string()),
        }
        if let Err(e) = ctx.store.record_span(&ctx.run_id, &span).await {
            tracing::warn!("recording a model span failed: {e}");
        }
    }

    /// Add the messages queued since the last boundary to the conversation
    /// (stored first, then announced); returns how many. With
    /// `closing`, an empty queue is closed: the run ends.
    pub(crate) async fn send_queued(&self, ctx: &RunCtx, closing: bool) -> Result<usize, RunError> {
        let queued = ctx.steering.drain(closing);
        for q in &queued {
            ctx.store
                .append(&ctx.session_id, &ctx.run_id, ChatMessage::user(&q.text))
                .await?;
            ctx.sink.emit(EventKind::QueuedMessageSent {
                queue_id: q.id.clone(),
                text: q.text.clone(),
            });
            // Screened like the first message: `block` ends the run with
            // the message kept.
            self.screen_user(ctx, "queued user message", &q.text)
                .await?;
        }
        Ok(queued.len())
    }

    /// The repeat guard on a batch (docs/background.md §5.6): the calls to
    /// run. Suppressed calls get their result recorded here; a model that
    /// keeps repeating after the reflect prompt ends the run.
    pub(crate) async fn screen_repeats(
        &self,
        ctx: &RunCtx,
        base: &ToolContext,
        storm: &mut StormBreaker,
        pending: Vec<ToolCall>,
    ) -> Result<Vec<ToolCall>, RunError> {
        let mutates = |c: &ToolCall| {
            self.tools
                .get(&c.name)
                .is_some_and(|t| t.effect(&c.arguments) == ToolEffect::Mutating)
        };
        let (run, suppressed, result, give_up) = match storm.judge(&pending, mutates) {
            Verdict::RunAll => (pending, Vec::new(), "", false),
            Verdict::Suppress { indexes, result } => {
                let (mut run, mut stop) = (Vec::new(), Vec::new());
                for (i, call) in pending.into_iter().enumerate() {
                    if indexes.contains(&i) {
                        stop.push(call);
                    } else {
                        run.push(call);
                    }
                }
                (run, stop, result, false)
            }
            Verdict::GiveUp => (Vec::new(), pending, SUPPRESSED, true),
        };
        for call in &suppressed {
            let store = ctx.store.as_ref();
            record(store, base, call, ToolOutcome::Error, result.into(), 0).await?;
        }
        if give_up {
            return Err(RunError::Repetition);
        }
        if run.iter().any(mutates) {
            storm.forget_reads();
        }
        Ok(run)
    }

    /// What a tool call of this run sees: the run's ids, Stop, events,
    /// the profile's workspace, and who to ask before mutating.
    pub(crate) fn tool_context(&self, ctx: &RunCtx, profile: &Profile) -> ToolContext {
        ToolContext {
            session_id: ctx.session_id.clone(),
            run_id: ctx.run_id.clone(),
            call_id: String::new(),
            cancel: ctx.cancel.clone(),
            events: ctx.sink.clone(),
            workspace: profile.workspace.clone(),
            scope: crate::rights::Scope::of(profile),
            approver: Some(match &ctx.parent_approver {
                Some(parent) => parent.clone(),
                None => Arc::new(Gate {
                    hub: self.approvals.clone(),
                    session: ctx.session_id.clone(),
                    preapproved: ctx.preapproved.clone(),
                    interactive: ctx.interactive,
                }),
            }),
            depth: ctx.depth,
            sandbox_off: profile.sandbox_off,
        }
    }
}

/// Raw token estimate of what every request carries besides the history:
/// the system prompt, the memory and the tool schemas.
pub(crate) fn fixed_tokens(
    persona: &str,
    profile: &Profile,
    memory: Option<&str>,
    tools: &[crate::tool::ToolSpec],
) -> usize {
    let tools_len = serde_json::to_string(tools).map_or(0, |t| t.len());
    (persona.len() + profile.system_prompt.len() + memory.map_or(0, str::len) + tools_len) / 4 + 32
}
