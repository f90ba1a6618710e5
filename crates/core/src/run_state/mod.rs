//! The run as a state machine (docs/architecture.md, "The run as a state
//! machine"). Everything the loop decides from is in [`RunState`]; [`next`]
//! says what to do, without I/O; the driver (`driver.rs`) performs that step
//! and reports what happened as an [`Observation`], which [`observe`] folds
//! into the state. So every decision of a run — stop versus failure, the
//! retry after an overflow, answering calls that will not run, the cap on
//! model calls, messages queued during the run, the context budget's
//! compaction (`room.rs`), a `/plan` run's phases and its review's verdict
//! (`flow.rs`) — is a table test (`run_state/tests.rs`), and the driver
//! holds none of them.

mod flow;
mod room;

use std::collections::HashSet;

use crate::backend::RawToolCall;
use crate::error::RunError;
use crate::handle::RunOutcome;
use crate::message::{ChatMessage, MessageStatus, ToolCall};

pub(crate) use flow::Flow;
pub(crate) use room::{Measured, Room};

/// Where the conversation of the run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Phase {
    /// The user's message is stored; no model call yet.
    #[default]
    Start,
    /// The model answered; its calls (if any) are `pending`.
    Answered,
    /// The last batch ran and its results are stored.
    ToolsRan,
}

/// The planning phase of the run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Plan {
    /// Not asked yet.
    #[default]
    NotAsked,
    /// Asked: the plan the first answer continues, if there is one.
    Asked(Option<String>),
}

/// Everything the loop decides from.
#[derive(Debug, Default)]
pub(crate) struct RunState {
    pub(crate) phase: Phase,
    /// Model calls that returned (the planning call is not one).
    pub(crate) model_calls: u32,
    /// `model_calls` when the current pass began: a `/plan` fix pass gets
    /// the profile's cap afresh (0 for every other run).
    pub(crate) pass_start: u32,
    /// Calls of the last answer that have no result yet.
    pub(crate) pending: Vec<ToolCall>,
    /// The text of the answer in progress, for the end event's
    /// `partial_text` (cleared once its tools ran: it is complete).
    pub(crate) last_text: String,
    pub(crate) plan: Plan,
    /// Model-and-options keys known to be loaded by this run's preload.
    pub(crate) loaded: HashSet<String>,
    /// Messages queued during the run are due after the last batch.
    pub(crate) queue_due: bool,
    /// The server said the prompt did not fit; compaction is due before the
    /// one retry. Holds the error to report if compaction cannot help.
    pub(crate) overflow: Option<RunError>,
    pub(crate) overflow_retried: bool,
    /// The prompt the next model call sends, measured against the window
    /// (`None` until `Step::Measure` ran, and again once a call sent it).
    pub(crate) measured: Option<Measured>,
    /// The budget's compaction was tried for the prompt being measured.
    pub(crate) budget_compacted: bool,
    /// Where a `/plan` run's workflow stands (`None` for any other run).
    pub(crate) flow: Option<Flow>,
    /// A wait (load, plan, the model call) ended because the user stopped.
    pub(crate) stopping: bool,
    /// A failure that ends the run once its calls are answered.
    pub(crate) failure: Option<RunError>,
    /// The run's end, decided.
    pub(crate) finished: Option<RunOutcome>,
}

/// What the driver reads from the world before each step: the user's stop,
/// and the profile in effect now (a tool may switch it mid-run).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts<'a> {
    pub(crate) stopped: bool,
    pub(crate) max_calls: u32,
    /// This run plans before its first answer (streaming entry point and
    /// the profile enables it).
    pub(crate) planning: bool,
    /// The model and load options the next call uses (`Deps::load_key`).
    pub(crate) load_key: &'a str,
    /// A top-level run: only it compacts the session for the budget (a
    /// sub-agent's conversation is its own scratch).
    pub(crate) top: bool,
    /// The user queued a message that no boundary took in yet.
    pub(crate) queued: bool,
    /// How many times a `/plan` review may send the work back (the
    /// profile's `review_cycles`).
    pub(crate) review_cycles: u32,
}

/// Why calls get a result without running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unrun {
    /// The run stopped or failed before they ran.
    Cancelled,
    /// The cap on model calls was reached.
    OverCap(u32),
}

