//! The context budget as the run decides it: measure, compact, refuse.

use super::super::*;
use super::*;
use crate::error::RunError;

fn limit(tokens: usize) -> Step {
    fail(
        RunError::ContextLimit {
            tokens,
            window: 1000,
        },
        "",
    )
}

/// A loaded run whose next prompt is `m`, its budget compaction tried or not.
fn with(m: Measured, budget_compacted: bool) -> RunState {
    RunState {
        measured: Some(m),
        budget_compacted,
        ..loaded()
    }
}

/// Rows of (name, state, facts, step decided).
#[test]
fn what_the_budget_decides_before_a_call() {
    let sub_agent = Facts {
        top: false,
        ..facts()
    };
    let planning = Facts {
        planning: true,
        ..facts()
    };
    let rows: Vec<(&str, RunState, Facts<'_>, Step)> = vec![
        (
            "a prompt not measured yet is measured",
            RunState {
                measured: None,
                ..loaded()
            },
            facts(),
            Step::Measure,
        ),
        (
            "the planning call is measured too, before it",
            RunState {
                measured: None,
                plan: Plan::NotAsked,
                ..loaded()
            },
            planning,
            Step::Measure,
        ),
        (
            "under 95 %: the call goes out (a warning is no decision)",
            with(measured(900, true), false),
            facts(),
            call_model(),
        ),
        (
            "over 95 %: compact first",
            with(measured(990, false), false),
            facts(),
            Step::Compact(Room::Budget),
        ),
        (
            "still over after compaction, counted by the server: refused before sending",
            with(measured(990, true), true),
            facts(),
            limit(990),
        ),
        (
            "still over on a raw estimate: sent, the server decides",
            with(measured(990, false), true),
            facts(),
            call_model(),
        ),
        (
            "a sub-agent does not compact its scratch conversation: refused when counted",
            with(measured(990, true), false),
            sub_agent,
            limit(990),
        ),
        (
            "a sub-agent's raw estimate over: sent",
            with(measured(990, false), false),
            sub_agent,
            call_model(),
        ),
        (
            "a stop wins over the budget",
            with(measured(990, true), true),
            stopped(),
            stop(""),
        ),
    ];
    for (name, state, f, want) in rows {
        assert_eq!(next(&state, &f), want, "{name}");
    }
}

#[test]
fn a_compaction_for_the_budget_measures_again_once() {
    let f = facts();
    let mut s = with(measured(990, true), false);
    assert_eq!(next(&s, &f), Step::Compact(Room::Budget));
    observe(&mut s, Observation::Compacted(Room::Budget, true));
    assert_eq!(
        next(&s, &f),
        Step::Measure,
        "the summary changed the prompt"
    );
    observe(&mut s, Observation::Measured(measured(800, true)));
    assert_eq!(next(&s, &f), call_model());
    // A compaction that could not help leaves the count as it was.
    let mut s = with(measured(990, true), false);
    observe(&mut s, Observation::Compacted(Room::Budget, false));
    assert_eq!(next(&s, &f), limit(990));
}

#[test]
fn each_call_measures_and_may_compact_afresh() {
    let f = facts();
    let mut s = with(measured(800, true), true);
    observe(&mut s, model("", &["a"], ModelEnd::Done));
    assert_eq!(s.measured, None);
    assert!(!s.budget_compacted);
    observe(&mut s, Observation::ToolsRan { spawned: false });
    observe(
        &mut s,
        Observation::Sent {
            count: 0,
            closing: false,
        },
    );
    assert_eq!(next(&s, &f), Step::Measure);
    observe(&mut s, Observation::Measured(measured(990, true)));
    assert_eq!(next(&s, &f), Step::Compact(Room::Budget));
}

#[test]
fn an_overflow_compaction_measures_again_before_the_retry() {
    let f = facts();
    let mut s = loaded();
    observe(
        &mut s,
        model("", &[], ModelEnd::Overflow(super::overflow())),
    );
    assert_eq!(next(&s, &f), Step::Compact(Room::Overflow));
    observe(&mut s, Observation::Compacted(Room::Overflow, true));
    assert_eq!(next(&s, &f), Step::Measure);
}
