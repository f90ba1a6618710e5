//! The JSON of `/v1/chat/completions` and `/v1/models`, as OpenAI's API
//! reference defines it, plus what compatible servers add (llama.cpp's
//! `timings`, `reasoning_content`). Only the fields Hearth uses; unknown
//! fields are ignored on input, and every input field is optional, because
//! each server leaves out different ones.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `POST /v1/chat/completions` body.
#[derive(Debug, Clone, Serialize)]
pub struct ChatRequest {
    /// Model name as the server knows it.
    pub model: String,
    /// Conversation.
    pub messages: Vec<Message>,
    /// Tools offered (omitted when empty: some servers refuse `tools: []`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// Stream server-sent events.
    pub stream: bool,
    /// Ask for a `usage` chunk at the end of the stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    /// Sampling temperature (omitted = server default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Most tokens to generate (omitted = server default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// `{"type": "json_schema", "json_schema": {"name", "schema"}}`: the
    /// answer follows a schema (omitted = free text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Value>,
}

/// `stream_options`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct StreamOptions {
    /// Send token counts in a last chunk before `[DONE]`.
    pub include_usage: bool,
}

/// A message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    /// system | user | assistant | tool
    pub role: &'static str,
    /// Text, or text and pictures; `null` for an assistant message that
    /// only calls tools.
    pub content: Option<Content>,
    /// Tool calls of an assistant message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the call it answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

/// What a message says: text, or (a user message with pictures) parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Text and pictures, in order.
    Parts(Vec<Part>),
}

impl From<String> for Content {
    fn from(s: String) -> Self {
        Self::Text(s)
    }
}

impl From<&str> for Content {
    fn from(s: &str) -> Self {
        Self::Text(s.to_owned())
    }
}

/// One part of a message's content.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// A picture, as a `data:` URL.
    ImageUrl {
        /// `{"url": "data:image/png;base64,…"}`.
        image_url: ImageUrl,
    },
}

/// Where a picture is: inline, as a `data:` URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageUrl {
    /// The URL.
    pub url: String,
}

/// A tool call of an assistant message, as sent back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    /// Call id (the tool result names it).
    pub id: String,
    /// Always "function".
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Name and arguments.
    pub function: FunctionCall,
}

/// Name and arguments of a call going back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionCall {
    /// Tool name.
    pub name: String,
    /// The arguments object as a JSON *string* (OpenAI refuses an object).
    pub arguments: String,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool {
    /// Always "function".
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The function.
    pub function: ToolFunction,
}

/// A function tool's schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolFunction {
    /// Name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON schema of the arguments.
    pub parameters: Value,
}

/// One `data:` event of a streamed answer (`chat.completion.chunk`), or an
/// in-band error (`{"error": …}`; older vLLM: `{"object": "error",
/// "message": …}`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ChatChunk {
    /// One entry per choice; Hearth asks for one. Empty on the usage chunk.
    #[serde(default, deserialize_with = "null_as_default")]
    pub choices: Vec<Choice>,
    /// Token counts (the last chunk, when asked for).
    #[serde(default)]
    pub usage: Option<UsageCounts>,
    /// llama.cpp's timings (its last chunk).
    #[serde(default)]
    pub timings: Option<Timings>,
    /// In-band error: an object with `message`, or a string.
    #[serde(default)]
    pub error: Option<Value>,
    /// `"error"` on older vLLM error events.
    #[serde(default)]
    pub object: Option<String>,
    /// The message of older vLLM error events.
    #[serde(default)]
    pub message: Option<String>,
}

impl ChatChunk {
    /// The error this chunk carries, if it is an error event.
    pub fn error_message(&self) -> Option<String> {
        if let Some(e) = &self.error {
            let text = e
                .as_str()
                .or_else(|| e.get("message").and_then(Value::as_str))
                .map_or_else(|| e.to_string(), str::to_owned);
            return Some(text);
        }
        (self.object.as_deref() == Some("error")).then(|| {
            self.message
                .clone()
                .unwrap_or_else(|| "unknown error".into())
        })
    }
}

/// One choice of a chunk.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Choice {
    /// Which choice (0 for the only one).
    #[serde(default)]
    pub index: u32,
    /// What is new.
    #[serde(default, deserialize_with = "null_as_default")]
    pub delta: Delta,
    /// Why generation ended: `stop`, `length`, `tool_calls`, …; set once.
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// The new part of the answer.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Delta {
    /// Answer text.
    #[serde(default)]
    pub content: Option<String>,
    /// Reasoning text (llama.cpp, vLLM, DeepSeek).
    #[serde(default)]
    pub reasoning_content: Option<String>,
    /// Reasoning text under its newer name (vLLM ≥ 0.10, OpenRouter).
    #[serde(default)]
    pub reasoning: Option<String>,
    /// Pieces of tool calls.
    #[serde(default, deserialize_with = "null_as_default")]
    pub tool_calls: Vec<DeltaToolCall>,
}

/// A piece of a tool call: the first carries `id` and `function.name`, the
/// next ones `function.arguments` fragments, all with the call's `index`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DeltaToolCall {
    /// Which call of the message this piece belongs to.
    #[serde(default)]
    pub index: Option<u32>,
    /// Call id (first piece).
    #[serde(default)]
    pub id: Option<String>,
    /// Name and arguments fragment.
    #[serde(default, deserialize_with = "null_as_default")]
    pub function: DeltaFunction,
}

/// The function part of a piece.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DeltaFunction {
    /// Tool name (first piece).
    #[serde(default)]
    pub name: Option<String>,
    /// A fragment of the arguments' JSON text (a few servers send the
    /// whole object instead).
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// `usage`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct UsageCounts {
    /// Tokens of the prompt, cached ones included.
    #[serde(default)]
    pub prompt_tokens: Option<u32>,
    /// Tokens generated.
    #[serde(default)]
    pub completion_tokens: Option<u32>,
    /// Details of the prompt tokens.
    #[serde(default)]
    pub prompt_tokens_details: Option<PromptTokensDetails>,
}

/// `usage.prompt_tokens_details`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PromptTokensDetails {
    /// Prompt tokens served from the server's cache.
    #[serde(default)]
    pub cached_tokens: Option<u32>,
}

/// llama.cpp's `timings`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Timings {
    /// Prompt tokens evaluated (those not reused from the cache).
    #[serde(default)]
    pub prompt_n: Option<f64>,
    /// Prompt tokens reused from the cache.
    #[serde(default)]
    pub cache_n: Option<f64>,
    /// Milliseconds of prompt evaluation.
    #[serde(default)]
    pub prompt_ms: Option<f64>,
    /// Tokens generated.
    #[serde(default)]
    pub predicted_n: Option<f64>,
    /// Milliseconds of generation.
    #[serde(default)]
    pub predicted_ms: Option<f64>,
    /// Generation speed.
    #[serde(default)]
    pub predicted_per_second: Option<f64>,
}

/// `GET /v1/models`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ModelList {
    /// The models served.
    #[serde(default, deserialize_with = "null_as_default")]
    pub data: Vec<ModelEntry>,
}

/// One served model.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ModelEntry {
    /// The name requests use.
    pub id: String,
    /// What llama.cpp's server adds about the model (others send none).
    #[serde(default)]
    pub meta: Option<ModelMeta>,
}

/// llama.cpp's `meta` of a served model.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ModelMeta {
    /// How many parameters it has.
    #[serde(default)]
    pub n_params: Option<u64>,
}

/// Some servers write `null` where a list or object is expected.
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}
