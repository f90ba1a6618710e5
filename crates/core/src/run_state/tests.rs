//! The loop's decisions as tables: a state, what the driver observed, the
//! step that follows. No tokio, no I/O: every branch of a run is here —
//! `next_tests` (what each state leads to), `observe_tests` (what each
//! observation leads to, and whole runs), `shape_tests` (answers).

mod flow_tests;
mod next_tests;
mod observe_tests;
mod room_tests;
mod shape_tests;

use std::collections::HashSet;

use hearth_protocol::Verdict;
use serde_json::json;

use super::*;
use crate::backend::BackendError;
use crate::error::RunError;
use crate::handle::RunOutcome;
use crate::message::ToolCall;
use crate::workflow::verdict::Review;

pub(super) const KEY: &str = "model-key";

pub(super) fn call(id: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "read_file".into(),
        arguments: json!({"path": id}),
    }
}

/// A prompt of `tokens` in a window of 1000, counted by the server's
/// calibration or not.
pub(super) fn measured(tokens: usize, calibrated: bool) -> Measured {
    Measured {
        tokens,
        window: 1000,
        calibrated,
    }
}

/// A run whose model is loaded, whose next prompt is measured (and fits)
/// and whose plan was asked (none given).
pub(super) fn loaded() -> RunState {
    RunState {
        loaded: HashSet::from([KEY.to_owned()]),
        plan: Plan::Asked(None),
        measured: Some(measured(100, false)),
        ..RunState::default()
    }
}

/// The model answered `text` with `calls` on its `n`th call.
pub(super) fn answered(n: u32, text: &str, calls: &[&str]) -> RunState {
    RunState {
        phase: Phase::Answered,
        model_calls: n,
        last_text: text.into(),
        pending: calls.iter().map(|c| call(c)).collect(),
        // The call sent the measured prompt.
        measured: None,
        ..loaded()
    }
}

pub(super) fn facts() -> Facts<'static> {
    Facts {
        stopped: false,
        max_calls: 20,
        planning: false,
        load_key: KEY,
        top: true,
        queued: false,
        review_cycles: 2,
    }
}

pub(super) fn stopped() -> Facts<'static> {
    Facts {
        stopped: true,
        ..facts()
    }
}

pub(super) fn overflow() -> RunError {
    BackendError::ContextOverflow {
        message: "prompt too long".into(),
    }
    .into()
}

pub(super) fn server_down() -> RunError {
    BackendError::Unreachable {
        url: "http://127.0.0.1:11434".into(),
        detail: "connection refused".into(),
    }
    .into()
}

pub(super) fn model(text: &str, calls: &[&str], end: ModelEnd) -> Observation {
    Observation::Answered {
        text: text.into(),
        calls: calls.iter().map(|c| call(c)).collect(),
        end,
    }
}

pub(super) fn unrun(calls: &[&str], why: Unrun) -> Step {
    Step::AnswerUnrun {
        calls: calls.iter().map(|c| call(c)).collect(),
        why,
    }
}

pub(super) fn stop(text: &str) -> Step {
    Step::Finish(RunOutcome::Stopped {
        partial_text: text.into(),
    })
}

pub(super) fn fail(error: RunError, text: &str) -> Step {
    Step::Finish(RunOutcome::Failed {
        error,
        partial_text: text.into(),
    })
}

pub(super) fn call_model() -> Step {
    Step::CallModel { prefill: None }
}

/// The plan a `/plan` run in these tables carries out.
pub(super) const PLAN: &str = "1. fix the test";

/// A `/plan` run in implement pass `cycle`, `unreadable` verdicts so far.
pub(super) fn implementing(cycle: u32, unreadable: u32) -> Flow {
    Flow::Implement {
        plan: PLAN.into(),
        cycle,
        unreadable,
    }
}

/// The reviewer's `verdict`, with a punch list and one check that ran.
pub(super) fn review(verdict: Verdict) -> Review {
    Review {
        verdict,
        punch_list: vec!["run the tests".into()],
    }
}

pub(super) fn reviewed(verdict: Verdict) -> Observation {
    Observation::Reviewed {
        review: review(verdict),
        checks: 1,
    }
}
