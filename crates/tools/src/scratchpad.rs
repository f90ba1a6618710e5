//! scratchpad: notes the model keeps for itself during a session. Each
//! session id has its own pad, so a sub-agent (`subagent_…`) never sees
//! its parent's or a sibling's. In memory: it lasts as long as the app.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use hearth_core::{Tool, ToolContext, ToolError, ToolSpec};
use serde_json::{Value, json};

use crate::output::{MAX_OUTPUT_CHARS, cap};

/// Per-session notes.
#[derive(Default)]
pub struct Scratchpad(Mutex<HashMap<String, String>>);

/// Largest pad kept per session.
const MAX_PAD: usize = 64 * 1024;

#[async_trait]
impl Tool for Scratchpad {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "scratchpad".into(),
            description: "Your private notes for this session: action `read`, `append` (add text) or `clear`.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["read", "append", "clear"]},
                    "text": {"type": "string", "description": "for append"}
                },
                "required": ["action"]
            }),
        }
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let action = args.get("action").and_then(Value::as_str).unwrap_or("read");
        let mut pads = self
            .0
            .lock()
            .map_err(|_| ToolError::Failed("the scratchpad is unavailable".into()))?;
        let pad = pads.entry(ctx.session_id.clone()).or_default();
        match action {
            "read" if pad.is_empty() => Ok("(the scratchpad is empty)".into()),
            "read" => Ok(cap(pad.clone(), MAX_OUTPUT_CHARS, "scratchpad", "")),
            "append" => {
                let text = args.get("text").and_then(Value::as_str).unwrap_or_default();
                if pad.len() + text.len() > MAX_PAD {
                    return Err(ToolError::Failed(format!(
                        "the scratchpad is full ({MAX_PAD} bytes); clear it or keep notes shorter"
                    )));
                }
                if !pad.is_empty() {
                    pad.push('\n');
                }
                pad.push_str(text);
                Ok(format!("noted ({} bytes in the scratchpad)", pad.len()))
            }
            "clear" => {
                pad.clear();
                Ok("the scratchpad is empty".into())
            }
            other => Err(ToolError::InvalidArguments(format!(
                "unknown action `{other}`; use read, append or clear"
            ))),
        }
    }
}
