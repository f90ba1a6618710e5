//! Running one batch of tool calls: in parallel unless a call mutates
//! (docs/background.md §5.5), each raced against Stop, each result stored
//! and announced as it completes. The context builder puts results back in
//! call order. Also the driver's other tool steps: the repeat guard's
//! screening, results for calls that never run, and what a call sees of
//! the run (`tool_context`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use hearth_protocol::{EventKind, GuardMode, GuardSource, SpanKind, ToolOutcome};

use crate::approvals::Gate;
use crate::batch::{BatchMode, CANCELLED_RESULT, batch_mode, not_run_result};
use crate::error::RunError;
use crate::guard::Report;
use crate::hooks::{After, BATCH_ENDED_RESULT, Before, Hooks, Outcome};
use crate::message::{ChatMessage, MessageStatus, ToolCall};
use crate::profile::Profile;
use crate::repair::repair_arguments;
use crate::repeat_guard::{RepeatGuard, SUPPRESSED, Verdict};
use crate::run::Run;
use crate::run_state::Unrun;
use crate::store::{SessionStore, Span, StoreError};
use crate::tool::{
    Approval, Offer, Question, Tool, ToolContext, ToolEffect, ToolError, ToolRegistry,
};

/// Ask before a mutating call, when the run has someone to ask.
async fn approve(tool: &dyn Tool, call: &ToolCall, ctx: &ToolContext) -> Approval {
    match &ctx.approver {
        Some(approver) if tool.needs_approval(&call.arguments) => {
            let reach = tool.reach(&call.arguments, ctx);
            let warning = tool.warning(&call.arguments, ctx);
            let question = Question {
                tool: &call.name,
                arguments: &call.arguments,
                reach: &reach,
                session_allowance: tool.session_allowance(),
                widens: false,
                warning: warning.as_deref(),
            };
            approver.approve(ctx, &question).await
        }
        _ => Approval::Allowed,
    }
}

/// The end of one call.
pub(crate) struct Finished {
    pub index: usize,
    pub outcome: ToolOutcome,
    pub output: String,
    pub duration_ms: u64,
    /// A hook ended the batch after this call.
    pub end_batch: bool,
}

/// How a batch ended.
pub(crate) enum BatchEnd {
    /// Every call has its result.
    Complete,
    /// Stopped: every unanswered call got [`CANCELLED_RESULT`].
    Stopped,
}

/// Run `calls`, appending each result to the store and then emitting its
/// `tool_event`. Only tools `offered` enables may run; `hooks` see each
/// call before and after it runs.
pub(crate) async fn run_batch(
    registry: &ToolRegistry,
    offered: &Offer,
    hooks: &dyn Hooks,
    calls: &[ToolCall],
    base: &ToolContext,
    store: &dyn SessionStore,
    guard: GuardMode,
) -> Result<BatchEnd, StoreError> {
    let tools: Vec<Option<Arc<dyn Tool>>> = calls
        .iter()
        .map(|c| registry.find(offered, &c.name))
        .collect();
    let effects: Vec<ToolEffect> = calls
        .iter()
        .zip(&tools)
        .map(|(c, t)| {
            t.as_ref()
                .map_or(ToolEffect::ReadOnly, |t| t.effect(&c.arguments))
        })
        .collect();
    let mode = batch_mode(&effects);
    let available = registry.offered_names(offered).join(", ");

    // Set once a call's tool is really called (past its hook and approval).
    let started: Vec<AtomicBool> = calls.iter().map(|_| AtomicBool::new(false)).collect();
    let mut answered = vec![false; calls.len()];
    let mut running: FuturesUnordered<BoxFuture<'_, Finished>> = FuturesUnordered::new();
    let mut next = 0;
    let start_next = |i: usize| {
        let tool = tools[i].clone();
        call_one(i, &calls[i], tool, base, &available, hooks, &started[i])
    };
    match mode {
        BatchMode::Parallel => {
            for i in 0..calls.len() {
                running.push(start_next(i));
            }
            next = calls.len();
        }
        BatchMode::Sequential if !calls.is_empty() => {
            running.push(start_next(0));
            next = 1;
        }
        BatchMode::Sequential => {}
    }

    while !running.is_empty() {
        let done = tokio::select! {
            biased;
            () = base.cancel.cancelled() => break,
            Some(done) = running.next() => done,
        };
        answered[done.index] = true;
        let end_batch = done.end_batch;
        keep_result(store, base, &calls[done.index], done, guard).await?;
        if end_batch {
            // Calls not started yet are answered, never run; those already
            // running (a parallel batch) finish.
            for i in next..calls.len() {
                answered[i] = true;
                let result = BATCH_ENDED_RESULT.to_owned();
                record(store, base, &calls[i], ToolOutcome::Cancelled, result, 0).await?;
            }
            next = calls.len();
        }
        if mode == BatchMode::Sequential && next < calls.len() {
            running.push(start_next(next));
            next += 1;
        }
    }
    drop(running);

    if answered.iter().all(|a| *a) {
        return Ok(BatchEnd::Complete);
    }
    for (i, call) in calls.iter().enumerate().filter(|(i, _)| !answered[*i]) {
        // A mutating call whose tool was running may have done part of its
        // work; one still waiting (for the user's answer, or its turn) never
        // ran.
        let output = if effects[i] == ToolEffect::Mutating && started[i].load(Ordering::SeqCst) {
            format!("{CANCELLED_RESULT} while it was running; it may have partly completed")
        } else {
            CANCELLED_RESULT.to_owned()
        };
        record(store, base, call, ToolOutcome::Cancelled, output, 0).await?;
    }
    Ok(BatchEnd::Stopped)
}

