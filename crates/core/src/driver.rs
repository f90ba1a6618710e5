//! The async driver of a run: `run_stream`, `regenerate_stream` and `run`
//! (docs/background.md §1.1; `run_ephemeral` is in `subagent`) over one loop.
//! It asks `step::next_step` what to do and only does I/O: streams (`turn`),
//! runs tools (`tools_exec`), appends to the store, emits events.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use hearth_protocol::{EventKind, RunScope, StopReason, ToolOutcome};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::approvals::Approvals;
use crate::backend::{BackendError, ModelBackend, ModelRequest};
use crate::budget::estimate_request;
use crate::builder::AgentBuilder;
use crate::compaction::Why;
use crate::error::RunError;
use crate::events::EventSink;
use crate::handle::{RunHandle, RunOutcome};
use crate::ids::new_run_id;
use crate::memory::{MemorySource, PostTurnWorker};
use crate::message::{ChatMessage, MessageStatus, ToolCall};
use crate::pipeline::Outgoing;
use crate::planning::join_plan;
use crate::profile::{Profile, ProfileProvider};
pub(crate) use crate::run_ctx::RunCtx;
use crate::run_ctx::TerminalGuard;
use crate::run_support::fixed_tokens;
use crate::settings::ModelSettings;
use crate::steering::SteeringQueue;
use crate::step::{Progress, Step, assign_call_ids, next_step, not_run_result};
use crate::store::{InMemoryStore, SessionStore};
use crate::storm::StormBreaker;
use crate::tool::ToolRegistry;
use crate::tools_exec::{BatchEnd, record, run_batch};
use crate::turn::{CallEnd, Checkpoint, stream_call};

/// The agent: runs turns against a model backend.
pub struct Agent {
    pub(crate) backend: Arc<dyn ModelBackend>,
    pub(crate) named: HashMap<String, Arc<dyn ModelBackend>>,
    pub(crate) profiles: Arc<dyn ProfileProvider>,
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) tools: ToolRegistry,
    pub(crate) settings: Arc<ModelSettings>,
    pub(crate) memory: Option<String>,
    pub(crate) memory_source: Option<Arc<dyn MemorySource>>,
    pub(crate) workers: Vec<Arc<dyn PostTurnWorker>>,
    /// Cancels the post-turn work in progress when a new turn starts.
    /// Root of the post-turn work in progress; every new turn cancels it
    /// and installs a fresh one (a user turn pre-empts background work).
    pub(crate) background: std::sync::Mutex<CancellationToken>,
    pub(crate) max_depth: u32,
    /// Approval requests waiting for the user, and standing allowances.
    pub(crate) approvals: Arc<Approvals>,
    /// Where the memory flush before a compaction writes.
    pub(crate) memory_writer: Option<Arc<dyn crate::memory::MemoryWriter>>,
    /// The budget's token counts, calibrated per model.
    pub(crate) counter: crate::budget::TokenCounter,
    /// At most one summarizer per session.
    pub(crate) summarizers: Arc<crate::compaction::Summarizers>,
    /// The window the server reported per model at its last preload.
    pub(crate) reported_windows: std::sync::Mutex<HashMap<String, Option<u32>>>,
    /// Model loads in flight in their own tasks (Stop never cancels them).
    pub(crate) loads: crate::loads::Loads,
    /// Runs of this process whose end could not be recorded: repaired
    /// before the next run starts (`run_end.rs`).
    pub(crate) stale_runs: crate::run_end::StaleRuns,
}

impl Agent {
    /// Start building an agent over `backend` with `profiles`.
    pub fn builder(
        backend: Arc<dyn ModelBackend>,
        profiles: Arc<dyn ProfileProvider>,
    ) -> AgentBuilder {
        AgentBuilder {
            backend,
            named: HashMap::new(),
            profiles,
            store: Arc::new(InMemoryStore::new()),
            tools: ToolRegistry::new(),
            settings: Arc::new(ModelSettings::default()),
            memory: None,
            memory_source: None,
            workers: Vec::new(),
            max_depth: 2,
            approvals: Arc::default(),
            subagents: false,
            memory_writer: None,
        }
    }

    /// The per-model settings every request uses.
    pub fn settings(&self) -> &Arc<ModelSettings> {
        &self.settings
    }

    /// The session store.
    pub fn store(&self) -> &Arc<dyn SessionStore> {
        &self.store
    }

