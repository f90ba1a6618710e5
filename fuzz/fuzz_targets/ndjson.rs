//! The NDJSON line splitter (the check is in fuzz/checks/ndjson.rs).
#![no_main]

#[path = "../checks/ndjson.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check(data));
