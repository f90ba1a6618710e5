//! The OpenAI-compatible API under `/v1/`, as llama.cpp's server, vLLM, LM
//! Studio and Ollama's own compatibility layer serve it:
//! `POST /v1/chat/completions` and `GET /v1/models`.
//!
//! Owns the `/v1` request shape and its validation, with OpenAI's rules and
//! error texts where a client can get them wrong: `tool_calls[].function.
//! arguments` must be a JSON *string*, a `tool` message needs the
//! `tool_call_id` of a call in the assistant message before it, and every
//! such call needs its answer. A valid request is translated to the
//! simulator's Ollama request (as Ollama's `openai` middleware does) and
//! served by `chat`, so scripted replies, faults, queues, loads and counters
//! are shared by both APIs. Errors are `{"error": {"message", "type",
//! "param", "code"}}`; with a script `api_key`, every `/v1` request without
//! `Authorization: Bearer KEY` is a 401.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::chat::{self, Dialect};
use crate::http::{Conn, Gone, Request};
use crate::respond::{Flow, not_found, reject_openai as reject};
use crate::sse::V1Options;
use crate::state::Shared;
use crate::wire::{ChatRequest, Message, ToolCall, ToolCallFunction};

/// Serves a `/v1/*` request (already recorded).
pub(crate) async fn dispatch(
    shared: &Arc<Shared>,
    conn: &mut Conn,
    req: &Request,
) -> Result<Flow, Gone> {
    if let Some(key) = shared.read(|inner| inner.api_key.clone()) {
        let given = req
            .authorization
            .as_deref()
            .and_then(|h| h.strip_prefix("Bearer "));
        match given {
            None => {
                let message = "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
                return reject(conn, 401, message).await;
            }
            Some(k) if k.trim() != key => {
                return reject(conn, 401, "Incorrect API key provided.").await;
            }
            Some(_) => {}
        }
    }
    match (req.method.as_str(), req.path.as_str()) {
        ("POST", "/v1/chat/completions") => chat_completions(shared, conn, &req.body).await,
        ("GET", "/v1/models") => models(shared, conn).await,
        ("POST", "/v1/embeddings") => {
            crate::embed::handle(shared, conn, &req.body, crate::embed::Wire::OpenAi).await
        }
        _ => not_found(conn).await,
    }
}

/// `GET /v1/models`: the installed models, as Ollama lists them, with the
/// `meta` llama.cpp's server adds (its parameter count).
async fn models(shared: &Arc<Shared>, conn: &mut Conn) -> Result<Flow, Gone> {
    let data: Vec<Value> = shared.read(|inner| {
        inner
            .models
            .iter()
            .filter(|m| m.installed)
            .map(|m| {
                json!({
                    "id": m.name, "object": "model", "created": 1_759_320_000, "owned_by": "library",
                    "meta": {"n_params": crate::api::parameter_count(&m.parameter_size)}
                })
            })
            .collect()
    });
    let body = serde_json::to_vec(&json!({"object": "list", "data": data})).unwrap_or_default();
    conn.respond(200, "application/json", &body).await?;
    Ok(Flow::Next)
}

/// `POST /v1/chat/completions`.
async fn chat_completions(
    shared: &Arc<Shared>,
    conn: &mut Conn,
    body: &[u8],
) -> Result<Flow, Gone> {
    let (req, include_usage) = match parse(body) {
        Ok(parsed) => parsed,
        Err(message) => return reject(conn, 400, &message).await,
    };
    // llama.cpp's server without a vision projector refuses a picture
    // with a 500 and these words (checked against llama-server b6000+
    // with Qwen2.5-Coder); a model scripted with `vision` takes it.
    let sees = shared.read(|inner| {
        inner
            .model(&req.model)
            .is_some_and(|m| m.capabilities.iter().any(|c| c == "vision"))
    });
    if !sees && has_pictures(body) {
        return reject(conn, 500, NO_VISION).await;
    }
    let seq = shared.read(|inner| inner.counters.requests);
    let v1 = V1Options { include_usage, seq };
    chat::serve(shared, conn, req, Dialect::OpenAi(v1)).await
}

