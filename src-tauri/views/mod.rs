//! The shapes the UI receives and sends. The crates below keep their own
//! types free of UI concerns (no specta there); these mirror them, derive
//! `specta::Type` so `ui/src/bindings.ts` is generated from them, and
//! convert at the edge.

mod chat;
mod knowledge;
mod mcp_apps;
mod projects;
mod settings;
mod snippet;
mod tools;
mod trace;
mod updates;

pub use chat::*;
pub use knowledge::*;
pub use mcp_apps::*;
pub use projects::*;
pub use settings::*;
pub use tools::*;
pub use trace::*;
pub use updates::*;
