//! A `/plan` run's phases and its review's verdict as states of the run.

use hearth_protocol::Verdict;

use super::super::*;
use super::*;
use crate::error::RunError;
use crate::handle::RunOutcome;

/// A `/plan` run whose pass `cycle` was reviewed with `verdict`.
fn judged(cycle: u32, unreadable: u32, verdict: Verdict) -> RunState {
    RunState {
        flow: Some(Flow::Judged {
            plan: PLAN.into(),
            cycle,
            unreadable,
            review: review(verdict),
            checks: 1,
        }),
        ..answered(2, "done", &[])
    }
}

fn verdict(cycle: u32, verdict: Verdict, fixing: bool) -> Step {
    Step::Verdict {
        cycle,
        plan: PLAN.into(),
        review: review(verdict),
        checks: 1,
        fixing,
    }
}

/// Rows of (name, state, facts, step decided).
#[test]
fn what_comes_next_in_a_workflow() {
    let queued = Facts {
        queued: true,
        ..facts()
    };
    let no_fixes = Facts {
        review_cycles: 0,
        ..facts()
    };
    let rows: Vec<(&str, RunState, Facts<'_>, Step)> = vec![
        (
            "a /plan run explores before anything else, the load included",
            RunState {
                flow: Some(Flow::Explore),
                ..RunState::default()
            },
            facts(),
            Step::Explore,
        ),
        (
            "a stop before the exploration ends the run stopped",
            RunState {
                flow: Some(Flow::Explore),
                ..RunState::default()
            },
            stopped(),
            stop(""),
        ),
        (
            "the findings are drafted into a plan",
            RunState {
                flow: Some(Flow::Draft {
                    findings: "tests/ fails".into(),
                }),
                ..RunState::default()
            },
            facts(),
            Step::DraftPlan {
                findings: "tests/ fails".into(),
            },
        ),
        (
            "the plan waits for the user",
            RunState {
                flow: Some(Flow::AwaitPlan { plan: PLAN.into() }),
                ..RunState::default()
            },
            facts(),
            Step::AwaitPlan { plan: PLAN.into() },
        ),
        (
            "an implement pass runs its calls as any run",
            RunState {
                flow: Some(implementing(1, 0)),
                ..answered(1, "", &["a"])
            },
            facts(),
            Step::RunTools(vec![call("a")]),
        ),
        (
            "where the loop would end a pass, the review",
            RunState {
                flow: Some(implementing(1, 0)),
                ..answered(2, "done", &[])
            },
            facts(),
            Step::Review {
                cycle: 1,
                plan: PLAN.into(),
            },
        ),
        (
            "a queued message is answered before the review",
            RunState {
                flow: Some(implementing(1, 0)),
                ..answered(2, "done", &[])
            },
            queued,
            Step::SendQueued { closing: true },
        ),
        (
            "a stop during the pass ends it stopped, not reviewed",
            RunState {
                flow: Some(implementing(1, 0)),
                ..answered(2, "done", &[])
            },
            stopped(),
            stop("done"),
        ),
        (
            "NEEDS_FIX with a pass left: the work goes back",
            judged(1, 0, Verdict::NeedsFix),
            facts(),
            verdict(1, Verdict::NeedsFix, true),
        ),
        (
            "NEEDS_FIX on the last pass allowed: the workflow gives up and says so",
            judged(3, 0, Verdict::NeedsFix),
            facts(),
            verdict(3, Verdict::NeedsFix, false),
        ),
        (
            "no fix passes allowed: the first NEEDS_FIX ends the work",
            judged(1, 0, Verdict::NeedsFix),
            no_fixes,
            verdict(1, Verdict::NeedsFix, false),
        ),
        (
            "a first unreadable verdict sends the work back",
            judged(1, 0, Verdict::Unreadable),
            facts(),
            verdict(1, Verdict::Unreadable, true),
        ),
        (
            "a second unreadable verdict ends the work",
            judged(2, 1, Verdict::Unreadable),
            facts(),
            verdict(2, Verdict::Unreadable, false),
        ),
        (
            "DONE ends the work",
            judged(1, 0, Verdict::Done),
            facts(),
            verdict(1, Verdict::Done, false),
        ),
        (
            "once the review ended the work, the run closes as any run",
            RunState {
                flow: Some(Flow::Done),
                ..answered(2, "done", &[])
            },
            facts(),
            Step::SendQueued { closing: true },
        ),
        (
            "a run without a workflow is never reviewed",
            answered(2, "done", &[]),
            facts(),
            Step::SendQueued { closing: true },
        ),
    ];
    for (name, state, f, want) in rows {
        assert_eq!(next(&state, &f), want, "{name}");
    }
}

