//! `switch_profile`: the model moves the session to another profile. The
//! loop re-reads the profile before its next model call, so the new prompt,
//! tools and model apply from that call on. A switch to a profile that
//! could do more (another workspace, more tools or pre-approvals, no
//! sandbox, another backend) is put to the user first, every time: a
//! prompt injection must not widen its own rights.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use hearth_protocol::EventKind;

use crate::profile::ProfileProvider;
use crate::rights::widening;
use crate::store::StoreError;
use crate::tool::{Approval, Question, Tool, ToolContext, ToolError, ToolSpec};

/// Why a switch did not happen.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SwitchError {
    /// The switch cannot be made (no such profile, a sub-agent's session):
    /// the model asks for another, or goes on as it is.
    #[error("{0}")]
    Refused(String),
    /// Saving it failed; [`StoreError::failure`] says whether a retry may
    /// pass. The text is the store's own.
    #[error("{}", .0.message)]
    Store(StoreError),
}

/// Where profiles are switched (the store implements it).
#[async_trait]
pub trait ProfileSwitcher: ProfileProvider {
    /// Make `name` the profile of `session_id`. `Some` when the session's
    /// profile changed: the transcript marks the switch after that message
    /// (`None` inside: before the first).
    async fn switch(
        &self,
        session_id: &str,
        name: &str,
    ) -> Result<Option<Option<i64>>, SwitchError>;
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
                ProfileProvider::names(self.0.as_ref()).join(", ")
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
        if let Some(to) = self.0.by_name(name) {
            let wider = widening(&self.0.active(&ctx.session_id), &to);
            ask_to_widen(ctx, "switch_profile", &arguments, &wider, || {
                format!("switches this conversation to the profile `{name}`")
            })
            .await?;
        }
        let marked = self
            .0
            .switch(&ctx.session_id, name)
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        // Front ends mark the switch where the store did, without reading
        // the session again.
        if let Some(after_message_id) = marked {
            ctx.events.emit(EventKind::ProfileSwitched {
                profile: name.to_owned(),
                after_message_id,
            });
        }
        Ok(format!(
            "switched to profile `{name}`; it applies from your next step"
        ))
    }
}

/// Put a widening to the user (always asked: no grant covers it). Nothing
/// to ask when `wider` is empty or the embedder configured no approver.
pub(crate) async fn ask_to_widen(
    ctx: &ToolContext,
    tool: &str,
    arguments: &Value,
    wider: &[String],
    what: impl FnOnce() -> String,
) -> Result<(), ToolError> {
    let (false, Some(approver)) = (wider.is_empty(), &ctx.approver) else {
        return Ok(());
    };
    let reach = format!(
        "{}, which gives the model more than it has now: it {}",
        what(),
        wider.join("; it ")
    );
    let question = Question {
        tool,
        arguments,
        reach: &reach,
        session_allowance: false,
        widens: true,
        warning: None,
    };
    match approver.approve(ctx, &question).await {
        Approval::Allowed => Ok(()),
        Approval::Denied(why) => Err(ToolError::Failed(why)),
    }
}
