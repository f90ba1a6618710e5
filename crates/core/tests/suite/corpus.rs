//! Replays the fuzz corpora of tool-input repair and the sanitizer
//! (fuzz/corpus/{repair,sanitize}) on stable, with the fuzz targets' own
//! checks: CI replays, it does not fuzz.

use hearth_core::repair::repair_arguments;
use hearth_core::sanitize::{sanitize_output, split_thinking};
use hearth_core::textcalls::extract;

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
    for data in corpus("repair") {
        let text = String::from_utf8_lossy(&data);
        let (args, schema) = text.split_once('\u{0}').unwrap_or((&text, &text));
        let args: serde_json::Value =
            serde_json::from_str(args).unwrap_or(serde_json::Value::String(args.to_owned()));
        let schema: serde_json::Value = serde_json::from_str(schema).unwrap_or_else(|_| {
            serde_json::json!({"type": "object", "properties": {
                "a": {"type": "integer"}, "b": {"type": "array"}, "c": {"type": "object"},
                "d": {"type": "boolean", "default": false}, "e": {"type": "number"}
            }, "required": ["a"]})
        });
        if let Ok(v) = repair_arguments(args, &schema) {
            assert!(v.is_object());
        }
    }
}

#[test]
fn the_sanitizer_fuzz_corpus_replays_without_a_crash() {
    for data in corpus("sanitize") {
        let text = String::from_utf8_lossy(&data);
        let clean = sanitize_output(&text);
        assert!(clean.len() <= text.len());
        let _ = split_thinking(&text);
        let offered = ["read_file".to_owned(), "calculator".to_owned()];
        if let Some((calls, rest)) = extract(&text, &offered) {
            assert!(!calls.is_empty());
            assert!(rest.len() <= text.len());
            assert!(calls.iter().all(|c| offered.contains(&c.name)));
        }
    }
}
