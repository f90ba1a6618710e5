//! Turning parsed chunks into the core's deltas (pure, no I/O).
//!
//! Text and reasoning pass straight through. Tool calls arrive in pieces
//! keyed by `index` — `id` and `name` first, then argument fragments — and
//! are only whole when the choice's `finish_reason` arrives (or `[DONE]`),
//! so they are collected here and handed on as one `ToolCalls` then. Usage
//! comes last, often in a chunk of its own after the `finish_reason`, so
//! `Done` waits for `[DONE]` (or for the end of a body that had a
//! `finish_reason`).

use std::collections::BTreeMap;

use hearth_core::{DoneInfo, ModelDelta, RawToolCall};
use hearth_protocol::Usage;
use serde_json::Value;

use crate::error::OpenAiError;
use crate::wire::{ChatChunk, Timings, UsageCounts};

/// A tool call being put together.
#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Collects the chunks of one answer.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    calls: BTreeMap<u32, PartialCall>,
    finish_reason: Option<String>,
    usage: Option<UsageCounts>,
    timings: Option<Timings>,
}

impl Assembler {
    /// The deltas of one chunk, or its in-band error.
    pub(crate) fn chunk(&mut self, chunk: ChatChunk) -> Result<Vec<ModelDelta>, OpenAiError> {
        if let Some(message) = chunk.error_message() {
            return Err(OpenAiError::Server {
                status: None,
                message,
            });
        }
        let mut out = Vec::new();
        // Hearth asks for one choice; others (n > 1) are ignored.
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            let d = choice.delta;
            // The calls this chunk wrote to, for progress.
            let mut touched = Vec::new();
            if let Some(t) = d
                .reasoning_content
                .or(d.reasoning)
                .filter(|t| !t.is_empty())
            {
                out.push(ModelDelta::Thinking(t));
            }
            if let Some(t) = d.content.filter(|t| !t.is_empty()) {
                out.push(ModelDelta::Text(t));
            }
            for piece in d.tool_calls {
                let index = match piece.index {
                    Some(i) => i,
                    None => self.index_for(piece.id.as_deref(), piece.function.name.as_deref()),
                };
                let call = self.calls.entry(index).or_default();
                if call.id.is_none() {
                    call.id = piece.id.filter(|id| !id.is_empty());
                }
                // OpenAI sends the name once; some servers repeat it on
                // every piece, so the first one wins.
                if call.name.is_empty()
                    && let Some(name) = piece.function.name
                {
                    call.name = name;
                }
                match piece.function.arguments {
                    Some(Value::String(fragment)) => call.arguments.push_str(&fragment),
                    Some(Value::Null) | None => {}
                    Some(whole) => call.arguments.push_str(&whole.to_string()),
                }
                if !touched.contains(&index) {
                    touched.push(index);
                }
            }
            for index in touched {
                if let Some(call) = self.calls.get(&index).filter(|c| !c.name.is_empty()) {
                    out.push(ModelDelta::ToolCallProgress {
                        name: call.name.clone(),
                        chars: u32::try_from(call.arguments.chars().count()).unwrap_or(u32::MAX),
                    });
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.finish_reason = Some(reason);
                out.extend(self.take_calls());
            }
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        if chunk.timings.is_some() {
            self.timings = chunk.timings;
        }
        Ok(out)
    }

    /// Where a piece without `index` goes. Servers that leave it out send
    /// whole calls, one per chunk or several in one: a piece starts a new
    /// call when its id differs from the last call's, or when it names a
    /// tool while the last call is complete (another tool, or arguments that
    /// already form a JSON object); otherwise it continues the last call.
    fn index_for(&self, id: Option<&str>, name: Option<&str>) -> u32 {
        let Some((&last, call)) = self.calls.iter().next_back() else {
            return 0;
        };
        let new_id = id.is_some_and(|id| !id.is_empty() && call.id.as_deref() != Some(id));
        let complete = serde_json::from_str::<Value>(&call.arguments).is_ok_and(|v| v.is_object());
        let new_name = name.is_some_and(|n| !call.name.is_empty() && (n != call.name || complete));
        if new_id || new_name {
            last.saturating_add(1)
        } else {
            last
        }
    }

    /// `data: [DONE]`: calls not yet handed on, then `Done`.
    pub(crate) fn done(&mut self) -> Vec<ModelDelta> {
        let mut out: Vec<ModelDelta> = self.take_calls().into_iter().collect();
        out.push(ModelDelta::Done(DoneInfo {
            usage: self.usage(),
        }));
        out
    }

    /// The body ended without `[DONE]`: complete when a `finish_reason`
    /// came (some servers skip `[DONE]`), truncated otherwise.
    pub(crate) fn end_of_body(&mut self) -> Result<Vec<ModelDelta>, OpenAiError> {
        if self.finish_reason.is_some() {
            Ok(self.done())
        } else {
            Err(OpenAiError::Truncated)
        }
    }

    fn take_calls(&mut self) -> Option<ModelDelta> {
        if self.calls.is_empty() {
            return None;
        }
        let calls = std::mem::take(&mut self.calls)
            .into_values()
            .map(|c| RawToolCall {
                id: c.id,
                name: c.name,
                arguments: parse_arguments(c.arguments),
            })
            .collect();
        Some(ModelDelta::ToolCalls(calls))
    }

    fn usage(&self) -> Usage {
        let t = self.timings.clone().unwrap_or_default();
        let u = self.usage.clone().unwrap_or_default();
        let count = |f: Option<f64>| f.filter(|n| *n >= 0.0).map(|n| n as u32);
        // The whole prompt, a cached prefix included (as Ollama counts it:
        // the budget calibrates its estimate by it). OpenAI-style usage
        // says so directly; llama.cpp's timings split it into the
        // evaluated part and the cached part.
        let prompt_tokens = u
            .prompt_tokens
            .or(match (count(t.prompt_n), count(t.cache_n)) {
                (Some(n), cached) => Some(n + cached.unwrap_or(0)),
                (None, _) => None,
            });
        // Reused from the cache: said directly (OpenAI's details, newer
        // llama.cpp's `cache_n`), or the whole prompt less what was
        // evaluated (older llama.cpp sends only `prompt_n`).
        let prompt_cached_tokens = u
            .prompt_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens)
            .or(count(t.cache_n))
            .or(match (u.prompt_tokens, count(t.prompt_n)) {
                (Some(all), Some(evaluated)) => Some(all.saturating_sub(evaluated)),
                _ => None,
            });
        let completion_tokens = u.completion_tokens.or(count(t.predicted_n));
        let tokens_per_second = t
            .predicted_per_second
            .or(match (t.predicted_n, t.predicted_ms) {
                (Some(n), Some(ms)) if ms > 0.0 => Some(n / (ms / 1000.0)),
                _ => None,
            });
        Usage {
            prompt_tokens,
            prompt_cached_tokens,
            completion_tokens,
            load_ms: None,
            prompt_eval_ms: t.prompt_ms,
            eval_ms: t.predicted_ms,
            tokens_per_second,
            done_reason: self.finish_reason.clone(),
        }
    }
}