    /// The tools the model can call.
    pub fn tool_registry(&self) -> &ToolRegistry {
        &self.tools
    }

    /// The model loads this agent started that are still in flight. They
    /// outlive a stopped run on purpose; a front end that is about to exit
    /// waits for them ([`crate::Loads::settled`]), since leaving closes
    /// their connections and a disconnect during a load aborts it.
    pub fn loads(&self) -> &crate::loads::Loads {
        &self.loads
    }

    /// Streaming entry point: starts the run in its own task (it goes on if
    /// the consumer looks away) and returns its events and stop handle.
    pub fn run_stream(self: &Arc<Self>, session_id: &str, text: &str) -> RunHandle {
        self.start(session_id, text, false)
    }

    /// Answer the session's last user message again (regenerate, or retry
    /// after an error). The caller first moves the branch head to that user
    /// message (the store's `fork`), so the previous answer stays on its own
    /// branch. Fails when the branch does not end with a user message.
    pub fn regenerate_stream(self: &Arc<Self>, session_id: &str) -> RunHandle {
        self.start(session_id, "", true)
    }

    fn start(self: &Arc<Self>, session_id: &str, text: &str, regenerate: bool) -> RunHandle {
        let run_id = new_run_id();
        let cancel = CancellationToken::new();
        let (tx, rx) = mpsc::unbounded_channel();
        // A user turn pre-empts background work (docs/design.md §9): cancel the
        // root every earlier run's workers hang from, and give this run a new
        // one.
        let background = match self.background.lock() {
            Ok(mut root) => {
                let old = std::mem::replace(&mut *root, CancellationToken::new());
                old.cancel();
                root.clone()
            }
            Err(_) => CancellationToken::new(),
        };
        let steering = SteeringQueue::default();
        let ctx = RunCtx {
            preapproved: crate::rights::Preapproved::of(&self.profiles.active(session_id)),
            planning: true,
            interactive: true,
            parent_approver: None,
            background,
            steering: steering.clone(),
            session_id: session_id.to_owned(),
            run_id: run_id.clone(),
            text: text.to_owned(),
            cancel: cancel.clone(),
            sink: EventSink::new(RunScope::top(session_id, &run_id), tx),
            store: self.store.clone(),
            profile: None,
            memory: self.memory.clone(),
            depth: 0,
            regenerate,
        };
        let this = self.clone();
        let task = tokio::spawn(async move {
            let outcome = this.drive(&ctx).await;
            if matches!(outcome, RunOutcome::Answered { .. }) {
                this.run_workers(&ctx).await;
            }
            outcome
        });
        RunHandle {
            run_id,
            session_id: session_id.to_owned(),
            cancel,
            steering,
            events: rx,
            task,
        }
    }

    /// Non-streaming entry point: runs the whole loop, returns the answer.
    pub async fn run(
        &self,
        session_id: &str,
        text: &str,
        cancel: CancellationToken,
    ) -> Result<String, RunError> {
        let run_id = new_run_id();
        let ctx = RunCtx {
            session_id: session_id.to_owned(),
            sink: EventSink::discard(RunScope::top(session_id, &run_id)),
            run_id,
            text: text.to_owned(),
            cancel,
            store: self.store.clone(),
            profile: None,
            memory: self.memory.clone(),
            depth: 0,
            regenerate: false,
            background: CancellationToken::new(),
            steering: SteeringQueue::default(),
            // Nobody watches a non-streaming run: mutating calls are denied.
            interactive: false,
            planning: false,
            preapproved: crate::rights::Preapproved::of(&self.profiles.active(session_id)),
            parent_approver: None,
        };
        self.drive(&ctx).await.into_result()
    }

    /// The backend a profile selects; an unknown name is an error the user
    /// can fix in the profile.
    pub(crate) fn backend_for(
        &self,
        profile: &Profile,
    ) -> Result<&Arc<dyn ModelBackend>, RunError> {
        match &profile.backend {
            None => Ok(&self.backend),
            Some(name) => self.named.get(name).ok_or_else(|| {
                RunError::InvalidInput(format!(
                    "profile `{}` uses backend `{name}`, which is not configured",
                    profile.name
                ))
            }),
        }
    }

    pub(crate) fn profile(&self, ctx: &RunCtx) -> Profile {
        ctx.profile
            .clone()
            .unwrap_or_else(|| self.profiles.active(&ctx.session_id))
    }

