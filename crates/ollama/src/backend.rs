//! [`OllamaBackend`]: the core's `ModelBackend` over the Ollama client.
//!
//! Besides translating types it guards two Ollama traps: sending `tools` or
//! `think` to a model without that capability is a 400, so capabilities are
//! looked up once per model (`/api/tags`, or `/api/show` from a server
//! older than 0.30) and the fields are left out for
//! models that lack them; and the load-time options come from the request's
//! `load`, which the core takes from the per-model settings, so they are the
//! same on every request to a model.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use base64::Engine as _;
use futures::StreamExt;
use hearth_core::{
    BackendError, ChatMessage, DoneInfo, LoadOptions, ModelBackend, ModelDelta, ModelRequest,
    ModelStream, Role,
};
use hearth_protocol::Usage;
use tokio::sync::Mutex;

use crate::client::Client;
use crate::wire::{self, ChatChunk, ChatRequest, Options};

/// What a model can do, from the server's listing or `/api/show`.
#[derive(Debug, Clone, Copy)]
struct Caps {
    tools: bool,
    thinking: bool,
    /// `None`: the server did not say (older than 0.6.4's capabilities).
    vision: Option<bool>,
    /// The trained context length.
    trained: Option<u32>,
    /// How many parameters it has.
    parameters: Option<u64>,
}

/// Ollama as a model backend.
#[derive(Clone)]
pub struct OllamaBackend {
    client: Client,
    caps: Arc<Mutex<HashMap<String, Caps>>>,
}

impl OllamaBackend {
    /// A backend over `client`.
    pub fn new(client: Client) -> Self {
        Self {
            client,
            caps: Arc::default(),
        }
    }

    /// The client (for model management: ps, tags, pull).
    pub fn client(&self) -> &Client {
        &self.client
    }

    async fn caps(&self, model: &str) -> Result<Caps, BackendError> {
        if let Some(c) = self.caps.lock().await.get(model) {
            return Ok(*c);
        }
        let (capabilities, trained, parameters) = self.client.describe(model).await?;
        let trained = trained.and_then(|n| u32::try_from(n).ok());
        let has = |c: &str| capabilities.iter().any(|x| x == c);
        // An old server without `capabilities` is assumed capable: the
        // request then fails with Ollama's own clear 400 if it is not.
        let caps = if capabilities.is_empty() {
            Caps {
                tools: true,
                thinking: true,
                vision: None,
                trained,
                parameters,
            }
        } else {
            Caps {
                tools: has("tools"),
                thinking: has("thinking"),
                vision: Some(has("vision")),
                trained,
                parameters,
            }
        };
        self.caps.lock().await.insert(model.to_owned(), caps);
        Ok(caps)
    }
}

/// Translate the core's request to Ollama's.
pub(crate) fn to_wire(req: ModelRequest, tools_ok: bool, thinking_ok: bool) -> ChatRequest {
    ChatRequest {
        model: req.model,
        messages: req.messages.into_iter().map(to_wire_message).collect(),
        tools: if tools_ok {
            req.tools
                .into_iter()
                .map(|t| wire::Tool {
                    kind: "function",
                    function: wire::ToolFunction {
                        name: t.name,
                        description: t.description,
                        parameters: t.parameters,
                    },
                })
                .collect()
        } else {
            Vec::new()
        },
        think: req.think.filter(|_| thinking_ok),
        stream: true,
        keep_alive: req.load.keep_alive.as_secs(),
        options: Options {
            num_ctx: Some(req.load.num_ctx),
            temperature: req.temperature,
            num_predict: req.max_tokens,
        },
        shift: Some(req.load.shift),
        // Never drop the oldest messages silently (Ollama's default, which
        // can orphan tool results): an overflow is an error the loop
        // handles by compacting and trying again.
        truncate: Some(false),
        // Ollama constrains the sampling to the schema; the prompt, and so
        // the cached prefix, is the same with or without it.
        format: req.format,
    }
}

