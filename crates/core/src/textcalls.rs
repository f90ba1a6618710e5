//! Tool calls written as text (docs/background.md §3.3; small models do
//! this): JSON in the content, `<tool_call>` XML around JSON, fenced JSON,
//! and `[Tool Call: name]` / `[Tool Call: name({…})]`. Only names of tools
//! that were offered count, so an answer that merely shows JSON is left
//! alone.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::backend::RawToolCall;
use crate::sanitize::re;

static XML: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?is)<(?:tool_call|function_call)\b[^>]*>\s*(.*?)\s*</(?:tool_call|function_call)\s*>")
});
static FENCE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?s)```(?:json|tool_call|tool)?[ \t]*\n(.*?)\n?```"));
static BRACKET: LazyLock<Regex> =
    LazyLock::new(|| re(r"\[Tool Call:\s*([A-Za-z0-9_.-]+)\s*(?:\((.*?)\))?\s*\]"));

/// One call out of a JSON value: `{"name", "arguments"|"parameters"|"args"}`,
/// `{"tool", "args"}`, or OpenAI's `{"function": {"name", "arguments"}}`.
fn call_of(v: &Value, offered: &[String]) -> Option<RawToolCall> {
    let v = v.get("function").filter(|f| f.is_object()).unwrap_or(v);
    let name = v.get("name").or_else(|| v.get("tool"))?.as_str()?;
    if !offered.iter().any(|o| o == name) {
        return None;
    }
    let args = ["arguments", "parameters", "args", "input"]
        .iter()
        .find_map(|k| v.get(*k))
        .cloned()
        .unwrap_or(Value::Object(serde_json::Map::new()));
    Some(RawToolCall {
        id: None,
        name: name.to_owned(),
        arguments: args,
    })
}

/// Calls in a JSON text: one object or an array of them.
fn calls_in_json(text: &str, offered: &[String]) -> Vec<RawToolCall> {
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(Value::Array(items)) => items.iter().filter_map(|i| call_of(i, offered)).collect(),
        Ok(v) => call_of(&v, offered).into_iter().collect(),
        Err(_) => Vec::new(),
    }
}

