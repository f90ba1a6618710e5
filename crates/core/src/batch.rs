//! A batch: the tool calls of one model answer. How it runs (parallel or
//! in order), the ids its calls get, and the results of calls that never
//! run. Pure; `tools_exec` runs batches.

use std::collections::HashSet;

use crate::backend::RawToolCall;
use crate::ids::new_call_id;
use crate::message::ToolCall;
use crate::tool::ToolEffect;

/// The tool result given to every call the user's Stop left unanswered.
pub const CANCELLED_RESULT: &str = "operation cancelled by user";

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
