//! Hook points around every tool call and before every model call
//! (docs/extending.md): what the user's own scripts, or an embedder, may
//! say about a call before it runs (pass, change its arguments, or block
//! it with a result the model sees), about its result (pass, replace it,
//! or end the batch), and about the messages a model call will send.
//!
//! Order around a call: the arguments are fitted to the schema, then
//! `before_tool_call` (so the user approves what will really run), then
//! the refusal check and the approval, the call, then `after_tool_call`
//! (before the result is stored, screened and shown).

use async_trait::async_trait;

use crate::message::{ChatMessage, ToolCall};
use crate::tool::ToolContext;

/// What `before_tool_call` decides.
#[derive(Debug, Clone, PartialEq)]
pub enum Before {
    /// Run the call as it is.
    Pass,
    /// Run it with these arguments instead.
    Arguments(serde_json::Value),
    /// Do not run it; this text goes back to the model as its result.
    Block(String),
}

/// What `after_tool_call` decides.
#[derive(Debug, Clone, PartialEq)]
pub enum After {
    /// Keep the result.
    Pass,
    /// The model sees this result instead (stored and shown as such).
    Replace(String),
    /// Run no more calls of this batch (each gets a result saying a hook
    /// ended the batch); this call's result replaced when given.
    EndBatch(Option<String>),
}

/// How a call ended, for `after_tool_call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome<'a> {
    /// It returned a result (not an error).
    pub ok: bool,
    /// The result as the model would see it.
    pub output: &'a str,
}

/// Hooks around tool and model calls. Every method has a default that
/// changes nothing, so an implementation overrides only what it needs.
/// A hook that fails must decide for itself how: the command hooks fail
/// closed before a call (it is blocked) and report the failure.
#[async_trait]
pub trait Hooks: Send + Sync {
    /// Before a call runs (and before the user is asked about it).
    async fn before_tool_call(&self, _call: &ToolCall, _ctx: &ToolContext) -> Before {
        Before::Pass
    }

    /// After a call ran (not for calls blocked, denied or cancelled).
    async fn after_tool_call(
        &self,
        _call: &ToolCall,
        _outcome: Outcome<'_>,
        _ctx: &ToolContext,
    ) -> After {
        After::Pass
    }

    /// The messages of the next model call, as the context pipeline built
    /// them; what it returns is sent (`None`: send them as they are).
    async fn before_model_call(
        &self,
        _messages: &[ChatMessage],
        _session_id: &str,
    ) -> Option<Vec<ChatMessage>> {
        None
    }
}

/// No hooks: every call passes.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoHooks;

#[async_trait]
impl Hooks for NoHooks {}

/// The result a call gets when a hook ended its batch before it ran.
pub const BATCH_ENDED_RESULT: &str =
    "not run: a hook ended this batch of tool calls after an earlier call";
