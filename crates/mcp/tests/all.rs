//! MCP against real servers no one here wrote (`server-everything` and
//! `server-filesystem` from npm, `mcp-server-time` from PyPI, installed by
//! `scripts/setup.sh --test`), and a scripted stdio server for the
//! failures real servers do not show on demand. One integration binary
//! (docs/style.md §8).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod suite;
mod support;
