//! `update_plan`: the model marks steps of its plan done, so the plan card
//! shows progress (beyond docs/background.md §1.2, which only shows the
//! plan).

use async_trait::async_trait;
use hearth_protocol::EventKind;
use serde_json::{Value, json};

use crate::tool::{Tool, ToolContext, ToolError, ToolSpec};

/// Reports which plan steps are done.
#[derive(Debug, Clone, Copy, Default)]
pub struct UpdatePlan;

/// Most steps a plan can have here (a guard against absurd numbers).
const MAX_STEP: u64 = 100;

#[async_trait]
impl Tool for UpdatePlan {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "update_plan".into(),
            description: "If you wrote a numbered plan, mark the steps that are done so the user sees your progress.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "done": {
                        "type": "array",
                        "items": {"type": "integer", "minimum": 1},
                        "description": "numbers of all steps done so far (1 = the first step)"
                    }
                },
                "required": ["done"]
            }),
        }
    }

    async fn call(&self, arguments: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let list = arguments
            .get("done")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                ToolError::InvalidArguments("`done` must be a list of step numbers".into())
            })?;
        let mut done = Vec::new();
        for v in list {
            // Small models write "2" as often as 2.
            let n = v
                .as_u64()
                .or_else(|| {
                    v.as_str()
                        .and_then(|s| s.trim().trim_end_matches('.').parse().ok())
                })
                .filter(|n| (1..=MAX_STEP).contains(n))
                .ok_or_else(|| {
                    ToolError::InvalidArguments(format!("`{v}` is not a step number (1, 2, …)"))
                })?;
            done.push(u32::try_from(n).unwrap_or(u32::MAX));
        }
        done.sort_unstable();
        done.dedup();
        ctx.events
            .emit(EventKind::PlanProgress { done: done.clone() });
        let list: Vec<String> = done.iter().map(u32::to_string).collect();
        Ok(if list.is_empty() {
            "no step marked done yet".into()
        } else {
            format!("marked done: step {}", list.join(", "))
        })
    }
}
