//! The `/plan` workflow's run (docs/plan.md; where it stands and its
//! phases are `workflow/`): its entry points, and the explore, plan,
//! implement and review passes as sub-runs of the agent.
//!
//! Each is a step of the run's one machine (`run_state/flow.rs` decides
//! which comes when, and what a verdict leads to): explore, draft the plan,
//! its approval, the review where the loop would end, the verdict, and the
//! implement pass's end when the run ends otherwise.

use std::sync::Arc;
use std::time::Instant;

use hearth_protocol::{EventKind, PhaseOutcome, PlanAnswer, PlanChoice, SpanKind, WorkflowPhase};

use crate::deps::Deps;
use crate::driver::Scratch;
use crate::error::RunError;
use crate::handle::RunOutcome;
use crate::ids::{new_run_id, new_subagent_session_id};
use crate::message::{ChatMessage, MessageStatus, Role};
use crate::profile::Profile;
use crate::run::Run;
use crate::run_ctx::{RunCtx, TopRun};
use crate::run_state::Observation;
use crate::store::{InMemoryStore, SessionStore, Span};
use crate::workflow::verdict::{self, Review};
use crate::workflow::{PlanFlow, phases, prompts};

impl Run<'_> {
    /// The request of the workflow this run carries (none: a bug, said as
    /// the run's failure).
    fn flow(&self) -> Result<&PlanFlow, RunError> {
        self.ctx
            .workflow
            .as_deref()
            .ok_or_else(|| RunError::Internal("a /plan step in a run without a workflow".into()))
    }

    /// Explore, read-only, from a snapshot of the conversation.
    pub(crate) async fn explore(&self) -> Observation {
        let ctx = self.ctx;
        let flow = match self.flow() {
            Ok(flow) => flow,
            Err(e) => return Observation::Failed(e),
        };
        let mut snapshot = match ctx.store.history(&ctx.session_id).await {
            Ok(history) => history,
            Err(e) => return Observation::Failed(e.into()),
        };
        // The `/plan` message itself: the task below says it again.
        snapshot.pop();
        let tools = self.phase_tools(WorkflowPhase::Explore);
        let task = prompts::explore(&flow.request, &tools);
        match self.phase(WorkflowPhase::Explore, 0, task, snapshot).await {
            Ok((findings, _)) => Observation::Explored(findings),
            Err(end) => ended(end),
        }
    }

    /// Draft the plan from the findings only: it starts from a clean context.
    pub(crate) async fn draft_plan(&self, findings: &str) -> Observation {
        let flow = match self.flow() {
            Ok(flow) => flow,
            Err(e) => return Observation::Failed(e),
        };
        let tools = self.phase_tools(WorkflowPhase::Plan);
        let task = prompts::plan(&flow.request, findings, &tools);
        match self.phase(WorkflowPhase::Plan, 0, task, Vec::new()).await {
            Ok((plan, _)) => Observation::Drafted(plan),
            Err(end) => ended(end),
        }
    }

    /// Propose the plan and wait for the user; on approval the plan (as
    /// edited) is kept as the message the first implement pass answers.
    pub(crate) async fn await_plan(&self, scratch: &mut Scratch, plan: String) -> Observation {
        let flow = match self.flow() {
            Ok(flow) => flow,
            Err(e) => return Observation::Failed(e),
        };
        let plan = match self.approved(plan).await {
            Ok(plan) => plan,
            Err(end) => return ended(end),
        };
        let task = prompts::implement(&flow.request, &plan);
        match self.feed(scratch, 1, &task, "approved plan").await {
            Ok(()) => Observation::Approved(plan),
            Err(e) => Observation::Failed(e),
        }
    }

    /// Where the loop would end implement pass `cycle`: the pass ends, and
    /// a reviewer sub-run (read and `run_shell`, no file writes) judges it.
    pub(crate) async fn review(
        &self,
        scratch: &mut Scratch,
        cycle: u32,
        plan: &str,
    ) -> Observation {
        let ctx = self.ctx;
        let flow = match self.flow() {
            Ok(flow) => flow,
            Err(e) => return Observation::Failed(e),
        };
        let report = match last_answer(ctx).await {
            Ok(report) => report,
            Err(e) => return Observation::Failed(e),
        };
        let started = scratch
            .implementing
            .take()
            .map_or_else(Instant::now, |(_, t)| t);
        end_phase(
            ctx,
            WorkflowPhase::Implement,
            cycle,
            PhaseOutcome::Done,
            &report,
            started,
        )
        .await;
        let tools = self.phase_tools(WorkflowPhase::Review);
        let task = prompts::review(&flow.request, plan, &report, &tools);
        let (answer, checks) = match self
            .phase(WorkflowPhase::Review, cycle, task, Vec::new())
            .await
        {
            Ok(answer) => answer,
            // A review that failed (an empty answer, the cap on calls, a
            // repeating model) gave no verdict: it counts as unreadable.
            Err(RunOutcome::Failed { .. }) if !ctx.cancel.is_cancelled() => (String::new(), 0),
            Err(_) => return Observation::Interrupted,
        };
        Observation::Reviewed {
            review: verdict::read(&answer),
            checks,
        }
    }

    /// Announce the verdict the run decided on; `fixing`: keep its punch
    /// list as the message pass `cycle + 1` answers.
    pub(crate) async fn verdict(
        &self,
        scratch: &mut Scratch,
        cycle: u32,
        plan: &str,
        review: &Review,
        checks: u32,
        fixing: bool,
    ) -> Observation {
        self.ctx.sink.emit(EventKind::ReviewVerdict {
            cycle,
            verdict: review.verdict,
            punch_list: review.punch_list.clone(),
            fixing,
            checks,
        });
        if !fixing {
            return Observation::Accepted;
        }
        let flow = match self.flow() {
            Ok(flow) => flow,
            Err(e) => return Observation::Failed(e),
        };
        let fix = prompts::fix(&flow.request, plan, &review.punch_list);
        match self
            .feed(scratch, cycle + 1, &fix, "review punch list")
            .await
        {
            Ok(()) => Observation::FixSent,
            Err(e) => Observation::Failed(e),
        }
    }

    /// Keep `text` (the approved plan, a punch list) as the message
    /// implement pass `cycle` answers, screened like the user's own (it
    /// rests on what a model read), and begin that pass.
    async fn feed(
        &self,
        scratch: &mut Scratch,
        cycle: u32,
        text: &str,
        what: &str,
    ) -> Result<(), RunError> {
        let ctx = self.ctx;
        let id = ctx.keep_id(ChatMessage::user(text)).await?;
        self.screen_user(what, text).await?;
        scratch.implementing = Some((cycle, Instant::now()));
        ctx.sink.emit(EventKind::PhaseStarted {
            phase: WorkflowPhase::Implement,
            cycle,
            message_id: Some(id),
        });
        Ok(())
    }

    /// The run ended with an implement pass open (stopped, failed, or a
    /// queued message answered after the review): the pass ends the same
    /// way.
    pub(crate) async fn close_workflow(&self, scratch: &mut Scratch, outcome: &RunOutcome) {
        let Some((cycle, started)) = scratch.implementing.take() else {
            return;
        };
        let (how, report) = match outcome {
            RunOutcome::Answered { text, .. } => (PhaseOutcome::Done, text.clone()),
            RunOutcome::Stopped { .. } => (PhaseOutcome::Stopped, String::new()),
            RunOutcome::Failed { error, .. } => (PhaseOutcome::Failed, error.to_string()),
        };
        end_phase(
            self.ctx,
            WorkflowPhase::Implement,
            cycle,
            how,
            &report,
            started,
        )
        .await;
    }

    /// One read-only (or reviewing) phase as a sub-run: announced, traced,
    /// its report returned with how many of its tool calls ran. `Err`: how
    /// the whole run ends instead.
    async fn phase(
        &self,
        phase: WorkflowPhase,
        cycle: u32,
        task: String,
        snapshot: Vec<ChatMessage>,
    ) -> Result<(String, u32), RunOutcome> {
        let ctx = self.ctx;
        let started = Instant::now();
        ctx.sink.emit(EventKind::PhaseStarted {
            phase,
            cycle,
            message_id: None,
        });
        let profile = phases::profile_for(&self.profile(), self.phase_tools(phase));
        let (outcome, ran) = match self.phase_run(phase, cycle, task, profile, snapshot).await {
            Ok(o) => o,
            Err(e) => (RunOutcome::fail(e), 0),
        };
        let (how, report, result) = match outcome {
            RunOutcome::Answered { text, .. } if text.trim().is_empty() => {
                let error = RunError::Internal(format!(
                    "the {} phase ended without a report; try again, or a larger model",
                    phase.as_str()
                ));
                (
                    PhaseOutcome::Failed,
                    error.to_string(),
                    Err(RunOutcome::fail(error)),
                )
            }
            RunOutcome::Answered { text, .. } => (
                PhaseOutcome::Done,
                text.trim().to_owned(),
                Ok((text.trim().to_owned(), ran)),
            ),
            RunOutcome::Stopped { partial_text } => (
                PhaseOutcome::Stopped,
                partial_text,
                Err(RunOutcome::Stopped {
                    partial_text: String::new(),
                }),
            ),
            RunOutcome::Failed { error, .. } => {
                let report = format!("the {} phase failed: {error}", phase.as_str());
                (PhaseOutcome::Failed, report, Err(RunOutcome::fail(error)))
            }
        };
        end_phase(ctx, phase, cycle, how, &report, started).await;
        result
    }

    /// The tools `phase` may call in this run's profile.
    fn phase_tools(&self, phase: WorkflowPhase) -> Vec<String> {
        phases::tools_for(&self.deps.tools, &self.profile(), phase)
    }

    /// The phase's sub-run: its own scratch session (holding `snapshot`
    /// first), the fixed `profile`, events into the workflow's stream
    /// marked as the phase's, stopped with the run.
    async fn phase_run(
        &self,
        phase: WorkflowPhase,
        cycle: u32,
        task: String,
        profile: Profile,
        snapshot: Vec<ChatMessage>,
    ) -> Result<(RunOutcome, u32), RunError> {
        let ctx = self.ctx;
        let session_id = new_subagent_session_id();
        let scratch = Arc::new(InMemoryStore::new());
        let before = snapshot.len();
        for message in snapshot {
            scratch.append(&session_id, "snapshot", message).await?;
        }
        let run_id = new_run_id();
        let sink = ctx
            .sink
            .for_subagent(&session_id, &run_id, &phase_id(phase, cycle));
        let top = TopRun {
            session_id: session_id.clone(),
            run_id,
            text: task,
            attachments: Vec::new(),
            cancel: ctx.cancel.child_token(),
            sink,
            store: scratch.clone(),
            memory: None,
            preapproved: ctx.preapproved.clone(),
        };
        // No phase may change the workspace: its tools are the read-only
        // ones, and the reviewer's commands run with the folder mounted
        // read-only (crates/tools/src/sandbox).
        let sub = RunCtx {
            conversation: ctx.conversation.clone(),
            profile: Some(profile),
            depth: ctx.depth + 1,
            interactive: ctx.interactive,
            read_only: true,
            ..RunCtx::headless(top)
        };
        let outcome = drive_boxed(self.deps, &sub).await;
        // The calls of its own that ran (a result that is not an error).
        let history = scratch.history(&session_id).await.unwrap_or_default();
        let ran = history
            .iter()
            .skip(before)
            .filter(|m| m.role == Role::Tool && m.status == MessageStatus::Complete)
            .count();
        Ok((outcome, u32::try_from(ran).unwrap_or(u32::MAX)))
    }

    /// Propose `plan` and wait for the user: the plan to carry out (as
    /// edited), or how the run ends (cancelled, stopped).
    async fn approved(&self, plan: String) -> Result<String, RunOutcome> {
        let ctx = self.ctx;
        let hex = uuid::Uuid::new_v4().simple().to_string();
        let request_id = format!("plan_{}", &hex[..12]);
        let mut waiting = self.deps.approvals.plans.ask(&request_id);
        ctx.sink.emit(EventKind::PlanProposed {
            request_id: request_id.clone(),
            plan: plan.clone(),
        });
        // The plan may wait for hours: what the phases found is kept now.
        keep_record(ctx).await;
        let answer = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => None,
            a = waiting.answer() => a,
        };
        let (choice, chosen) = match answer {
            Some(PlanAnswer::Run { plan: None }) => (PlanChoice::Run, Some(plan)),
            Some(PlanAnswer::Run { plan: Some(edited) }) if edited.trim() == plan.trim() => {
                (PlanChoice::Run, Some(plan))
            }
            // An edit that leaves nothing is a cancel.
            Some(PlanAnswer::Run { plan: Some(edited) }) if !edited.trim().is_empty() => {
                (PlanChoice::Edited, Some(edited.trim().to_owned()))
            }
            _ => (PlanChoice::Cancelled, None),
        };
        ctx.sink
            .emit(EventKind::PlanAnswered { request_id, choice });
        chosen.ok_or(RunOutcome::Stopped {
            partial_text: String::new(),
        })
    }
}