/// A whole `/plan` run: explore, plan, approval, a pass sent back, a pass
/// whose verdict could not be read, a pass judged done, the run's end.
#[test]
fn a_workflow_walks_through_its_phases() {
    let f = facts();
    let mut s = RunState {
        flow: Some(Flow::Explore),
        ..RunState::default()
    };
    let pass = |text: &'static str| {
        [
            (Step::Measure, Observation::Measured(measured(100, false))),
            (call_model(), model(text, &[], ModelEnd::Done)),
        ]
    };
    let mut script = vec![
        (Step::Explore, Observation::Explored("tests/ fails".into())),
        (
            Step::DraftPlan {
                findings: "tests/ fails".into(),
            },
            Observation::Drafted("1. draft".into()),
        ),
        (
            Step::AwaitPlan {
                plan: "1. draft".into(),
            },
            // The user edited it.
            Observation::Approved(PLAN.into()),
        ),
        (Step::Load, Observation::Loaded(KEY.into())),
    ];
    script.extend(pass("fixed"));
    script.extend([
        (
            Step::Review {
                cycle: 1,
                plan: PLAN.into(),
            },
            reviewed(Verdict::NeedsFix),
        ),
        (verdict(1, Verdict::NeedsFix, true), Observation::FixSent),
    ]);
    script.extend(pass("fixed again"));
    script.extend([
        (
            Step::Review {
                cycle: 2,
                plan: PLAN.into(),
            },
            reviewed(Verdict::Unreadable),
        ),
        (verdict(2, Verdict::Unreadable, true), Observation::FixSent),
    ]);
    script.extend(pass("all green"));
    script.extend([
        (
            Step::Review {
                cycle: 3,
                plan: PLAN.into(),
            },
            reviewed(Verdict::Done),
        ),
        (verdict(3, Verdict::Done, false), Observation::Accepted),
        (
            Step::SendQueued { closing: true },
            Observation::Sent {
                count: 0,
                closing: true,
            },
        ),
    ]);
    for (i, (want, seen)) in script.into_iter().enumerate() {
        assert_eq!(next(&s, &f), want, "step {i}");
        observe(&mut s, seen);
    }
    assert_eq!(s.flow, Some(Flow::Done));
    assert_eq!(
        next(&s, &f),
        Step::Finish(RunOutcome::Answered {
            text: "all green".into(),
            iterations: 3,
        })
    );
}

/// How a phase that gave no result ends the run.
#[test]
fn a_phase_that_fails_or_is_stopped_ends_the_run() {
    let mut s = RunState {
        flow: Some(Flow::Explore),
        ..RunState::default()
    };
    observe(
        &mut s,
        Observation::Failed(RunError::Internal("the explore phase failed".into())),
    );
    assert_eq!(
        next(&s, &facts()),
        fail(RunError::Internal("the explore phase failed".into()), "")
    );
    // A plan the user cancelled: the run ends stopped, nothing implemented.
    let mut s = RunState {
        flow: Some(Flow::AwaitPlan { plan: PLAN.into() }),
        ..RunState::default()
    };
    observe(&mut s, Observation::Interrupted);
    assert_eq!(next(&s, &facts()), stop(""));
    // A stop during the review.
    let mut s = RunState {
        flow: Some(implementing(1, 0)),
        ..answered(2, "done", &[])
    };
    observe(&mut s, Observation::Interrupted);
    assert_eq!(next(&s, &facts()), stop("done"));
}

/// A verdict's bookkeeping: the next pass's number, and an unreadable
/// verdict counted so a second one ends the work.
#[test]
fn a_fix_pass_counts_its_cycle_and_unreadable_verdicts() {
    let mut s = judged(1, 0, Verdict::Unreadable);
    observe(&mut s, Observation::FixSent);
    assert_eq!(s.flow, Some(implementing(2, 1)));
    assert_eq!(s.phase, Phase::ToolsRan);
    assert_eq!(s.pass_start, 2, "the cap on model calls afresh");
    let mut s = judged(2, 1, Verdict::NeedsFix);
    observe(&mut s, Observation::FixSent);
    assert_eq!(s.flow, Some(implementing(3, 1)));
    // A FixSent with no verdict before it changes nothing.
    let mut s = RunState {
        flow: Some(implementing(1, 0)),
        ..answered(2, "done", &[])
    };
    observe(&mut s, Observation::FixSent);
    assert_eq!(s.flow, Some(implementing(1, 0)));
    assert_eq!(s.phase, Phase::Answered);
}