/// The calls written as text in `content`, with the content left once they
/// are taken out; `None` when there are none (or no tools were offered).
pub fn extract(content: &str, offered: &[String]) -> Option<(Vec<RawToolCall>, String)> {
    if offered.is_empty() || content.trim().is_empty() {
        return None;
    }
    // The whole answer is JSON.
    let whole = calls_in_json(content, offered);
    if !whole.is_empty() {
        return Some((whole, String::new()));
    }
    let mut calls = Vec::new();
    let mut rest = content.to_owned();
    for pattern in [&*XML, &*FENCE] {
        let mut found = Vec::new();
        for cap in pattern.captures_iter(&rest) {
            let inner = cap.get(1).map_or("", |m| m.as_str());
            let these = calls_in_json(inner, offered);
            if !these.is_empty() {
                found.push(cap.get(0).map_or(0..0, |m| m.range()));
                calls.extend(these);
            }
        }
        for range in found.into_iter().rev() {
            rest.replace_range(range, "");
        }
    }
    // `[Tool Call: name({...})]`, or `[Tool Call: name]` then a JSON line.
    let mut found: Vec<std::ops::Range<usize>> = Vec::new();
    for cap in BRACKET.captures_iter(&rest) {
        let name = cap.get(1).map_or("", |m| m.as_str());
        if !offered.iter().any(|o| o == name) {
            continue;
        }
        let whole = cap.get(0).map_or(0..0, |m| m.range());
        // A marker inside the JSON line taken by the call before it is
        // part of that call's arguments (a model writing about tool calls).
        if found.last().is_some_and(|prev| whole.start < prev.end) {
            continue;
        }
        let (args, end) = match cap.get(2) {
            Some(a) => (
                serde_json::from_str(a.as_str()).unwrap_or(Value::Null),
                whole.end,
            ),
            None => {
                let after = &rest[whole.end..];
                let line_end = after
                    .trim_start_matches([' ', '\t', '\n'])
                    .find('\n')
                    .map_or(after.len(), |i| {
                        i + (after.len() - after.trim_start_matches([' ', '\t', '\n']).len())
                    });
                match serde_json::from_str::<Value>(after[..line_end].trim()) {
                    Ok(v @ Value::Object(_)) => (v, whole.end + line_end),
                    _ => (Value::Object(serde_json::Map::new()), whole.end),
                }
            }
        };
        found.push(whole.start..end);
        calls.push(RawToolCall {
            id: None,
            name: name.to_owned(),
            arguments: if args.is_null() {
                Value::Object(serde_json::Map::new())
            } else {
                args
            },
        });
    }
    for range in found.into_iter().rev() {
        rest.replace_range(range, "");
    }
    (!calls.is_empty()).then(|| (calls, rest.trim().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn offered() -> Vec<String> {
        vec!["read_file".into(), "calculator".into()]
    }

    fn names(calls: &[RawToolCall]) -> Vec<(&str, Value)> {
        calls
            .iter()
            .map(|c| (c.name.as_str(), c.arguments.clone()))
            .collect()
    }

    #[test]
    fn four_shapes_become_calls() {
        let (c, rest) = extract(
            r#"{"name": "read_file", "arguments": {"path": "a.txt"}}"#,
            &offered(),
        )
        .unwrap();
        assert_eq!(names(&c), [("read_file", json!({"path": "a.txt"}))]);
        assert_eq!(rest, "");

        let (c, rest) = extract(
            "I'll read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}\n</tool_call>",
            &offered(),
        )
        .unwrap();
        assert_eq!(names(&c), [("read_file", json!({"path": "b"}))]);
        assert_eq!(rest, "I'll read it.");

        let (c, _) = extract(
            "```json\n{\"function\": {\"name\": \"calculator\", \"arguments\": \"{\\\"expression\\\": \\\"2+2\\\"}\"}}\n```",
            &offered(),
        )
        .unwrap();
        assert_eq!(c[0].name, "calculator");
        assert_eq!(
            c[0].arguments,
            json!("{\"expression\": \"2+2\"}"),
            "repair parses it later"
        );

        let (c, rest) = extract(
            "[Tool Call: calculator({\"expression\": \"1+1\"})] then",
            &offered(),
        )
        .unwrap();
        assert_eq!(names(&c), [("calculator", json!({"expression": "1+1"}))]);
        assert_eq!(rest, "then");

        let (c, _) = extract("[Tool Call: read_file]\n{\"path\": \"c\"}\n", &offered()).unwrap();
        assert_eq!(names(&c), [("read_file", json!({"path": "c"}))]);
    }

    #[test]
    fn json_that_is_not_a_call_of_an_offered_tool_stays_text() {
        assert!(extract(r#"{"name": "rm_rf", "arguments": {}}"#, &offered()).is_none());
        assert!(extract("```json\n{\"a\": 1}\n```", &offered()).is_none());
        assert!(extract(r#"{"name": "read_file"}"#, &[]).is_none());
        assert!(extract("plain words", &offered()).is_none());
    }

    #[test]
    fn a_marker_inside_the_arguments_of_a_call_is_part_of_them() {
        // A model writing documentation about tool calls: this panicked
        // (overlapping ranges) and killed the run.
        let text = "[Tool Call: read_file]\n{\"path\": \"notes.md\", \"content\": \"Call [Tool Call: read_file] to read a file\"}\nDone.";
        let (c, rest) = extract(text, &offered()).unwrap();
        assert_eq!(
            names(&c),
            [(
                "read_file",
                json!({"path": "notes.md", "content": "Call [Tool Call: read_file] to read a file"})
            )]
        );
        assert_eq!(rest, "Done.");
    }
}
