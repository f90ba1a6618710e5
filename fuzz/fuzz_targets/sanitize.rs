//! The sanitizer and text-form tool calls (the check is in
//! fuzz/checks/core.rs).
#![no_main]

// Each target uses one of the shared checks.
#[allow(dead_code)]
#[path = "../checks/core.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::sanitize(data));