/// Store a finished call's result and announce it, then screen it.
/// Injections come in through what tools read: the result is screened once,
/// here (flagged on its way to the model by the pipeline; the stored text
/// stays as the tool returned it) — errors too, since a failing tool's
/// message can carry what it read. Cancelled and denied results are
/// Hearth's own words.
async fn keep_result(
    store: &dyn SessionStore,
    base: &ToolContext,
    call: &ToolCall,
    done: Finished,
    guard: GuardMode,
) -> Result<(), StoreError> {
    let screened =
        matches!(done.outcome, ToolOutcome::Ok | ToolOutcome::Error).then(|| done.output.clone());
    record(
        store,
        base,
        call,
        done.outcome,
        done.output,
        done.duration_ms,
    )
    .await?;
    if let Some(output) = screened {
        let report = Report {
            sink: &base.events,
            store,
            run_id: &base.run_id,
        };
        let what = format!("result of {}", call.name);
        report
            .screen(guard, GuardSource::Tool, Some(&call.id), &what, &output)
            .await;
    }
    Ok(())
}

/// Append a result, then announce it (events follow what they announce).
pub(crate) async fn record(
    store: &dyn SessionStore,
    base: &ToolContext,
    call: &ToolCall,
    outcome: ToolOutcome,
    output: String,
    duration_ms: u64,
) -> Result<(), StoreError> {
    // The store keeps no outcome: the result's status carries a failure or
    // a stop, so a stored card (after the run, after a restart) says
    // "failed" or "cancelled" as the live one did, never "done".
    let result = ChatMessage {
        status: match outcome {
            ToolOutcome::Error => MessageStatus::Error,
            ToolOutcome::Cancelled => MessageStatus::Interrupted,
            ToolOutcome::Ok | ToolOutcome::Denied => MessageStatus::Complete,
        },
        ..ChatMessage::tool_result(call, output.clone())
    };
    let appended = store.append(&base.session_id, &base.run_id, result).await?;
    base.events.stored(appended);
    let span = Span {
        kind: SpanKind::Tool,
        name: call.name.clone(),
        duration_ms,
        error: (outcome != ToolOutcome::Ok).then(|| output.chars().take(500).collect()),
        detail: Some(outcome_word(outcome).to_owned()),
        ..Span::default()
    };
    if let Err(e) = store.record_span(&base.run_id, &span).await {
        tracing::warn!("recording a tool span failed: {e}");
    }
    base.events.emit(EventKind::ToolEvent {
        call_id: call.id.clone(),
        name: call.name.clone(),
        outcome,
        output,
        duration_ms,
    });
    Ok(())
}

