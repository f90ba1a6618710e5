//! The driver of a run (docs/architecture.md, "The run as a state
//! machine"): it opens the run, then asks [`next`] what to do, performs
//! that step — load, plan, stream a model call, run a batch, store, emit —
//! and reports what it saw to [`observe`]. It decides nothing itself.

mod thought_clock;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use hearth_protocol::{EventKind, SpanKind, StopReason};

use crate::backend::{BackendError, ModelBackend, ModelRequest};
use crate::budget::{estimate_request, target_tokens};
use crate::compaction::Why;
use crate::error::RunError;
use crate::handle::RunOutcome;
use crate::hosts::{DEFAULT_HOST, Failover};
use crate::message::{ChatMessage, Role};
use crate::model_call::{CHECKPOINT_EVERY, CallEnd, CallResult, ModelCall};
use crate::profile::Profile;
use crate::repeat_guard::RepeatGuard;
use crate::run::Run;
use crate::run_ctx::TerminalGuard;
use crate::run_state::{
    Facts, Flow, ModelEnd, Observation, Room, RunState, Step, keep_answer, next, observe,
    shape_answer,
};
use crate::shown_text::ShownText;
use crate::store::Span;
use crate::think_tags::Piece;
use crate::tool::Offer;
use crate::tools_exec::{BatchEnd, run_batch};
use thought_clock::ThoughtClock;

/// How long the planning step waits for the server to say the model's size.
const SIZE_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// What the driver keeps between steps to perform them (not to decide).
pub(crate) struct Scratch {
    /// The memory snapshot the run's prompts carry.
    memory: Option<String>,
    /// Call ids given out in this run.
    used_ids: HashSet<String>,
    repeats: RepeatGuard,
    /// The tools offered to the last model call: its calls run against
    /// these, even if the profile switched since.
    offered: Offer,
    /// The prompt the last `Measure` built, sent by the call after it.
    prepared: Option<crate::preflight::Prepared>,
    /// The `/plan` implement pass in progress and when it began (its span
    /// and its end event need it), until it is reviewed or the run ends.
    pub(crate) implementing: Option<(u32, Instant)>,
    /// Tool servers this run already said it goes on without.
    told_unavailable: HashSet<String>,
    /// The run's way through its profile's failover hosts, kept so a move
    /// is made (and announced) once; keyed by the profile's list (a name in
    /// it may be missing from the chain).
    failover: Option<(Vec<String>, Arc<Failover>)>,
}

