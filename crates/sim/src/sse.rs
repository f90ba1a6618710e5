//! Writing a reply as the OpenAI API does: `chat.completion.chunk` events
//! over server-sent events, or one `chat.completion` object.
//!
//! A stream is: a chunk per token (`reasoning_content` for thinking, then
//! `content`; the first carries `role`), then each tool call in pieces — a
//! first delta with `index`, `id`, `type` and `function.name`, then
//! `function.arguments` fragments of a few characters — then a chunk with
//! `finish_reason` (`tool_calls` or `stop`), then, when the request set
//! `stream_options.include_usage`, a chunk with no choices and `usage`
//! (plus llama.cpp's `timings`), then `data: [DONE]`. Calls scripted
//! `tool_calls_on_done` come whole in the `finish_reason` chunk. A call
//! without a scripted id gets one (OpenAI always sends ids).
//!
//! Faults as in `generate`: `drop_after` closes the socket, `error_after`
//! sends `data: {"error": {...}}` then `[DONE]`, `malformed_after` sends a
//! data line that is not JSON then `[DONE]`, `stall_after` holds the
//! connection, `no_done` ends the body with neither a `finish_reason` nor
//! `[DONE]`, `split_utf8` cuts every event inside a character.

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::fault::Fault;
use crate::generate::{Plan, SPLIT_PAUSE_MS, Timing, split_point, write_line};
use crate::http::{Conn, Gone};
use crate::respond::{Flow, openai_error as error_body};
use crate::wire::{Metrics, OutToolCall};

/// What the request asked of a `/v1` reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct V1Options {
    /// `stream_options.include_usage`.
    pub include_usage: bool,
    /// A number unique to the request, for the completion and call ids.
    pub seq: u64,
}

/// The event `malformed_after` writes: a data line cut off mid-JSON.
const MALFORMED_EVENT: &[u8] = b"data: {\"id\": \"chatcmpl-x\", \"choices\": [{\n\n";

/// Argument fragments are this many characters or fewer.
const FRAGMENT_CHARS: usize = 6;

/// Writes events for one reply.
struct Writer<'a> {
    plan: &'a Plan,
    v1: V1Options,
    created: i64,
    /// The next delta is the first (it carries `role`).
    first: bool,
}

