//! Checks of tool-input repair and of the sanitizer with text-form tool
//! calls, shared by the fuzz targets and the corpus replay test
//! (crates/core/tests/suite/corpus.rs).

use hearth_core::repair::repair_arguments;
use hearth_core::sanitize::{sanitize_output, split_thinking};
use hearth_core::textcalls::extract;

/// Any JSON arguments ("ARGS\0SCHEMA", or the text as both) against any
/// schema: no panic, and a repaired result is an object.
pub fn repair(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
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

/// Any text: no panic; sanitizing never grows it; calls read from text are
/// only of offered tools.
pub fn sanitize(data: &[u8]) {
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
}