    /// Run the loop and emit exactly one terminal event.
    pub(crate) async fn drive(&self, ctx: &RunCtx) -> RunOutcome {
        let profile = self.profile(ctx);
        ctx.sink.emit(EventKind::RunStarted {
            model: profile.model.clone(),
            profile: profile.name.clone(),
            context_window: self.settings.load_options(&profile.model).num_ctx,
        });
        // A sub-agent's run is a future inside the parent's tool call; when
        // the parent stops, that future is dropped mid-flight. The guard
        // still gives the run its one terminal event.
        let mut guard = TerminalGuard {
            sink: &ctx.sink,
            armed: true,
        };
        // Top-level runs only: a sub-agent's store is its own scratch.
        let stale = (ctx.depth == 0).then(|| self.stale_runs.clone());
        let outcome = crate::run_end::ended(self.run_loop(ctx), ctx, stale).await;
        guard.armed = false;
        match &outcome {
            RunOutcome::Answered { iterations, .. } => ctx.sink.emit(EventKind::StreamEnd {
                iterations: *iterations,
            }),
            RunOutcome::Stopped { partial_text } => ctx.sink.emit(EventKind::StreamStopped {
                reason: StopReason::User,
                partial_text: partial_text.clone(),
            }),
            RunOutcome::Failed {
                error,
                partial_text,
            } => ctx.sink.emit(EventKind::Error {
                error: error.to_info(),
                partial_text: partial_text.clone(),
            }),
        }
        outcome
    }