/// The arguments as the core wants them: an object. Empty means none; a
/// JSON string holding an object (double-encoded) is unwrapped; text that is
/// not JSON goes on as a string, so the tool's error tells the model.
pub(crate) fn parse_arguments(raw: String) -> Value {
    if raw.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    match serde_json::from_str::<Value>(&raw) {
        Ok(Value::Null) => Value::Object(serde_json::Map::new()),
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(v @ Value::Object(_)) => v,
            _ => Value::String(raw),
        },
        Ok(v) => v,
        Err(_) => Value::String(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chunk(v: Value) -> ChatChunk {
        serde_json::from_value(v).unwrap()
    }

    fn piece(index: u32, id: Option<&str>, name: Option<&str>, args: &str) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": args}}
        ]}, "finish_reason": null}]})
    }

    #[test]
    fn fragments_of_several_calls_are_put_together_by_index() {
        let mut a = Assembler::default();
        let mut out = Vec::new();
        for v in [
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Let me"}}]}),
            piece(0, Some("call_a"), Some("calculator"), ""),
            piece(0, None, None, "{\"expres"),
            piece(1, Some("call_b"), Some("current_time"), "{}"),
            piece(0, None, None, "sion\": \"1+1\"}"),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 9,
                   "prompt_tokens_details": {"cached_tokens": 40}}}),
        ] {
            out.extend(a.chunk(chunk(v)).unwrap());
        }
        out.extend(a.done());
        // Each fragment told how far its call is (progress for the page).
        let (progress, out): (Vec<_>, Vec<_>) = out
            .into_iter()
            .partition(|d| matches!(d, ModelDelta::ToolCallProgress { .. }));
        let progress: Vec<(String, u32)> = progress
            .into_iter()
            .filter_map(|d| match d {
                ModelDelta::ToolCallProgress { name, chars } => Some((name, chars)),
                _ => None,
            })
            .collect();
        assert_eq!(
            progress,
            vec![
                ("calculator".to_owned(), 0),
                ("calculator".to_owned(), 8),
                ("current_time".to_owned(), 2),
                ("calculator".to_owned(), 21),
            ]
        );
        let calls = vec![
            RawToolCall {
                id: Some("call_a".into()),
                name: "calculator".into(),
                arguments: json!({"expression": "1+1"}),
            },
            RawToolCall {
                id: Some("call_b".into()),
                name: "current_time".into(),
                arguments: json!({}),
            },
        ];
        let ModelDelta::Done(info) = &out[2] else {
            panic!("{out:?}")
        };
        assert_eq!(out[0], ModelDelta::Text("Let me".into()));
        assert_eq!(out[1], ModelDelta::ToolCalls(calls));
        assert_eq!(info.usage.prompt_tokens, Some(50), "the whole prompt");
        assert_eq!(info.usage.completion_tokens, Some(9));
        assert_eq!(info.usage.done_reason.as_deref(), Some("tool_calls"));
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn calls_without_index_one_per_chunk_stay_apart() {
        let mut a = Assembler::default();
        let whole = |id: Option<&str>, name: &str, args: &str| {
            let mut call = serde_json::json!({"type": "function", "function": {"name": name, "arguments": args}});
            if let Some(id) = id {
                call["id"] = serde_json::json!(id);
            }
            chunk(serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}))
        };
        for c in [
            whole(Some("a"), "read", "{\"p\":1}"),
            whole(Some("b"), "read", "{\"p\":2}"),
            whole(None, "read", "{\"p\":3}"),
            whole(None, "time", "{}"),
        ] {
            let out = a.chunk(c).unwrap();
            assert!(
                out.iter()
                    .all(|d| matches!(d, ModelDelta::ToolCallProgress { .. })),
                "{out:?}"
            );
        }
        let out = a.done();
        let ModelDelta::ToolCalls(calls) = &out[0] else {
            panic!("{out:?}")
        };
        let got: Vec<(&str, String)> = calls
            .iter()
            .map(|c| (c.name.as_str(), c.arguments.to_string()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("read", r#"{"p":1}"#.to_owned()),
                ("read", r#"{"p":2}"#.to_owned()),
                ("read", r#"{"p":3}"#.to_owned()),
                ("time", "{}".to_owned())
            ]
        );
    }

    #[test]
    fn calls_without_finish_reason_are_handed_on_at_done() {
        let mut a = Assembler::default();
        a.chunk(chunk(piece(0, Some("x"), Some("t"), "{\"a\":1}")))
            .unwrap();
        let out = a.done();
        assert!(matches!(&out[0], ModelDelta::ToolCalls(c) if c[0].arguments == json!({"a": 1})));
        assert!(matches!(out[1], ModelDelta::Done(_)));
    }

    #[test]
    fn the_cached_part_of_the_prompt_is_read_however_it_is_said() {
        let cached = |body: serde_json::Value| {
            let mut a = Assembler::default();
            a.chunk(chunk(body)).unwrap();
            match a.end_of_body().unwrap().as_slice() {
                [ModelDelta::Done(info)] => info.usage.prompt_cached_tokens,
                other => panic!("{other:?}"),
            }
        };
        let stop = json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]);
        assert_eq!(
            cached(json!({"choices": stop, "usage": {"prompt_tokens": 50,
                "prompt_tokens_details": {"cached_tokens": 40}}})),
            Some(40)
        );
        assert_eq!(
            cached(json!({"choices": stop, "timings": {"prompt_n": 10, "cache_n": 40}})),
            Some(40)
        );
        assert_eq!(
            cached(
                json!({"choices": stop, "usage": {"prompt_tokens": 50, "completion_tokens": 1}})
            ),
            None,
            "not said"
        );
    }

    #[test]
    fn reasoning_timings_and_errors() {
        let mut a = Assembler::default();
        let out = a
            .chunk(chunk(json!({"choices": [{"index": 0, "delta": {"reasoning_content": "hm", "content": "ok"}}]})))
            .unwrap();
        assert_eq!(
            out,
            vec![
                ModelDelta::Thinking("hm".into()),
                ModelDelta::Text("ok".into())
            ]
        );
        a.chunk(chunk(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 4},
            "timings": {"prompt_n": 7, "prompt_ms": 70.0, "predicted_n": 4, "predicted_ms": 200.0}})))
            .unwrap();
        let end = a.end_of_body().unwrap();
        let [ModelDelta::Done(info)] = end.as_slice() else {
            panic!()
        };
        assert_eq!(info.usage.prompt_tokens, Some(30), "the whole prompt");
        assert_eq!(
            info.usage.prompt_cached_tokens,
            Some(23),
            "older llama.cpp: the prompt less what it evaluated"
        );
        assert_eq!(info.usage.tokens_per_second, Some(20.0));
        assert_eq!(info.usage.eval_ms, Some(200.0));

        let err = Assembler::default()
            .chunk(chunk(
                json!({"error": {"message": "boom", "type": "server_error"}}),
            ))
            .unwrap_err();
        assert_eq!(
            err,
            OpenAiError::Server {
                status: None,
                message: "boom".into()
            }
        );
        assert!(matches!(
            Assembler::default().chunk(chunk(json!({"object": "error", "message": "old vllm"}))),
            Err(OpenAiError::Server { .. })
        ));
        assert_eq!(
            Assembler::default().end_of_body().unwrap_err(),
            OpenAiError::Truncated
        );
    }

    #[test]
    fn arguments_that_are_not_json_go_on_as_text() {
        assert_eq!(parse_arguments(String::new()), json!({}));
        assert_eq!(parse_arguments("{\"a\": [1]}".into()), json!({"a": [1]}));
        assert_eq!(
            parse_arguments("\"{\\\"a\\\":1}\"".into()),
            json!({"a": 1}),
            "double-encoded"
        );
        assert_eq!(parse_arguments("{\"a\": 1".into()), json!("{\"a\": 1"));
        // A piece that carries a whole object (some servers) still works.
        let mut a = Assembler::default();
        a.chunk(chunk(
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"function": {"name": "t", "arguments": {"k": "v"}}}]}}]}),
        ))
        .unwrap();
        let out = a.done();
        assert!(matches!(&out[0], ModelDelta::ToolCalls(c) if c[0].arguments == json!({"k": "v"})));
    }
}
