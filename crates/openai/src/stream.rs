//! A `/chat/completions` event stream as a stream of the core's deltas.
//!
//! Bytes → events ([`SseSplitter`]) → chunks (JSON) → deltas
//! ([`Assembler`]). The wait for the body's first bytes has what is left
//! of the first-byte timeout (llama.cpp sends its head before it reads the
//! prompt), every later read the idle timeout. Ends after
//! `ModelDelta::Done`, or with one typed error: an in-band error event, an
//! event that is not JSON, a dropped connection or an end with neither
//! `[DONE]` nor a `finish_reason`. Dropping it closes the connection, which
//! is how Stop reaches the server (llama.cpp, vLLM and Ollama cancel the
//! generation and keep the model loaded).

use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;

use futures::Stream;
use hearth_core::ModelDelta;

use hearth_http::{ByteStream, Chunk, next_chunk};

use crate::assemble::Assembler;
use crate::error::OpenAiError;
use crate::sse::{SseError, SseEvent, SseSplitter};
use crate::wire::ChatChunk;

/// The deltas of one streamed answer.
pub type DeltaStream = Pin<Box<dyn Stream<Item = Result<ModelDelta, OpenAiError>> + Send>>;

/// Reads whole events from a response body, with an idle timeout.
struct EventReader {
    body: ByteStream,
    sse: SseSplitter,
    /// The wait for the body's first bytes, until they come. llama.cpp's
    /// server sends the response head at once and evaluates the prompt
    /// after it, so on a slow machine the first chunk comes minutes later:
    /// that wait is the first-byte timeout's, as it is where a server holds
    /// the head back until the first token (Ollama), not the idle one's.
    first_wait: Option<Duration>,
    idle_timeout: Duration,
    drained: bool,
}

impl EventReader {
    /// The next event; `None` at the end of the body.
    async fn next(&mut self) -> Option<Result<SseEvent, OpenAiError>> {
        loop {
            if let Some(event) = self.sse.next_event() {
                return Some(event.map_err(sse_error));
            }
            if self.drained {
                return None;
            }
            let first = self.first_wait;
            match next_chunk(&mut self.body, first.unwrap_or(self.idle_timeout)).await {
                Chunk::Idle { seconds } => {
                    return Some(Err(OpenAiError::Timeout {
                        phase: if first.is_some() {
                            "before the first chunk of the answer, while the prompt is read"
                        } else {
                            "between chunks of the answer"
                        },
                        seconds,
                    }));
                }
                Chunk::Bytes(bytes) => {
                    self.first_wait = None;
                    self.sse.push(&bytes);
                }
                // The connection dropped mid-body: the answer broke off.
                Chunk::Dropped => return Some(Err(OpenAiError::Truncated)),
                Chunk::End => {
                    self.drained = true;
                    return self.sse.finish().map(Ok);
                }
            }
        }
    }
}

fn sse_error(e: SseError) -> OpenAiError {
    OpenAiError::Malformed {
        detail: match e {
            SseError::TooLong => "an event longer than the 64 MiB limit".into(),
            SseError::NotUtf8 => "an event that is not UTF-8".into(),
        },
    }
}

/// What one event means.
fn interpret(
    event: SseEvent,
    assembler: &mut Assembler,
) -> Result<(Vec<ModelDelta>, bool), OpenAiError> {
    let data = event.data.trim();
    if event.event.as_deref() == Some("error") {
        let (message, _) = crate::error::error_message(data);
        return Err(OpenAiError::Server {
            status: None,
            message,
        });
    }
    if data == "[DONE]" {
        return Ok((assembler.done(), true));
    }
    // Keep-alive events with no data.
    if data.is_empty() {
        return Ok((Vec::new(), false));
    }
    let chunk: ChatChunk = serde_json::from_str(data).map_err(|e| OpenAiError::Malformed {
        detail: format!("{e} in `{}`", data.chars().take(120).collect::<String>()),
    })?;
    Ok((assembler.chunk(chunk)?, false))
}

struct State {
    reader: EventReader,
    assembler: Assembler,
    queue: VecDeque<Result<ModelDelta, OpenAiError>>,
    finished: bool,
}

