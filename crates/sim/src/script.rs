//! The script: which models exist and what the next chat replies are.
//!
//! Owns the serde shape of a script file (documented in the crate docs) and
//! the builders tests use (faults: `fault.rs`). Pure data: no I/O,
//! no clock, no server state.

use serde::{Deserialize, Serialize};

use crate::fault::Fault;

/// A whole script: the model table and the queue of scripted chat replies.
///
/// `Script::default()` holds the default model table (see
/// [`Script::default_models`]) and no replies; a script file that omits
/// `"models"` gets the same table, while an explicit `"models": []` means no
/// model at all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// The models the simulated Ollama knows, installed or pullable.
    #[serde(default = "Script::default_models")]
    pub models: Vec<ModelSpec>,
    /// Replies consumed in order by chat requests (`/api/chat` with
    /// messages, `/v1/chat/completions`).
    #[serde(default)]
    pub replies: Vec<Reply>,
    /// The key the OpenAI API (`/v1/*`) wants as `Authorization: Bearer
    /// KEY`; `None` = no key needed. The Ollama API never asks for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Answer `/api/tags` as Ollama before 0.30 did: without each model's
    /// `capabilities` and `details.context_length` (only `/api/show` has
    /// them).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub legacy_tags: bool,
}

impl Default for Script {
    fn default() -> Self {
        Self {
            models: Self::default_models(),
            replies: Vec::new(),
            api_key: None,
            legacy_tags: false,
        }
    }
}

impl Script {
    /// The default model table: `llama3.2:3b` (tools), `qwen3:8b`
    /// (tools + thinking) and `gemma3:1b` (neither), all installed, loading
    /// and streaming without delay.
    pub fn default_models() -> Vec<ModelSpec> {
        vec![
            ModelSpec::new("llama3.2:3b")
                .with_capabilities(&["completion", "tools"])
                .with_context_length(131_072)
                .with_details("llama", "3.2B", "Q4_K_M")
                .with_size(2_019_393_189),
            ModelSpec::new("qwen3:8b")
                .with_capabilities(&["completion", "tools", "thinking"])
                .with_context_length(40_960)
                .with_details("qwen3", "8.2B", "Q4_K_M")
                .with_size(5_225_388_164),
            ModelSpec::new("gemma3:1b")
                .with_capabilities(&["completion"])
                .with_context_length(32_768)
                .with_details("gemma3", "999.89M", "Q4_K_M")
                .with_size(815_319_791),
        ]
    }

    /// A script with exactly these models and no replies.
    pub fn with_models(models: Vec<ModelSpec>) -> Self {
        Self {
            models,
            replies: Vec::new(),
            api_key: None,
            legacy_tags: false,
        }
    }

    /// Makes the OpenAI API (`/v1/*`) answer 401 unless a request carries
    /// `Authorization: Bearer KEY`.
    #[must_use]
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Makes `/api/tags` leave out capabilities and context lengths, as
    /// Ollama before 0.30 did.
    #[must_use]
    pub fn with_legacy_tags(mut self) -> Self {
        self.legacy_tags = true;
        self
    }

    /// Adds a model, replacing one of the same name.
    #[must_use]
    pub fn with_model(mut self, model: ModelSpec) -> Self {
        self.models.retain(|m| m.name != model.name);
        self.models.push(model);
        self
    }

    /// Queues a reply after those already queued.
    #[must_use]
    pub fn with_reply(mut self, reply: Reply) -> Self {
        self.replies.push(reply);
        self
    }