fn outcome_word(outcome: ToolOutcome) -> &'static str {
    match outcome {
        ToolOutcome::Ok => "ok",
        ToolOutcome::Error => "error",
        ToolOutcome::Cancelled => "cancelled",
        ToolOutcome::Denied => "denied",
    }
}

fn call_one<'a>(
    index: usize,
    call: &'a ToolCall,
    tool: Option<Arc<dyn Tool>>,
    base: &'a ToolContext,
    available: &'a str,
    hooks: &'a dyn Hooks,
    started: &'a AtomicBool,
) -> BoxFuture<'a, Finished> {
    Box::pin(async move {
        let mut end_batch = false;
        let (outcome, output, duration_ms) = match tool {
            None => {
                let names = if available.is_empty() {
                    "none"
                } else {
                    available
                };
                let e = ToolError::Failed(format!(
                    "unknown tool `{}`; the tools you can call are: {names}",
                    call.name
                ));
                (ToolOutcome::Error, format!("error: {e}"), 0)
            }
            Some(tool) => {
                let ctx = ToolContext {
                    call_id: call.id.clone(),
                    ..base.clone()
                };
                let ran = run_one(tool.as_ref(), call, &ctx, hooks, started).await;
                end_batch = ran.3;
                (ran.0, ran.1, ran.2)
            }
        };
        Finished {
            index,
            outcome,
            output,
            duration_ms,
            end_batch,
        }
    })
}

/// One call of a known tool: its arguments fitted to the schema, shown to
/// the `before_tool_call` hook, refused when it cannot run safely here,
/// asked about when it mutates, run, and its result shown to the
/// `after_tool_call` hook. How it ended, its result, how long the tool
/// itself took, and whether a hook ended the batch.
async fn run_one(
    tool: &dyn Tool,
    call: &ToolCall,
    ctx: &ToolContext,
    hooks: &dyn Hooks,
    started: &AtomicBool,
) -> (ToolOutcome, String, u64, bool) {
    let (outcome, output, duration_ms, ran) = match hooked_call(tool, call, ctx, hooks).await {
        Ok(call) => run_checked(tool, &call, ctx, started).await,
        Err(ended) => return (ended.0, ended.1, 0, false),
    };
    // Only a call that ran has a result for the hook to judge (not one
    // refused, denied or whose tool crashed before it started).
    if !ran {
        return (outcome, output, duration_ms, false);
    }
    let seen = Outcome {
        ok: outcome == ToolOutcome::Ok,
        output: &output,
    };
    match hooks.after_tool_call(call, seen, ctx).await {
        After::Pass => (outcome, output, duration_ms, false),
        After::Replace(text) => (outcome, text, duration_ms, false),
        After::EndBatch(None) => (outcome, output, duration_ms, true),
        After::EndBatch(Some(text)) => (outcome, text, duration_ms, true),
    }
}

/// The call as it will run: its arguments fitted to the schema, then as
/// the `before_tool_call` hook leaves them (fitted again when it changed
/// them). `Err` is the call's end when it cannot run or a hook blocked it.
async fn hooked_call(
    tool: &dyn Tool,
    call: &ToolCall,
    ctx: &ToolContext,
    hooks: &dyn Hooks,
) -> Result<ToolCall, (ToolOutcome, String)> {
    let schema = tool.spec().parameters;
    let fit = |arguments| {
        repair_arguments(arguments, &schema).map_err(|e| {
            let e = ToolError::InvalidArguments(e.to_string());
            (ToolOutcome::Error, format!("error: {e}"))
        })
    };
    let call = ToolCall {
        arguments: fit(call.arguments.clone())?,
        ..call.clone()
    };
    match hooks.before_tool_call(&call, ctx).await {
        Before::Pass => Ok(call),
        Before::Arguments(arguments) => Ok(ToolCall {
            arguments: fit(arguments)?,
            ..call
        }),
        Before::Block(result) => Err((ToolOutcome::Denied, result)),
    }
}

