//! Ollama's wire types, written from Ollama's behaviour (its Go structs in
//! `api/types.go`), not imported from the client crate: a bug in the client
//! must not hide behind the same bug here.
//!
//! Owns the `/api/chat` request shape, the response chunk shape (field order
//! and `omitempty` rules as Go writes them) and Go's JSON quirks: HTML
//! characters escaped as `\u003c`, timestamps in RFC 3339 with trailing
//! zeros of the nanoseconds trimmed.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `POST /api/chat` body. Unknown fields are ignored, as Go does.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ChatRequest {
    #[serde(default)]
    pub model: String,
    #[serde(default)]
    pub messages: Vec<Message>,
    #[serde(default)]
    pub tools: Option<Vec<Value>>,
    #[serde(default)]
    pub think: Option<Value>,
    /// Accepted and ignored (the scripted text is what it is).
    #[serde(default)]
    #[allow(dead_code)]
    pub format: Option<Value>,
    #[serde(default)]
    pub options: Option<Map<String, Value>>,
    #[serde(default)]
    pub keep_alive: Option<Value>,
    #[serde(default)]
    pub stream: Option<bool>,
    #[serde(default)]
    pub truncate: Option<bool>,
    /// Per request in Ollama (not a load-time option): accepted, no effect.
    #[serde(default)]
    #[allow(dead_code)]
    pub shift: Option<bool>,
}

/// One message of a chat request.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Message {
    #[serde(default)]
    pub role: String,
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    #[allow(dead_code)]
    pub thinking: Option<String>,
    #[serde(default)]
    pub images: Option<Vec<String>>,
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCall>>,
    #[serde(default)]
    pub tool_name: Option<String>,
    /// Parsed for validation; not rendered (most templates ignore ids).
    #[serde(default)]
    #[allow(dead_code)]
    pub tool_call_id: Option<String>,
}

/// A tool call in a request message. `arguments` must be an object (Go's
/// `map[string]any`): a JSON string there is a 400, as in Ollama.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ToolCall {
    /// Parsed for validation; not rendered (most templates ignore ids).
    #[serde(default)]
    #[allow(dead_code)]
    pub id: Option<String>,
    pub function: ToolCallFunction,
}

/// The function part of a request tool call.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ToolCallFunction {
    #[serde(default)]
    #[allow(dead_code)]
    pub index: Option<i64>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// Reads `think`: a bool or `"low"`/`"medium"`/`"high"`; `Ok(true)` when
/// thinking is asked for. The error text is Ollama's.
pub(crate) fn think_enabled(v: Option<&Value>) -> Result<bool, String> {
    match v {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(s)) if matches!(s.as_str(), "low" | "medium" | "high") => Ok(true),
        Some(other) => Err(format!(
            "invalid think value: {other} (must be \"high\", \"medium\", \"low\", true, or false)"
        )),
    }
}

/// One line of a chat response (a chunk, the done line, a load answer).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ChatResponse<'a> {
    pub model: &'a str,
    pub created_at: String,
    pub message: OutMessage<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub done_reason: Option<&'static str>,
    pub done: bool,
    #[serde(flatten)]
    pub metrics: Metrics,
}

impl<'a> ChatResponse<'a> {
    /// A `done: false` chunk carrying this message.
    pub(crate) fn chunk(model: &'a str, message: OutMessage<'a>) -> Self {
        Self {
            model,
            created_at: now_rfc3339(),
            message,
            done_reason: None,
            done: false,
            metrics: Metrics::default(),
        }
    }
}

/// The assistant message of a response line.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct OutMessage<'a> {
    pub role: &'static str,
    pub content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub tool_calls: &'a [OutToolCall],
}

impl<'a> OutMessage<'a> {
    /// An assistant message with this content.
    pub(crate) fn content(content: &'a str) -> Self {
        Self {
            role: "assistant",
            content,
            ..Self::default()
        }
    }
}

/// A tool call as Ollama writes it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OutToolCall {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub function: OutFunction,
}

/// The function part of a written tool call (`index` always present).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OutFunction {
    pub index: usize,
    pub name: String,
    pub arguments: Value,
}

/// Nanosecond timings and counts of the done line; zeros are omitted, as
/// Go's `omitempty` does.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct Metrics {
    #[serde(skip_serializing_if = "is_zero")]
    pub total_duration: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub load_duration: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub prompt_eval_count: u64,
    /// Of the prompt, the tokens read from the cache (newer Ollama sends
    /// it, zero included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_eval_cached_count: Option<u64>,
    #[serde(skip_serializing_if = "is_zero")]
    pub prompt_eval_duration: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub eval_count: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub eval_duration: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Serializes like Go's `json.Marshal`: compact, with `<`, `>`, `&`, U+2028
/// and U+2029 escaped (they can only occur inside strings, so a plain
/// replacement is exact).
pub(crate) fn go_json<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let text = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    if !text.contains(['<', '>', '&', '\u{2028}', '\u{2029}']) {
        return text.into_bytes();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out.into_bytes()
}

/// One NDJSON line: [`go_json`] plus `\n`.
pub(crate) fn line<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = go_json(value);
    out.push(b'\n');
    out
}

/// `{"error": message}` as Go writes it.
pub(crate) fn error_body(message: &str) -> Vec<u8> {
    go_json(&serde_json::json!({ "error": message }))
}

/// Formats a time like Go's `time.RFC3339Nano` (trailing zeros trimmed).
pub(crate) fn rfc3339<Tz: chrono::TimeZone>(t: &chrono::DateTime<Tz>) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let full = t.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true);
    // full: 2006-01-02T15:04:05.123456789Z (or +07:00)
    let Some(dot) = full.find('.') else {
        return full;
    };
    let tz_at = full[dot..]
        .find(['Z', '+', '-'])
        .map_or(full.len(), |i| dot + i);
    let frac = full[dot + 1..tz_at].trim_end_matches('0');
    if frac.is_empty() {
        format!("{}{}", &full[..dot], &full[tz_at..])
    } else {
        format!("{}.{}{}", &full[..dot], frac, &full[tz_at..])
    }
}

/// Now, UTC, as [`rfc3339`].
pub(crate) fn now_rfc3339() -> String {
    rfc3339(&chrono::Utc::now())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn go_time_format() {
        let t = chrono::Utc
            .with_ymd_and_hms(2024, 5, 1, 12, 0, 0)
            .unwrap()
            .checked_add_signed(chrono::TimeDelta::nanoseconds(123_400_000))
            .unwrap();
        assert_eq!(rfc3339(&t), "2024-05-01T12:00:00.1234Z");
        let t = chrono::Utc.with_ymd_and_hms(2024, 5, 1, 12, 0, 0).unwrap();
        assert_eq!(rfc3339(&t), "2024-05-01T12:00:00Z");
    }

    #[test]
    fn go_json_escapes_html() {
        let v = serde_json::json!({"content": "<b>&</b>"});
        assert_eq!(
            String::from_utf8(go_json(&v)).unwrap(),
            r#"{"content":"\u003cb\u003e\u0026\u003c/b\u003e"}"#
        );
    }

    #[test]
    fn think_values() {
        use serde_json::json;
        assert_eq!(think_enabled(Some(&json!("high"))), Ok(true));
        assert_eq!(think_enabled(Some(&json!(false))), Ok(false));
        assert_eq!(think_enabled(None), Ok(false));
        assert!(think_enabled(Some(&json!("max"))).is_err());
    }
}
