//! A `/api/chat` NDJSON stream as a stream of parsed lines.
//!
//! Ends after the `done` line. An `{"error"}` line, a line that is not JSON,
//! a dropped connection or an end without `done` each end it with a typed
//! error. Dropping it closes the connection, which is how Stop reaches
//! Ollama (it cancels the generation and keeps the model loaded).

use std::pin::Pin;
use std::time::Duration;

use futures::Stream;

use hearth_http::{ByteStream, Chunk, next_chunk};

use crate::error::OllamaError;
use crate::ndjson::{LineError, LineSplitter};
use crate::wire::ChatChunk;

/// Parsed lines of a chat stream.
pub type ChatStream = Pin<Box<dyn Stream<Item = Result<ChatChunk, OllamaError>> + Send>>;

/// Reads whole lines from a response body, with an idle timeout.
pub(crate) struct LineReader {
    body: ByteStream,
    lines: LineSplitter,
    idle_timeout: Duration,
    drained: bool,
}

impl LineReader {
    pub(crate) fn new(body: ByteStream, idle_timeout: Duration) -> Self {
        Self {
            body,
            lines: LineSplitter::new(),
            idle_timeout,
            drained: false,
        }
    }

    /// The next line, given to `parse` without copying; `None` at the end
    /// of the body.
    pub(crate) async fn next<T>(
        &mut self,
        parse: impl FnOnce(&str) -> Result<T, OllamaError>,
    ) -> Option<Result<T, OllamaError>> {
        loop {
            if let Some(line) = self.lines.next_line() {
                return Some(line.map_err(line_error).and_then(parse));
            }
            if self.drained {
                return None;
            }
            match next_chunk(&mut self.body, self.idle_timeout).await {
                Chunk::Idle { seconds } => {
                    return Some(Err(OllamaError::Timeout {
                        phase: "between chunks of the answer",
                        seconds,
                    }));
                }
                Chunk::Bytes(bytes) => self.lines.push(&bytes),
                // The connection dropped mid-body: the answer broke off.
                Chunk::Dropped => return Some(Err(OllamaError::Truncated)),
                Chunk::End => {
                    // A last line without its newline still counts.
                    self.drained = true;
                    self.lines.push(b"\n");
                }
            }
        }
    }
}

/// Parse one line: a chunk, an in-band error, or malformed.
pub(crate) fn parse_line(line: &str) -> Result<ChatChunk, OllamaError> {
    let chunk: ChatChunk = serde_json::from_str(line).map_err(|e| malformed(&e, line))?;
    if let Some(message) = chunk.error {
        return Err(OllamaError::Server {
            status: None,
            message,
        });
    }
    Ok(chunk)
}

fn malformed(e: &serde_json::Error, line: &str) -> OllamaError {
    OllamaError::Malformed {
        detail: format!("{e} in `{}`", line.chars().take(120).collect::<String>()),
    }
}

fn line_error(e: LineError) -> OllamaError {
    OllamaError::Malformed {
        detail: match e {
            LineError::TooLong => "a line longer than the 64 MiB limit".into(),
            LineError::NotUtf8 => "a line that is not UTF-8".into(),
        },
    }
}

/// Wrap a chat response body: ends after `done`, or with an error; a body
/// that ends without `done` ends with [`OllamaError::Truncated`].
pub(crate) fn chat_stream(body: ByteStream, idle_timeout: Duration) -> ChatStream {
    let state = (LineReader::new(body, idle_timeout), false);
    Box::pin(futures::stream::unfold(
        state,
        |(mut reader, finished)| async move {
            if finished {
                return None;
            }
            let item = reader
                .next(parse_line)
                .await
                .unwrap_or(Err(OllamaError::Truncated));
            let finished = !matches!(&item, Ok(chunk) if !chunk.done);
            Some((item, (reader, finished)))
        },
    ))
}

