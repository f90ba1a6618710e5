//! The OpenAI-compatible client and the agent loop against hearth-sim's
//! `/v1` API on loopback. One integration binary (docs/style.md §8).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod suite;
mod support;
