//! tests/fixtures/sanitizer.json: what the stored view shows of answers as
//! small models write them (`split_thinking`, then `sanitize_output`, as
//! the desktop app's session view does). The UI's live view mirrors the
//! sanitizer (ui/src/lib/liveSanitize.ts) and the Chromium suite checks it
//! against the same file, so a change here that the UI does not follow
//! fails one side or the other. `HEARTH_BLESS=1` rewrites the expected
//! values from the sanitizer (then read the diff).

use hearth_core::sanitize::{sanitize_output, split_thinking};
use serde_json::Value;

#[test]
fn the_sanitizer_fixture_is_what_the_sanitizer_does() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/sanitizer.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut fixture: Value = serde_json::from_str(&text).unwrap();
    if std::env::var_os("HEARTH_BLESS").is_some() {
        for case in fixture["cases"].as_array_mut().unwrap() {
            let (thinking, rest) = split_thinking(case["input"].as_str().unwrap());
            case["output"] = Value::from(sanitize_output(&rest));
            case["thinking"] = thinking.map_or(Value::Null, Value::from);
        }
        let blessed = serde_json::to_string_pretty(&fixture).unwrap() + "\n";
        std::fs::write(&path, blessed).unwrap();
    }
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 5, "{}", path.display());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let input = case["input"].as_str().unwrap();
        let (thinking, rest) = split_thinking(input);
        let output = sanitize_output(&rest);
        assert_eq!(
            (case["output"].as_str(), case["thinking"].as_str()),
            (Some(output.as_str()), thinking.as_deref()),
            "{name}: the fixture says (output, thinking) on the left, the sanitizer on the right"
        );
        // Each case has something to clean: the fixture tests the cleaning.
        assert_ne!(output, input, "{name}");
    }
}