    async fn run_loop(&self, ctx: &RunCtx) -> RunOutcome {
        if ctx.text.trim().is_empty() && !ctx.regenerate {
            return RunOutcome::fail(RunError::InvalidInput("the message is empty".into()));
        }
        if ctx.depth == 0 {
            self.stale_runs.repair(ctx.store.as_ref()).await;
        }
        if let Err(e) = ctx.store.begin_run(&ctx.session_id, &ctx.run_id).await {
            return RunOutcome::fail(e);
        }
        let memory = match (&self.memory_source, ctx.depth) {
            (Some(source), 0) => match source.snapshot(&ctx.session_id).await {
                Ok(m) => m,
                Err(e) => return RunOutcome::fail(e),
            },
            _ => ctx.memory.clone(),
        };
        // The user's message is durable before any request leaves (unless
        // this run answers the last one again).
        if ctx.regenerate {
            let last = match ctx.store.history(&ctx.session_id).await {
                Ok(h) => h.last().map(|m| m.role),
                Err(e) => return RunOutcome::fail(e),
            };
            if last != Some(crate::message::Role::User) {
                return RunOutcome::fail(RunError::InvalidInput(
                    "nothing to answer again: the conversation does not end with your message"
                        .into(),
                ));
            }
        } else if let Err(e) = ctx
            .store
            .append(&ctx.session_id, &ctx.run_id, ChatMessage::user(&ctx.text))
            .await
        {
            return RunOutcome::fail(e);
        }
        // The input guard (docs/background.md §3.4) reads the user's message;
        // in `block` mode it is stored (nothing is lost) but not answered.
        if ctx.depth == 0 {
            let text = if ctx.regenerate {
                match ctx.store.history(&ctx.session_id).await {
                    Ok(h) => h.last().map(|m| m.content.clone()).unwrap_or_default(),
                    Err(e) => return RunOutcome::fail(e),
                }
            } else {
                ctx.text.clone()
            };
            if let Err(e) = self.screen_user(ctx, "user message", &text).await {
                return RunOutcome::fail(e);
            }
        }
        let mut progress = Progress::Start;
        let mut model_calls = 0u32;
        let mut preloaded: HashSet<String> = HashSet::new();
        let mut used_ids: HashSet<String> = HashSet::new();
        let mut pending: Vec<ToolCall> = Vec::new();
        let mut storm = StormBreaker::default();
        let mut offered_tools: Option<Vec<String>> = None;
        let mut last_text = String::new();
        let mut overflow_retried = false;
        loop {
            let profile = self.profile(ctx);
            match next_step(
                progress,
                model_calls,
                profile.max_iterations,
                ctx.cancel.is_cancelled(),
            ) {
                Step::Stop => {
                    // A stop between an answer and its tools: the calls
                    // still get their results, the answer stays as it was.
                    if let Err(e) = self.cancel_calls(ctx, &profile, &pending).await {
                        return RunOutcome::fail(e);
                    }
                    return RunOutcome::Stopped {
                        partial_text: std::mem::take(&mut last_text),
                    };
                }
                Step::Done => match self.send_queued(ctx, true).await {
                    // Nothing queued, and the queue is now closed.
                    Ok(0) => {
                        return RunOutcome::Answered {
                            text: std::mem::take(&mut last_text),
                            iterations: model_calls,
                        };
                    }
                    // The user wrote more while the model answered: answer
                    // that too, in this run.
                    Ok(_) => progress = Progress::ToolsRan,
                    Err(e) => return RunOutcome::fail(e),
                },
                Step::IterationCap => {
                    let base = self.tool_context(ctx, &profile);
                    for call in &pending {
                        let r = not_run_result(profile.max_iterations);
                        if let Err(e) =
                            record(ctx.store.as_ref(), &base, call, ToolOutcome::Error, r, 0).await
                        {
                            return RunOutcome::fail(e);
                        }
                    }
                    return RunOutcome::fail(RunError::MaxIterations(profile.max_iterations));
                }
                Step::CallTools => {
                    let base = self.tool_context(ctx, &profile);
                    // The tools offered to the call that asked for them, even
                    // if a switch happened since.
                    let enabled = offered_tools.as_deref();
                    let to_run = match self
                        .screen_repeats(ctx, &base, &mut storm, std::mem::take(&mut pending))
                        .await
                    {
                        Ok(calls) => calls,
                        Err(e) => return RunOutcome::fail(e),
                    };
                    // A sub-agent may have loaded another model and evicted
                    // this one: make sure it is resident again before the
                    // next call (a no-op request when it still is).
                    if to_run.iter().any(|c| c.name == "spawn_agent") {
                        preloaded.clear();
                    }
                    let guard = profile.input_guard;
                    match run_batch(
                        &self.tools,
                        enabled,
                        &to_run,
                        &base,
                        ctx.store.as_ref(),
                        guard,
                    )
                    .await
                    {
                        Ok(BatchEnd::Complete) => {
                            progress = Progress::ToolsRan;
                            // The answer that asked for the tools is done;
                            // a stop from here on has no partial text.
                            last_text.clear();
                            if let Err(e) = self.send_queued(ctx, false).await {
                                return RunOutcome::fail(e);
                            }
                        }
                        Ok(BatchEnd::Stopped) => {
                            return RunOutcome::Stopped {
                                partial_text: String::new(),
                            };
                        }
                        Err(e) => return RunOutcome::fail(e),
                    }
                }
                Step::CallModel => {
                    let backend = match self.backend_for(&profile) {
                        Ok(b) => b.clone(),
                        Err(e) => return RunOutcome::fail(e),
                    };
                    if let Err(outcome) = self
                        .ensure_loaded(ctx, &backend, &profile, &mut preloaded)
                        .await
                    {
                        return outcome;
                    }
                    let persona = self.profiles.persona();
                    let tools = self.tools.specs(profile.tools.as_deref());
                    offered_tools.clone_from(&profile.tools);
                    model_calls += 1;
                    let fixed = fixed_tokens(&persona, &profile, memory.as_deref(), &tools);
                    let window = self.window(&profile.model);
                    let outgoing = Outgoing {
                        persona: &persona,
                        profile_prompt: &profile.system_prompt,
                        memory: memory.as_deref(),
                        summary: None,
                        window,
                        turns: profile.history_turns,
                        guard: profile.input_guard,
                    };
                    let mut messages = match self
                        .within_budget(ctx, &backend, &profile, &outgoing, &tools, fixed)
                        .await
                    {
                        Ok(Some(m)) => m,
                        Ok(None) => continue,
                        Err(e) => return RunOutcome::fail(e),
                    };
                    // The plan, when there is one, is the start of this
                    // first answer: sent as a prefill, stored joined.
                    let mut prefill = None;
                    if model_calls == 1 && ctx.planning && profile.planning_enabled {
                        match self.plan(ctx, &backend, &profile, &messages).await {
                            Ok(Some(plan)) => {
                                messages.push(ChatMessage::assistant(plan.clone()));
                                prefill = Some(plan);
                            }
                            Ok(None) => {}
                            Err(outcome) => return outcome,
                        }
                    }
                    // What this prompt is estimated at, to calibrate the
                    // estimate by the server's count afterwards.
                    let sent_estimate = estimate_request(&messages, &tools);
                    let request = ModelRequest {
                        messages,
                        tools,
                        think: profile.think,
                        temperature: profile.temperature,
                        load: self.settings.load_options(&profile.model),
                        model: profile.model.clone(),
                        max_tokens: Some(profile.max_output_tokens),
                    };
                    let checkpoint = Checkpoint {
                        store: ctx.store.as_ref(),
                        session_id: &ctx.session_id,
                        run_id: &ctx.run_id,
                    };
                    let started = std::time::Instant::now();
                    let result = stream_call(
                        &backend,
                        &self.loads,
                        request,
                        &ctx.cancel,
                        &ctx.sink,
                        checkpoint,
                    )
                    .await;
                    self.record_model_span(ctx, &profile.model, started, &result.end)
                        .await;
                    let status = match &result.end {
                        CallEnd::Done(_) => MessageStatus::Complete,
                        CallEnd::Stopped => MessageStatus::Interrupted,
                        CallEnd::Failed(_) => MessageStatus::Error,
                    };
                    let mut message = result.message(status);
                    let mut raw_calls = result.tool_calls;
                    // A small model may write its calls as text: they
                    // become real calls (only names of offered tools).
                    if raw_calls.is_empty()
                        && status == MessageStatus::Complete
                        && let Some((calls, rest)) = crate::textcalls::extract(
                            &message.content,
                            self.tools
                                .offered_names(offered_tools.as_deref())
                                .as_slice(),
                        )
                    {
                        raw_calls = calls;
                        message.content = rest;
                    }
                    message.tool_calls = assign_call_ids(raw_calls, &mut used_ids);
                    let partial_text = message.content.clone();
                    if let Some(plan) = prefill.take() {
                        message.content = join_plan(&plan, &message.content);
                    }
                    let calls = message.tool_calls.clone();
                    // Keep the stored conversation valid: an answer that
                    // carries tool calls is stored even when empty, and its
                    // calls get results below.
                    if (!message.content.is_empty()
                        || !calls.is_empty()
                        || status == MessageStatus::Complete)
                        && let Err(e) = ctx
                            .store
                            .append(&ctx.session_id, &ctx.run_id, message)
                            .await
                    {
                        return RunOutcome::fail(e);
                    }
                    for c in &calls {
                        ctx.sink.emit(EventKind::ToolStarted {
                            call_id: c.id.clone(),
                            name: c.name.clone(),
                            arguments: c.arguments.clone(),
                        });
                    }
                    match result.end {
                        CallEnd::Done(info) => {
                            if let Some(counted) = info.usage.prompt_tokens {
                                self.counter.observe(&profile.model, sent_estimate, counted);
                            }
                            ctx.sink.emit(EventKind::Usage { usage: info.usage });
                            progress = Progress::Answered {
                                tool_calls: calls.len(),
                            };
                            last_text = partial_text;
                            pending = calls;
                        }
                        CallEnd::Stopped => {
                            if let Err(e) = self.cancel_calls(ctx, &profile, &calls).await {
                                return RunOutcome::fail(e);
                            }
                            return RunOutcome::Stopped { partial_text };
                        }
                        // The prompt did not fit (sent with truncate: false):
                        // summarize the older messages and try once more.
                        CallEnd::Failed(BackendError::ContextOverflow { .. })
                            if !overflow_retried
                                && partial_text.is_empty()
                                && calls.is_empty()
                                && self
                                    .compact_session(ctx, &backend, &profile, fixed, Why::Overflow)
                                    .await
                                    .is_some() =>
                        {
                            overflow_retried = true;
                        }
                        // The user stopped while the overflow was being
                        // summarized: a stop, not a failure.
                        CallEnd::Failed(_) if ctx.cancel.is_cancelled() => {
                            if let Err(e) = self.cancel_calls(ctx, &profile, &calls).await {
                                return RunOutcome::fail(e);
                            }
                            return RunOutcome::Stopped { partial_text };
                        }
                        CallEnd::Failed(err) => {
                            if let Err(e) = self.cancel_calls(ctx, &profile, &calls).await {
                                return RunOutcome::fail(e);
                            }
                            return RunOutcome::Failed {
                                error: err.into(),
                                partial_text,
                            };
                        }
                    }
                }
            }
        }
    }
}
