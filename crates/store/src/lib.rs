//! Hearth's persistence on SQLite (DESIGN §6): sessions that are never lost.
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
//!
//! Depends on the core for the `SessionStore` trait; never on Tauri or HTTP.

mod db;
mod error;
mod instance;
mod messages;
mod migrate;
mod recovery;
mod runs;
mod sessions;
mod store;

pub use error::StoreError;
pub use migrate::SCHEMA_VERSION;
pub use recovery::OUTCOME_UNKNOWN;
pub use sessions::SessionSummary;
pub use store::{OpenReport, Store};