impl Writer<'_> {
    fn chunk(&mut self, mut delta: Value, finish: Option<&str>) -> Vec<u8> {
        if std::mem::take(&mut self.first) {
            delta["role"] = json!("assistant");
        }
        let chunk = json!({
            "id": format!("chatcmpl-sim-{}", self.v1.seq),
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.plan.model,
            "system_fingerprint": "hearth-sim",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        event(&chunk)
    }

    fn call_id(&self, call: &OutToolCall) -> String {
        call.id
            .clone()
            .unwrap_or_else(|| format!("call_{}_{}", self.v1.seq, call.function.index))
    }

    async fn write(&self, conn: &mut Conn, bytes: &[u8]) -> Result<(), Gone> {
        write_line(conn, bytes, self.plan.split_utf8).await
    }
}

/// `data: <json>` and the blank line that ends the event.
fn event(value: &Value) -> Vec<u8> {
    let mut out = b"data: ".to_vec();
    out.extend(serde_json::to_vec(value).unwrap_or_default());
    out.extend_from_slice(b"\n\n");
    out
}

fn created() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The arguments of a call as a JSON string, as the API carries them. A
/// scripted string goes out as it is, so a script can send arguments that
/// are not JSON (small models do).
fn arguments_text(call: &OutToolCall) -> String {
    match &call.function.arguments {
        Value::String(raw) => raw.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// Cuts text into fragments of at most [`FRAGMENT_CHARS`] characters.
fn fragments(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (n, (i, _)) in text.char_indices().enumerate() {
        if n > 0 && n % FRAGMENT_CHARS == 0 {
            out.push(&text[start..i]);
            start = i;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// `usage` as OpenAI counts it (the prompt with its cached part) and
/// llama.cpp's `timings` (the part evaluated).
fn usage(timing: &Timing, metrics: &Metrics) -> Value {
    let ms = |ns: u64| ns as f64 / 1e6;
    let per_second = if metrics.eval_duration > 0 {
        metrics.eval_count as f64 / (metrics.eval_duration as f64 / 1e9)
    } else {
        0.0
    };
    json!({
        "usage": {
            "prompt_tokens": timing.prompt_tokens,
            "completion_tokens": metrics.eval_count,
            "total_tokens": timing.prompt_tokens + metrics.eval_count,
            "prompt_tokens_details": {"cached_tokens": timing.prompt_tokens.saturating_sub(timing.prompt_eval_count)},
        },
        "timings": {
            "prompt_n": timing.prompt_eval_count,
            "prompt_ms": ms(timing.prompt_eval_ns),
            "predicted_n": metrics.eval_count,
            "predicted_ms": ms(metrics.eval_duration),
            "predicted_per_second": per_second,
        },
    })
}

/// Streams the reply as server-sent events (`stream: true`).
pub(crate) async fn stream(
    conn: &mut Conn,
    plan: &Plan,
    timing: &Timing,
    v1: V1Options,
) -> Result<Flow, Gone> {
    conn.set_stream_type("text/event-stream");
    let gen_started = Instant::now();
    let mut w = Writer {
        plan,
        v1,
        created: created(),
        first: true,
    };
    let fault_at = plan.fault_at();
    for (i, (thinking, text)) in plan.tokens().enumerate() {
        if let Some((at, fault)) = fault_at
            && at == i
        {
            return stream_fault(conn, &w, fault).await;
        }
        conn.pause(plan.token_ms).await?;
        let delta = if thinking {
            json!({"reasoning_content": text})
        } else {
            json!({"content": text})
        };
        let bytes = w.chunk(delta, None);
        w.write(conn, &bytes).await?;
    }
    if let Some((at, fault)) = fault_at
        && at == plan.token_count()
    {
        return stream_fault(conn, &w, fault).await;
    }
    if !plan.calls_on_done {
        for call in &plan.calls {
            let index = call.function.index;
            conn.pause(plan.token_ms).await?;
            let head = json!({"tool_calls": [{"index": index, "id": w.call_id(call), "type": "function",
                "function": {"name": call.function.name, "arguments": ""}}]});
            let bytes = w.chunk(head, None);
            w.write(conn, &bytes).await?;
            for piece in fragments(&arguments_text(call)) {
                conn.pause(plan.token_ms).await?;
                let delta =
                    json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]});
                let bytes = w.chunk(delta, None);
                w.write(conn, &bytes).await?;
            }
        }
    }
    if plan.fault == Some(Fault::NoDone) {
        conn.end_stream().await?;
        return Ok(Flow::Next);
    }
    let finish = if plan.calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    let delta = if plan.calls_on_done && !plan.calls.is_empty() {
        let calls: Vec<Value> = plan
            .calls
            .iter()
            .map(|c| {
                json!({"index": c.function.index, "id": w.call_id(c), "type": "function",
                "function": {"name": c.function.name, "arguments": arguments_text(c)}})
            })
            .collect();
        json!({"tool_calls": calls})
    } else {
        json!({})
    };
    let bytes = w.chunk(delta, Some(finish));
    w.write(conn, &bytes).await?;
    if v1.include_usage {
        let metrics = plan.metrics(timing, gen_started);
        let mut last = usage(timing, &metrics);
        last["id"] = json!(format!("chatcmpl-sim-{}", v1.seq));
        last["object"] = json!("chat.completion.chunk");
        last["created"] = json!(w.created);
        last["model"] = json!(plan.model);
        last["choices"] = json!([]);
        w.write(conn, &event(&last)).await?;
    }
    w.write(conn, b"data: [DONE]\n\n").await?;
    conn.end_stream().await?;
    Ok(Flow::Next)
}

async fn stream_fault(conn: &mut Conn, w: &Writer<'_>, fault: Fault) -> Result<Flow, Gone> {
    match fault {
        // Close with no finish_reason, no [DONE], no chunked terminator.
        Fault::DropAfter(_) => Ok(Flow::Close),
        Fault::ErrorAfter(_) => {
            let error: Value = serde_json::from_slice(&error_body(500, "simulated in-band error"))
                .unwrap_or_default();
            w.write(conn, &event(&error)).await?;
            w.write(conn, b"data: [DONE]\n\n").await?;
            conn.end_stream().await?;
            Ok(Flow::Next)
        }
        Fault::MalformedAfter(_) => {
            w.write(conn, MALFORMED_EVENT).await?;
            w.write(conn, b"data: [DONE]\n\n").await?;
            conn.end_stream().await?;
            Ok(Flow::Next)
        }
        Fault::StallAfter(_) => {
            conn.until_gone().await;
            Err(Gone)
        }
        Fault::Status(_) | Fault::NoDone => Ok(Flow::Next),
    }
}

/// Answers the reply as one `chat.completion` object (`stream` false, the
/// API's default). Faults: drop closes without a response, error is a 500,
/// malformed a 200 body that is not JSON, stall waits for the client to
/// leave, no_done answers `finish_reason: null`.
pub(crate) async fn whole(
    conn: &mut Conn,
    plan: &Plan,
    timing: &Timing,
    v1: V1Options,
) -> Result<Flow, Gone> {
    let gen_started = Instant::now();
    let fault_at = plan.fault_at();
    let until = fault_at.map_or(plan.token_count(), |(at, _)| at);
    for _ in 0..until {
        conn.pause(plan.token_ms).await?;
    }
    match fault_at.map(|(_, f)| f) {
        Some(Fault::DropAfter(_)) => return Ok(Flow::Close),
        Some(Fault::ErrorAfter(_)) => {
            conn.respond(
                500,
                "application/json",
                &error_body(500, "simulated in-band error"),
            )
            .await?;
            return Ok(Flow::Next);
        }
        Some(Fault::MalformedAfter(_)) => {
            conn.respond(200, "application/json", &MALFORMED_EVENT[6..])
                .await?;
            return Ok(Flow::Next);
        }
        Some(Fault::StallAfter(_)) => {
            conn.until_gone().await;
            return Err(Gone);
        }
        _ => {}
    }
    let w = Writer {
        plan,
        v1,
        created: created(),
        first: false,
    };
    let mut message = json!({"role": "assistant", "content": plan.content.concat()});
    if !plan.thinking.is_empty() {
        message["reasoning_content"] = json!(plan.thinking.concat());
    }
    if !plan.calls.is_empty() {
        let calls: Vec<Value> = plan
            .calls
            .iter()
            .map(|c| {
                json!({"id": w.call_id(c), "type": "function",
                "function": {"name": c.function.name, "arguments": arguments_text(c)}})
            })
            .collect();
        message["tool_calls"] = json!(calls);
    }
    let finish = match (plan.fault, plan.calls.is_empty()) {
        (Some(Fault::NoDone), _) => Value::Null,
        (_, true) => json!("stop"),
        (_, false) => json!("tool_calls"),
    };
    let metrics = plan.metrics(timing, gen_started);
    let mut body = usage(timing, &metrics);
    body["id"] = json!(format!("chatcmpl-sim-{}", v1.seq));
    body["object"] = json!("chat.completion");
    body["created"] = json!(w.created);
    body["model"] = json!(plan.model);
    body["choices"] =
        json!([{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}]);
    let bytes = serde_json::to_vec(&body).unwrap_or_default();
    let split = plan
        .split_utf8
        .then(|| split_point(&bytes))
        .flatten()
        .map(|at| (at, SPLIT_PAUSE_MS));
    conn.respond_split(200, "application/json", &bytes, split)
        .await?;
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_cut_on_characters() {
        assert_eq!(
            fragments("{\"expression\":\"1+1\"}"),
            vec!["{\"expr", "ession", "\":\"1+1", "\"}"]
        );
        assert_eq!(fragments("héllo🌍wörld").concat(), "héllo🌍wörld");
        assert!(fragments("").is_empty());
    }
}
