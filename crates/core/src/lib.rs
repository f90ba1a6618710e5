//! Hearth's agent core: one run of the loop from the user's message to the
//! final answer, with tools, stop semantics and per-model load options.
//!
//! It owns the traits that the outer crates implement — [`ModelBackend`]
//! (crates/ollama), [`SessionStore`] (crates/store), [`Tool`] — and must not
//! depend on Tauri, an HTTP client or SQL (`cargo tree -p hearth-core` shows
//! none of them). Decisions are pure (`run_state`, `context`, `pipeline`,
//! `batch`, `repeat_guard`); the async driver (`driver`, `model_call`,
//! `tools_exec`) only streams, runs tools, saves and emits.

mod agent;
mod answer_cap;
mod answer_record;
mod approvals;
pub mod attached;
pub mod attachment;
mod backend;
mod backend_slot;
mod batch;
pub mod budget;
mod builder;
pub mod compaction;
mod context;
mod deps;
mod driver;
mod error;
mod events;
pub mod guard;
mod handle;
pub mod hooks;
mod hosts;
mod ids;
mod live;
mod loads;
pub mod memory;
mod message;
mod model_call;
pub mod pipeline;
pub mod planning;
mod preflight;
mod preload;
mod profile;
pub mod pruning;
pub mod repair;
mod repeat_guard;
pub mod rights;
mod run;
mod run_ctx;
mod run_end;
mod run_state;
mod runaway;
mod runs;
pub mod sanitize;
mod settings;
mod shown;
mod shown_text;
mod side;
mod steering;
mod store;
mod subagent;
pub mod summary;
pub mod textcalls;
mod think_tags;
pub mod tokens;
mod tool;
mod tool_servers;
pub mod tools;
mod tools_exec;
mod user_input;
pub mod visible;
pub mod voice;
pub mod workers;
pub mod workflow;
mod workflow_run;

pub use agent::Agent;
pub use approvals::{Approvals, DENIED_RESULT};
pub use attachment::{Attachment, AttachmentKind, Body};
pub use backend::{
    BackendError, DoneInfo, ModelBackend, ModelDelta, ModelRequest, ModelStream, RawToolCall,
};
pub use backend_slot::BackendSlot;
pub use batch::{BatchMode, CANCELLED_RESULT, batch_mode};
pub use builder::AgentBuilder;
pub use context::{MEMORY_HEADING, build_context, order_tool_results, system_prompt};
pub use error::RunError;
pub use error::WorkerError;
pub use events::EventSink;
pub use handle::{RunHandle, RunOutcome};
pub use hearth_protocol::{EventKind, SpanKind};
pub use hosts::{DEFAULT_HOST, Hosts};
pub use ids::{new_run_id, new_session_id, new_subagent_session_id};
pub use live::{Following, LiveRuns, RunLog};
pub use loads::Loads;
pub use memory::{MemorySource, MemoryWriter, NewFact};
pub use message::{ChatMessage, MessageStatus, Role, ToolCall};
pub use profile::{Profile, ProfileProvider, StaticProfiles, Think, ThinkLevel};
pub use repeat_guard::{REFLECT_PROMPT, RepeatGuard, Verdict};
pub use runs::{Enqueued, Runs};
pub use settings::{KeepAlive, LoadOptions, ModelSettings};
pub use side::{ChatPrefix, NO_TOOL_CALLS, side_purpose};
pub use side::{MEMORY_PROMPT, TITLE_PROMPT};
pub use steering::{QueueError, Queued, SteeringQueue};
pub use store::{
    Appended, InMemoryStore, SessionStore, Span, StoreError, StoreFailure, StoredMessage,
    SubagentTranscript,
};
pub use summary::Summary;
pub use tool::{
    Approval, Approver, Offer, Question, Tool, ToolContext, ToolEffect, ToolError, ToolRegistry,
    ToolSource, ToolSpec, Unavailable,
};
pub use user_input::{UserInput, queueable};
pub use workers::{PostTurnWorker, WorkerContext};
