//! Replays the fuzz corpora of tool-input repair and the sanitizer
//! (fuzz/corpus/{repair,sanitize}) on stable with the fuzz targets' own
//! checks: CI replays, it does not fuzz.

#[path = "../../../../fuzz/checks/core.rs"]
mod checks;

fn corpus(name: &str) -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(name);
    let files: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert!(files.len() >= 2, "the corpus is in {}", dir.display());
    files
}

#[test]
fn the_repair_fuzz_corpus_replays_without_a_crash() {
    corpus("repair").iter().for_each(|d| checks::repair(d));
}

#[test]
fn the_sanitizer_fuzz_corpus_replays_without_a_crash() {
    corpus("sanitize").iter().for_each(|d| checks::sanitize(d));
}
