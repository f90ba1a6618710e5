//! Test suites; `support` is the raw HTTP client they share.

mod api;
mod binary;
mod chat;
mod errors;
mod faults;
mod lifecycle;
mod openai;
mod support;