/// What llama.cpp's server answers a picture for a model it cannot show
/// one.
pub const NO_VISION: &str = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj";

/// Whether a request body has an `image_url` content part.
fn has_pictures(body: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    v["messages"].as_array().is_some_and(|ms| {
        ms.iter().any(|m| {
            m["content"]
                .as_array()
                .is_some_and(|parts| parts.iter().any(|p| p["type"] == "image_url"))
        })
    })
}

#[derive(Debug, Deserialize)]
struct V1Request {
    #[serde(default)]
    model: String,
    #[serde(default)]
    messages: Option<Vec<V1Message>>,
    #[serde(default)]
    tools: Option<Vec<Value>>,
    /// OpenAI's default is false.
    #[serde(default)]
    stream: Option<bool>,
    #[serde(default)]
    stream_options: Option<V1StreamOptions>,
}

#[derive(Debug, Deserialize)]
struct V1StreamOptions {
    #[serde(default)]
    include_usage: bool,
}

#[derive(Debug, Deserialize)]
struct V1Message {
    #[serde(default)]
    role: String,
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<V1ToolCall>>,
    #[serde(default)]
    tool_call_id: Option<String>,
}

#[derive(Debug, Deserialize)]
struct V1ToolCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: V1Function,
}

#[derive(Debug, Default, Deserialize)]
struct V1Function {
    #[serde(default)]
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// Parses and validates a body; the translated request and whether a usage
/// chunk was asked for, or OpenAI's 400 text.
pub(crate) fn parse(body: &[u8]) -> Result<(ChatRequest, bool), String> {
    let req: V1Request = serde_json::from_slice(body)
        .map_err(|e| format!("We could not parse the JSON body of your request. ({e})"))?;
    if req.model.is_empty() {
        return Err("you must provide a model parameter".to_owned());
    }
    let messages = req
        .messages
        .ok_or_else(|| "Missing required parameter: 'messages'.".to_owned())?;
    if messages.is_empty() {
        return Err("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.".to_owned());
    }
    let messages = translate(&messages)?;
    let out = ChatRequest {
        model: req.model,
        messages,
        tools: req.tools,
        stream: Some(req.stream.unwrap_or(false)),
        ..ChatRequest::default()
    };
    Ok((out, req.stream_options.is_some_and(|o| o.include_usage)))
}

/// Checks the pairing rules and translates the messages.
fn translate(messages: &[V1Message]) -> Result<Vec<Message>, String> {
    let mut out = Vec::with_capacity(messages.len());
    // Calls of the last assistant message still waiting for their result.
    let mut open: HashMap<String, String> = HashMap::new();
    let mut answered_by: Option<usize> = None;
    for (i, m) in messages.iter().enumerate() {
        if m.role != "tool" && !open.is_empty() {
            return Err(unanswered(&open));
        }
        let content = text_of(i, m)?;
        let mut msg = Message {
            role: if m.role == "developer" {
                "system".to_owned()
            } else {
                m.role.clone()
            },
            content,
            ..Message::default()
        };
        match m.role.as_str() {
            "system" | "developer" | "user" => {}
            "assistant" => {
                let mut calls = Vec::new();
                for (j, c) in m.tool_calls.iter().flatten().enumerate() {
                    let id = c.id.clone().filter(|id| !id.is_empty()).ok_or_else(|| {
                        format!("Missing required parameter: 'messages[{i}].tool_calls[{j}].id'.")
                    })?;
                    let Value::String(args) = &c.function.arguments else {
                        return Err(format!(
                            "Invalid type for 'messages[{i}].tool_calls[{j}].function.arguments': expected a string, but got {} instead.",
                            type_name(&c.function.arguments)
                        ));
                    };
                    let arguments = match serde_json::from_str::<Value>(args) {
                        Ok(Value::Object(map)) => map,
                        _ => Map::new(),
                    };
                    open.insert(id.clone(), c.function.name.clone());
                    calls.push(ToolCall {
                        id: Some(id),
                        function: ToolCallFunction {
                            index: None,
                            name: c.function.name.clone(),
                            arguments,
                        },
                    });
                }
                answered_by = Some(i);
                msg.tool_calls = (!calls.is_empty()).then_some(calls);
            }
            "tool" => {
                let id = m.tool_call_id.clone().ok_or_else(|| {
                    format!("Missing required parameter: 'messages[{i}].tool_call_id'.")
                })?;
                let Some(name) = open.remove(&id) else {
                    return Err(if answered_by.is_some() {
                        format!(
                            "Invalid parameter: 'tool_call_id' of '{id}' not found in 'tool_calls' of previous message."
                        )
                    } else {
                        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.".to_owned()
                    });
                };
                msg.tool_name = Some(name);
                msg.tool_call_id = Some(id);
            }
            other => {
                return Err(format!(
                    "Invalid value: '{other}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'."
                ));
            }
        }
        out.push(msg);
    }
    if !open.is_empty() {
        return Err(unanswered(&open));
    }
    Ok(out)
}

fn unanswered(open: &HashMap<String, String>) -> String {
    let mut ids: Vec<&str> = open.keys().map(String::as_str).collect();
    ids.sort_unstable();
    format!(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
        ids.join(", ")
    )
}

/// The text of a message: a string, text parts, or `null` (only for an
/// assistant message that calls tools).
fn text_of(i: usize, m: &V1Message) -> Result<String, String> {
    match &m.content {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => Ok(parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect()),
        None | Some(Value::Null)
            if m.role == "assistant" && m.tool_calls.as_ref().is_some_and(|c| !c.is_empty()) =>
        {
            Ok(String::new())
        }
        Some(other) if !other.is_null() => Err(format!(
            "Invalid type for 'messages[{i}].content': expected one of a string or array of objects, but got {} instead.",
            type_name(other)
        )),
        _ => Err(format!(
            "Invalid value for 'messages[{i}].content': expected a string, got null."
        )),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_err(v: Value) -> String {
        parse(&serde_json::to_vec(&v).unwrap()).unwrap_err()
    }

    #[test]
    fn a_tool_round_trip_translates() {
        let (req, usage) = parse(
            &serde_json::to_vec(&json!({
                "model": "m", "stream": true, "stream_options": {"include_usage": true},
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{\"x\":1}"}}]},
                    {"role": "tool", "tool_call_id": "c1", "content": "2"}
                ]
            }))
            .unwrap(),
        )
        .unwrap();
        assert!(usage);
        assert_eq!(req.stream, Some(true));
        assert_eq!(req.messages[0].content, "hi");
        let calls = req.messages[1].tool_calls.as_ref().unwrap();
        assert_eq!(calls[0].function.arguments["x"], 1);
        assert_eq!(req.messages[2].tool_name.as_deref(), Some("calc"));
    }

    #[test]
    fn the_rules_clients_break_are_400s_with_openai_text() {
        let call = |args: Value| {
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": args}}]})
        };
        let user = json!({"role": "user", "content": "hi"});
        let e = parse_err(
            json!({"model": "m", "messages": [user, call(json!({"x": 1})),
            {"role": "tool", "tool_call_id": "c1", "content": "2"}]}),
        );
        assert!(
            e.contains("expected a string, but got an object instead"),
            "{e}"
        );
        let e = parse_err(json!({"model": "m", "messages": [user, call(json!("{}")), user]}));
        assert!(e.contains("did not have response messages: c1"), "{e}");
        let e = parse_err(json!({"model": "m", "messages": [user,
            {"role": "tool", "tool_call_id": "c9", "content": "2"}]}));
        assert!(
            e.contains("must be a response to a preceeding message"),
            "{e}"
        );
        let e = parse_err(json!({"model": "m", "messages": [user, call(json!("{}")),
            {"role": "tool", "content": "2"}]}));
        assert!(e.contains("'messages[2].tool_call_id'"), "{e}");
        assert!(parse_err(json!({"model": "m", "messages": []})).contains("empty array"));
        assert!(parse_err(json!({"messages": [user]})).contains("model"));
    }
}
