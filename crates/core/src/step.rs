//! What the loop does next, as plain code over plain values (docs/style.md §2).
//! The async driver asks [`next_step`] after every model call and tool batch.

use std::collections::HashSet;

use crate::backend::RawToolCall;
use crate::ids::new_call_id;
use crate::message::ToolCall;
use crate::tool::ToolEffect;

/// The tool result given to every call the user's Stop left unanswered.
pub const CANCELLED_RESULT: &str = "operation cancelled by user";

/// Where the loop is, after the last thing it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Nothing done yet.
    Start,
    /// The model answered with this many tool calls.
    Answered {
        /// Tool calls in the answer.
        tool_calls: usize,
    },
    /// The tool batch ran and its results were appended.
    ToolsRan,
}

/// The next thing to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Call the model (again).
    CallModel,
    /// Run the tool calls of the last answer.
    CallTools,
    /// The model answered without tools: the run is complete.
    Done,
    /// The user stopped the run.
    Stop,
    /// The model wants tools but the cap on model calls is reached: answer
    /// the calls with a "not run" result and end with an error.
    IterationCap,
}

/// Decide the next step. `model_calls` counts calls made so far.
pub fn next_step(progress: Progress, model_calls: u32, max_iterations: u32, stopped: bool) -> Step {
    if stopped {
        return Step::Stop;
    }
    match progress {
        Progress::Start => Step::CallModel,
        Progress::Answered { tool_calls: 0 } => Step::Done,
        Progress::Answered { .. } if model_calls >= max_iterations => Step::IterationCap,
        Progress::Answered { .. } => Step::CallTools,
        Progress::ToolsRan => Step::CallModel,
    }
}

/// How a batch of tool calls runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchMode {
    /// All at once (every call only reads).
    Parallel,
    /// One after the other, in call order (some call mutates:
    /// docs/background.md §5.5).
    Sequential,
}

/// A batch runs in parallel unless any call in it mutates.
pub fn batch_mode(effects: &[ToolEffect]) -> BatchMode {
    if effects.contains(&ToolEffect::Mutating) {
        BatchMode::Sequential
    } else {
        BatchMode::Parallel
    }
}

/// Give every call an id unique in the run: keep the server's id unless it
/// is missing or already used, else mint one.
pub(crate) fn assign_call_ids(raw: Vec<RawToolCall>, used: &mut HashSet<String>) -> Vec<ToolCall> {
    raw.into_iter()
        .map(|c| {
            let id = match c.id.filter(|id| !id.is_empty() && !used.contains(id)) {
                Some(id) => id,
                None => new_call_id(),
            };
            used.insert(id.clone());
            ToolCall {
                id,
                name: c.name,
                arguments: c.arguments,
            }
        })
        .collect()
}

/// The tool result for a call that the iteration cap kept from running.
pub(crate) fn not_run_result(max_iterations: u32) -> String {
    format!("not run: the limit of {max_iterations} model calls for this request was reached")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_follow_the_loop() {
        assert_eq!(next_step(Progress::Start, 0, 20, false), Step::CallModel);
        assert_eq!(
            next_step(Progress::Answered { tool_calls: 0 }, 1, 20, false),
            Step::Done
        );
        assert_eq!(
            next_step(Progress::Answered { tool_calls: 2 }, 1, 20, false),
            Step::CallTools
        );
        assert_eq!(next_step(Progress::ToolsRan, 1, 20, false), Step::CallModel);
        assert_eq!(
            next_step(Progress::Answered { tool_calls: 1 }, 20, 20, false),
            Step::IterationCap
        );
        // An answer without tools on the last allowed call is still a success.
        assert_eq!(
            next_step(Progress::Answered { tool_calls: 0 }, 20, 20, false),
            Step::Done
        );
        assert_eq!(next_step(Progress::ToolsRan, 3, 20, true), Step::Stop);
    }

    #[test]
    fn any_mutating_call_serializes_the_batch() {
        use ToolEffect::*;
        assert_eq!(batch_mode(&[ReadOnly, ReadOnly]), BatchMode::Parallel);
        assert_eq!(batch_mode(&[ReadOnly, Mutating]), BatchMode::Sequential);
        assert_eq!(batch_mode(&[]), BatchMode::Parallel);
    }

    #[test]
    fn ids_are_kept_minted_or_deduplicated() {
        let raw = |id: Option<&str>| RawToolCall {
            id: id.map(str::to_owned),
            name: "t".into(),
            arguments: json!({}),
        };
        let mut used = HashSet::new();
        let calls = assign_call_ids(
            vec![raw(Some("a")), raw(None), raw(Some("a")), raw(Some(""))],
            &mut used,
        );
        assert_eq!(calls[0].id, "a");
        let ids: HashSet<_> = calls.iter().map(|c| c.id.clone()).collect();
        assert_eq!(ids.len(), 4, "{calls:?}");
        assert!(calls[1].id.starts_with("call_"));
    }
}
