//! `switch_profile`: the model moves the session to another profile. The
//! loop re-reads the profile before its next model call, so the new prompt,
//! tools and model apply from that call on.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::tool::{Tool, ToolContext, ToolError, ToolSpec};

/// Where profiles are switched (the store implements it).
#[async_trait]
pub trait ProfileSwitcher: Send + Sync {
    /// Names of the profiles the model may switch to.
    fn names(&self) -> Vec<String>;
    /// Make `name` the profile of `session_id`.
    async fn switch(&self, session_id: &str, name: &str) -> Result<(), String>;
}

/// The `switch_profile` tool over a [`ProfileSwitcher`].
pub struct SwitchProfile(pub Arc<dyn ProfileSwitcher>);

#[async_trait]
impl Tool for SwitchProfile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "switch_profile".into(),
            description: format!(
                "Switch this conversation to another profile (its instructions, tools and model apply from your next step). Profiles: {}.",
                self.0.names().join(", ")
            ),
            parameters: json!({
                "type": "object",
                "properties": {"name": {"type": "string", "description": "the profile's exact name"}},
                "required": ["name"]
            }),
        }
    }

    async fn call(&self, arguments: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let name = arguments
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::InvalidArguments("`name` (a string) is required".into()))?;
        self.0
            .switch(&ctx.session_id, name)
            .await
            .map_err(ToolError::Failed)?;
        Ok(format!(
            "switched to profile `{name}`; it applies from your next step"
        ))
    }
}
