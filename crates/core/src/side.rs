//! Side requests: one-message requests the agent makes besides the user's
//! run (a summary, the facts to remember, a title; the planner shares
//! their token cap). No tools, no reasoning, and the model's own load
//! options, so they never force a reload.

use futures::StreamExt;

use crate::backend::{ModelBackend, ModelDelta, ModelRequest};
use crate::message::ChatMessage;
use crate::profile::Profile;
use crate::settings::LoadOptions;
use crate::workers::WorkerError;

/// Most tokens a side request (plan, summary, memory, title) may generate:
/// a summary or a plan is far shorter, and a looping small model stops.
pub(crate) const SIDE_MAX_TOKENS: u32 = 2048;

/// A one-message side request (summary, memory, title): no tools, no
/// reasoning, the model's own load options so nothing reloads.
pub(crate) fn side_request(
    profile: &Profile,
    load: LoadOptions,
    prompt: String,
    temperature: f64,
) -> ModelRequest {
    ModelRequest {
        model: profile.model.clone(),
        messages: vec![ChatMessage::user(prompt)],
        tools: Vec::new(),
        think: profile.think.map(|_| false),
        temperature: Some(temperature),
        load,
        max_tokens: Some(profile.max_output_tokens.min(SIDE_MAX_TOKENS)),
    }
}

/// Run a request without tools to its end and return the text.
pub(crate) async fn complete(
    backend: &dyn ModelBackend,
    request: ModelRequest,
) -> Result<String, WorkerError> {
    let mut stream = backend.chat(request).await?;
    let mut text = String::new();
    while let Some(item) = stream.next().await {
        match item? {
            ModelDelta::Text(t) => text.push_str(&t),
            ModelDelta::Done(_) => return Ok(text),
            ModelDelta::Thinking(_) | ModelDelta::ToolCalls(_) => {}
        }
    }
    Err(WorkerError::Answer("the answer broke off".into()))
}
