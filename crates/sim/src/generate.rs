//! Generation: writing a reply as Ollama does — token chunks (thinking
//! first, then content), tool calls on a chunk of their own or on the done
//! line, the done line with its nanosecond metrics — streamed as NDJSON or
//! as one JSON object, with the scripted faults injected at their token.
//!
//! Called by `chat` once the prompt is evaluated; every token delay races
//! the client's socket, so a close is seen between tokens, not only at the
//! next write.

use tokio::time::Instant;

use crate::fault::Fault;
use crate::http::{Conn, Gone};
use crate::prompt;
use crate::respond::Flow;
use crate::script::Reply;
use crate::state::Shared;
use crate::wire::{self, ChatResponse, Metrics, OutFunction, OutMessage, OutToolCall};

/// Pause between the two pieces of a split line, long enough for them to
/// arrive as separate reads on loopback.
pub(crate) const SPLIT_PAUSE_MS: u64 = 15;

/// The line `malformed_after` writes: the start of a chunk, cut off.
const MALFORMED_LINE: &[u8] = b"{\"model\": \"x\", \"message\": {\n";

/// What to write for one reply.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub model: String,
    pub thinking: Vec<String>,
    pub content: Vec<String>,
    pub calls: Vec<OutToolCall>,
    pub calls_on_done: bool,
    pub token_ms: u64,
    pub split_utf8: bool,
    pub fault: Option<Fault>,
}

/// Timings measured before generation, for the done line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    pub started: Instant,
    pub load_ns: u64,
    /// Tokens of the whole prompt, cached ones included.
    pub prompt_tokens: u64,
    /// Tokens of the prompt that were evaluated (not cached).
    pub prompt_eval_count: u64,
    pub prompt_eval_ns: u64,
}

impl Plan {
    /// The plan for a reply; thinking only when the request asked for it.
    pub(crate) fn new(model: &str, reply: &Reply, think: bool, default_token_ms: u64) -> Self {
        let words = |s: &Option<String>| s.as_deref().map(prompt::tokens).unwrap_or_default();
        Self {
            model: model.to_owned(),
            thinking: if think {
                words(&reply.thinking)
            } else {
                Vec::new()
            },
            content: words(&reply.content),
            calls: reply
                .tool_calls
                .iter()
                .enumerate()
                .map(|(index, c)| OutToolCall {
                    id: c.id.clone(),
                    function: OutFunction {
                        index,
                        name: c.name.clone(),
                        arguments: c.arguments.clone(),
                    },
                })
                .collect(),
            calls_on_done: reply.tool_calls_on_done,
            token_ms: reply.token_ms.unwrap_or(default_token_ms),
            split_utf8: reply.split_utf8,
            fault: reply.fault,
        }
    }

    /// Token lines in order: `(is_thinking, text)`.
    pub(crate) fn tokens(&self) -> impl Iterator<Item = (bool, &str)> {
        let thinking = self.thinking.iter().map(|t| (true, t.as_str()));
        thinking.chain(self.content.iter().map(|t| (false, t.as_str())))
    }

    pub(crate) fn token_count(&self) -> usize {
        self.thinking.len() + self.content.len()
    }

    /// The token after which the fault strikes (capped at the last token).
    pub(crate) fn fault_at(&self) -> Option<(usize, Fault)> {
        let n = match self.fault? {
            Fault::DropAfter(n)
            | Fault::ErrorAfter(n)
            | Fault::MalformedAfter(n)
            | Fault::StallAfter(n) => n,
            Fault::Status(_) | Fault::NoDone => return None,
        };
        self.fault.map(|f| (n.min(self.token_count()), f))
    }

    /// What the model generated, as the prompt template renders it.
    pub(crate) fn rendered_reply(&self) -> String {
        prompt::render_reply(&self.content.concat(), &self.call_pairs())
    }

    pub(crate) fn metrics(&self, timing: &Timing, gen_started: Instant) -> Metrics {
        let call_tokens = if self.calls.is_empty() {
            0
        } else {
            prompt::tokenize(&prompt::render_reply("", &self.call_pairs())).len()
        };
        Metrics {
            total_duration: nanos_since(timing.started),
            load_duration: timing.load_ns,
            // Ollama counts the whole prompt, the cached prefix included
            // (its runner sets `numPromptInputs` before the cache is
            // consulted); the cache shows only in the duration.
            prompt_eval_count: timing.prompt_tokens,
            prompt_eval_cached_count: Some(
                timing
                    .prompt_tokens
                    .saturating_sub(timing.prompt_eval_count),
            ),
            prompt_eval_duration: timing.prompt_eval_ns,
            eval_count: (self.token_count() + call_tokens) as u64,
            eval_duration: nanos_since(gen_started),
        }
    }

    fn call_pairs(&self) -> Vec<(String, serde_json::Value)> {
        self.calls
            .iter()
            .map(|c| (c.function.name.clone(), c.function.arguments.clone()))
            .collect()
    }
}

fn nanos_since(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_nanos())
        .unwrap_or(u64::MAX)
        .max(1)
}