fn to_wire_message(m: ChatMessage) -> wire::Message {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    wire::Message {
        role: role.to_owned(),
        content: m.content,
        // Reasoning is shown to the user, not sent back: it costs context
        // and most chat templates drop it anyway.
        thinking: None,
        tool_calls: m
            .tool_calls
            .into_iter()
            .map(|c| wire::ToolCall {
                id: Some(c.id),
                function: wire::ToolCallFunction {
                    index: None,
                    name: c.name,
                    arguments: c.arguments,
                },
            })
            .collect(),
        tool_name: m.tool_name,
        tool_call_id: m.tool_call_id,
        images: m
            .attachments
            .iter()
            .filter(|a| a.is_image())
            .filter_map(|a| a.body.as_ref())
            .map(|b| base64::engine::general_purpose::STANDARD.encode(&b.0))
            .collect(),
    }
}

/// The deltas one line carries, in order: thinking, text, tool calls, done.
pub(crate) fn deltas(chunk: ChatChunk) -> Vec<ModelDelta> {
    let mut out = Vec::with_capacity(1);
    if let Some(m) = chunk.message {
        if let Some(t) = m.thinking.filter(|t| !t.is_empty()) {
            out.push(ModelDelta::Thinking(t));
        }
        if !m.content.is_empty() {
            out.push(ModelDelta::Text(m.content));
        }
        if !m.tool_calls.is_empty() {
            out.push(ModelDelta::ToolCalls(
                m.tool_calls
                    .into_iter()
                    .map(|c| hearth_core::RawToolCall {
                        id: c.id,
                        name: c.function.name,
                        arguments: arguments_object(c.function.arguments),
                    })
                    .collect(),
            ));
        }
    }
    if chunk.done {
        let ms = |ns: Option<u64>| ns.map(|n| n as f64 / 1e6);
        let tokens_per_second = match (chunk.eval_count, chunk.eval_duration) {
            (Some(n), Some(d)) if d > 0 => Some(f64::from(n) / (d as f64 / 1e9)),
            _ => None,
        };
        out.push(ModelDelta::Done(DoneInfo {
            usage: Usage {
                prompt_tokens: chunk.prompt_eval_count,
                prompt_cached_tokens: chunk.prompt_eval_cached_count,
                completion_tokens: chunk.eval_count,
                load_ms: ms(chunk.load_duration),
                prompt_eval_ms: ms(chunk.prompt_eval_duration),
                eval_ms: ms(chunk.eval_duration),
                tokens_per_second,
                done_reason: chunk.done_reason,
            },
        }));
    }
    out
}

/// Ollama sends an object; some servers send the object as a JSON string.
fn arguments_object(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::String(s) => {
            serde_json::from_str(&s).unwrap_or(serde_json::Value::String(s))
        }
        serde_json::Value::Null => serde_json::json!({}),
        other => other,
    }
}

#[async_trait]
impl ModelBackend for OllamaBackend {
    async fn chat(&self, request: ModelRequest) -> Result<ModelStream, BackendError> {
        let pictures = request
            .messages
            .iter()
            .any(|m| m.attachments.iter().any(hearth_core::Attachment::is_image));
        let wants_caps = pictures
            || !request.tools.is_empty()
            || request.think.is_some_and(hearth_core::Think::is_on);
        let caps = if wants_caps {
            self.caps(&request.model).await?
        } else {
            Caps {
                tools: true,
                thinking: true,
                vision: None,
                trained: None,
                parameters: None,
            }
        };
        if !caps.tools && !request.tools.is_empty() {
            tracing::warn!(model = %request.model, "model has no tools capability; sending no tools");
        }
        let mut request = request;
        // A picture earlier in the conversation, and the session now on a
        // model that cannot see: Ollama would refuse every request.
        if caps.vision == Some(false) {
            hearth_core::attached::leave_out_pictures(&mut request.messages);
        }
        let wire = to_wire(request, caps.tools, caps.thinking);
        let stream = self.client.chat_stream(&wire).await?;
        let deltas = stream.flat_map(|item| {
            let batch: Vec<Result<ModelDelta, BackendError>> = match item {
                Ok(chunk) => deltas(chunk).into_iter().map(Ok).collect(),
                Err(e) => vec![Err(e.into())],
            };
            futures::stream::iter(batch)
        });
        Ok(Box::pin(deltas))
    }