/// The id a phase's events carry as their `parent_call_id`.
pub(crate) fn phase_id(phase: WorkflowPhase, cycle: u32) -> String {
    format!("phase_{}_{cycle}", phase.as_str())
}

/// A phase ended: announced with its report, traced as a span.
async fn end_phase(
    ctx: &RunCtx,
    phase: WorkflowPhase,
    cycle: u32,
    outcome: PhaseOutcome,
    report: &str,
    started: Instant,
) {
    ctx.sink.emit(EventKind::PhaseEnded {
        phase,
        cycle,
        outcome,
        report: report.to_owned(),
    });
    keep_record(ctx).await;
    let span = Span {
        kind: SpanKind::Phase,
        name: phase.as_str().to_owned(),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        error: (outcome == PhaseOutcome::Failed).then(|| report.to_owned()),
        detail: Some(match outcome {
            PhaseOutcome::Done => format!("pass {cycle}"),
            PhaseOutcome::Stopped => format!("pass {cycle}, stopped"),
            PhaseOutcome::Failed => format!("pass {cycle}, failed"),
        }),
        ..Span::default()
    };
    if let Err(e) = ctx.store.record_span(&ctx.run_id, &span).await {
        tracing::warn!("tracing the {} phase failed: {e}", phase.as_str());
    }
}

