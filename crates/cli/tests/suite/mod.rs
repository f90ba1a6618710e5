//! The hearth-cli integration suites, one module per concern (docs/style.md §8).
mod approvals;
pub(crate) mod basics;
mod crash;
mod hooks;
mod hosts;
mod mcp;
mod memory;
mod openai;
mod planning;
mod profiles;
mod rights;
mod runaway;
mod sandbox;
mod search_export;
mod sessions;
mod skills;
mod traces;
mod workers;
