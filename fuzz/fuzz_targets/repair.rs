//! Tool-input repair (the check is in fuzz/checks/core.rs).
#![no_main]

// Each target uses one of the shared checks.
#[allow(dead_code)]
#[path = "../checks/core.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::repair(data));
