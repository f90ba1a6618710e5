//! Post-turn workers shipped with the core.

pub(crate) mod memory;
mod title;

pub use crate::compaction::CompactionWorker;
pub use memory::{MemoryWorker, parse_facts};
pub use title::{TitleWorker, clean_title};