/// Wrap an event-stream response body. Yields deltas in order; ends after
/// `Done` or after the first error. `first_wait` bounds the wait for the
/// body's first bytes, `idle_timeout` every wait after them.
pub(crate) fn delta_stream(
    body: ByteStream,
    first_wait: Duration,
    idle_timeout: Duration,
) -> DeltaStream {
    let state = State {
        reader: EventReader {
            body,
            sse: SseSplitter::new(),
            first_wait: Some(first_wait),
            idle_timeout,
            drained: false,
        },
        assembler: Assembler::default(),
        queue: VecDeque::new(),
        finished: false,
    };
    Box::pin(futures::stream::unfold(state, |mut s| async move {
        loop {
            if let Some(item) = s.queue.pop_front() {
                return Some((item, s));
            }
            if s.finished {
                return None;
            }
            let result = match s.reader.next().await {
                Some(Ok(event)) => interpret(event, &mut s.assembler),
                Some(Err(e)) => Err(e),
                None => s.assembler.end_of_body().map(|d| (d, true)),
            };
            match result {
                Ok((deltas, end)) => {
                    s.queue.extend(deltas.into_iter().map(Ok));
                    s.finished = end;
                }
                Err(e) => {
                    s.queue.push_back(Err(e));
                    s.finished = true;
                }
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use futures::StreamExt;
    use hearth_core::RawToolCall;

    use super::*;
    use serde_json::json;

    fn stream_of(chunks: Vec<&'static [u8]>) -> DeltaStream {
        let body = futures::stream::iter(chunks.into_iter().map(|c| Ok(Bytes::from_static(c))));
        delta_stream(
            Box::pin(body),
            Duration::from_secs(5),
            Duration::from_secs(5),
        )
    }

    /// `chunks`, each sent `.0` seconds after the one before it (tokio's
    /// paused clock), read with a first wait of 900 s and an idle one of 60.
    async fn collect_timed(
        chunks: Vec<(u64, &'static [u8])>,
    ) -> Vec<Result<ModelDelta, OpenAiError>> {
        let body = futures::stream::iter(chunks).then(|(after, c)| async move {
            tokio::time::sleep(Duration::from_secs(after)).await;
            Ok(Bytes::from_static(c))
        });
        delta_stream(
            Box::pin(body),
            Duration::from_secs(900),
            Duration::from_secs(60),
        )
        .collect()
        .await
    }

    const A: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n";
    const B: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n\n";

    #[tokio::test(start_paused = true)]
    async fn a_prompt_read_for_minutes_before_the_first_chunk_is_waited_for() {
        // llama.cpp's head comes at once, its first chunk once the prompt is
        // read: five minutes on a slow machine is no stall.
        let got = collect_timed(vec![(300, A), (1, B)]).await;
        assert_eq!(got[0], Ok(ModelDelta::Text("a".into())), "{got:?}");
        assert_eq!(got[1], Ok(ModelDelta::Text("b".into())), "{got:?}");
        assert!(matches!(got[2], Ok(ModelDelta::Done(_))), "{got:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn after_the_first_chunk_a_gap_longer_than_the_idle_timeout_is_a_stall() {
        let got = collect_timed(vec![(300, A), (61, B)]).await;
        assert_eq!(got[0], Ok(ModelDelta::Text("a".into())), "{got:?}");
        assert_eq!(
            got[1],
            Err(OpenAiError::Timeout {
                phase: "between chunks of the answer",
                seconds: 60
            })
        );
        assert_eq!(got.len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn no_first_chunk_within_the_first_wait_is_a_timeout_that_says_so() {
        let got = collect_timed(vec![(901, A)]).await;
        assert_eq!(
            got,
            vec![Err(OpenAiError::Timeout {
                phase: "before the first chunk of the answer, while the prompt is read",
                seconds: 900
            })]
        );
    }

    async fn collect(chunks: Vec<&'static [u8]>) -> Vec<Result<ModelDelta, OpenAiError>> {
        stream_of(chunks).collect().await
    }

    #[tokio::test]
    async fn a_whole_answer_split_anywhere() {
        let got = collect(vec![
            b": ping\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"h\xc3",
            b"\xa9\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"t\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n",
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\r\n\r\n",
            b"data: [DONE]\n\ndata: {\"junk",
        ])
        .await;
        let (progress, got): (Vec<ModelDelta>, Vec<ModelDelta>) = got
            .into_iter()
            .map(Result::unwrap)
            .partition(|d| matches!(d, ModelDelta::ToolCallProgress { .. }));
        // The call's arguments as they grew, for the page's progress line.
        assert_eq!(
            progress,
            vec![
                ModelDelta::ToolCallProgress {
                    name: "t".into(),
                    chars: 4
                },
                ModelDelta::ToolCallProgress {
                    name: "t".into(),
                    chars: 7
                }
            ]
        );
        assert_eq!(got[0], ModelDelta::Text("hé".into()));
        assert_eq!(
            got[1],
            ModelDelta::ToolCalls(vec![RawToolCall {
                id: Some("c".into()),
                name: "t".into(),
                arguments: json!({"a": 1})
            }])
        );
        assert!(matches!(got[2], ModelDelta::Done(_)));
        assert_eq!(got.len(), 3);
    }

    #[tokio::test]
    async fn in_band_errors_malformed_events_and_truncation() {
        let got = collect(vec![
            b"data: {\"choices\":[]}\n\ndata: {\"error\":{\"message\":\"boom\"}}\n\ndata: [DONE]\n\n",
        ])
        .await;
        assert_eq!(
            got,
            vec![Err(OpenAiError::Server {
                status: None,
                message: "boom".into()
            })]
        );
        let got = collect(vec![b"error: {\"code\":500,\"message\":\"slot gone\"}\n\n"]).await;
        assert!(
            matches!(&got[0], Err(OpenAiError::Server { message, .. }) if message == "slot gone"),
            "{got:?}"
        );
        let got = collect(vec![b"data: {\"choices\": [{\n\n"]).await;
        assert!(
            matches!(got[0], Err(OpenAiError::Malformed { .. })),
            "{got:?}"
        );
        let got = collect(vec![
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n",
        ])
        .await;
        assert_eq!(
            got,
            vec![
                Ok(ModelDelta::Text("a".into())),
                Err(OpenAiError::Truncated)
            ]
        );
    }

    #[tokio::test]
    async fn a_finish_reason_without_done_is_a_complete_answer() {
        let got = collect(vec![
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\n",
        ])
        .await;
        assert!(matches!(got[1], Ok(ModelDelta::Done(_))), "{got:?}");
        assert_eq!(got.len(), 2);
    }
}
