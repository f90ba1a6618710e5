//! The output sanitizer and the text-form tool-call reader: any text never
//! panics; sanitizing is idempotent enough not to grow text.
#![no_main]

use hearth_core::sanitize::{sanitize_output, split_thinking};
use hearth_core::textcalls::extract;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let clean = sanitize_output(&text);
    assert!(clean.len() <= text.len());
    let _ = split_thinking(&text);
    let offered = ["read_file".to_owned(), "calculator".to_owned()];
    if let Some((calls, rest)) = extract(&text, &offered) {
        assert!(!calls.is_empty());
        assert!(rest.len() <= text.len());
        assert!(calls.iter().all(|c| offered.contains(&c.name)));
    }
});