    /// Parses a script from JSON text.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// One model of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// Name with tag, as clients send it (`llama3.2:3b`). A request for a
    /// name without a tag also finds `NAME:latest`.
    pub name: String,
    /// How long a load takes, in milliseconds.
    #[serde(default)]
    pub load_ms: u64,
    /// The context length the model was trained with (`/api/show`
    /// `model_info`); a larger `num_ctx` is capped to it.
    #[serde(default = "default_context_length")]
    pub context_length: u64,
    /// Capabilities as `/api/show` lists them: `completion`, `tools`,
    /// `thinking`, `vision`, ...
    #[serde(default = "default_capabilities")]
    pub capabilities: Vec<String>,
    /// Size in bytes (`/api/tags`, `/api/ps`).
    #[serde(default = "default_size")]
    pub size: u64,
    /// Bytes in VRAM when loaded; defaults to `size` (fully on the GPU).
    #[serde(default)]
    pub size_vram: Option<u64>,
    /// Whether the model is pulled; `false` makes it pullable via `/api/pull`.
    #[serde(default = "default_true")]
    pub installed: bool,
    /// Per-token delay of replies that set none (echo replies included).
    #[serde(default)]
    pub token_ms: u64,
    /// Prompt-evaluation cost per uncached prompt token, in microseconds.
    #[serde(default)]
    pub prompt_us_per_token: u64,
    /// Model family (`/api/show` details and `model_info` keys).
    #[serde(default = "default_family")]
    pub family: String,
    /// Parameter size as Ollama prints it (`3.2B`).
    #[serde(default = "default_parameter_size")]
    pub parameter_size: String,
    /// Quantization level (`Q4_K_M`).
    #[serde(default = "default_quantization")]
    pub quantization_level: String,
}

fn default_context_length() -> u64 {
    32_768
}
fn default_capabilities() -> Vec<String> {
    vec!["completion".to_owned()]
}
fn default_size() -> u64 {
    2_000_000_000
}
fn default_true() -> bool {
    true
}
fn default_family() -> String {
    "llama".to_owned()
}
fn default_parameter_size() -> String {
    "3.2B".to_owned()
}
fn default_quantization() -> String {
    "Q4_K_M".to_owned()
}

impl ModelSpec {
    /// An installed model with the field defaults: no delays, context length
    /// 32768, capabilities `["completion"]`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            load_ms: 0,
            context_length: default_context_length(),
            capabilities: default_capabilities(),
            size: default_size(),
            size_vram: None,
            installed: true,
            token_ms: 0,
            prompt_us_per_token: 0,
            family: default_family(),
            parameter_size: default_parameter_size(),
            quantization_level: default_quantization(),
        }
    }

    /// Sets the load delay.
    #[must_use]
    pub fn with_load_ms(mut self, ms: u64) -> Self {
        self.load_ms = ms;
        self
    }

    /// Sets the capabilities; `completion` is added when missing.
    #[must_use]
    pub fn with_capabilities(mut self, caps: &[&str]) -> Self {
        self.capabilities = caps.iter().map(|c| (*c).to_owned()).collect();
        if !self.capabilities.iter().any(|c| c == "completion") {
            self.capabilities.insert(0, "completion".to_owned());
        }
        self
    }

    /// Sets the trained context length.
    #[must_use]
    pub fn with_context_length(mut self, n: u64) -> Self {
        self.context_length = n;
        self
    }

    /// Sets the size (and, unless set apart, the VRAM size).
    #[must_use]
    pub fn with_size(mut self, bytes: u64) -> Self {
        self.size = bytes;
        self
    }

    /// Sets how much of the model sits in VRAM (less than `size` = CPU/GPU split).
    #[must_use]
    pub fn with_size_vram(mut self, bytes: u64) -> Self {
        self.size_vram = Some(bytes);
        self
    }

    /// Marks the model installed or merely pullable.
    #[must_use]
    pub fn with_installed(mut self, installed: bool) -> Self {
        self.installed = installed;
        self
    }

    /// Sets the default per-token delay.
    #[must_use]
    pub fn with_token_ms(mut self, ms: u64) -> Self {
        self.token_ms = ms;
        self
    }

    /// Sets the prompt-evaluation cost per uncached token.
    #[must_use]
    pub fn with_prompt_us_per_token(mut self, us: u64) -> Self {
        self.prompt_us_per_token = us;
        self
    }

    /// Sets family, parameter size and quantization level.
    #[must_use]
    pub fn with_details(mut self, family: &str, parameter_size: &str, quant: &str) -> Self {
        family.clone_into(&mut self.family);
        parameter_size.clone_into(&mut self.parameter_size);
        quant.clone_into(&mut self.quantization_level);
        self
    }

    /// Whether the model lists this capability.
    pub fn has_capability(&self, cap: &str) -> bool {
        self.capabilities.iter().any(|c| c == cap)
    }

    /// Bytes in VRAM when loaded.
    pub fn vram(&self) -> u64 {
        self.size_vram.unwrap_or(self.size)
    }
}

