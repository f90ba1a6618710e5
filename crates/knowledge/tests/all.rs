//! hearth-knowledge on temporary folders and indexes, with hearth-sim as
//! the embedding server. One integration binary (docs/style.md §8).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod suite;
