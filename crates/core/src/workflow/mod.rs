//! `/plan`: explore, plan, implement, review (docs/plan.md). One run of
//! the session carries the whole workflow, so Stop, the live-run registry,
//! steering and the stored answer work as for any run:
//!
//! - before its first model call, two read-only sub-runs explore (from a
//!   snapshot of the conversation) and plan (from the findings report
//!   only), and the plan waits for the user (run, edit, cancel);
//! - the approved plan is kept as a message and the run's own loop carries
//!   it out, with approvals, Stop, steering and the repeat guard as ever;
//! - where the run would end, a reviewer sub-run (read and `run_shell`,
//!   no file writes) judges the work; `NEEDS_FIX` keeps its punch list as
//!   a message and the loop goes on, a bounded number of times.
//!
//! Each phase reports its start and its result as events, which the
//! answer's record keeps, and is traced as a span. This module holds where
//! a workflow stands, its phases' prompts and tools and the reading of a
//! verdict; the run that carries it out is `workflow_run.rs`.

mod answers;
pub(crate) mod phases;
pub(crate) mod prompts;
pub(crate) mod verdict;

use std::sync::Mutex;

pub(crate) use answers::PlanAnswers;

/// Where a workflow stands, carried by its run's context.
#[derive(Debug)]
pub(crate) struct PlanFlow {
    /// What the user asked for (after `/plan`).
    pub(crate) request: String,
    state: Mutex<FlowState>,
}

#[derive(Debug, Default)]
pub(crate) struct FlowState {
    /// The plan the user approved (as edited).
    pub(crate) plan: String,
    /// The implement pass in progress, from 1.
    pub(crate) cycle: u32,
    /// Verdicts that could not be read so far.
    pub(crate) unreadable: u32,
    /// When the implement pass in progress began (`None` between passes
    /// and once the review ended the work).
    pub(crate) implementing: Option<std::time::Instant>,
}

impl PlanFlow {
    pub(crate) fn new(request: &str) -> Self {
        Self {
            request: request.trim().to_owned(),
            state: Mutex::default(),
        }
    }

    /// The error a `/plan` with no request ends with.
    pub(crate) fn refuse_empty(&self) -> Result<(), crate::error::RunError> {
        if self.request.is_empty() {
            return Err(crate::error::RunError::InvalidInput(
                "say what to do after /plan, e.g. `/plan fix the failing test in tests/`".into(),
            ));
        }
        Ok(())
    }

    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut FlowState) -> T) -> T {
        match self.state.lock() {
            Ok(mut s) => f(&mut s),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }
}

/// The text a workflow's run keeps as the user's message.
pub fn command_text(request: &str) -> String {
    format!("/plan {}", request.trim())
}

/// The request in `text` when it is a `/plan` command (`/plan` alone is
/// one with an empty request, which the run refuses with a clear error).
pub fn request_in(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix("/plan")?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
}
