//! A configured MCP server as the voice runtime's speech-to-text server
//! (hearth_core::voice): its session tools called by their own names.

use std::sync::Arc;

use async_trait::async_trait;
use hearth_core::voice::{self, SpeechServer};

use crate::Server;

/// `server` used for voice.
pub struct Speech(pub Arc<Server>);

#[async_trait]
impl SpeechServer for Speech {
    async fn call(&self, tool: &str, arguments: serde_json::Value) -> Result<String, String> {
        let name = self.0.name();
        self.0
            .prepare()
            .await
            .map_err(|e| format!("the MCP server \"{name}\" cannot start: {e}"))?;
        let found = self.0.tools().into_iter().find(|t| t.remote_name() == tool);
        let Some(t) = found else {
            return Err(format!(
                "the MCP server \"{name}\" has no tool `{tool}`: voice needs a speech-to-text \
                 server with {}, {} and {}",
                voice::START,
                voice::UPDATES,
                voice::STOP
            ));
        };
        t.invoke(arguments).await
    }
}
