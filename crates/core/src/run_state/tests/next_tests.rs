//! What each state leads to.

use super::super::*;
use super::*;
use crate::error::RunError;
use crate::handle::RunOutcome;

/// Rows of (name, state before, facts, step decided).
#[test]
fn what_comes_next_in_each_state() {
    let planning = Facts {
        planning: true,
        ..facts()
    };
    let rows: Vec<(&str, RunState, Facts<'_>, Step)> = vec![
        (
            "a new run loads the model first",
            RunState::default(),
            facts(),
            Step::Load,
        ),
        (
            "a loaded model with planning on: plan first",
            RunState {
                plan: Plan::NotAsked,
                ..loaded()
            },
            planning,
            Step::Plan,
        ),
        (
            "planning off: no planning call",
            RunState {
                plan: Plan::NotAsked,
                ..loaded()
            },
            facts(),
            call_model(),
        ),
        (
            "a plan is the prefill of the first call",
            RunState {
                plan: Plan::Asked(Some("1. a".into())),
                ..loaded()
            },
            planning,
            Step::CallModel {
                prefill: Some("1. a".into()),
            },
        ),
        (
            "DIRECT: the first call has no prefill",
            loaded(),
            planning,
            call_model(),
        ),
        (
            "the plan is never sent again after the first call",
            RunState {
                plan: Plan::Asked(Some("1. a".into())),
                phase: Phase::ToolsRan,
                model_calls: 1,
                ..loaded()
            },
            planning,
            call_model(),
        ),
        (
            "a profile switch to another model loads it",
            RunState {
                phase: Phase::ToolsRan,
                model_calls: 1,
                ..loaded()
            },
            Facts {
                load_key: "other",
                ..facts()
            },
            Step::Load,
        ),
        (
            "an answer without calls: close the queue",
            answered(1, "hi", &[]),
            facts(),
            Step::SendQueued { closing: true },
        ),
        (
            "an answer without calls on the last allowed call still succeeds",
            answered(20, "hi", &[]),
            facts(),
            Step::SendQueued { closing: true },
        ),
        (
            "an answer with calls: run them",
            answered(1, "", &["a", "b"]),
            facts(),
            Step::RunTools(vec![call("a"), call("b")]),
        ),
        (
            "calls at the cap are answered 'not run'",
            answered(20, "", &["a"]),
            facts(),
            unrun(&["a"], Unrun::OverCap(20)),
        ),
        (
            "after a batch, the queue is due before the next call",
            RunState {
                phase: Phase::ToolsRan,
                model_calls: 1,
                queue_due: true,
                ..loaded()
            },
            facts(),
            Step::SendQueued { closing: false },
        ),
        (
            "after the queue, the model is called again",
            RunState {
                phase: Phase::ToolsRan,
                model_calls: 1,
                ..loaded()
            },
            facts(),
            call_model(),
        ),
        (
            "a stop between an answer and its tools answers the calls",
            answered(1, "let me look", &["a"]),
            stopped(),
            unrun(&["a"], Unrun::Cancelled),
        ),
        (
            "a stop with no open calls ends with the answer's text",
            answered(1, "let me look", &[]),
            stopped(),
            stop("let me look"),
        ),
        (
            "a stop noticed by a wait ends the run",
            RunState {
                stopping: true,
                ..loaded()
            },
            facts(),
            stop(""),
        ),
        (
            "a failure's open calls are answered first",
            RunState {
                failure: Some(server_down()),
                ..answered(1, "par", &["a"])
            },
            facts(),
            unrun(&["a"], Unrun::Cancelled),
        ),
        (
            "then the failure ends the run, keeping the partial text",
            RunState {
                failure: Some(server_down()),
                ..answered(1, "par", &[])
            },
            facts(),
            fail(server_down(), "par"),
        ),
        (
            "a stop wins over the failure it caused",
            RunState {
                failure: Some(server_down()),
                ..answered(1, "par", &[])
            },
            stopped(),
            stop("par"),
        ),
        (
            "an overflow is compacted before the retry",
            RunState {
                overflow: Some(overflow()),
                ..loaded()
            },
            facts(),
            Step::Compact(Room::Overflow),
        ),
        (
            "a stop during an overflow is a stop",
            RunState {
                overflow: Some(overflow()),
                ..loaded()
            },
            stopped(),
            stop(""),
        ),
        (
            "a decided end is final, even with a stop",
            RunState {
                finished: Some(RunOutcome::fail(RunError::Repetition)),
                ..answered(3, "", &["a"])
            },
            stopped(),
            Step::Finish(RunOutcome::fail(RunError::Repetition)),
        ),
    ];
    for (name, state, f, want) in rows {
        assert_eq!(next(&state, &f), want, "{name}");
    }
}
