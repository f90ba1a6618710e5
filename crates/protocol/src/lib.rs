//! Hearth's wire format: the events a run emits and the answers front ends
//! send back. Shared by the core, the CLI, the desktop shell and (through
//! generated TypeScript) the web UI.
//!
//! Rules that keep this format stable (docs/style.md §4):
//! - serde internally tagged with `type`, `snake_case` names;
//! - deltas, never accumulated text, so a consumer that joins late can still
//!   render from the stored transcript plus the deltas that follow;
//! - every event carries its [`RunScope`] flat (session, run, and for
//!   sub-agents the parent run and the tool call that spawned it).
//!
//! This crate depends on nothing of Hearth's and on no runtime.

mod command;
mod error;
mod event;
mod guard;
mod memory;
mod message;
mod span;
mod voice;
mod workflow;

pub use command::ApprovalDecision;
pub use error::{ErrorCode, ErrorInfo, Recovery};
pub use event::{AgentEvent, EventKind, RunScope, StopReason, ToolOutcome, Usage};
pub use guard::{GuardMode, GuardSource};
pub use memory::{LearnedFact, MemoryMode};
pub use message::{
    AttachmentKindView, AttachmentView, MessageView, RoleView, StatusView, ToolCallView,
};
pub use span::SpanKind;
pub use voice::{VoiceEvent, VoiceSource, VoiceState};
pub use workflow::{PhaseOutcome, PlanAnswer, PlanChoice, Verdict, WorkflowPhase};

/// Version of this wire format, sent in every `run_started` event. Bumped on
/// any incompatible change so a front end built against another version can
/// say so instead of misreading events. Event kinds are `#[non_exhaustive]`:
/// a new kind is not an incompatible change, and Rust consumers must say
/// what they do with kinds they do not know.
pub const PROTOCOL_VERSION: u32 = 1;
