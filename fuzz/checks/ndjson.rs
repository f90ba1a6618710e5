//! The NDJSON reader's check, shared by the fuzz target and the corpus
//! replay test (crates/ollama/tests/suite/corpus.rs): any bytes, cut into
//! pieces the first byte chooses, never panic, and every line it yields is
//! valid UTF-8 without its newline.

use hearth_ollama::LineSplitter;

pub fn check(data: &[u8]) {
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
}
