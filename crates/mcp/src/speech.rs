//! A configured MCP server as the voice runtime's speech-to-text server
//! (hearth_core::voice): its session tools called by their own names.

use std::sync::Arc;

use async_trait::async_trait;
use hearth_core::ToolError;
use hearth_core::voice::{SpeechError, SpeechServer};

use crate::Server;

/// `server` used for voice.
pub struct Speech(pub Arc<Server>);

#[async_trait]
impl SpeechServer for Speech {
    async fn start(&self) -> Result<(), SpeechError> {
        let name = self.0.name();
        self.0.prepare().await.map_err(|e| {
            SpeechError::Unavailable(format!("the MCP server \"{name}\" cannot start: {e}"))
        })
    }

    async fn call(&self, tool: &str, arguments: serde_json::Value) -> Result<String, SpeechError> {
        let name = self.0.name();
        // Started already by the caller's `start` (at once when it runs).
        self.start().await?;
        let found = self.0.tools().into_iter().find(|t| t.remote_name() == tool);
        let Some(t) = found else {
            return Err(SpeechError::NoTool {
                server: name.to_owned(),
                tool: tool.to_owned(),
            });
        };
        t.invoke(arguments).await.map_err(|e| match e {
            // In the tool's own words, without the model's "invalid
            // arguments:" (the app built them, not a model).
            ToolError::InvalidArguments(why) | ToolError::Failed(why) => SpeechError::Failed(why),
        })
    }
}