    async fn preload(&self, model: &str, load: &LoadOptions) -> Result<(), BackendError> {
        Ok(self.client.preload(model, load).await?)
    }

    async fn unload(&self, model: &str) -> Result<(), BackendError> {
        Ok(self.client.unload(model).await?)
    }

    async fn context_window(&self, model: &str) -> Option<u32> {
        // A loaded model: the window its runner really has (`/api/ps`
        // names carry a tag; a bare name means `:latest`).
        if let Ok(running) = self.client.ps().await {
            let tagged = if model.contains(':') {
                model.to_owned()
            } else {
                format!("{model}:latest")
            };
            if let Some(n) = running
                .iter()
                .find(|r| r.name == model || r.name == tagged)
                .and_then(|r| r.context_length)
            {
                return Some(n);
            }
        }
        self.caps(model).await.ok().and_then(|c| c.trained)
    }

    async fn sees_images(&self, model: &str) -> Option<bool> {
        self.caps(model).await.ok().and_then(|c| c.vision)
    }

    async fn parameter_count(&self, model: &str) -> Option<u64> {
        self.caps(model).await.ok().and_then(|c| c.parameters)
    }

    async fn embed(&self, model: &str, texts: &[String]) -> Result<Vec<Vec<f32>>, BackendError> {
        Ok(self.client.embed(model, texts).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hearth_core::{KeepAlive, ToolCall};
    use serde_json::json;

    #[test]
    fn requests_carry_the_model_load_options_and_tool_results() {
        let mut assistant = ChatMessage::assistant("");
        let call = ToolCall {
            id: "c1".into(),
            name: "calculator".into(),
            arguments: json!({"expression": "1+1"}),
        };
        assistant.tool_calls = vec![call.clone()];
        let req = ModelRequest {
            model: "m".into(),
            messages: vec![
                ChatMessage::user("hi"),
                assistant,
                ChatMessage::tool_result(&call, "2"),
            ],
            tools: vec![],
            think: Some(hearth_core::Think::Switch(true)),
            temperature: Some(0.3),
            load: LoadOptions {
                num_ctx: 4096,
                keep_alive: KeepAlive::FOREVER,
                shift: false,
            },
            max_tokens: Some(512),
            format: None,
        };
        let v = serde_json::to_value(to_wire(req, true, false)).unwrap();
        assert_eq!(v["keep_alive"], -1);
        assert_eq!(
            v["options"],
            json!({"num_ctx": 4096, "temperature": 0.3, "num_predict": 512})
        );
        assert_eq!(v["shift"], false);
        assert!(
            v.get("think").is_none(),
            "think dropped for a model without thinking"
        );
        assert!(v.get("tools").is_none());
        assert_eq!(
            v["messages"][2],
            json!({"role": "tool", "content": "2", "tool_name": "calculator", "tool_call_id": "c1"})
        );
        assert_eq!(
            v["messages"][1]["tool_calls"][0]["function"]["arguments"],
            json!({"expression": "1+1"})
        );
    }

    #[test]
    fn the_done_line_gives_tool_calls_and_usage() {
        let chunk: ChatChunk = serde_json::from_value(json!({
            "message": {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "t", "arguments": "{\"a\":1}"}}
            ]},
            "done": true, "done_reason": "stop", "eval_count": 10, "eval_duration": 500_000_000u64
        }))
        .unwrap();
        let d = deltas(chunk);
        assert_eq!(d.len(), 2);
        let ModelDelta::ToolCalls(calls) = &d[0] else {
            panic!("{d:?}")
        };
        assert_eq!(calls[0].arguments, json!({"a": 1}));
        assert_eq!(calls[0].id, None);
        let ModelDelta::Done(info) = &d[1] else {
            panic!("{d:?}")
        };
        assert_eq!(info.usage.tokens_per_second, Some(20.0));
    }
}