/// The next thing to do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    /// Load the model with a request Stop never cancels.
    Load,
    /// Ask whether the request needs a plan.
    Plan,
    /// Call the model, continuing from `prefill` when it is set.
    CallModel { prefill: Option<String> },
    /// Run the last answer's calls.
    RunTools(Vec<ToolCall>),
    /// Give calls that will not run their result.
    AnswerUnrun { calls: Vec<ToolCall>, why: Unrun },
    /// Build the next call's prompt and count it against the window.
    Measure,
    /// Summarize older messages: the prompt is over budget, or the server
    /// said it did not fit.
    Compact(Room),
    /// Add the messages the user queued; `closing` closes an empty queue.
    SendQueued { closing: bool },
    /// `/plan`: explore read-only, from a snapshot of the conversation.
    Explore,
    /// `/plan`: draft the plan from the findings only.
    DraftPlan { findings: String },
    /// `/plan`: propose the plan and wait for the user's word; on approval
    /// it becomes the message the first implement pass answers.
    AwaitPlan { plan: String },
    /// `/plan`: where the loop would end implement pass `cycle`, review it.
    Review { cycle: u32, plan: String },
    /// `/plan`: announce the review's verdict; `fixing` sends its punch
    /// list back as the message the next pass answers.
    Verdict {
        cycle: u32,
        plan: String,
        review: crate::workflow::verdict::Review,
        checks: u32,
        fixing: bool,
    },
    /// The run is over.
    Finish(RunOutcome),
}

/// How a model call ended, as the loop needs to know it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ModelEnd {
    Done,
    Stopped,
    /// The prompt did not fit the window.
    Overflow(RunError),
    Failed(RunError),
}

/// What the driver saw when it performed a step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Observation {
    /// The model is loaded under this key.
    Loaded(String),
    /// The planning call answered (with a plan or without).
    Planned(Option<String>),
    /// A model call ended; its answer (text as shown, calls with ids) is
    /// stored when [`keep_answer`] says so.
    Answered {
        text: String,
        calls: Vec<ToolCall>,
        end: ModelEnd,
    },
    /// The next call's prompt, counted.
    Measured(Measured),
    /// Compaction for `Room`: whether it made room.
    Compacted(Room, bool),
    /// The batch ran to the end; `spawned` when it started a sub-agent
    /// (which may have loaded another model).
    ToolsRan { spawned: bool },
    /// The user stopped the run during the batch.
    BatchStopped,
    /// The unrun calls have their results.
    CallsAnswered(Unrun),
    /// Queued messages were added.
    Sent { count: usize, closing: bool },
    /// `/plan`: what the explore phase found.
    Explored(String),
    /// `/plan`: the plan the plan phase drafted.
    Drafted(String),
    /// `/plan`: the user approved this plan (as edited); it is stored as
    /// the message the first implement pass answers, which has begun.
    Approved(String),
    /// `/plan`: the reviewer's verdict on the pass, and how many of its
    /// tool calls ran.
    Reviewed {
        review: crate::workflow::verdict::Review,
        checks: u32,
    },
    /// A `/plan` review sent the work back: its punch list is stored, and
    /// the next pass begins (with the cap on model calls afresh).
    FixSent,
    /// `/plan`: the verdict was announced and the work goes no further.
    Accepted,
    /// A wait ended because the user stopped.
    Interrupted,
    /// A step failed (storage, the guard's block, a repeating model).
    Failed(RunError),
}

/// Decide the next step.
pub(crate) fn next(s: &RunState, f: &Facts<'_>) -> Step {
    if let Some(end) = &s.finished {
        return Step::Finish(end.clone());
    }
    let stopping = f.stopped || s.stopping;
    // Calls of an answer that will not be continued still get results, so
    // the stored conversation stays valid for every template.
    if !s.pending.is_empty() && (stopping || s.failure.is_some()) {
        return Step::AnswerUnrun {
            calls: s.pending.clone(),
            why: Unrun::Cancelled,
        };
    }
    // A stop wins over a failure it caused (a dropped request fails).
    if stopping {
        return Step::Finish(RunOutcome::Stopped {
            partial_text: s.last_text.clone(),
        });
    }
    if let Some(error) = &s.failure {
        return Step::Finish(RunOutcome::Failed {
            error: error.clone(),
            partial_text: s.last_text.clone(),
        });
    }
    if s.overflow.is_some() {
        return Step::Compact(Room::Overflow);
    }
    if let Some(step) = s.flow.as_ref().and_then(|flow| flow::step(flow, f)) {
        return step;
    }
    match s.phase {
        Phase::Answered if s.pending.is_empty() => flow::at_close(s, f),
        Phase::Answered if s.model_calls - s.pass_start >= f.max_calls => Step::AnswerUnrun {
            calls: s.pending.clone(),
            why: Unrun::OverCap(f.max_calls),
        },
        Phase::Answered => Step::RunTools(s.pending.clone()),
        Phase::Start | Phase::ToolsRan => next_call(s, f),
    }
}

/// Before a model call: the queue, the load, the plan.
fn next_call(s: &RunState, f: &Facts<'_>) -> Step {
    if s.queue_due {
        return Step::SendQueued { closing: false };
    }
    if !s.loaded.contains(f.load_key) {
        return Step::Load;
    }
    if let Some(step) = room::before_call(s, f) {
        return step;
    }
    match &s.plan {
        Plan::NotAsked if f.planning && s.model_calls == 0 => Step::Plan,
        // The plan is the start of the first answer only.
        Plan::Asked(Some(plan)) if s.model_calls == 0 => Step::CallModel {
            prefill: Some(plan.clone()),
        },
        _ => Step::CallModel { prefill: None },
    }
}

