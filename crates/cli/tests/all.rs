//! The `hearth` binary against hearth-sim: what a person or a script sees.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod suite;

/// The model every CLI test uses.
pub const MODEL: &str = "m:latest";