/// Wrap any NDJSON body as JSON values (pull progress); ends with the body
/// or after the first error.
pub(crate) fn ndjson_values(
    body: ByteStream,
    idle_timeout: Duration,
) -> impl Stream<Item = Result<serde_json::Value, OllamaError>> + Send {
    let state = (LineReader::new(body, idle_timeout), false);
    futures::stream::unfold(state, |(mut reader, finished)| async move {
        if finished {
            return None;
        }
        let item = reader
            .next(|l| serde_json::from_str(l).map_err(|e| malformed(&e, l)))
            .await?;
        let finished = item.is_err();
        Some((item, (reader, finished)))
    })
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use futures::StreamExt;

    use super::*;

    fn stream_of(chunks: Vec<&'static [u8]>) -> ChatStream {
        let body = futures::stream::iter(chunks.into_iter().map(|c| Ok(Bytes::from_static(c))));
        chat_stream(Box::pin(body), Duration::from_secs(5))
    }

    async fn collect(s: ChatStream) -> Vec<Result<ChatChunk, OllamaError>> {
        s.collect().await
    }

    /// Lines that arrive `gaps[i]` milliseconds apart (the clock is the
    /// test's paused tokio clock), then the done line.
    fn trickle(gaps: Vec<u64>) -> ByteStream {
        let lines = futures::stream::iter(gaps).then(|ms| async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok::<_, reqwest::Error>(Bytes::from_static(b"{\"done\":false}\n"))
        });
        let done = futures::stream::iter([Ok(Bytes::from_static(b"{\"done\":true}\n"))]);
        lines.chain(done).boxed()
    }

    #[tokio::test(start_paused = true)]
    async fn the_idle_timeout_is_per_gap_not_per_answer() {
        // Twelve gaps of 150 ms: 1.8 s in all, over twice the 700 ms
        // timeout, and no single gap reaches it.
        let idle = Duration::from_millis(700);
        let started = tokio::time::Instant::now();
        let got = collect(chat_stream(trickle(vec![150; 12]), idle)).await;
        assert!(started.elapsed() >= Duration::from_millis(1800));
        assert_eq!(got.len(), 13);
        assert!(got.iter().all(Result::is_ok));
        assert!(got[12].as_ref().unwrap().done);

        // One gap longer than the timeout ends the answer there.
        let got = collect(chat_stream(trickle(vec![150, 150, 800, 150]), idle)).await;
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(
            matches!(got[2], Err(OllamaError::Timeout { .. })),
            "{got:?}"
        );
    }

    #[tokio::test]
    async fn ends_after_done_and_ignores_the_rest() {
        let got = collect(stream_of(vec![
            b"{\"message\":{\"role\":\"assistant\",\"content\":\"h\xc3",
            b"\xa9\"},\"done\":false}\n{\"done\":true,\"eval_count\":2}\n{\"junk",
        ]))
        .await;
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0].as_ref().unwrap().message.as_ref().unwrap().content,
            "hé"
        );
        assert!(got[1].as_ref().unwrap().done);
    }

    #[tokio::test]
    async fn in_band_error_malformed_and_truncation_are_errors() {
        let got = collect(stream_of(vec![b"{\"done\":false}\n{\"error\":\"boom\"}\n"])).await;
        assert_eq!(
            got[1].as_ref().unwrap_err(),
            &OllamaError::Server {
                status: None,
                message: "boom".into()
            }
        );
        assert_eq!(got.len(), 2);
        let got = collect(stream_of(vec![
            b"{\"done\":false}\n{\"model\": \"x\", \"mess\n",
        ]))
        .await;
        assert!(
            matches!(got[1], Err(OllamaError::Malformed { .. })),
            "{got:?}"
        );
        let got = collect(stream_of(vec![b"{\"done\":false}\n"])).await;
        assert_eq!(got[1].as_ref().unwrap_err(), &OllamaError::Truncated);
    }
}
