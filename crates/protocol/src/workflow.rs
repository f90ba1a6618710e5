//! The `/plan` workflow's words on the wire: its phases, how each ended,
//! the user's answer to the proposed plan, and the reviewer's verdict.

use serde::{Deserialize, Serialize};
use specta::Type;

/// A phase of the `/plan` workflow, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum WorkflowPhase {
    /// A read-only sub-run that reads the project and reports findings.
    Explore,
    /// A read-only sub-run that turns the findings into a plan.
    Plan,
    /// The run itself carrying out the plan (or the reviewer's punch list).
    Implement,
    /// A sub-run that may read and run commands, never write files, and
    /// answers with a verdict.
    Review,
}

impl WorkflowPhase {
    /// Its name, as sent (`explore`, `plan`, `implement`, `review`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Explore => "explore",
            Self::Plan => "plan",
            Self::Implement => "implement",
            Self::Review => "review",
        }
    }
}

/// How a phase ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum PhaseOutcome {
    /// It produced what it was for.
    Done,
    /// The user stopped the workflow during it.
    Stopped,
    /// It failed (its report says why).
    Failed,
}

/// The user's answer to a proposed plan (`answer_plan`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "choice", rename_all = "snake_case")]
pub enum PlanAnswer {
    /// Carry out the plan; `plan` replaces the proposed text when the user
    /// edited it.
    Run {
        /// The edited plan, or `None` to run the plan as proposed.
        #[serde(default)]
        plan: Option<String>,
    },
    /// Carry out nothing: the workflow ends with what it produced so far.
    Cancel,
}

/// What the user chose, as the workflow reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum PlanChoice {
    /// Run as proposed.
    Run,
    /// Run after the user's edit.
    Edited,
    /// Cancelled: nothing was implemented.
    Cancelled,
}

/// The reviewer's verdict on one implement pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The work does what the plan said, checked.
    Done,
    /// Something is missing or broken: the punch list says what.
    NeedsFix,
    /// The reviewer's answer held no verdict that could be read (treated
    /// as `needs_fix` once, then reported).
    Unreadable,
}

#[cfg(test)]
mod tests {
    use super::WorkflowPhase;

    #[test]
    fn names_match_the_wire() {
        for p in [
            WorkflowPhase::Explore,
            WorkflowPhase::Plan,
            WorkflowPhase::Implement,
            WorkflowPhase::Review,
        ] {
            assert_eq!(
                serde_json::to_value(p).unwrap(),
                serde_json::json!(p.as_str())
            );
        }
    }
}
