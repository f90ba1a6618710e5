//! [`OpenAiBackend`]: the core's `ModelBackend` over the OpenAI-compatible
//! client.
//!
//! What does not translate is left out on purpose: the model's load-time
//! options (`num_ctx`, `keep_alive`, `shift`) belong to Ollama, and these
//! servers fix them when they start; `think` has no standard field (servers
//! that reason stream `reasoning_content` on their own), and an unknown
//! field is a 400 on some of them. There is nothing to preload or unload.

use async_trait::async_trait;
use base64::Engine as _;
use futures::StreamExt;
use hearth_core::{
    BackendError, ChatMessage, LoadOptions, ModelBackend, ModelRequest, ModelStream, Role,
};

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use crate::client::Client;
use crate::wire::{self, ChatRequest, StreamOptions};

/// An OpenAI-compatible server as a model backend.
#[derive(Debug, Clone)]
pub struct OpenAiBackend {
    client: Client,
    /// Models the server refused a picture for. These servers do not say
    /// up front whether a model sees (no capabilities in `/v1/models`), so
    /// the first refusal teaches it.
    blind: Arc<Mutex<HashSet<String>>>,
    /// Each model's parameter count as `/v1/models` gave it (read once).
    sizes: Arc<Mutex<Option<std::collections::HashMap<String, u64>>>>,
}

impl OpenAiBackend {
    /// A backend over `client`.
    pub fn new(client: Client) -> Self {
        Self {
            client,
            blind: Arc::default(),
            sizes: Arc::default(),
        }
    }

    fn is_blind(&self, model: &str) -> bool {
        self.blind.lock().is_ok_and(|b| b.contains(model))
    }

    /// The client (for listing models).
    pub fn client(&self) -> &Client {
        &self.client
    }
}

/// Translate the core's request to the wire.
pub(crate) fn to_wire(req: ModelRequest) -> ChatRequest {
    // With tools in the request, llama.cpp renders a schema-constrained
    // answer through its generic tool format: another prompt than the
    // conversation's, so the server's cache of it would be lost (for this
    // request and the next turn). There the instruction alone asks for
    // the JSON, and the caller reads the answer leniently.
    let response_format = req.format.filter(|_| req.tools.is_empty()).map(|schema| {
        serde_json::json!({
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema}
        })
    });
    ChatRequest {
        model: req.model,
        messages: req.messages.into_iter().map(to_wire_message).collect(),
        tools: req
            .tools
            .into_iter()
            .map(|t| wire::Tool {
                kind: "function",
                function: wire::ToolFunction {
                    name: t.name,
                    description: t.description,
                    parameters: t.parameters,
                },
            })
            .collect(),
        stream: true,
        stream_options: Some(StreamOptions {
            include_usage: true,
        }),
        temperature: req.temperature,
        max_tokens: req.max_tokens,
        response_format,
    }
}

fn to_wire_message(m: ChatMessage) -> wire::Message {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let tool_calls: Vec<wire::ToolCall> = m
        .tool_calls
        .into_iter()
        .map(|c| wire::ToolCall {
            id: c.id,
            kind: "function",
            function: wire::FunctionCall {
                name: c.name,
                arguments: match c.arguments {
                    // Arguments that were not JSON go back as the model
                    // wrote them, so it sees its own mistake.
                    serde_json::Value::String(raw) => raw,
                    other => other.to_string(),
                },
            },
        })
        .collect();
    wire::Message {
        role,
        // Reasoning is shown to the user, not sent back.
        content: if m.content.is_empty() && !tool_calls.is_empty() {
            None
        } else {
            Some(content_of(m.content, &m.attachments))
        },
        tool_calls,
        tool_call_id: m.tool_call_id.filter(|_| m.role == Role::Tool),
    }
}

