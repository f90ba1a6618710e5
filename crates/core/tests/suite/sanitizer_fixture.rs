//! tests/fixtures/sanitizer.json: what the stored view shows of answers as
//! small models write them (`split_thinking`, then `sanitize_output`, as
//! the desktop app's session view does), and what a run shows of them as
//! they stream (`shown_text.rs`). The UI tests' mock plays the core's part
//! (ui/src/mock/liveSanitize.ts) and the Chromium suite checks the page
//! against the same file, so a change here that the mock does not follow
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

/// The same answers streamed through a run, one character a piece: what
/// the events show (text as shown, reasoning apart) is what the stored
/// view shows, and no raw tag or marker ever goes out.
#[tokio::test]
async fn a_run_shows_each_answer_as_the_stored_view_does() {
    use crate::fake::{FakeBackend, Piece, agent, done, events, text};
    use hearth_core::{Profile, ToolRegistry};
    use hearth_protocol::EventKind;

    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/sanitizer.json");
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for case in fixture["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let input = case["input"].as_str().unwrap();
        let backend = FakeBackend::new();
        let mut pieces: Vec<Piece> = input.chars().map(|c| text(&c.to_string())).collect();
        pieces.push(done());
        backend.push(pieces);
        let (agent, _) = agent(backend, ToolRegistry::new(), Profile::new("A", "m"));
        let evs = events(&mut agent.run_stream("s", "hi")).await;
        let (mut shown, mut thinking) = (String::new(), String::new());
        for e in &evs {
            match &e.kind {
                EventKind::TextDelta { delta } => {
                    shown.push_str(delta);
                    assert!(
                        !delta.contains("<tool_call") && !delta.contains("[System Message]"),
                        "{name}: {delta:?} went out"
                    );
                }
                EventKind::TextReplaced { text } => shown = text.clone(),
                EventKind::ThinkingDelta { delta } => thinking.push_str(delta),
                _ => {}
            }
        }
        assert_eq!(shown, case["output"].as_str().unwrap(), "{name}");
        assert_eq!(
            (!thinking.is_empty()).then(|| thinking.trim().to_owned()),
            case["thinking"].as_str().map(str::to_owned),
            "{name}"
        );
    }
}
