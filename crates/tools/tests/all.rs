//! hearth-tools integration tests: one binary (docs/style.md §8).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod suite;