/// The text alone, or the text then each picture as a `data:` URL (the
/// form llama.cpp's server and OpenAI-compatible vision servers take).
fn content_of(text: String, attachments: &[hearth_core::Attachment]) -> wire::Content {
    let pictures: Vec<wire::Part> = attachments
        .iter()
        .filter(|a| a.is_image())
        .filter_map(|a| a.body.as_ref().map(|b| (a, b)))
        .map(|(a, b)| wire::Part::ImageUrl {
            image_url: wire::ImageUrl {
                url: format!(
                    "data:{};base64,{}",
                    a.mime,
                    base64::engine::general_purpose::STANDARD.encode(&b.0)
                ),
            },
        })
        .collect();
    if pictures.is_empty() {
        return wire::Content::Text(text);
    }
    let mut parts = vec![wire::Part::Text { text }];
    parts.extend(pictures);
    wire::Content::Parts(parts)
}

/// Whether `e` is a server saying the model cannot take pictures:
/// llama.cpp without a vision projector answers 500 "image input is not
/// supported - hint: if this is unexpected, you may need to provide the
/// mmproj"; vLLM and others say a model "is not a multimodal model" or
/// "does not support image input".
fn refuses_pictures(e: &BackendError) -> bool {
    let message = match e {
        BackendError::BadRequest { message } | BackendError::Server { message, .. } => {
            message.to_lowercase()
        }
        _ => return false,
    };
    // The server's words for "this model takes no pictures", not for a
    // picture it could not read ("You uploaded an unsupported image"),
    // which must not make a model that sees blind.
    [
        "image input is not supported",
        "mmproj",
        "not a multimodal model",
        "does not support image",
        "does not support vision",
        "vision is not supported",
    ]
    .iter()
    .any(|p| message.contains(p))
}

#[async_trait]
impl ModelBackend for OpenAiBackend {
    async fn chat(&self, request: ModelRequest) -> Result<ModelStream, BackendError> {
        let mut request = request;
        if self.is_blind(&request.model) {
            hearth_core::attached::leave_out_pictures(&mut request.messages);
        }
        let pictures = request
            .messages
            .iter()
            .any(|m| m.attachments.iter().any(hearth_core::Attachment::is_image));
        let opened = if pictures {
            // Kept for a second try without the pictures.
            let first = self.client.chat_stream(&to_wire(request.clone())).await;
            match first {
                Err(e) if refuses_pictures(&BackendError::from(e.clone())) => {
                    tracing::info!(model = %request.model, "the server cannot show this model pictures; they are left out from now on");
                    if let Ok(mut blind) = self.blind.lock() {
                        blind.insert(request.model.clone());
                    }
                    hearth_core::attached::leave_out_pictures(&mut request.messages);
                    self.client.chat_stream(&to_wire(request)).await
                }
                other => other,
            }
        } else {
            self.client.chat_stream(&to_wire(request)).await
        };
        Ok(Box::pin(
            opened?.map(|item| item.map_err(BackendError::from)),
        ))
    }

    /// `Some(false)` once the server refused a picture for `model`; before
    /// that, unknown (the server does not say).
    async fn sees_images(&self, model: &str) -> Option<bool> {
        self.is_blind(model).then_some(false)
    }

    /// llama.cpp's `n_params` in `/v1/models`; other servers do not say.
    /// Read once: a listing that fails counts as one that says nothing
    /// (the run then treats the model's size as unknown), so a server
    /// without `/v1/models` is not asked again before every run.
    async fn parameter_count(&self, model: &str) -> Option<u64> {
        let known = |sizes: &Option<std::collections::HashMap<String, u64>>| {
            sizes.as_ref().map(|s| s.get(model).copied())
        };
        if let Some(found) = self.sizes.lock().ok().and_then(|s| known(&s)) {
            return found;
        }
        let read: std::collections::HashMap<String, u64> = self
            .client
            .model_entries()
            .await
            .unwrap_or_default()
            .into_iter()
            .filter_map(|m| Some((m.id, m.meta?.n_params?)))
            .collect();
        let found = read.get(model).copied();
        if let Ok(mut sizes) = self.sizes.lock() {
            *sizes = Some(read);
        }
        found
    }

    async fn embed(&self, model: &str, texts: &[String]) -> Result<Vec<Vec<f32>>, BackendError> {
        Ok(self.client.embed(model, texts).await?)
    }