/// The text of the run's last answer (what the implement pass said).
async fn last_answer(ctx: &RunCtx) -> Result<String, RunError> {
    let history = ctx.store.history(&ctx.session_id).await?;
    Ok(history
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant && m.tool_calls.is_empty())
        .map(|m| m.content.clone())
        .unwrap_or_default())
}

/// Keep what the run showed so far with it (the phases and their
/// reports): a crash or a quit mid-workflow loses none of it. Rewritten
/// whole at the run's end.
async fn keep_record(ctx: &RunCtx) {
    let Some(record) = ctx.sink.record() else {
        return;
    };
    if let Err(e) = ctx.store.record_answer(&ctx.run_id, &record.events()).await {
        tracing::warn!("keeping the workflow's phases failed: {e}");
    }
}

/// How a phase that did not give its result ends the run: stopped (the
/// user stopped it, or cancelled the plan) or failed.
fn ended(end: RunOutcome) -> Observation {
    match end {
        RunOutcome::Failed { error, .. } => Observation::Failed(error),
        RunOutcome::Stopped { .. } | RunOutcome::Answered { .. } => Observation::Interrupted,
    }
}

/// A run's drive behind a box, for a run driven from inside another run's
/// future (a plain fn, so proving it `Send` is no cycle).
fn drive_boxed<'a>(
    deps: &'a Deps,
    ctx: &'a RunCtx,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = RunOutcome> + Send + 'a>> {
    Box::pin(async move { Run::new(deps, ctx).drive().await })
}
