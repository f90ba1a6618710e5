//! MCP servers the user brings (docs/extending.md): their configuration in
//! the `mcpServers` shape other apps use, their lives (started when a
//! profile first needs them, restarted after a crash, stopped with the
//! app), and their tools as Hearth tools. `Speech` drives the speech server
//! (docs/voice.md) through the same tools, called by the app rather than by
//! the model. The official SDK (`rmcp`) is
//! used here and nowhere else, so its next major version touches this
//! crate only.

pub mod apps;
mod command;
pub mod config;
mod hub;
mod listings;
mod log;
mod secrets;
mod server;
mod speech;
mod tool;

pub use command::{CommandError, Resolved, resolve, resolve_with};
pub use config::{ConfigError, ServerConfig, Transport, parse, to_json, valid_name};
pub use hub::Hub;
pub use listings::{Kept, Listings, ServerListing};
pub use secrets::{
    HIDDEN, IN_SECRET_STORE, Secrets, any_in_secret_store, hide_secrets, join_secrets, keep_hidden,
    split_secrets,
};
pub use server::{Server, ServerError, Status};
pub use speech::Speech;
pub use tool::{McpTool, result_text, tool_name};