    /// Nothing to do: there is no load API; llama.cpp and vLLM load their
    /// model when they start. Servers that load on demand (LM Studio's
    /// just-in-time loading, Ollama's own `/v1`) load on the first chat, and
    /// a Stop during that load may abort it; for Ollama, use its own backend,
    /// which preloads with a request Stop never cancels (docs/design.md §4).
    async fn preload(&self, _model: &str, _load: &LoadOptions) -> Result<(), BackendError> {
        Ok(())
    }

    /// Nothing to do: there is no unload API.
    async fn unload(&self, _model: &str) -> Result<(), BackendError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_server_saying_the_model_takes_no_pictures_makes_it_blind() {
        let server = |m: &str| BackendError::Server {
            status: Some(500),
            message: m.into(),
        };
        assert!(refuses_pictures(&server(
            "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"
        )));
        assert!(refuses_pictures(&BackendError::BadRequest {
            message: "qwen2.5 is not a multimodal model".into()
        }));
        // A picture the server could not read says nothing of the model.
        assert!(!refuses_pictures(&BackendError::BadRequest {
            message: "You uploaded an unsupported image. Please make sure your image is of one the following formats: png, jpeg".into()
        }));
        assert!(!refuses_pictures(&server("out of memory")));
    }
    use hearth_core::{KeepAlive, ToolCall, ToolSpec};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn requests_follow_the_openai_shape() {
        let mut assistant = ChatMessage::assistant("");
        let call = ToolCall {
            id: "c1".into(),
            name: "calculator".into(),
            arguments: json!({"expression": "1+1"}),
        };
        let bad = ToolCall {
            id: "c2".into(),
            name: "calculator".into(),
            arguments: json!("{\"expression\": "),
        };
        assistant.tool_calls = vec![call.clone(), bad.clone()];
        let req = ModelRequest {
            model: "m".into(),
            messages: vec![
                ChatMessage::system("be brief"),
                ChatMessage::user("hi"),
                assistant,
                ChatMessage::tool_result(&call, "2"),
                ChatMessage::tool_result(&bad, "invalid arguments"),
            ],
            tools: vec![ToolSpec {
                name: "calculator".into(),
                description: "math".into(),
                parameters: json!({"type": "object"}),
            }],
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
        let v = serde_json::to_value(to_wire(req)).unwrap();
        assert_eq!(
            v,
            json!({
                "model": "m",
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "c1", "type": "function",
                         "function": {"name": "calculator", "arguments": "{\"expression\":\"1+1\"}"}},
                        {"id": "c2", "type": "function",
                         "function": {"name": "calculator", "arguments": "{\"expression\": "}}
                    ]},
                    {"role": "tool", "content": "2", "tool_call_id": "c1"},
                    {"role": "tool", "content": "invalid arguments", "tool_call_id": "c2"}
                ],
                "tools": [{"type": "function",
                           "function": {"name": "calculator", "description": "math",
                                        "parameters": {"type": "object"}}}],
                "stream": true,
                "stream_options": {"include_usage": true},
                "temperature": 0.3,
                "max_tokens": 512
            })
        );
    }

    #[test]
    fn a_schema_is_sent_as_response_format_only_without_tools() {
        let schema = json!({"type": "object", "properties": {"facts": {"type": "array"}}});
        let request = |tools: Vec<ToolSpec>| ModelRequest {
            model: "m".into(),
            messages: vec![ChatMessage::user("facts?")],
            tools,
            think: None,
            temperature: None,
            load: LoadOptions {
                num_ctx: 4096,
                keep_alive: KeepAlive::FOREVER,
                shift: false,
            },
            max_tokens: None,
            format: Some(schema.clone()),
        };
        let v = serde_json::to_value(to_wire(request(Vec::new()))).unwrap();
        assert_eq!(
            v["response_format"],
            json!({"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}})
        );
        // With tools llama.cpp would render another prompt (the cache lost).
        let tool = ToolSpec {
            name: "calculator".into(),
            description: "math".into(),
            parameters: json!({"type": "object"}),
        };
        let v = serde_json::to_value(to_wire(request(vec![tool]))).unwrap();
        assert!(v.get("response_format").is_none(), "{v}");
    }
}