/// Fold what happened into the state.
pub(crate) fn observe(s: &mut RunState, o: Observation) {
    match o {
        Observation::Loaded(key) => {
            s.loaded.insert(key);
        }
        Observation::Planned(plan) => s.plan = Plan::Asked(plan),
        Observation::Answered { text, calls, end } => fold_answer(s, text, calls, end),
        Observation::Measured(m) => s.measured = Some(m),
        Observation::Compacted(room, done) => room::compacted(s, room, done),
        Observation::ToolsRan { spawned } => {
            s.phase = Phase::ToolsRan;
            s.pending.clear();
            // The answer that asked for the tools is complete: a stop from
            // here on has no partial text.
            s.last_text.clear();
            s.queue_due = true;
            // A sub-agent may have evicted this model: load it again (a
            // no-op request when it is still resident).
            if spawned {
                s.loaded.clear();
            }
        }
        Observation::BatchStopped => {
            s.pending.clear();
            s.last_text.clear();
            s.stopping = true;
        }
        Observation::CallsAnswered(why) => {
            s.pending.clear();
            if let Unrun::OverCap(max) = why {
                s.finished = Some(RunOutcome::fail(RunError::MaxIterations(max)));
            }
        }
        Observation::Sent {
            count: 0,
            closing: true,
        } => {
            s.finished = Some(RunOutcome::Answered {
                text: std::mem::take(&mut s.last_text),
                iterations: s.model_calls,
            });
        }
        // The user wrote more while the model answered: answer it in this run.
        Observation::Sent { closing: true, .. } => s.phase = Phase::ToolsRan,
        Observation::Sent { closing: false, .. } => s.queue_due = false,
        o @ (Observation::Explored(_)
        | Observation::Drafted(_)
        | Observation::Approved(_)
        | Observation::Reviewed { .. }
        | Observation::FixSent
        | Observation::Accepted) => flow::observe(s, o),
        Observation::Interrupted => s.stopping = true,
        Observation::Failed(error) => s.finished = Some(RunOutcome::fail(error)),
    }
}

fn fold_answer(s: &mut RunState, text: String, calls: Vec<ToolCall>, end: ModelEnd) {
    s.model_calls += 1;
    // The prompt went out: the next call measures its own.
    s.measured = None;
    s.budget_compacted = false;
    match end {
        ModelEnd::Done => s.phase = Phase::Answered,
        ModelEnd::Stopped => s.stopping = true,
        // Nothing was produced: summarize the older messages and try once
        // more (the request went out with `truncate: false`).
        ModelEnd::Overflow(e) if !s.overflow_retried && text.is_empty() && calls.is_empty() => {
            s.overflow = Some(e);
        }
        ModelEnd::Overflow(e) | ModelEnd::Failed(e) => s.failure = Some(e),
    }
    s.last_text = text;
    s.pending = calls;
}

/// A model call's answer, shaped for the conversation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shaped {
    /// The message to store (plan joined, calls with ids).
    pub(crate) message: ChatMessage,
    /// The text as the user saw it stream (without the plan).
    pub(crate) shown: String,
}

/// Shape what a model call produced: text-form calls of a complete answer
/// become real calls (only names of `offered` tools), every call gets an
/// id unique in the run (`used`), and the plan the answer continues is
/// joined in front.
pub(crate) fn shape_answer(
    mut message: ChatMessage,
    mut raw: Vec<RawToolCall>,
    prefill: Option<&str>,
    offered: &[String],
    used: &mut HashSet<String>,
) -> Shaped {
    if raw.is_empty()
        && message.status == MessageStatus::Complete
        && let Some((calls, rest)) = crate::textcalls::extract(&message.content, offered)
    {
        raw = calls;
        message.content = rest;
    }
    message.tool_calls = crate::batch::assign_call_ids(raw, used);
    let shown = message.content.clone();
    if let Some(plan) = prefill {
        message.content = join_plan(plan, &message.content);
    }
    Shaped { message, shown }
}

/// Whether an answer is stored: a complete one always (even empty), one
/// that carries calls always (its calls get results), and an interrupted
/// or failed one when it has text to keep.
pub(crate) fn keep_answer(message: &ChatMessage) -> bool {
    message.status == MessageStatus::Complete
        || !message.content.is_empty()
        || !message.tool_calls.is_empty()
}

/// The first answer's content when it continues a plan: what the model
/// produced (plan + continuation), with a paragraph break when the server
/// started a new message instead of continuing.
pub(crate) fn join_plan(plan: &str, continuation: &str) -> String {
    if continuation.is_empty() {
        return plan.to_owned();
    }
    let glued =
        plan.ends_with(char::is_whitespace) || continuation.starts_with(char::is_whitespace);
    if glued {
        format!("{plan}{continuation}")
    } else {
        format!("{plan}\n\n{continuation}")
    }
}

#[cfg(test)]
mod tests;
