//! Tool-input repair: any JSON arguments against any object schema never
//! panic, and a repaired result is always an object.
#![no_main]

use hearth_core::repair::repair_arguments;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // "ARGS\u{0}SCHEMA", or the same text as both.
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
});
