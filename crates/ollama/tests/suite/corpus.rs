//! Replays the fuzz corpus of the NDJSON reader (fuzz/corpus/ndjson) on
//! stable, with the fuzz target's own checks: CI replays, it does not fuzz.

use hearth_ollama::LineSplitter;

#[test]
fn the_ndjson_fuzz_corpus_replays_without_a_crash() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/ndjson");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        n += 1;
        let Some((&step, body)) = data.split_first() else {
            continue;
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
    assert!(n >= 2, "the corpus is in fuzz/corpus/ndjson");
}
