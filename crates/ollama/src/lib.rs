//! Hearth's Ollama client, on reqwest + serde (docs/adr/0001-ollama-client.md
//! says why not ollama-rs), and the [`OllamaBackend`] that implements the
//! core's `ModelBackend` over it.
//!
//! It obeys the wire rules of docs/design.md §6: NDJSON split on bytes and
//! decoded per whole line; in-band `{"error"}` lines are errors; tool calls
//! are collected from every line including the final one; a stream without
//! its `done` line is reported as truncated; `keep_alive` and the model's
//! load-time options go on every request, and `keep_alive: 0` only on
//! [`Client::unload`].
//!
//! Depends on the core for the backend trait; never on the store or Tauri.

mod backend;
mod catalog;
mod client;
mod error;
mod ndjson;
mod stream;
pub mod wire;

pub use backend::OllamaBackend;
pub use catalog::tagged;
pub use client::{Client, ClientOptions, DEFAULT_URL, resolve_base_url};
pub use error::OllamaError;
pub use ndjson::{LineSplitter, MAX_LINE_BYTES};
pub use stream::ChatStream;
