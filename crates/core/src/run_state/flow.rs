//! A `/plan` run's phases as states of its one machine (docs/plan.md):
//! explore, draft the plan, wait for the user's word, then the run's own
//! loop implements; where the loop would end a pass, the review; its
//! verdict sends the work back (a bounded number of times) or lets the run
//! end as any run does. The phases' work — sub-runs, prompts, events — is
//! the driver's (`workflow_run.rs`); what follows what is decided here.

use super::{Facts, Observation, Phase, RunState, Step};
use crate::workflow::verdict::{self, AfterReview, Review};
use hearth_protocol::Verdict;

/// Where a `/plan` run's workflow stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Flow {
    /// Read-only exploration comes first.
    Explore,
    /// The plan is drafted from the findings only.
    Draft { findings: String },
    /// The plan waits for the user (run, edit, cancel).
    AwaitPlan { plan: String },
    /// The loop carries out `plan`, pass `cycle` (from 1); `unreadable`:
    /// verdicts so far that could not be read.
    Implement {
        plan: String,
        cycle: u32,
        unreadable: u32,
    },
    /// Pass `cycle` was reviewed; the verdict is announced next.
    Judged {
        plan: String,
        cycle: u32,
        unreadable: u32,
        review: Review,
        checks: u32,
    },
    /// The review ended the work: the run ends as any run does.
    Done,
}

/// The workflow's own step, where it has one before anything else.
pub(super) fn step(flow: &Flow, f: &Facts<'_>) -> Option<Step> {
    Some(match flow {
        Flow::Explore => Step::Explore,
        Flow::Draft { findings } => Step::DraftPlan {
            findings: findings.clone(),
        },
        Flow::AwaitPlan { plan } => Step::AwaitPlan { plan: plan.clone() },
        Flow::Judged {
            plan,
            cycle,
            unreadable,
            review,
            checks,
        } => Step::Verdict {
            cycle: *cycle,
            plan: plan.clone(),
            review: review.clone(),
            checks: *checks,
            fixing: verdict::after(review.verdict, *cycle, f.review_cycles, *unreadable)
                == AfterReview::Fix,
        },
        Flow::Implement { .. } | Flow::Done => return None,
    })
}

/// Where the loop would end (an answer without calls): an implement pass
/// is reviewed once nothing the user queued waits; otherwise the queue is
/// closed and the run ends unless it holds messages.
pub(super) fn at_close(s: &RunState, f: &Facts<'_>) -> Step {
    match &s.flow {
        Some(Flow::Implement { plan, cycle, .. }) if !f.queued => Step::Review {
            cycle: *cycle,
            plan: plan.clone(),
        },
        _ => Step::SendQueued { closing: true },
    }
}

/// Fold what a workflow step saw.
pub(super) fn observe(s: &mut RunState, o: Observation) {
    let flow = s.flow.take();
    s.flow = match (flow, o) {
        (_, Observation::Explored(findings)) => Some(Flow::Draft { findings }),
        (_, Observation::Drafted(plan)) => Some(Flow::AwaitPlan { plan }),
        (_, Observation::Approved(plan)) => Some(Flow::Implement {
            plan,
            cycle: 1,
            unreadable: 0,
        }),
        (
            Some(Flow::Implement {
                plan,
                cycle,
                unreadable,
            }),
            Observation::Reviewed { review, checks },
        ) => Some(Flow::Judged {
            plan,
            cycle,
            unreadable,
            review,
            checks,
        }),
        (
            Some(Flow::Judged {
                plan,
                cycle,
                unreadable,
                review,
                ..
            }),
            Observation::FixSent,
        ) => {
            // The punch list is the message the next pass answers, with the
            // cap on model calls afresh.
            s.phase = Phase::ToolsRan;
            s.pass_start = s.model_calls;
            Some(Flow::Implement {
                plan,
                cycle: cycle + 1,
                unreadable: unreadable + u32::from(review.verdict == Verdict::Unreadable),
            })
        }
        (_, Observation::Accepted) => Some(Flow::Done),
        // Anything else leaves the workflow where it was.
        (flow, _) => flow,
    };
}
