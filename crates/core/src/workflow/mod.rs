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
//! answer's record keeps, and is traced as a span. This module holds the
//! request, its phases' prompts and tools and the reading of a verdict;
//! where a workflow stands is a state of its run (`run_state/flow.rs`), and
//! the steps that carry it out are `workflow_run.rs`.

mod answers;
pub(crate) mod phases;
pub(crate) mod prompts;
pub(crate) mod verdict;

pub(crate) use answers::PlanAnswers;

/// The workflow a run carries: what the user asked for. Where it stands
/// is a state of the run (`run_state/flow.rs`).
#[derive(Debug)]
pub(crate) struct PlanFlow {
    /// What the user asked for (after `/plan`).
    pub(crate) request: String,
}

impl PlanFlow {
    pub(crate) fn new(request: &str) -> Self {
        Self {
            request: request.trim().to_owned(),
        }
    }

    /// The error a `/plan` with no request ends with.
    pub(crate) fn refuse_empty(&self) -> Result<(), crate::error::RunError> {
        if self.request.is_empty() {
            return Err(crate::error::RunError::EmptyPlan);
        }
        Ok(())
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