/// Streams the reply as NDJSON (`stream` true, the default).
/// Each token waits for the test's token budget too, if it set one
/// ([`Shared::take_token`](crate::state::Shared::take_token)).
pub(crate) async fn stream(
    conn: &mut Conn,
    plan: &Plan,
    timing: &Timing,
    budget: &Shared,
) -> Result<Flow, Gone> {
    let gen_started = Instant::now();
    let fault_at = plan.fault_at();
    for (i, (thinking, text)) in plan.tokens().enumerate() {
        if let Some((at, fault)) = fault_at
            && at == i
        {
            return stream_fault(conn, plan, fault).await;
        }
        conn.pause(plan.token_ms).await?;
        conn.race(budget.take_token()).await?;
        let message = if thinking {
            OutMessage {
                thinking: Some(text),
                ..OutMessage::content("")
            }
        } else {
            OutMessage::content(text)
        };
        let chunk = ChatResponse::chunk(&plan.model, message);
        write_line(conn, &wire::line(&chunk), plan.split_utf8).await?;
    }
    if let Some((at, fault)) = fault_at
        && at == plan.token_count()
    {
        return stream_fault(conn, plan, fault).await;
    }
    if !plan.calls.is_empty() && !plan.calls_on_done {
        conn.pause(plan.token_ms).await?;
        let message = OutMessage {
            tool_calls: &plan.calls,
            ..OutMessage::content("")
        };
        let chunk = ChatResponse::chunk(&plan.model, message);
        write_line(conn, &wire::line(&chunk), plan.split_utf8).await?;
    }
    if plan.fault == Some(Fault::NoDone) {
        conn.end_stream().await?;
        return Ok(Flow::Next);
    }
    let calls: &[OutToolCall] = if plan.calls_on_done { &plan.calls } else { &[] };
    let mut done = ChatResponse::chunk(
        &plan.model,
        OutMessage {
            tool_calls: calls,
            ..OutMessage::content("")
        },
    );
    done.done = true;
    done.done_reason = Some("stop");
    done.metrics = plan.metrics(timing, gen_started);
    write_line(conn, &wire::line(&done), plan.split_utf8).await?;
    conn.end_stream().await?;
    Ok(Flow::Next)
}

async fn stream_fault(conn: &mut Conn, plan: &Plan, fault: Fault) -> Result<Flow, Gone> {
    match fault {
        // Close without the done line or the chunked terminator.
        Fault::DropAfter(_) => Ok(Flow::Close),
        Fault::ErrorAfter(_) => {
            let line = wire::line(&serde_json::json!({ "error": "simulated in-band error" }));
            write_line(conn, &line, plan.split_utf8).await?;
            conn.end_stream().await?;
            Ok(Flow::Next)
        }
        Fault::MalformedAfter(_) => {
            write_line(conn, MALFORMED_LINE, plan.split_utf8).await?;
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

/// Answers the reply as one JSON object (`stream: false`). Faults: drop
/// closes without a response, error is a 500 `{"error"}`, malformed is a
/// 200 body that is not JSON, stall waits for the client to leave, no_done
/// answers `done: false` without metrics.
pub(crate) async fn whole(conn: &mut Conn, plan: &Plan, timing: &Timing) -> Result<Flow, Gone> {
    let gen_started = Instant::now();
    let fault_at = plan.fault_at();
    let until = fault_at.map_or(plan.token_count(), |(at, _)| at);
    for _ in 0..until {
        conn.pause(plan.token_ms).await?;
    }
    match fault_at.map(|(_, f)| f) {
        Some(Fault::DropAfter(_)) => return Ok(Flow::Close),
        Some(Fault::ErrorAfter(_)) => {
            conn.respond_json(500, &wire::error_body("simulated in-band error"))
                .await?;
            return Ok(Flow::Next);
        }
        Some(Fault::MalformedAfter(_)) => {
            conn.respond_json(200, MALFORMED_LINE).await?;
            return Ok(Flow::Next);
        }
        Some(Fault::StallAfter(_)) => {
            conn.until_gone().await;
            return Err(Gone);
        }
        _ => {}
    }
    let thinking = plan.thinking.concat();
    let content = plan.content.concat();
    let mut resp = ChatResponse::chunk(
        &plan.model,
        OutMessage {
            thinking: (!thinking.is_empty()).then_some(thinking.as_str()),
            tool_calls: &plan.calls,
            ..OutMessage::content(&content)
        },
    );
    if plan.fault != Some(Fault::NoDone) {
        resp.done = true;
        resp.done_reason = Some("stop");
        resp.metrics = plan.metrics(timing, gen_started);
    }
    let body = wire::go_json(&resp);
    let split = plan
        .split_utf8
        .then(|| split_point(&body))
        .flatten()
        .map(|at| (at, SPLIT_PAUSE_MS));
    conn.respond_split(200, "application/json; charset=utf-8", &body, split)
        .await?;
    Ok(Flow::Next)
}

/// Writes one NDJSON line as one chunk, or, when splitting, as two chunks
/// cut inside its first multi-byte character with a pause between them.
pub(crate) async fn write_line(conn: &mut Conn, line: &[u8], split: bool) -> Result<(), Gone> {
    if split && let Some(at) = split_point(line) {
        conn.stream_piece(&line[..at]).await?;
        conn.pause(SPLIT_PAUSE_MS).await?;
        return conn.stream_piece(&line[at..]).await;
    }
    conn.stream_piece(line).await
}

/// One byte into the first multi-byte UTF-8 character, if any.
pub(crate) fn split_point(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b >= 0xC0).map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_point_is_inside_a_character() {
        let line = "{\"c\":\"h\u{e9}llo\"}".as_bytes();
        let at = split_point(line).unwrap();
        assert!(std::str::from_utf8(&line[..at]).is_err());
        assert_eq!(split_point(b"plain ascii"), None);
    }

    #[test]
    fn fault_position_is_capped() {
        let reply = Reply::text("a b c").with_fault(Fault::DropAfter(10));
        let plan = Plan::new("m", &reply, false, 0);
        assert_eq!(plan.fault_at(), Some((3, Fault::DropAfter(10))));
        let plan = Plan::new("m", &Reply::text("a").with_thinking("hm"), false, 0);
        assert_eq!(plan.token_count(), 1);
    }
}
