//! What each observation leads to, and a whole run.

use super::super::*;
use super::*;
use crate::error::RunError;
use crate::handle::RunOutcome;

/// Rows of (name, state before, observation, facts, step that follows).
#[test]
fn what_each_observation_leads_to() {
    let rows: Vec<(&str, RunState, Observation, Facts<'_>, Step)> = vec![
        (
            "loaded: measure the prompt",
            RunState::default(),
            Observation::Loaded(KEY.into()),
            facts(),
            Step::Measure,
        ),
        (
            "a failed load ends the run",
            RunState::default(),
            Observation::Failed(server_down()),
            facts(),
            fail(server_down(), ""),
        ),
        (
            "a stop during the load ends it as stopped",
            RunState::default(),
            Observation::Interrupted,
            facts(),
            stop(""),
        ),
        (
            "planned: the plan is the prefill",
            RunState {
                plan: Plan::NotAsked,
                ..loaded()
            },
            Observation::Planned(Some("1. a".into())),
            Facts {
                planning: true,
                ..facts()
            },
            Step::CallModel {
                prefill: Some("1. a".into()),
            },
        ),
        (
            "a complete answer with calls: run them",
            loaded(),
            model("", &["a"], ModelEnd::Done),
            facts(),
            Step::RunTools(vec![call("a")]),
        ),
        (
            "a complete answer without calls: close the queue",
            loaded(),
            model("hello", &[], ModelEnd::Done),
            facts(),
            Step::SendQueued { closing: true },
        ),
        (
            "the cap counts the call that just returned",
            RunState {
                model_calls: 19,
                phase: Phase::ToolsRan,
                ..loaded()
            },
            model("", &["a"], ModelEnd::Done),
            facts(),
            unrun(&["a"], Unrun::OverCap(20)),
        ),
        (
            "stopped mid-answer with calls: they are answered",
            loaded(),
            model("par", &["a"], ModelEnd::Stopped),
            facts(),
            unrun(&["a"], Unrun::Cancelled),
        ),
        (
            "stopped mid-answer: a stop with the partial text",
            loaded(),
            model("par", &[], ModelEnd::Stopped),
            facts(),
            stop("par"),
        ),
        (
            "an overflow before any output: compact and retry once",
            loaded(),
            model("", &[], ModelEnd::Overflow(overflow())),
            facts(),
            Step::Compact(Room::Overflow),
        ),
        (
            "an overflow after some output is a failure",
            loaded(),
            model("par", &[], ModelEnd::Overflow(overflow())),
            facts(),
            fail(overflow(), "par"),
        ),
        (
            "a second overflow is a failure",
            RunState {
                overflow_retried: true,
                model_calls: 1,
                ..loaded()
            },
            model("", &[], ModelEnd::Overflow(overflow())),
            facts(),
            fail(overflow(), ""),
        ),
        (
            "compaction made room: measure the prompt again, then call",
            RunState {
                overflow: Some(overflow()),
                model_calls: 1,
                ..loaded()
            },
            Observation::Compacted(Room::Overflow, true),
            facts(),
            Step::Measure,
        ),
        (
            "compaction could not help: the overflow is the error",
            RunState {
                overflow: Some(overflow()),
                model_calls: 1,
                ..loaded()
            },
            Observation::Compacted(Room::Overflow, false),
            facts(),
            fail(overflow(), ""),
        ),
        (
            "compaction stopped by the user: a stop",
            RunState {
                overflow: Some(overflow()),
                model_calls: 1,
                ..loaded()
            },
            Observation::Compacted(Room::Overflow, false),
            stopped(),
            stop(""),
        ),
        (
            "a server failure with calls: answer them first",
            loaded(),
            model("par", &["a"], ModelEnd::Failed(server_down())),
            facts(),
            unrun(&["a"], Unrun::Cancelled),
        ),
        (
            "a failure while the user stopped: a stop",
            loaded(),
            model("par", &[], ModelEnd::Failed(server_down())),
            stopped(),
            stop("par"),
        ),
        (
            "calls answered after a stop: the run ends stopped",
            RunState {
                stopping: true,
                ..answered(1, "par", &["a"])
            },
            Observation::CallsAnswered(Unrun::Cancelled),
            facts(),
            stop("par"),
        ),
        (
            "calls answered at the cap: the cap's error",
            answered(20, "", &["a"]),
            Observation::CallsAnswered(Unrun::OverCap(20)),
            facts(),
            fail(RunError::MaxIterations(20), ""),
        ),
        (
            "the batch ran: queued messages go first",
            answered(1, "looking", &["a"]),
            Observation::ToolsRan { spawned: false },
            facts(),
            Step::SendQueued { closing: false },
        ),
        (
            "a stop during the batch: no partial text",
            answered(1, "looking", &["a"]),
            Observation::BatchStopped,
            facts(),
            stop(""),
        ),
        (
            "a repeating model ends the run",
            answered(3, "", &["a"]),
            Observation::Failed(RunError::Repetition),
            facts(),
            fail(RunError::Repetition, ""),
        ),
        (
            "the queue was empty and is closed: answered",
            answered(2, "done", &[]),
            Observation::Sent {
                count: 0,
                closing: true,
            },
            facts(),
            Step::Finish(RunOutcome::Answered {
                text: "done".into(),
                iterations: 2,
            }),
        ),
        (
            "the user wrote more meanwhile: answer it in this run (its prompt measured first)",
            answered(2, "done", &[]),
            Observation::Sent {
                count: 1,
                closing: true,
            },
            facts(),
            Step::Measure,
        ),
        (
            "queued messages added after a batch: call the model",
            RunState {
                phase: Phase::ToolsRan,
                queue_due: true,
                model_calls: 1,
                ..loaded()
            },
            Observation::Sent {
                count: 0,
                closing: false,
            },
            facts(),
            call_model(),
        ),
        (
            "the guard blocked a queued message: the run ends",
            RunState {
                phase: Phase::ToolsRan,
                queue_due: true,
                ..loaded()
            },
            Observation::Failed(RunError::InputBlocked(vec!["override".into()])),
            facts(),
            fail(RunError::InputBlocked(vec!["override".into()]), ""),
        ),
    ];
    for (name, mut state, seen, f, want) in rows {
        observe(&mut state, seen);
        assert_eq!(next(&state, &f), want, "{name}");
    }
}

