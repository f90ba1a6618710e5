//! Hearth's persistence on SQLite (docs/design.md §7): sessions that are never
//! lost.
//!
//! - One connection, owned by one writer thread, off the async executor
//!   ([`db`]); callers await a reply.
//! - WAL, `synchronous = FULL`: a commit survives a killed process and a
//!   power cut.
//! - Versioned migrations next to the tables they change; a `VACUUM INTO`
//!   backup before any upgrade ([`migrate`]).
//! - Append-only messages, each with its parent, so edits and regenerations
//!   make branches; a session's head points at the current branch's tip.
//! - Runs are recorded with the process that owns them; a run whose process
//!   died is repaired at open ([`recovery`]): its checkpointed answer becomes
//!   an interrupted message, and tool calls without a result get an
//!   "outcome unknown" result — never "cancelled".
//! - Branch switching ([`branches`]), full-text search over every branch
//!   ([`search`], FTS5) and Markdown/JSON export ([`export`]).
//! - The text of an untrusted PDF or Excel workbook, read in a child
//!   process with limits ([`reader`]): for attachments and knowledge folders.
//!
//! Depends on the core for the `SessionStore` trait; never on Tauri or HTTP.

mod attachments;
mod branches;
mod clock;
mod consolidate;
mod db;
mod error;
mod export;
mod export_project;
mod extensions;
mod fact;
mod hosts;
mod import;
mod instance;
mod memories;
mod messages;
mod migrate;
mod migration;
mod model_settings;
mod open;
mod pdf_text;
mod private;
mod profiles;
mod projects;
mod reader;
mod recovery;
mod runs;
mod search;
mod session_store;
mod sessions;
mod sheet_text;
mod spans;
mod store;
mod subagents;
mod summaries;
mod unsent;

pub use attachments::{MAX_IMAGE_BYTES, MAX_TEXT_BYTES};
pub use error::{ProfileError, StoreError};
pub use export::{EXPORT_FORMAT, EXPORT_VERSION};
pub use export_project::{PROJECT_EXPORT_FORMAT, PROJECT_EXPORT_VERSION};
pub use fact::{Memory, MemoryVersion, restates, same_fact};
pub use hearth_core::StoredMessage;
pub use hosts::{Host, HostKind, RESERVED_HOSTS};
pub use import::{
    Conversation, ImportReport, ImportSource, MAX_IMPORT_BYTES, parse as parse_import,
};
pub use migrate::SCHEMA_VERSION;
pub use pdf_text::MAX_PDF_BYTES;
pub use profiles::{
    InvalidProfile, ProfileSwitch, Profiles, SEED_MODEL, validate as validate_profile,
};
pub use projects::{
    MAX_PROJECT_INSTRUCTIONS, MAX_PROJECT_NAME, Project, ProjectDraft, ProjectSummary,
};
pub use reader::{
    READ_PDF_FLAG, READ_SHEET_FLAG, pdf_text, run_if_requested as run_reader_if_requested,
    set_reader, set_reader_limits, sheet_text,
};
pub use recovery::OUTCOME_UNKNOWN;
pub use runs::AnswerRun;
pub use search::{MATCH_END, MATCH_START, SearchHit};
pub use sessions::{SessionSummary, UNDO_DAYS};
pub use sheet_text::{MAX_SHEET_BYTES, is_workbook};
pub use spans::{RunTrace, SpanRecord};
pub use store::{OpenReport, Store};
pub use summaries::SummaryRecord;
pub use unsent::MAX_UNSENT_CHARS;
