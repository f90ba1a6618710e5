//! The NDJSON line splitter: any bytes, cut into any pieces, never panic;
//! every line it yields is valid UTF-8 without its newline.
#![no_main]

use hearth_ollama::LineSplitter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte chooses the piece size, as a network would.
    let Some((&step, body)) = data.split_first() else {
        return;
    };
    let step = usize::from(step % 17) + 1;
    let mut s = LineSplitter::new();
    for piece in body.chunks(step) {
        s.push(piece);
        while let Some(line) = s.next_line() {
            if let Ok(l) = line {
                assert!(!l.contains('\n'));
            }
        }
    }
    let _ = s.remainder();
});
