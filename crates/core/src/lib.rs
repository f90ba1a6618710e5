//! Hearth's agent core: one turn of the loop from the user's message to the
//! final answer, with tools, stop semantics and per-model load options.
//!
//! It owns the traits that the outer crates implement — [`ModelBackend`]
//! (crates/ollama), [`SessionStore`] (crates/store), [`Tool`] — and must not
//! depend on Tauri, an HTTP client or SQL (`cargo tree -p hearth-core` shows
//! none of them). Decisions are pure functions (`context`, `step`); the async
//! driver (`driver`, `turn`, `tools_exec`) only streams, runs tools, saves
//! and emits.

mod approvals;
mod backend;
pub mod budget;
mod builder;
pub mod compaction;
mod context;
mod driver;
mod error;
mod events;
pub mod guard;
mod handle;
mod ids;
mod loads;
pub mod memory;
mod message;
pub mod pipeline;
pub mod planning;
mod preflight;
mod profile;
pub mod pruning;
pub mod repair;
pub mod rights;
mod run_ctx;
mod run_end;
mod run_support;
mod runaway;
pub mod sanitize;
mod settings;
mod steering;
mod step;
mod store;
mod storm;
mod subagent;
pub mod textcalls;
mod tool;
pub mod tools;
mod tools_exec;
mod turn;
pub mod visible;
pub mod workers;

pub use approvals::{Approvals, DENIED_RESULT};
pub use backend::{
    BackendError, DoneInfo, ModelBackend, ModelDelta, ModelRequest, ModelStream, RawToolCall,
};
pub use builder::AgentBuilder;
pub use compaction::Summary;
pub use context::{MEMORY_HEADING, build_context, order_tool_results, system_prompt};
pub use driver::Agent;
pub use error::RunError;
pub use events::EventSink;
pub use handle::{RunHandle, RunOutcome};
pub use ids::{new_run_id, new_session_id, new_subagent_session_id};
pub use loads::Loads;
pub use memory::{MemorySource, MemoryWriter, PostTurnWorker, WorkerContext};
pub use message::{ChatMessage, MessageStatus, Role, ToolCall};
pub use profile::{Profile, ProfileProvider, StaticProfiles};
pub use settings::{KeepAlive, LoadOptions, ModelSettings};
pub use steering::{QueueError, Queued, SteeringQueue};
pub use step::{BatchMode, CANCELLED_RESULT, Step, batch_mode, next_step};
pub use store::{InMemoryStore, SessionStore, Span, StoreError, SubagentTranscript};
pub use storm::{REFLECT_PROMPT, StormBreaker, Verdict};
pub use tool::{
    Approval, Approver, Question, Tool, ToolContext, ToolEffect, ToolError, ToolRegistry, ToolSpec,
};
