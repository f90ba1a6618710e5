//! `spawn_agent` (docs/background.md §1.1): hands a self-contained task
//! to a sub-agent that runs with a named profile in its own in-memory
//! session (`run_ephemeral`). Its events reach the parent's stream live,
//! Stop reaches it, its transcript is kept with the parent's turn, and it
//! counts as mutating when its profile can mutate (the batch rule).

use std::sync::{Arc, Weak};

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::agent::Agent;
use crate::tool::{Tool, ToolContext, ToolEffect, ToolError, ToolSpec};

/// Runs a task in a sub-agent. Holds the agent weakly: the agent owns its
/// tools, so a strong reference would keep both alive forever.
pub struct SpawnAgent {
    agent: Weak<Agent>,
}

impl SpawnAgent {
    pub(crate) fn new(agent: Weak<Agent>) -> Self {
        Self { agent }
    }

    fn agent(&self) -> Result<Arc<Agent>, ToolError> {
        self.agent
            .upgrade()
            .ok_or_else(|| ToolError::Failed("the agent is shutting down".into()))
    }
}

fn profile_arg(arguments: &Value) -> Option<&str> {
    arguments
        .get("profile")
        .and_then(Value::as_str)
        .filter(|p| !p.trim().is_empty())
}

#[async_trait]
impl Tool for SpawnAgent {
    fn spec(&self) -> ToolSpec {
        let profiles = self
            .agent
            .upgrade()
            .map(|a| a.profile_names().join(", "))
            .unwrap_or_default();
        ToolSpec {
            name: "spawn_agent".into(),
            description: format!(
                "Give a self-contained task to a sub-agent and get its final answer. It starts with no memory of this conversation, so put everything it needs in `task`. Profiles: {profiles}."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "task": {"type": "string", "description": "the whole task, with all context it needs"},
                    "profile": {"type": "string", "description": "profile to run it with (default: the current one)"}
                },
                "required": ["task"]
            }),
        }
    }

    fn effect(&self, arguments: &Value) -> ToolEffect {
        // Unknown now (agent gone, profile missing) counts as mutating: the
        // batch then runs in order, which is always safe.
        let Some(agent) = self.agent.upgrade() else {
            return ToolEffect::Mutating;
        };
        match profile_arg(arguments) {
            Some(name) => agent
                .profile_can_mutate(name)
                .unwrap_or(ToolEffect::Mutating),
            None => ToolEffect::Mutating,
        }
    }

    fn needs_approval(&self, _arguments: &Value) -> bool {
        // Starting a sub-agent changes nothing by itself; each write or
        // command it makes asks the user through the parent's approver.
        false
    }

    fn reach(&self, arguments: &Value, _ctx: &ToolContext) -> String {
        let profile = profile_arg(arguments).unwrap_or("the current profile");
        format!(
            "starts a sub-agent with {profile}; it may use that profile's tools (each write or command it makes is asked for again)"
        )
    }

    async fn call(&self, arguments: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let task = arguments
            .get("task")
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .ok_or_else(|| {
                ToolError::InvalidArguments("`task` (the whole task) is required".into())
            })?;
        let agent = self.agent()?;
        let profile = match profile_arg(&arguments) {
            Some(p) => p.to_owned(),
            None if ctx.depth == 0 => agent.active_profile_name(&ctx.session_id),
            // A sub-agent's own session has no profile of its own to reuse.
            None => {
                return Err(ToolError::InvalidArguments(format!(
                    "name the `profile` for the sub-agent; the profiles are: {}",
                    agent.profile_names().join(", ")
                )));
            }
        };
        // A sub-agent works inside the parent's rights: one with another
        // workspace, more tools or another backend is asked for first.
        if let Some(to) = agent.profile_by_name(&profile) {
            // A caller whose profile is gone has no rights to compare with:
            // everything the sub-agent may do is new.
            let from = agent
                .profile_by_name(&ctx.scope.profile)
                .unwrap_or_else(|| crate::rights::nothing(&to));
            let wider = crate::rights::widening(&from, &to);
            super::switch_profile::ask_to_widen(ctx, "spawn_agent", &arguments, &wider, || {
                format!("starts a sub-agent with the profile `{profile}`")
            })
            .await?;
        }
        agent
            .run_ephemeral(task, &profile, ctx)
            .await
            .map_err(|e| ToolError::Failed(format!("the sub-agent failed: {e}")))
    }
}
