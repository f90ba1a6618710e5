//! The IPC commands, thin adapters over the crates (docs/style.md §3),
//! grouped by what the UI shows. Every one is listed in `bindings.rs` (the
//! generated TypeScript), in `build.rs` (the app manifest that makes
//! capabilities gate it) and granted in `tauri.conf.json`.

pub mod app;
pub mod attachments;
pub mod chat;
pub mod hosts;
pub mod knowledge;
pub mod mcp_apps;
pub mod memory;
pub mod models;
pub mod profiles;
pub mod projects;
pub mod sessions;
pub mod speak;
pub mod tools;
pub mod transfer;
pub mod updates;
pub mod voice;
