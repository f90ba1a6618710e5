//! `remember`: the model stores a fact about the user on purpose (the user
//! asked it to, or it is plainly durable). The store still refuses facts the
//! user deleted.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::memory::MemoryWriter;
use crate::tool::{Tool, ToolContext, ToolEffect, ToolError, ToolSpec};

/// The `remember` tool over a [`MemoryWriter`].
pub struct Remember(pub Arc<dyn MemoryWriter>);

#[async_trait]
impl Tool for Remember {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "remember".into(),
            description: "Save a durable fact about the user to long-term memory (shown in future conversations; \
                          the user can read, edit and delete it)."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"fact": {"type": "string", "description": "one short sentence"}},
                "required": ["fact"]
            }),
        }
    }

    fn effect(&self, _arguments: &Value) -> ToolEffect {
        // It writes, but only to the user's own memory, which they review.
        ToolEffect::ReadOnly
    }

    async fn call(&self, arguments: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let fact = arguments
            .get("fact")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .ok_or_else(|| {
                ToolError::InvalidArguments("`fact` (a non-empty string) is required".into())
            })?;
        // Held to memory's rules here too, so the model is told why.
        let fact = crate::memory::admit(fact)
            .map_err(|why| ToolError::Failed(format!("not saved: {why}")))?;
        let added = self
            .0
            .learn(
                &ctx.session_id,
                &ctx.run_id,
                "tool",
                &[crate::memory::NewFact::bare(fact)],
            )
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        Ok(if added.len() == 1 {
            "remembered".into()
        } else {
            "not saved: already known, or the user asked to forget it".into()
        })
    }
}
