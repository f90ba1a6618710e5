//! Integration tests of the simulator over real loopback sockets: one test
//! binary (docs/style.md §8), suites in `suite/`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod suite;