/// One scripted reply to a chat request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// Only a request to this model takes the reply (others skip it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Only a request whose last user message contains this text takes the
    /// reply (others skip it): scripts that must not depend on the order
    /// in which an app's background requests (titles, memory) arrive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// Prompt-evaluation delay, overriding the per-token cost of the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_eval_ms: Option<u64>,
    /// Per-token delay, overriding the model's `token_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_ms: Option<u64>,
    /// Thinking text, streamed first when the request's `think` is truthy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// Answer text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Tool calls, after the content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallSpec>,
    /// Deliver the tool calls only on the `done: true` line.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tool_calls_on_done: bool,
    /// Write each line in two pieces cut inside a multi-byte character.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub split_utf8: bool,
    /// A fault to inject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// On the OpenAI-compatible API, send the streamed response's head
    /// before the prompt is evaluated, as llama.cpp's server does (Ollama
    /// holds its head back until the first token, as the simulator does
    /// otherwise): the client then waits through the prompt's evaluation
    /// for the first chunk of the body.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub head_first: bool,
}

impl Reply {
    /// A reply with this answer text.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: Some(content.into()),
            ..Self::default()
        }
    }

    /// A reply that only calls tools.
    pub fn tool_calls(calls: Vec<ToolCallSpec>) -> Self {
        Self {
            tool_calls: calls,
            ..Self::default()
        }
    }

    /// A reply that fails with this HTTP status before any output.
    pub fn status(code: u16) -> Self {
        Self::default().with_fault(Fault::Status(code))
    }

    /// Restricts the reply to one model.
    #[must_use]
    pub fn for_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sends the head before the prompt is evaluated ([`Reply::head_first`]).
    #[must_use]
    pub fn with_head_first(mut self) -> Self {
        self.head_first = true;
        self
    }

    /// Sets the prompt-evaluation delay.
    #[must_use]
    pub fn with_prompt_eval_ms(mut self, ms: u64) -> Self {
        self.prompt_eval_ms = Some(ms);
        self
    }

    /// Sets the per-token delay.
    #[must_use]
    pub fn with_token_ms(mut self, ms: u64) -> Self {
        self.token_ms = Some(ms);
        self
    }

    /// Sets the thinking text.
    #[must_use]
    pub fn with_thinking(mut self, thinking: impl Into<String>) -> Self {
        self.thinking = Some(thinking.into());
        self
    }

    /// Sets the answer text.
    #[must_use]
    pub fn with_content(mut self, content: impl Into<String>) -> Self {
        self.content = Some(content.into());
        self
    }

    /// Adds a tool call.
    #[must_use]
    pub fn with_tool_call(mut self, call: ToolCallSpec) -> Self {
        self.tool_calls.push(call);
        self
    }

    /// Delivers the tool calls only on the done line.
    #[must_use]
    pub fn with_tool_calls_on_done(mut self) -> Self {
        self.tool_calls_on_done = true;
        self
    }

    /// Splits every line inside a multi-byte character.
    #[must_use]
    pub fn with_split_utf8(mut self) -> Self {
        self.split_utf8 = true;
        self
    }

    /// Injects a fault.
    #[must_use]
    pub fn with_fault(mut self, fault: Fault) -> Self {
        self.fault = Some(fault);
        self
    }
}

/// One scripted tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    /// Function name.
    pub name: String,
    /// Arguments, a JSON object as Ollama sends it (not a string).
    #[serde(default = "empty_object")]
    pub arguments: serde_json::Value,
    /// Call id; none is sent when absent (as with many Ollama models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

impl ToolCallSpec {
    /// A call without an id.
    pub fn new(name: impl Into<String>, arguments: serde_json::Value) -> Self {
        Self {
            name: name.into(),
            arguments,
            id: None,
        }
    }

    /// Gives the call an id.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_defaults() {
        let s =
            Script::from_json(r#"{"replies":[{"content":"hi","fault":"drop_after:1"}]}"#).unwrap();
        assert_eq!(s.models, Script::default_models());
        assert_eq!(s.replies[0].fault, Some(Fault::DropAfter(1)));
        let err = Script::from_json(r#"{"replies":[{"fault":"boom"}]}"#).unwrap_err();
        assert!(err.to_string().contains("invalid fault \"boom\""), "{err}");
        let s = Script::from_json(r#"{"models":[{"name":"m"}]}"#).unwrap();
        assert_eq!(s.models, vec![ModelSpec::new("m")]);
    }
}
