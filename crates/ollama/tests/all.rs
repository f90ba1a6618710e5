//! The Ollama client and the agent loop against hearth-sim on loopback.
//! One integration binary (docs/style.md §8).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod suite;
mod support;