#[test]
fn a_sub_agent_in_the_batch_makes_the_model_load_again() {
    let mut s = answered(1, "", &["a"]);
    observe(&mut s, Observation::ToolsRan { spawned: true });
    observe(
        &mut s,
        Observation::Sent {
            count: 0,
            closing: false,
        },
    );
    assert_eq!(next(&s, &facts()), Step::Load);
    let mut s = answered(1, "", &["a"]);
    observe(&mut s, Observation::ToolsRan { spawned: false });
    observe(
        &mut s,
        Observation::Sent {
            count: 0,
            closing: false,
        },
    );
    assert_eq!(next(&s, &facts()), Step::Measure, "loaded: only measured");
}

/// A whole run, step by step: plan, an answer with a call, the batch, a
/// final answer.
#[test]
fn a_run_walks_through_its_steps() {
    let f = Facts {
        planning: true,
        ..facts()
    };
    let mut s = RunState::default();
    let script = [
        (Step::Load, Observation::Loaded(KEY.into())),
        (Step::Measure, Observation::Measured(measured(100, false))),
        (Step::Plan, Observation::Planned(Some("1. read".into()))),
        (
            Step::CallModel {
                prefill: Some("1. read".into()),
            },
            model("", &["a"], ModelEnd::Done),
        ),
        (
            Step::RunTools(vec![call("a")]),
            Observation::ToolsRan { spawned: false },
        ),
        (
            Step::SendQueued { closing: false },
            Observation::Sent {
                count: 0,
                closing: false,
            },
        ),
        (Step::Measure, Observation::Measured(measured(300, true))),
        (call_model(), model("It says hi.", &[], ModelEnd::Done)),
        (
            Step::SendQueued { closing: true },
            Observation::Sent {
                count: 0,
                closing: true,
            },
        ),
    ];
    for (want, seen) in script {
        assert_eq!(next(&s, &f), want);
        observe(&mut s, seen);
    }
    assert_eq!(
        next(&s, &f),
        Step::Finish(RunOutcome::Answered {
            text: "It says hi.".into(),
            iterations: 2,
        })
    );
}

#[test]
fn a_plan_fix_pass_calls_the_model_again_with_the_cap_afresh() {
    let f = Facts {
        max_calls: 2,
        ..facts()
    };
    // Pass 1 used the whole cap; the review sent the work back.
    let mut s = RunState {
        flow: Some(implementing(1, 0)),
        ..answered(2, "done, I think", &[])
    };
    assert_eq!(
        next(&s, &f),
        Step::Review {
            cycle: 1,
            plan: PLAN.into()
        }
    );
    observe(&mut s, reviewed(Verdict::NeedsFix));
    assert!(matches!(next(&s, &f), Step::Verdict { fixing: true, .. }));
    observe(&mut s, Observation::FixSent);
    assert_eq!(s.flow, Some(implementing(2, 0)));
    assert_eq!(next(&s, &f), Step::Measure);
    observe(&mut s, Observation::Measured(measured(100, false)));
    assert_eq!(next(&s, &f), Step::CallModel { prefill: None });
    // Its first answer asks for a tool: under the cap of this pass.
    observe(
        &mut s,
        Observation::Answered {
            text: String::new(),
            calls: vec![call("a")],
            end: ModelEnd::Done,
        },
    );
    assert_eq!(next(&s, &f), Step::RunTools(vec![call("a")]));
    // The next one is its second: the cap of this pass holds.
    observe(&mut s, Observation::ToolsRan { spawned: false });
    observe(
        &mut s,
        Observation::Sent {
            count: 0,
            closing: false,
        },
    );
    observe(&mut s, Observation::Measured(measured(100, false)));
    observe(
        &mut s,
        Observation::Answered {
            text: String::new(),
            calls: vec![call("b")],
            end: ModelEnd::Done,
        },
    );
    assert!(
        matches!(
            next(&s, &f),
            Step::AnswerUnrun {
                why: Unrun::OverCap(2),
                ..
            }
        ),
        "{:?}",
        next(&s, &f)
    );
}
