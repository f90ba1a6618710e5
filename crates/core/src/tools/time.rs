//! `current_time`: the local date and time, so the model need not guess.

use async_trait::async_trait;
use chrono::{Local, Utc};
use serde_json::{Value, json};

use crate::tool::{Tool, ToolContext, ToolError, ToolSpec};

/// Tells the current date, time, weekday and UTC offset.
#[derive(Debug, Clone, Copy, Default)]
pub struct CurrentTime;

#[async_trait]
impl Tool for CurrentTime {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "current_time".into(),
            description:
                "Get the current date and time (local time of the user's computer, or UTC).".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "utc": {"type": "boolean", "description": "true for UTC instead of local time"}
                }
            }),
        }
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let utc = match arguments.get("utc") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(ToolError::InvalidArguments(format!(
                    "`utc` must be true or false, got {other}"
                )));
            }
        };
        let fmt = "%A %Y-%m-%d %H:%M:%S (UTC%:z)";
        Ok(if utc {
            Utc::now().format(fmt).to_string()
        } else {
            Local::now().format(fmt).to_string()
        })
    }
}