impl Run<'_> {
    /// Run the loop and emit exactly one terminal event.
    pub(crate) async fn drive(&self) -> RunOutcome {
        let ctx = self.ctx;
        let profile = self.profile();
        ctx.sink.emit(EventKind::RunStarted {
            model: profile.model.clone(),
            profile: profile.name.clone(),
            host: profile
                .backend
                .clone()
                .unwrap_or_else(|| DEFAULT_HOST.to_owned()),
            context_window: self.deps.settings.load_options(&profile.model).num_ctx,
            protocol: hearth_protocol::PROTOCOL_VERSION,
        });
        // A sub-agent's run is a future inside the parent's tool call; when
        // the parent stops, that future is dropped mid-flight. The guard
        // still gives the run its one terminal event.
        let mut guard = TerminalGuard {
            sink: &ctx.sink,
            armed: true,
        };
        // Top-level runs only: a sub-agent's store is its own scratch.
        let stale = (ctx.depth == 0).then(|| self.deps.stale_runs.clone());
        let outcome = crate::run_end::ended(self.run_loop(), ctx, stale).await;
        guard.armed = false;
        ctx.sink.emit(match &outcome {
            RunOutcome::Answered { iterations, .. } => EventKind::StreamEnd {
                iterations: *iterations,
            },
            RunOutcome::Stopped { partial_text } => EventKind::StreamStopped {
                reason: StopReason::User,
                partial_text: partial_text.clone(),
            },
            RunOutcome::Failed {
                error,
                partial_text,
            } => EventKind::Error {
                error: error.to_info(),
                partial_text: partial_text.clone(),
            },
        });
        if let Some(record) = ctx.sink.record()
            && let Err(e) = ctx.store.record_answer(&ctx.run_id, &record.events()).await
        {
            // The answer is stored; only what it showed besides is lost.
            tracing::warn!("keeping what run {} showed failed: {e}", ctx.run_id);
        }
        outcome
    }

    async fn run_loop(&self) -> RunOutcome {
        let ctx = self.ctx;
        let memory = match self.open_run().await {
            Ok(memory) => memory,
            Err(e) => return RunOutcome::fail(e),
        };
        // A `/plan` run explores and plans first, and carries out only what
        // the user approved.
        let mut state = RunState {
            flow: ctx.workflow.as_ref().map(|_| Flow::Explore),
            ..RunState::default()
        };
        let mut scratch = Scratch {
            memory,
            used_ids: HashSet::new(),
            repeats: RepeatGuard::default(),
            offered: Offer::default(),
            prepared: None,
            told_unavailable: HashSet::new(),
            failover: None,
            implementing: None,
        };
        loop {
            // Re-read before every step: a tool may switch the profile.
            let profile = self.profile();
            let load_key = self.deps.load_key(&profile);
            let facts = Facts {
                stopped: ctx.cancel.is_cancelled(),
                max_calls: profile.max_iterations,
                planning: ctx.planning && profile.planning_enabled,
                load_key: &load_key,
                top: ctx.depth == 0,
                queued: ctx.workflow.is_some() && !ctx.steering.pending().is_empty(),
                review_cycles: profile.review_cycles,
            };
            let seen = match next(&state, &facts) {
                Step::Finish(outcome) => {
                    self.close_workflow(&mut scratch, &outcome).await;
                    return outcome;
                }
                step => self.perform(&profile, &mut scratch, step).await,
            };
            observe(&mut state, seen);
        }
    }

    /// Before the first step: the run is recorded, the memory snapshot
    /// read, the user's message durable before any request leaves (unless
    /// the run answers the last one again) and screened by the input guard
    /// (docs/background.md §3.4), which in `block` mode ends the run with
    /// the message kept.
    async fn open_run(&self) -> Result<Option<String>, RunError> {
        let ctx = self.ctx;
        if ctx.text.trim().is_empty() && ctx.attachments.is_empty() && !ctx.regenerate {
            return Err(RunError::EmptyMessage);
        }
        // Nothing is kept of a `/plan` with nothing to do.
        if let Some(flow) = &ctx.workflow {
            flow.refuse_empty()?;
        }
        if ctx.depth == 0 {
            self.deps.stale_runs.repair(ctx.store.as_ref()).await;
        }
        ctx.store.begin_run(&ctx.session_id, &ctx.run_id).await?;
        // Recorded now, not with the answer: an answer a crash cut off
        // still says which model on which host wrote it.
        let profile = self.profile();
        let host = profile.backend.as_deref().unwrap_or(DEFAULT_HOST);
        // Only what the answer's footer shows: a failed write is logged, the
        // run goes on.
        if let Err(e) = ctx
            .store
            .describe_run(&ctx.run_id, &profile.model, host)
            .await
        {
            tracing::warn!("recording run {}'s model and host failed: {e}", ctx.run_id);
        }
        let memory = self.session_memory().await?;
        // The guard reads what the model will read: the typed text and the
        // text of the files attached to it.
        let text = if ctx.regenerate {
            let last = ctx.store.history(&ctx.session_id).await?.pop();
            match last {
                Some(m) if m.role == Role::User => crate::attached::with_file_text(&m),
                _ => {
                    return Err(RunError::NothingToAnswerAgain);
                }
            }
        } else {
            let mut message = ChatMessage::user(&ctx.text);
            message.attachments = self.attach().await?;
            let read = crate::attached::with_file_text(&message);
            ctx.keep(message).await?;
            read
        };
        if ctx.depth == 0 {
            self.screen_user("user message", &text).await?;
        }
        Ok(memory)
    }

    /// Perform one step; what happened, for [`observe`].
    async fn perform(&self, profile: &Profile, scratch: &mut Scratch, step: Step) -> Observation {
        // Only the steps that talk to the model need its backend: calls a
        // stop left unanswered still get results when it is missing.
        let needs_model = matches!(
            step,
            Step::Load | Step::Measure | Step::Plan | Step::CallModel { .. } | Step::Compact(_)
        );
        let backend = match self.run_backend(profile, scratch) {
            Ok(b) => b,
            Err(e) if needs_model => return Observation::Failed(e),
            Err(_) => self.deps.backend.clone(),
        };
        // The tool servers the profile uses start before their tools are
        // counted and shown to the model (a profile switch may name new ones).
        if matches!(step, Step::Measure | Step::Plan | Step::CallModel { .. })
            && self
                .start_tool_servers(profile, &mut scratch.told_unavailable)
                .await
                .is_none()
        {
            return Observation::Interrupted;
        }
        match step {
            Step::Load => self.preload(&backend, profile).await,
            // A model too small to plan is not asked (crate::planning). A
            // server slow to say its size is not waited for long: the
            // model is then asked, as one whose size is unknown.
            Step::Plan
                if tokio::time::timeout(SIZE_WITHIN, backend.parameter_count(&profile.model))
                    .await
                    .ok()
                    .flatten()
                    .is_some_and(|n| n < crate::planning::PLANNING_MIN_PARAMETERS) =>
            {
                Observation::Planned(None)
            }
            Step::Measure => match self.measure(profile, scratch.memory.as_deref()).await {
                Ok(prepared) => {
                    let seen = Observation::Measured(prepared.measured);
                    scratch.prepared = Some(prepared);
                    seen
                }
                Err(e) => Observation::Failed(e),
            },
            Step::Plan => match self.prepared(scratch, false) {
                Ok(messages) => self.plan(&backend, profile, &messages).await,
                Err(e) => Observation::Failed(e),
            },
            Step::CallModel { prefill } => {
                self.call_model(profile, &backend, scratch, prefill).await
            }
            Step::RunTools(calls) => self.run_tools(profile, scratch, calls).await,
            Step::AnswerUnrun { calls, why } => {
                match self.answer_unrun(profile, &calls, why).await {
                    Ok(()) => Observation::CallsAnswered(why),
                    Err(e) => Observation::Failed(e),
                }
            }
            Step::Compact(room) => {
                let fixed = self.deps.fixed(profile, scratch.memory.as_deref());
                let why = match room {
                    Room::Budget => Why::Budget {
                        target: target_tokens(self.deps.window(&profile.model)),
                    },
                    Room::Overflow => Why::Overflow,
                };
                let done = self.compact_session(&backend, profile, fixed, why).await;
                Observation::Compacted(room, done.is_some())
            }
            Step::SendQueued { closing } => match self.send_queued(closing).await {
                Ok(count) => Observation::Sent { count, closing },
                Err(e) => Observation::Failed(e),
            },
            Step::Explore => self.explore().await,
            Step::DraftPlan { findings } => self.draft_plan(&findings).await,
            Step::AwaitPlan { plan } => self.await_plan(scratch, plan).await,
            Step::Review { cycle, plan } => self.review(scratch, cycle, &plan).await,
            Step::Verdict {
                cycle,
                plan,
                review,
                checks,
                fixing,
            } => {
                self.verdict(scratch, cycle, &plan, &review, checks, fixing)
                    .await
            }
            Step::Finish(_) => Observation::Failed(RunError::Internal(
                "the driver was asked to perform the end of a run".into(),
            )),
        }
    }

    /// The backend of this step: the profile's host, or, when the profile
    /// lists failover hosts, the run's [`Failover`] over them (made again
    /// only when a profile switch changed the list).
    fn run_backend(
        &self,
        profile: &Profile,
        scratch: &mut Scratch,
    ) -> Result<Arc<dyn ModelBackend>, RunError> {
        let ctx = self.ctx;
        let primary = self.deps.backend_for(profile)?;
        if profile.failover.is_empty() {
            return Ok(primary);
        }
        let first = profile.backend.as_deref().unwrap_or(DEFAULT_HOST);
        let mut names = vec![first.to_owned()];
        for n in &profile.failover {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        if let Some((key, f)) = &scratch.failover
            && *key == names
        {
            return Ok(f.clone());
        }
        // A failover host that is not configured (removed since) is
        // skipped: it could not be reached either.
        let mut chain = vec![(first.to_owned(), primary)];
        chain.extend(
            names[1..]
                .iter()
                .filter_map(|n| Some((n.clone(), self.deps.host(Some(n))?))),
        );
        let failover = Arc::new(Failover::new(chain, ctx.sink.clone()));
        scratch.failover = Some((names, failover.clone()));
        Ok(failover)
    }

    /// The measured prompt a model call sends, its usage announced the
    /// first time it is sent (the planning call leaves it for the call
    /// after it; `take` hands it over).
    fn prepared(&self, scratch: &mut Scratch, take: bool) -> Result<Vec<ChatMessage>, RunError> {
        let Some(prepared) = scratch.prepared.as_mut() else {
            return Err(RunError::Internal(
                "a model call came before its prompt was measured".into(),
            ));
        };
        prepared.announce(&self.ctx.sink);
        Ok(match scratch.prepared.take() {
            Some(p) if take => p.messages,
            kept => {
                let messages = kept.as_ref().map(|p| p.messages.clone());
                scratch.prepared = kept;
                messages.unwrap_or_default()
            }
        })
    }

    /// One model call: sent, streamed, traced, its answer shaped and
    /// stored (its calls announced).
    async fn call_model(
        &self,
        profile: &Profile,
        backend: &Arc<dyn ModelBackend>,
        scratch: &mut Scratch,
        prefill: Option<String>,
    ) -> Observation {
        let ctx = self.ctx;
        let mut messages = match self.prepared(scratch, true) {
            Ok(m) => m,
            Err(e) => return Observation::Failed(e),
        };
        // The context hook sees what the pipeline built, and may change it
        // (raced with Stop: a slow hook must not hold a stop up).
        let hooked = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => return Observation::Interrupted,
            h = self.deps.hooks.before_model_call(&messages, &ctx.session_id) => h,
        };
        if let Some(changed) = hooked {
            messages = changed;
        }
        let tools = self.deps.tools.specs(&Offer::of(profile));
        scratch.offered = Offer::of(profile);
        // The plan is the start of the first answer: sent as a prefill.
        if let Some(plan) = &prefill {
            messages.push(ChatMessage::assistant(plan.clone()));
        }
        // What this prompt is estimated at, to calibrate the estimate by
        // the server's count afterwards.
        let sent_estimate = estimate_request(&messages, &tools);
        // The default cap follows this model's measured speed here.
        let cap = self
            .deps
            .speeds
            .cap(&profile.model, profile.max_output_tokens);
        let request = ModelRequest {
            messages,
            tools,
            think: profile.think,
            temperature: profile.temperature,
            load: self.deps.settings.load_options(&profile.model),
            model: profile.model.clone(),
            max_tokens: Some(cap.tokens),
            format: None,
        };
        let started = Instant::now();
        let result = self.stream_answer(backend, request, cap.fitted).await;
        self.record_model_span(&profile.model, started, &result.end)
            .await;
        let message = result.message(result.status());
        let CallResult {
            tool_calls, end, ..
        } = result;
        let offered = self.deps.tools.offered_names(&scratch.offered);
        let shaped = shape_answer(
            message,
            tool_calls,
            prefill.as_deref(),
            &offered,
            &mut scratch.used_ids,
        );
        let calls = shaped.message.tool_calls.clone();
        if keep_answer(&shaped.message)
            && let Err(e) = ctx.keep(shaped.message).await
        {
            return Observation::Failed(e.into());
        }
        for c in &calls {
            ctx.sink.emit(EventKind::ToolStarted {
                call_id: c.id.clone(),
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            });
        }
        let end = self.model_end(profile, end, sent_estimate);
        Observation::Answered {
            text: shaped.shown,
            calls,
            end,
        }
    }

    /// How the call ended, for the state; a complete one calibrates the
    /// token estimate by the server's count and announces its usage.
    fn model_end(&self, profile: &Profile, end: CallEnd, sent_estimate: usize) -> ModelEnd {
        let ctx = self.ctx;
        match end {
            CallEnd::Done(info) => {
                if let Some(counted) = info.usage.prompt_tokens {
                    self.deps
                        .counter
                        .observe(&profile.model, sent_estimate, counted);
                }
                self.deps.speeds.observe(&profile.model, &info.usage);
                ctx.sink.emit(EventKind::Usage { usage: info.usage });
                ModelEnd::Done
            }
            CallEnd::Stopped => ModelEnd::Stopped,
            CallEnd::Failed(e @ BackendError::ContextOverflow { .. }) => {
                ModelEnd::Overflow(e.into())
            }
            CallEnd::Failed(e) => ModelEnd::Failed(e.into()),
        }
    }

    /// Stream a model call's pieces as answer events, checkpointing the
    /// growing answer: at the first piece, so even a short-lived answer
    /// survives a crash, then every [`CHECKPOINT_EVERY`].
    async fn stream_answer(
        &self,
        backend: &Arc<dyn ModelBackend>,
        request: ModelRequest,
        fitted_cap: bool,
    ) -> CallResult {
        let ctx = self.ctx;
        let mut call =
            ModelCall::new(backend, &self.deps.loads, request, &ctx.cancel).fitted_cap(fitted_cap);
        let mut last_checkpoint: Option<Instant> = None;
        // The answer as shown: sanitized as it streams (shown_text.rs).
        let mut shown = ShownText::default();
        // How long the model reasoned before answering ("Thought for 12 s").
        let mut thought = ThoughtClock::default();
        while let Some(piece) = call.next().await {
            match piece {
                Piece::Text(delta) => {
                    thought.text(&ctx.sink);
                    if let Some(change) = shown.push(&delta) {
                        ctx.sink.emit(change.into());
                    }
                }
                Piece::Thinking(delta) => {
                    thought.thinking();
                    ctx.sink.emit(EventKind::ThinkingDelta { delta });
                }
                // What was shown as the answer was its reasoning: taken
                // back, and shown as reasoning.
                Piece::Rethought(reasoning) => {
                    thought.rethought();
                    shown = ShownText::default();
                    ctx.sink.emit(EventKind::TextReplaced {
                        text: String::new(),
                    });
                    ctx.sink.emit(EventKind::ThinkingDelta { delta: reasoning });
                }
                // Progress: what the model is writing while no text comes.
                Piece::WritingCall { tool, chars } => {
                    ctx.sink.emit(EventKind::ToolCallWriting { tool, chars });
                    continue;
                }
            }
            let due = last_checkpoint.is_none_or(|t| t.elapsed() >= CHECKPOINT_EVERY);
            if let Some(partial) = call.partial().filter(|_| due) {
                last_checkpoint = Some(Instant::now());
                // Raced with Stop: a database busy with another process
                // must not delay it (the write still completes on the
                // writer thread). A failed checkpoint only weakens crash
                // safety; the final append reports storage errors.
                let saved = tokio::select! {
                    biased;
                    () = ctx.cancel.cancelled() => Ok(()),
                    r = ctx.store.checkpoint(&ctx.session_id, &ctx.run_id, &partial) => r,
                };
                if let Err(e) = saved {
                    tracing::warn!("checkpoint failed: {e}");
                }
            }
        }
        thought.end(&ctx.sink);
        // Nothing is held back once the answer has ended.
        if let Some(change) = shown.finish() {
            ctx.sink.emit(change.into());
        }
        call.finish()
    }

    /// Run a batch: the repeat guard screens it, then the calls run.
    async fn run_tools(
        &self,
        profile: &Profile,
        scratch: &mut Scratch,
        calls: Vec<crate::message::ToolCall>,
    ) -> Observation {
        let ctx = self.ctx;
        let base = self.tool_context(profile);
        let to_run = match self
            .screen_repeats(&base, &scratch.offered, &mut scratch.repeats, calls)
            .await
        {
            Ok(calls) => calls,
            Err(e) => return Observation::Failed(e),
        };
        let spawned = to_run.iter().any(|c| c.name == "spawn_agent");
        let store = ctx.store.as_ref();
        let offered = &scratch.offered;
        let guard = profile.input_guard;
        let hooks = self.deps.hooks.as_ref();
        match run_batch(
            &self.deps.tools,
            offered,
            hooks,
            &to_run,
            &base,
            store,
            guard,
        )
        .await
        {
            Ok(BatchEnd::Complete) => Observation::ToolsRan { spawned },
            Ok(BatchEnd::Stopped) => Observation::BatchStopped,
            Err(e) => Observation::Failed(e.into()),
        }
    }

    /// Add the messages queued since the last boundary to the conversation
    /// (stored first, then announced); returns how many. With `closing`,
    /// an empty queue is closed: the run ends.
    async fn send_queued(&self, closing: bool) -> Result<usize, RunError> {
        let ctx = self.ctx;
        let queued = ctx.steering.drain(closing);
        for q in &queued {
            ctx.keep(ChatMessage::user(&q.text)).await?;
            ctx.sink.emit(EventKind::QueuedMessageSent {
                queue_id: q.id.clone(),
                text: q.text.clone(),
            });
            // Screened like the first message: `block` ends the run with
            // the message kept.
            self.screen_user("queued user message", &q.text).await?;
        }
        Ok(queued.len())
    }

    /// Trace one model call: tokens and time from the server's own stats,
    /// or how it ended. A failed write only loses the trace.
    pub(crate) async fn record_model_span(&self, model: &str, started: Instant, end: &CallEnd) {
        let ctx = self.ctx;
        let mut span = Span {
            kind: SpanKind::Model,
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
                span.tokens_cached = u.prompt_cached_tokens;
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
}
