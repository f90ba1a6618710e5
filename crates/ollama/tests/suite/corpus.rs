//! Replays the fuzz corpus of the NDJSON reader (fuzz/corpus/ndjson) on
//! stable with the fuzz target's own check: CI replays, it does not fuzz.

#[path = "../../../../fuzz/checks/ndjson.rs"]
mod checks;

#[test]
fn the_ndjson_fuzz_corpus_replays_without_a_crash() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/ndjson");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        checks::check(&std::fs::read(entry.unwrap().path()).unwrap());
        n += 1;
    }
    assert!(n >= 2, "the corpus is in fuzz/corpus/ndjson");
}