/// A call whose arguments are settled: refused when it cannot run safely
/// here, asked about when it mutates, then run. The last field: it ran.
async fn run_checked(
    tool: &dyn Tool,
    call: &ToolCall,
    ctx: &ToolContext,
    started: &AtomicBool,
) -> (ToolOutcome, String, u64, bool) {
    // A call that cannot run safely here is not put to the user.
    if let Some(why) = tool.refuse(&call.arguments, ctx) {
        return (ToolOutcome::Error, format!("error: {why}"), 0, false);
    }
    if let Approval::Denied(why) = approve(tool, call, ctx).await {
        return (ToolOutcome::Denied, why, 0, false);
    }
    started.store(true, Ordering::SeqCst);
    // The time the user took to answer is not the tool's.
    let started = Instant::now();
    // A panicking tool is a failed call, not a dead run.
    let result = std::panic::AssertUnwindSafe(tool.call(call.arguments.clone(), ctx))
        .catch_unwind()
        .await
        .unwrap_or_else(|_| {
            Err(ToolError::Failed(format!(
                "the tool `{}` crashed",
                call.name
            )))
        });
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match result {
        Ok(out) => (ToolOutcome::Ok, out, duration_ms, true),
        Err(e) => (ToolOutcome::Error, format!("error: {e}"), duration_ms, true),
    }
}

impl Run<'_> {
    /// Give calls that will not run their result: cancelled (a stop or a
    /// failure mid-answer) or not run (the cap on model calls).
    pub(crate) async fn answer_unrun(
        &self,
        profile: &Profile,
        calls: &[ToolCall],
        why: Unrun,
    ) -> Result<(), RunError> {
        let ctx = self.ctx;
        let base = self.tool_context(profile);
        let (outcome, result) = match why {
            Unrun::Cancelled => (ToolOutcome::Cancelled, CANCELLED_RESULT.to_owned()),
            Unrun::OverCap(max) => (ToolOutcome::Error, not_run_result(max)),
        };
        for call in calls {
            record(ctx.store.as_ref(), &base, call, outcome, result.clone(), 0).await?;
        }
        Ok(())
    }

    /// The repeat guard on a batch (docs/background.md §5.6): the calls to
    /// run. Suppressed calls get their result recorded here; a model that
    /// keeps repeating after the reflect prompt ends the run.
    pub(crate) async fn screen_repeats(
        &self,
        base: &ToolContext,
        offered: &Offer,
        guard: &mut RepeatGuard,
        pending: Vec<ToolCall>,
    ) -> Result<Vec<ToolCall>, RunError> {
        let ctx = self.ctx;
        let mutates = |c: &ToolCall| {
            self.deps
                .tools
                .find(offered, &c.name)
                .is_some_and(|t| t.effect(&c.arguments) == ToolEffect::Mutating)
        };
        let (run, suppressed, result, give_up) = match guard.judge(&pending, mutates) {
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
            guard.forget_reads();
        }
        Ok(run)
    }

    /// What a tool call of this run sees: the run's ids, Stop, events,
    /// the profile's workspace, and who to ask before mutating.
    pub(crate) fn tool_context(&self, profile: &Profile) -> ToolContext {
        let ctx = self.ctx;
        ToolContext {
            session_id: ctx.session_id.clone(),
            conversation: ctx.conversation.clone(),
            run_id: ctx.run_id.clone(),
            call_id: String::new(),
            cancel: ctx.cancel.clone(),
            events: ctx.sink.clone(),
            workspace: profile.workspace.clone(),
            scope: crate::rights::Scope::of(profile),
            approver: Some(match &ctx.parent_approver {
                Some(parent) => parent.clone(),
                None => Arc::new(Gate {
                    hub: self.deps.approvals.clone(),
                    session: ctx.session_id.clone(),
                    preapproved: ctx.preapproved.clone(),
                    interactive: ctx.interactive,
                }),
            }),
            depth: ctx.depth,
            sandbox_off: profile.sandbox_off,
            read_only: ctx.read_only,
            window: self.deps.window(&profile.model),
        }
    }
}
