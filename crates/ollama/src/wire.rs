//! Ollama's JSON, as Ollama's own `api/types.go` defines it. Only the fields
//! Hearth uses; unknown fields are ignored on input.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `POST /api/chat` body.
#[derive(Debug, Clone, Serialize)]
pub struct ChatRequest {
    /// Model name.
    pub model: String,
    /// Conversation.
    pub messages: Vec<Message>,
    /// Tools offered (omitted when empty: a model without the tools
    /// capability answers 400 to any `tools`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// Reasoning on/off, or a level (`"low"`…`"high"`) for a model that
    /// takes one (omitted = model default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub think: Option<hearth_core::Think>,
    /// Stream NDJSON (true) or answer with one object.
    pub stream: bool,
    /// Seconds to stay resident; negative = forever; 0 = unload.
    pub keep_alive: i64,
    /// Model options (load-time and sampling).
    pub options: Options,
    /// Shift the context at the window instead of failing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shift: Option<bool>,
    /// Drop the oldest messages when the prompt exceeds the window
    /// (Ollama's default is true; Hearth sends false once it budgets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncate: Option<bool>,
    /// A JSON schema the answer must follow (structured outputs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<Value>,
}

/// `options`: the load-time option Hearth sets, and sampling.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Options {
    /// Context window (load-time: a change reloads the model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_ctx: Option<u32>,
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Most tokens to generate (a runtime option: no reload).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_predict: Option<u32>,
}

/// A chat message on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// system | user | assistant | tool
    pub role: String,
    /// Text.
    #[serde(default)]
    pub content: String,
    /// Reasoning text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// Tool calls of an assistant message.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// For a tool result: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Pictures of a user message, base64 (for a model that can see).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
}

/// A tool call on the wire. `id` may be missing (older servers, some models).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Call id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function called.
    pub function: ToolCallFunction,
}

/// Name and arguments of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallFunction {
    /// Position in the batch, when the server numbers calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// Tool name.
    pub name: String,
    /// Arguments: an object (some servers send a JSON string; the backend
    /// parses it).
    #[serde(default)]
    pub arguments: Value,
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
    /// Description.
    pub description: String,
    /// JSON schema of the arguments.
    pub parameters: Value,
}

/// One line of a `/api/chat` stream (or the whole non-streaming reply).
/// An in-band failure is a line with only `error`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ChatChunk {
    /// Message piece.
    #[serde(default)]
    pub message: Option<Message>,
    /// True on the final line.
    #[serde(default)]
    pub done: bool,
    /// Why generation ended (final line).
    #[serde(default)]
    pub done_reason: Option<String>,
    /// Nanoseconds, whole request.
    #[serde(default)]
    pub total_duration: Option<u64>,
    /// Nanoseconds spent loading.
    #[serde(default)]
    pub load_duration: Option<u64>,
    /// Prompt tokens evaluated.
    #[serde(default)]
    pub prompt_eval_count: Option<u32>,
    /// Of those, the tokens read from the KV cache (newer Ollama).
    #[serde(default)]
    pub prompt_eval_cached_count: Option<u32>,
    /// Nanoseconds of prompt evaluation.
    #[serde(default)]
    pub prompt_eval_duration: Option<u64>,
    /// Tokens generated.
    #[serde(default)]
    pub eval_count: Option<u32>,
    /// Nanoseconds of generation.
    #[serde(default)]
    pub eval_duration: Option<u64>,
    /// In-band error.
    #[serde(default)]
    pub error: Option<String>,
}

/// `GET /api/tags`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TagsResponse {
    /// Installed models.
    #[serde(default, deserialize_with = "null_as_default")]
    pub models: Vec<InstalledModel>,
}

/// An installed model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstalledModel {
    /// Name with tag.
    pub name: String,
    /// Size on disk, bytes.
    #[serde(default)]
    pub size: u64,
    /// Last modified (RFC 3339).
    #[serde(default)]
    pub modified_at: Option<String>,
    /// Family, quantization, …
    #[serde(default)]
    pub details: ModelDetails,
    /// `completion`, `tools`, `thinking`, `vision`…: listed here since
    /// Ollama 0.30; empty from an older server (then `/api/show` says).
    #[serde(default, deserialize_with = "null_as_default")]
    pub capabilities: Vec<String>,
}

/// `details` of a model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelDetails {
    /// e.g. "llama".
    #[serde(default)]
    pub family: Option<String>,
    /// e.g. "8.0B".
    #[serde(default)]
    pub parameter_size: Option<String>,
    /// e.g. "Q4_K_M".
    #[serde(default)]
    pub quantization_level: Option<String>,
    /// The trained context length, in `/api/tags` since Ollama 0.30.
    #[serde(default)]
    pub context_length: Option<u64>,
}

/// `GET /api/ps`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PsResponse {
    /// Resident models.
    #[serde(default, deserialize_with = "null_as_default")]
    pub models: Vec<RunningModel>,
}

/// A resident model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunningModel {
    /// Name with tag.
    pub name: String,
    /// Total memory of the runner, bytes.
    #[serde(default)]
    pub size: u64,
    /// Of which in VRAM, bytes (the rest is in system RAM, on the CPU).
    #[serde(default)]
    pub size_vram: u64,
    /// When it unloads (RFC 3339); far future = never.
    #[serde(default)]
    pub expires_at: Option<String>,
    /// Context window the runner was loaded with.
    #[serde(default)]
    pub context_length: Option<u32>,
}

/// `POST /api/show`, the parts Hearth uses.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ShowResponse {
    /// e.g. ["completion", "tools", "thinking", "vision"].
    #[serde(default, deserialize_with = "null_as_default")]
    pub capabilities: Vec<String>,
    /// GGUF metadata; `<arch>.context_length` is the trained window.
    #[serde(default)]
    pub model_info: serde_json::Map<String, Value>,
    /// Family, quantization, …
    #[serde(default)]
    pub details: ModelDetails,
}

impl ShowResponse {
    /// The model's trained context length, from `model_info`.
    pub fn context_length(&self) -> Option<u64> {
        let arch = self.model_info.get("general.architecture")?.as_str()?;
        self.model_info
            .get(&format!("{arch}.context_length"))?
            .as_u64()
    }

    /// How many parameters the model has, from `model_info`.
    pub fn parameter_count(&self) -> Option<u64> {
        self.model_info.get("general.parameter_count")?.as_u64()
    }

    /// True when the model lists `capability`.
    pub fn has(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|c| c == capability)
    }
}

/// One line of `/api/pull` progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PullProgress {
    /// What is happening ("pulling manifest", "success", …).
    #[serde(default)]
    pub status: String,
    /// Layer digest being downloaded.
    #[serde(default)]
    pub digest: Option<String>,
    /// Bytes of this layer.
    #[serde(default)]
    pub total: Option<u64>,
    /// Bytes done.
    #[serde(default)]
    pub completed: Option<u64>,
    /// In-band failure.
    #[serde(default)]
    pub error: Option<String>,
}

/// `GET /api/version`.
#[derive(Debug, Clone, Deserialize)]
pub struct VersionResponse {
    /// Server version.
    pub version: String,
}

/// Ollama writes `null` for empty lists in places; treat it as empty.
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}
