//! Hearth's client for OpenAI-compatible chat servers — llama.cpp's
//! `llama-server`, LM Studio, vLLM, LocalAI, Ollama's own `/v1` — and the
//! [`OpenAiBackend`] that implements the core's `ModelBackend` over it.
//!
//! The agent loop does not know which server it talks to: a profile names a
//! backend (`Profile::backend`), the front end registers this one under that
//! name (`AgentBuilder::named_backend`), and the core's trait is the seam.
//!
//! Wire rules it obeys (docs/architecture.md, "OpenAI-compatible servers"):
//! - `POST {base}/chat/completions` with `stream: true` and
//!   `stream_options.include_usage`; the reply is server-sent events split on
//!   bytes and decoded per whole line ([`SseSplitter`]), ending with
//!   `data: [DONE]`.
//! - Tool calls arrive in pieces: a first delta with `index`, `id` and
//!   `function.name`, then `function.arguments` fragments. They are put
//!   together by `index` and handed on when `finish_reason` (or `[DONE]`)
//!   arrives; arguments that are not JSON go on as a string, so the core
//!   reports the mistake to the model instead of failing the turn.
//! - Going back, assistant tool calls carry `arguments` as a JSON *string*
//!   and tool results are `role: "tool"` messages with `tool_call_id`.
//! - An `{"error": …}` event is an error, not an end; a body that ends with
//!   neither `[DONE]` nor a `finish_reason` was truncated.
//! - These servers have no load or unload API and no `keep_alive`: preload
//!   and unload are no-ops and the model's load-time options are not sent.
//!   Stop still works the same way: dropping the stream closes the
//!   connection, and the server cancels the generation.
//!
//! Depends on the core for the backend trait; never on the store, Tauri or
//! the Ollama client.

mod assemble;
mod backend;
mod client;
mod error;
mod key;
mod sse;
mod stream;
pub mod wire;

pub use backend::OpenAiBackend;
pub use client::{Client, ClientOptions, DEFAULT_URL, origin, resolve_base_url};
pub use error::OpenAiError;
pub use key::ApiKey;
pub use sse::{MAX_EVENT_BYTES, SseError, SseEvent, SseSplitter};
pub use stream::DeltaStream;
